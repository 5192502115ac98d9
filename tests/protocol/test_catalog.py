"""``protocol.catalog``: the MCP Catalog and AI Catalog documents (SEP-2127 drafts).

genmcp's documents for the servers of the draft's own examples
(tests/support/server_card/catalog, vendored from ``docs/discovery.md``) have the examples'
shape: the same members, ``specVersion`` and entry ``type``; identifiers follow the
``urn:air`` convention (publisher = the card name's namespace in forward DNS); they pass a
schema written from the document's member tables; drafts need ``draft=True``; duplicate
identifiers are refused.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Final

import jsonschema
import pytest

from genmcp.protocol.catalog import (
    AI_CATALOG_PATH,
    MCP_CATALOG_PATH,
    catalog,
    catalog_entry,
    catalog_identifier,
)
from genmcp.protocol.registry import server_card

EXAMPLES: Final = Path(__file__).resolve().parents[1] / "support" / "server_card" / "catalog"
ENTRY: Final = {
    "type": "object",
    "required": ["identifier", "type", "url"],
    "properties": {
        "identifier": {"type": "string", "pattern": "^urn:air:[^:]+(:[^:]+)+$"},
        "type": {"const": "application/mcp-server-card+json"},
        "url": {"type": "string", "format": "uri"},
    },
}
SCHEMA: Final = {  # the member tables of docs/discovery.md (both forms)
    "type": "object",
    "required": ["specVersion", "entries"],
    "properties": {"specVersion": {"type": "string"}, "entries": {"type": "array", "items": ENTRY}},
}


def example(name: str) -> dict[str, Any]:
    found: dict[str, Any] = json.loads((EXAMPLES / name).read_text())
    return found


def name_of(identifier: str) -> str:
    """The Server Card name an identifier was made from (``urn:air:example.com:weather`` ->
    ``com.example/weather``)."""
    segments = identifier.split(":")
    return ".".join(reversed(segments[2].split("."))) + "/" + segments[-1]


def card(name: str, url: str) -> dict[str, Any]:
    return server_card({"name": "s", "version": "1"}, name=name, url=url, draft=True,
                       description="A test server.")


@pytest.mark.parametrize(("form", "stem"), [("mcp", "mcp-catalog"), ("ai", "ai-catalog")])
def test_the_documents_have_the_shape_of_the_drafts_examples(form: Any, stem: str) -> None:
    for number in (1, 2):
        expected = example(f"{stem}-{number}.json")
        cards = [card(name_of(entry["identifier"]), entry["url"].removesuffix("/server-card"))
                 for entry in expected["entries"]]  # fmt: skip
        namespace = "mcp" if form == "ai" else None  # each example's identifier convention
        built = catalog([catalog_entry(c, namespace=namespace) for c in cards], draft=True,
                        form=form)  # fmt: skip
        assert built == expected
        jsonschema.validate(built, SCHEMA, format_checker=jsonschema.FormatChecker())


def test_identifiers_and_entries() -> None:
    assert catalog_identifier("com.example/weather") == "urn:air:example.com:mcp:weather"
    assert catalog_identifier("io.github.ada/notes", None) == "urn:air:ada.github.io:notes"
    with pytest.raises(ValueError, match="reverse-DNS"):
        catalog_identifier("not a name")
    entry = catalog_entry(card("com.example/weather", "https://example.com/mcp/"))
    assert entry["url"] == "https://example.com/mcp/server-card"
    elsewhere = catalog_entry(card("com.example/w", "https://e.com/mcp"), url="https://cdn/w.json")
    assert elsewhere["url"] == "https://cdn/w.json"
    with pytest.raises(ValueError, match="remote"):
        catalog_entry({"name": "com.example/x"})
    assert (MCP_CATALOG_PATH, AI_CATALOG_PATH) == (
        "/.well-known/mcp/catalog.json", "/.well-known/ai-catalog.json")  # fmt: skip


def test_drafts_need_draft_true_and_identifiers_are_unique() -> None:
    entries = [catalog_entry(card("com.example/a", "https://example.com/a/mcp"))]
    with pytest.raises(ValueError, match="draft=True"):
        catalog(entries, draft=False)
    assert catalog([], draft=True) == {"specVersion": "draft", "entries": []}
    with pytest.raises(ValueError, match="share an identifier"):
        catalog(entries * 2, draft=True)
