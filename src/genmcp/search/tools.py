"""The two tools a ``CatalogSearch`` serves: ``search_tools`` and ``describe_tools``.

``search_tools`` takes ``query`` (words: a tool's purpose, a name, an argument), an optional
``limit`` and ``kinds`` (``["tool"]``, ``["prompt"]``, ``["resource", "resource_template"]``;
every kind searched by default); its structured result is ``{"hits": [...]}``, each hit a
kind, a name, a title when there is one, a short description and a score (a resource's
``uri``, a template's ``uriTemplate``). ``describe_tools`` takes ``names`` (and
``kind``, ``"tool"`` by default) and gives their full definitions, as listed, with the names
it does not know (or the caller may not see) under ``unknown``. Both answer with structured
content and its JSON text, and are named by the ``CatalogSearch`` that serves them.

Imports genmcp's tool base; the search itself is ``genmcp.search.catalog``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, Final

from genmcp.channel import Channel
from genmcp.outcomes import Result
from genmcp.protocol.content import call_tool_result
from genmcp.tools import Tool, ToolRequest

CatalogSearch = Any
"""The ``arg`` of both tools: the ``genmcp.search.catalog.CatalogSearch`` serving them (not
imported: it imports this module)."""

__all__ = ["DescribeTools", "SearchTools"]

MAX_NAMES: Final = 50
"""The most names one ``describe_tools`` call loads."""
_READ_ONLY: Final = {"readOnlyHint": True, "idempotentHint": True, "openWorldHint": False}


def _closed(required: str, **properties: Any) -> dict[str, Any]:
    """The input schema of both tools: an object of these properties and no others, one of
    them required."""
    return {
        "type": "object",
        "properties": properties,
        "required": [required],
        "additionalProperties": False,
    }


class _CatalogTool(Tool, annotations=_READ_ONLY):
    """What both tools share: named by the ``CatalogSearch`` serving them (its attribute
    ``named_by``), read-only, answering with structured content and its JSON text."""

    named_by: ClassVar[str]

    def info(self, key: str, arg: CatalogSearch) -> Any:
        return getattr(arg, self.named_by) if key == "name" else super().info(key, arg)

    async def call(self, request: ToolRequest, channel: Channel, arg: CatalogSearch) -> Result:
        structured = await self.answer(request.arguments, channel, arg)
        return Result(call_tool_result(structured=structured))

    async def answer(
        self, arguments: Mapping[str, Any], channel: Channel, arg: CatalogSearch
    ) -> dict[str, Any]:
        """The structured result for ``arguments``."""
        raise NotImplementedError


class SearchTools(
    _CatalogTool,
    description=(
        "Search this server's tools (and prompts) by words: what a tool does, its name or "
        "its arguments. Returns the best matches (name and a short description); load "
        "the ones you need with the describe tool, then call them by name."
    ),
    input_schema=_closed(
        "query",
        query={"type": "string", "minLength": 1, "maxLength": 500},
        limit={"type": "integer", "minimum": 1, "maximum": 50},
        kinds={
            "type": "array",
            "items": {"enum": ["tool", "prompt", "resource", "resource_template"]},
            "uniqueItems": True,
        },
    ),
):
    """Words in, the best matches the caller may see out (``CatalogSearch.search``)."""

    named_by = "search_name"

    async def answer(
        self, arguments: Mapping[str, Any], channel: Channel, arg: CatalogSearch
    ) -> dict[str, Any]:
        query, limit, kinds = arguments["query"], arguments.get("limit"), arguments.get("kinds")
        hits = await arg.search(query, channel.assigns, channel.meta, limit=limit, kinds=kinds)
        return {"hits": hits}


class DescribeTools(
    _CatalogTool,
    description=(
        "Load the full definitions (input schema included) of tools (or prompts) by name, "
        "as found with the search tool."
    ),
    input_schema=_closed(
        "names",
        names={"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": MAX_NAMES},
        kind={"enum": ["tool", "prompt"]},
    ),
):
    """Names in, their definitions out (``CatalogSearch.describe``)."""

    named_by = "describe_name"

    async def answer(
        self, arguments: Mapping[str, Any], channel: Channel, arg: CatalogSearch
    ) -> dict[str, Any]:
        kind = arguments.get("kind", "tool")
        described: dict[str, Any] = await arg.describe(
            arguments["names"], channel.assigns, channel.meta, kind=kind
        )
        return described
