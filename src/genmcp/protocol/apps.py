"""MCP Apps (SEP-1865, the ``io.modelcontextprotocol/ui`` extension): its wire vocabulary.

From the extension text (ext-apps ``specification/2026-01-26/apps.mdx``):

* a UI resource has a ``ui://`` URI and is served as ``text/html;profile=mcp-app``; its
  ``_meta.ui`` (:func:`resource_ui_meta`) carries ``csp`` (``connectDomains``,
  ``resourceDomains``, ``frameDomains``, ``baseUriDomains``: origin lists), ``permissions``
  (``camera``, ``microphone``, ``geolocation``, ``clipboardWrite``: each ``{}``), ``domain``
  (a host-specific dedicated origin) and ``prefersBorder`` (bool);
* a tool links to its view with ``_meta.ui`` = ``{resourceUri?, visibility?}``
  (:func:`tool_ui_meta`), ``visibility`` a non-empty subset of ``["model", "app"]``
  (default both): ``["app"]`` makes an app-only tool the host hides from the model;
* the extension is negotiated in ``capabilities.extensions`` (:data:`UI_EXTENSION`), the
  client's settings naming the ``mimeTypes`` it renders (:func:`client_renders_apps`).

Every check raises ``ValueError`` naming the owner (the class being built).

Pure: no I/O; imports only genmcp.protocol.versions.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Final
from urllib.parse import urlsplit

from genmcp.protocol.versions import META_CLIENT_CAPABILITIES

__all__ = [
    "APP_MIME_TYPE",
    "CSP_KEYS",
    "PERMISSIONS",
    "UI_EXTENSION",
    "UI_SCHEME",
    "VISIBILITIES",
    "client_renders_apps",
    "resource_ui_meta",
    "server_settings",
    "tool_ui_meta",
]

UI_EXTENSION: Final = "io.modelcontextprotocol/ui"
APP_MIME_TYPE: Final = "text/html;profile=mcp-app"
UI_SCHEME: Final = "ui://"
CSP_KEYS: Final = ("connectDomains", "resourceDomains", "frameDomains", "baseUriDomains")
PERMISSIONS: Final = ("camera", "microphone", "geolocation", "clipboardWrite")
VISIBILITIES: Final = ("model", "app")
_CSP_SNAKE: Final = {
    "connect_domains": "connectDomains",
    "resource_domains": "resourceDomains",
    "frame_domains": "frameDomains",
    "base_uri_domains": "baseUriDomains",
}
_PERMISSION_SNAKE: Final = {"clipboard_write": "clipboardWrite"}
_ORIGIN_SCHEMES: Final = ("https", "http", "wss", "ws")
_HOST: Final = re.compile(r"(\*\.)?[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*(:[0-9]{1,5})?")
_DOMAIN: Final = re.compile(r"[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+")


def server_settings() -> dict[str, Any]:
    """The settings a server advertises for the extension: the MIME types it serves."""
    return {"mimeTypes": [APP_MIME_TYPE]}


def client_renders_apps(meta: Mapping[str, Any]) -> bool:
    """True when the request's client capabilities declare the extension with our MIME type."""
    capabilities = meta.get(META_CLIENT_CAPABILITIES)
    extensions = capabilities.get("extensions") if isinstance(capabilities, Mapping) else None
    settings = extensions.get(UI_EXTENSION) if isinstance(extensions, Mapping) else None
    types = settings.get("mimeTypes") if isinstance(settings, Mapping) else None
    return isinstance(types, list) and APP_MIME_TYPE in types


def check_ui_uri(uri: Any, owner: str) -> str:
    """``uri`` when it is a ``ui://`` URI with something after the scheme."""
    if not isinstance(uri, str) or not uri.startswith(UI_SCHEME) or len(uri) == len(UI_SCHEME):
        raise ValueError(f"{owner}: a UI resource URI must start with ui://, not {uri!r}")
    if any(ch.isspace() or ord(ch) < 0x21 for ch in uri):
        raise ValueError(f"{owner}: the UI resource URI {uri!r} has whitespace or controls")
    return uri


def tool_ui_meta(resource_uri: str | None, visibility: Any, owner: str) -> dict[str, Any] | None:
    """A tool's ``_meta.ui``: ``resourceUri`` and ``visibility`` when given, else None."""
    ui: dict[str, Any] = {}
    if resource_uri is not None:
        ui["resourceUri"] = check_ui_uri(resource_uri, owner)
    if visibility is not None:
        if isinstance(visibility, str) or not isinstance(visibility, Sequence):
            raise ValueError(f"{owner}: visibility must be a list such as ['app']")
        seen = list(visibility)
        if not seen or any(v not in VISIBILITIES for v in seen) or len(set(seen)) != len(seen):
            raise ValueError(
                f"{owner}: visibility must be a non-empty list of distinct 'model' and 'app', "
                f"not {visibility!r}"
            )
        ui["visibility"] = seen
    return ui or None


def resource_ui_meta(
    *,
    csp: Mapping[str, Any] | None,
    permissions: Any,
    domain: str | None,
    prefers_border: bool | None,
    owner: str,
) -> dict[str, Any]:
    """A UI resource's ``_meta.ui`` from its options (``{}`` when none is set).

    ``csp`` keys may be the wire names or snake_case (``connect_domains``); ``permissions``
    is a list of names or a mapping of name -> ``{}`` (``clipboard_write`` or
    ``clipboardWrite``).
    """
    ui: dict[str, Any] = {}
    if csp is not None:
        ui["csp"] = _csp(csp, owner)
    if permissions is not None:
        ui["permissions"] = _permissions(permissions, owner)
    if domain is not None:
        if not isinstance(domain, str) or not _DOMAIN.fullmatch(domain):
            raise ValueError(f"{owner}: domain must be a host name such as a.example.com")
        ui["domain"] = domain
    if prefers_border is not None:
        if not isinstance(prefers_border, bool):
            raise ValueError(f"{owner}: prefers_border must be True or False")
        ui["prefersBorder"] = prefers_border
    return ui


def _csp(csp: Mapping[str, Any], owner: str) -> dict[str, list[str]]:
    if not isinstance(csp, Mapping):
        raise ValueError(f"{owner}: csp must be a mapping of {', '.join(CSP_KEYS)}")
    checked: dict[str, list[str]] = {}
    for key, origins in csp.items():
        wire = _CSP_SNAKE.get(key, key)
        if wire not in CSP_KEYS:
            raise ValueError(f"{owner}: unknown csp key {key!r}; known: {', '.join(CSP_KEYS)}")
        if isinstance(origins, str) or not isinstance(origins, Sequence):
            raise ValueError(f"{owner}: csp {wire} must be a list of origins")
        checked[wire] = [_origin(origin, f"{owner}: csp {wire}") for origin in origins]
    return checked


def _origin(origin: Any, where: str) -> str:
    """An origin as CSP source lists take it: ``scheme://host[:port]``, ``*.`` allowed."""
    if not isinstance(origin, str):
        raise ValueError(f"{where}: {origin!r} is not an origin string")
    parts = urlsplit(origin)
    netloc = parts.netloc
    if (
        parts.scheme not in _ORIGIN_SCHEMES
        or not _HOST.fullmatch(netloc)
        or parts.path not in ("", "/")
        or parts.query
        or parts.fragment
        or "'" in origin
    ):
        raise ValueError(
            f"{where}: {origin!r} is not an origin such as https://cdn.example.com "
            "(https/http/wss/ws, a host with an optional *. and port, no path)"
        )
    return origin.rstrip("/")


def _permissions(permissions: Any, owner: str) -> dict[str, dict[str, Any]]:
    names = list(permissions.keys()) if isinstance(permissions, Mapping) else permissions
    if isinstance(names, str) or not isinstance(names, Sequence):
        raise ValueError(f"{owner}: permissions must be a list such as ['camera']")
    checked: dict[str, dict[str, Any]] = {}
    for name in names:
        wire = _PERMISSION_SNAKE.get(name, name)
        if wire not in PERMISSIONS:
            raise ValueError(
                f"{owner}: unknown permission {name!r}; known: {', '.join(PERMISSIONS)}"
            )
        checked[wire] = {}
    return checked
