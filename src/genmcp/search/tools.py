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

from typing import Any, Final

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


class SearchTools(
    Tool,
    description=(
        "Search this server's tools (and prompts) by words: what a tool does, its name or "
        "its arguments. Returns the best matches (name and a short description); load "
        "the ones you need with the describe tool, then call them by name."
    ),
    input_schema={
        "type": "object",
        "properties": {
            "query": {"type": "string", "minLength": 1, "maxLength": 500},
            "limit": {"type": "integer", "minimum": 1, "maximum": 50},
            "kinds": {
                "type": "array",
                "items": {"enum": ["tool", "prompt", "resource", "resource_template"]},
                "uniqueItems": True,
            },
        },
        "required": ["query"],
        "additionalProperties": False,
    },
    annotations=_READ_ONLY,
):
    """Words in, the best matches the caller may see out (``CatalogSearch.search``)."""

    def info(self, key: str, arg: CatalogSearch) -> Any:
        return arg.search_name if key == "name" else super().info(key, arg)

    async def call(self, request: ToolRequest, channel: Channel, arg: CatalogSearch) -> Result:
        arguments = request.arguments
        hits = await arg.search(
            arguments["query"],
            channel.assigns,
            channel.meta,
            limit=arguments.get("limit"),
            kinds=arguments.get("kinds"),
        )
        return Result(call_tool_result(structured={"hits": hits}))


class DescribeTools(
    Tool,
    description=(
        "Load the full definitions (input schema included) of tools (or prompts) by name, "
        "as found with the search tool."
    ),
    input_schema={
        "type": "object",
        "properties": {
            "names": {
                "type": "array",
                "items": {"type": "string"},
                "minItems": 1,
                "maxItems": MAX_NAMES,
            },
            "kind": {"enum": ["tool", "prompt"]},
        },
        "required": ["names"],
        "additionalProperties": False,
    },
    annotations=_READ_ONLY,
):
    """Names in, their definitions out (``CatalogSearch.describe``)."""

    def info(self, key: str, arg: CatalogSearch) -> Any:
        return arg.describe_name if key == "name" else super().info(key, arg)

    async def call(self, request: ToolRequest, channel: Channel, arg: CatalogSearch) -> Result:
        arguments = request.arguments
        kind = arguments.get("kind", "tool")
        described = await arg.describe(arguments["names"], channel.assigns, channel.meta, kind=kind)
        return Result(call_tool_result(structured=described))
