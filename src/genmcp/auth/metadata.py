"""RFC 9728 Protected Resource Metadata: the document and where it is served.

:func:`metadata_paths` gives the well-known paths for a resource URI: the path-inserted form
(``/.well-known/oauth-protected-resource/mcp`` for ``https://h/mcp``) first, then the root
form. :func:`metadata_url` is the absolute URL put in ``resource_metadata`` challenges.
:func:`metadata_document` builds the JSON bytes once: every value comes from configuration,
never from the request (``Host``/``X-Forwarded-Host``), because the response is publicly
cacheable.

Pure: no asyncio, no web framework.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any, Final
from urllib.parse import urlsplit, urlunsplit

__all__ = ["WELL_KNOWN", "metadata_document", "metadata_paths", "metadata_url"]

WELL_KNOWN: Final = "/.well-known/oauth-protected-resource"


def metadata_paths(resource: str) -> tuple[str, ...]:
    """The path-inserted well-known path (when the resource has a path), then the root one."""
    path = urlsplit(resource).path.rstrip("/")
    return (WELL_KNOWN + path, WELL_KNOWN) if path else (WELL_KNOWN,)


def metadata_url(resource: str) -> str:
    """The absolute URL of the path-inserted metadata document (RFC 9728 §3.1)."""
    parts = urlsplit(resource)
    return urlunsplit((parts.scheme, parts.netloc, metadata_paths(resource)[0], "", ""))


def metadata_document(
    resource: str,
    authorization_servers: Iterable[str],
    *,
    scopes_supported: Iterable[str] = (),
    resource_name: str | None = None,
    resource_documentation: str | None = None,
    dpop_algorithms: Iterable[str] | None = None,
    dpop_bound_required: bool = False,
) -> bytes:
    """The metadata document, encoded once (the same bytes for every request).

    ``dpop_algorithms``: the DPoP proof algorithms taken (``dpop_signing_alg_values_supported``)
    when the resource takes DPoP; ``dpop_bound_required``: it takes DPoP-bound tokens only
    (``dpop_bound_access_tokens_required``, RFC 9728 §2)."""
    servers = list(authorization_servers)
    if not servers:
        raise ValueError("protected resource metadata needs at least one authorization server")
    parts = urlsplit(resource)
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.fragment:
        raise ValueError(f"resource must be an absolute http(s) URI without fragment: {resource!r}")
    document: dict[str, Any] = {
        "resource": resource,
        "authorization_servers": servers,
        "bearer_methods_supported": ["header"],
    }
    scopes = [scope for scope in dict.fromkeys(scopes_supported) if scope != "offline_access"]
    algorithms = None if dpop_algorithms is None else list(dpop_algorithms)
    optional = {  # None: left out of the document
        "scopes_supported": scopes or None,
        "resource_name": resource_name,
        "resource_documentation": resource_documentation,
        "dpop_signing_alg_values_supported": algorithms,
        "dpop_bound_access_tokens_required": dpop_bound_required or None,
    }
    document.update((key, value) for key, value in optional.items() if value is not None)
    return json.dumps(document, separators=(",", ":"), sort_keys=True).encode()
