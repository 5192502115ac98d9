"""Domain discovery documents: the MCP Catalog and the AI Catalog (drafts of SEP-2127).

A catalog, served at a well-known path of a domain, lists the Server Cards of the MCP
servers the domain offers, so a client finds them without prior configuration. The draft
(the ``experimental-ext-server-card`` repository, ``docs/discovery.md``) has had two forms:

* the **MCP Catalog**, ``/.well-known/mcp/catalog.json`` (``specVersion: "draft"``), the
  form the SEP named until 2026-07 (commit ``3b2d974``);
* the **AI Catalog**, ``/.well-known/ai-catalog.json`` (``specVersion: "1.0"``, media type
  :data:`AI_CATALOG_MEDIA_TYPE`), the form the draft names since (commit ``8924e08``).

Their entries are the same: ``identifier`` (``urn:air:{publisher}:{namespace}:{name}``, the
publisher being the forward-DNS form of the card name's reverse-DNS namespace),
``type: application/mcp-server-card+json`` and the card's ``url``. Both are drafts that may
change: building one needs ``draft=True``.

Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final, Literal

from genmcp.protocol.registry import SERVER_CARD_MEDIA_TYPE, SERVER_CARD_PATH, check_registry_name

__all__ = [
    "AI_CATALOG_MEDIA_TYPE",
    "AI_CATALOG_PATH",
    "MCP_CATALOG_PATH",
    "catalog",
    "catalog_entry",
    "catalog_identifier",
]

MCP_CATALOG_PATH: Final = "/.well-known/mcp/catalog.json"
"""Where the MCP Catalog lives on a domain."""
AI_CATALOG_PATH: Final = "/.well-known/ai-catalog.json"
"""Where the AI Catalog lives on a domain."""
AI_CATALOG_MEDIA_TYPE: Final = "application/ai-catalog+json"
"""The media type of an AI Catalog document."""
_VERSIONS: Final = {"mcp": "draft", "ai": "1.0"}
_DRAFT: Final = (
    "the MCP and AI Catalogs are drafts (SEP-2127, modelcontextprotocol/"
    "experimental-ext-server-card docs/discovery.md) and may change: pass draft=True"
)


def catalog_identifier(name: str, namespace: str | None = "mcp") -> str:
    """``urn:air:{publisher}:{namespace}:{suffix}`` for the Server Card named ``name``
    (``com.example/weather`` -> ``urn:air:example.com:mcp:weather``)."""
    prefix, _, suffix = check_registry_name(name).partition("/")
    publisher = ".".join(reversed(prefix.split(".")))
    return ":".join(["urn:air", publisher, *([namespace] if namespace else []), suffix])


def catalog_entry(
    card: Mapping[str, Any], *, url: str | None = None, namespace: str | None = "mcp"
) -> dict[str, Any]:
    """The catalog entry of ``card``: its identifier, the Server Card type and ``url`` (by
    default the reserved location: its first remote's URL plus ``/server-card``)."""
    if url is None:
        remotes = card.get("remotes") or []
        if not remotes or not isinstance(remotes[0].get("url"), str):
            raise ValueError("a catalog entry needs the card's url, or a card with a remote")
        url = remotes[0]["url"].rstrip("/") + SERVER_CARD_PATH
    return {
        "identifier": catalog_identifier(card["name"], namespace),
        "type": SERVER_CARD_MEDIA_TYPE,
        "url": url,
    }


def catalog(
    entries: Iterable[Mapping[str, Any]], *, draft: bool, form: Literal["mcp", "ai"] = "mcp"
) -> dict[str, Any]:
    """The catalog document of ``entries``: the MCP Catalog (``form="mcp"``) or the AI
    Catalog (``"ai"``). Two entries with one identifier are a ``ValueError``."""
    if draft is not True:
        raise ValueError(_DRAFT)
    listed = [dict(entry) for entry in entries]
    identifiers = [entry["identifier"] for entry in listed]
    repeated = sorted({i for i in identifiers if identifiers.count(i) > 1})
    if repeated:
        raise ValueError(f"two catalog entries share an identifier: {', '.join(repeated)}")
    return {"specVersion": _VERSIONS[form], "entries": listed}
