"""A server describing itself: the MCP registry's ``server.json`` and a draft Server Card.

``server.json`` is what a server publishes to the MCP registry (schema
:data:`SERVER_JSON_SCHEMA`): its reverse-DNS ``name``, ``description`` (at most 100
characters), ``version``, optional ``title``, ``icons``, ``websiteUrl``, ``repository``, the
``remotes`` a client connects to and the ``packages`` it can install.

A Server Card (SEP-2127, still a draft: the ``experimental-ext-server-card`` repository,
schema :data:`SERVER_CARD_SCHEMA`) is the same identity plus the remote endpoints and their
protocol versions, fetched before connecting, at ``<streamable-http-url>/server-card`` with
the media type :data:`SERVER_CARD_MEDIA_TYPE`. It may change before it is accepted, so
building one needs ``draft=True``.

Both start from a ``serverInfo`` (``name``, ``version``, ``title``, ``icons``) and refuse,
with a ``ValueError`` that says the fix, what the schemas would refuse.

Pure: ``re`` only; no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final, TypedDict, Unpack

__all__ = [
    "SERVER_CARD_MEDIA_TYPE",
    "SERVER_CARD_PATH",
    "SERVER_CARD_SCHEMA",
    "SERVER_JSON_SCHEMA",
    "Identity",
    "check_registry_name",
    "package",
    "server_card",
    "server_json",
]

SERVER_JSON_SCHEMA: Final = (
    "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"
)
"""The ``$schema`` of a ``server.json`` (the registry's current published schema)."""
SERVER_CARD_SCHEMA: Final = (
    "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json"
)
"""The ``$schema`` of a Server Card (the draft's ``v1``)."""
SERVER_CARD_MEDIA_TYPE: Final = "application/mcp-server-card+json"
"""The media type a Server Card is served and asked for with."""
SERVER_CARD_PATH: Final = "/server-card"
"""The draft's reserved location, appended to the Streamable HTTP endpoint URL."""

_NAME: Final = re.compile(r"[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+")
_URL: Final = re.compile(r"https?://\S+")
_MAX_DESCRIPTION: Final = 100
_DRAFT: Final = (
    "the Server Card is a draft (SEP-2127, modelcontextprotocol/experimental-ext-server-card) "
    "and may change before it is accepted: pass draft=True (genmcp registry card --draft) to "
    "serve it anyway"
)


def check_registry_name(name: str) -> str:
    """``name`` if it is a registry name: ``namespace/server`` in reverse-DNS form
    (``io.github.user/weather``), 3-200 characters; else ``ValueError``."""
    if not (3 <= len(name) <= 200 and _NAME.fullmatch(name)):
        raise ValueError(
            f"registry name {name!r} must be reverse-DNS 'namespace/server' (letters, digits, "
            "'.', '-'; then one '/' and letters, digits, '.', '_', '-'), e.g. "
            "io.github.you/weather"
        )
    return name


def package(
    registry_type: str,
    identifier: str,
    version: str,
    *,
    runtime_hint: str | None = None,
    transport: str = "stdio",
) -> dict[str, Any]:
    """A ``packages`` entry: an installable ``identifier`` at ``version`` from a registry
    (``"pypi"``, ``"npm"``, ``"oci"``, ``"nuget"``...), run over ``transport``."""
    if not identifier or not version or version == "latest":
        raise ValueError(
            f"package {identifier!r}: give the identifier and a fixed version (not 'latest')"
        )
    entry: dict[str, Any] = {
        "registryType": registry_type,
        "identifier": identifier,
        "version": version,
        "transport": {"type": transport},
    }
    if runtime_hint:
        entry["runtimeHint"] = runtime_hint
    return entry


class Identity(TypedDict, total=False):
    """The keywords that describe a server beside its registry name and ``serverInfo``, the
    same in a ``server.json`` and a Server Card (and so in every function that builds one):

    - ``description``: what the server does, at most 100 characters (default: the
      ``serverInfo`` description).
    - ``repository``: ``{"url", "source"}`` (and ``id``, ``subfolder``).
    - ``website_url``: the server's home page.
    """

    description: str | None
    repository: Mapping[str, Any] | None
    website_url: str | None


def _identity(
    server_info: Mapping[str, Any], name: str, identity: Identity, where: str
) -> dict[str, Any]:
    unknown = sorted(identity.keys() - Identity.__optional_keys__)
    if unknown:  # as Python refuses a keyword a signature does not name
        raise TypeError(f"{where}() got an unexpected keyword argument {unknown[0]!r}")
    description = identity.get("description")
    repository, website_url = identity.get("repository"), identity.get("website_url")
    text = description if description is not None else server_info.get("description")
    if not isinstance(text, str) or not 1 <= len(text) <= _MAX_DESCRIPTION:
        raise ValueError(
            f"give a description of 1-{_MAX_DESCRIPTION} characters (what the server does), "
            f"not {text!r}"
        )
    version = server_info.get("version")
    if not isinstance(version, str) or not version:
        raise ValueError("serverInfo has no version: give the Suite a server_version")
    document: dict[str, Any] = {
        "name": check_registry_name(name),
        "description": text,
        "version": version,
    }
    title = server_info.get("title")
    if isinstance(title, str) and title:
        document["title"] = title[:100]
    if website_url is not None:
        document["websiteUrl"] = _checked_url(website_url, "website URL")
    if repository is not None:
        if not {"url", "source"} <= set(repository):
            raise ValueError(
                "a repository needs url and source, e.g. {'url': ..., 'source': 'github'}"
            )
        document["repository"] = dict(repository)
    icons = [dict(icon) for icon in server_info.get("icons", ()) if _https(icon.get("src"))]
    if icons:
        document["icons"] = icons  # the registry takes HTTPS icons only
    return document


def _https(src: object) -> bool:
    return isinstance(src, str) and src.startswith("https://") and len(src) <= 255


def _checked_url(url: str, what: str) -> str:
    if not _URL.fullmatch(url):
        raise ValueError(f"the {what} must be an http(s):// URL, not {url!r}")
    return url


def server_json(
    server_info: Mapping[str, Any],
    *,
    name: str,
    url: str | None = None,
    packages: Iterable[Mapping[str, Any]] = (),
    **identity: Unpack[Identity],
) -> dict[str, Any]:
    """The ``server.json`` of a server whose ``serverInfo`` is ``server_info``.

    Args:
        server_info: ``name``, ``version`` and the optional ``title``, ``description``,
            ``icons`` (``Suite.server_info``).
        name: the registry name, ``io.github.you/weather``.
        url: the Streamable HTTP endpoint clients connect to (a ``remotes`` entry).
        packages: entries built with :func:`package`.
        identity: ``description``, ``repository``, ``website_url``: see :class:`Identity`.
    """
    document: dict[str, Any] = {"$schema": SERVER_JSON_SCHEMA}
    document.update(_identity(server_info, name, identity, "server_json"))
    if url is not None:
        document["remotes"] = [{"type": "streamable-http", "url": _checked_url(url, "URL")}]
    listed = [dict(entry) for entry in packages]
    if listed:
        document["packages"] = listed
    return document


def server_card(
    server_info: Mapping[str, Any],
    *,
    name: str,
    url: str,
    draft: bool,
    protocol_versions: Sequence[str] = (),
    **identity: Unpack[Identity],
) -> dict[str, Any]:
    """A Server Card per the current SEP-2127 draft (``draft=True`` says you know it is one).

    Args are those of :func:`server_json`, plus ``url`` (the Streamable HTTP endpoint,
    required: a card describes a remote server) and ``protocol_versions`` (the revisions
    that endpoint speaks, as ``server/discover`` lists them).
    """
    if draft is not True:
        raise ValueError(_DRAFT)
    card: dict[str, Any] = {"$schema": SERVER_CARD_SCHEMA}
    card.update(_identity(server_info, name, identity, "server_card"))
    remote: dict[str, Any] = {"type": "streamable-http", "url": _checked_url(url, "URL")}
    if protocol_versions:
        remote["supportedProtocolVersions"] = list(protocol_versions)
    card["remotes"] = [remote]
    return card
