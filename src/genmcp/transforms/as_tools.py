"""Prompts and resources as tools, for clients that only call tools.

``prompts_as_tools(suite)`` adds ``list_prompts`` and ``get_prompt``; ``resources_as_tools
(suite)`` adds ``list_resources`` (resources and templates) and ``read_resource``. Each
runs the real request (``prompts/get``, ``resources/read``...) through the Suite as the
caller: the same assigns, so scopes, visibility, tenancy and middleware apply as if the
client had asked itself, and a hidden prompt stays hidden. An error answer (an unknown
prompt, a resource not found) is an ``isError`` result naming it, for the model to read.

The tools hold the Suite (their ``arg``), so they are served in this process only: each
process adds them at configuration. Imports genmcp's tool layer, events and JSON-RPC.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Final, Protocol

from genmcp.events import Answer
from genmcp.outcomes import Result
from genmcp.protocol.content import call_tool_result, embedded_resource, text
from genmcp.protocol.jsonrpc import Request
from genmcp.protocol.methods import (
    PROMPTS_GET,
    PROMPTS_LIST,
    RESOURCES_LIST,
    RESOURCES_READ,
    RESOURCES_TEMPLATES_LIST,
)
from genmcp.tools import Tool, ToolRequest

if TYPE_CHECKING:
    from genmcp.channel import Channel

__all__ = ["prompts_as_tools", "resources_as_tools"]

_IDS: Final = itertools.count(1)
_MAX_PAGES: Final = 100
"""How many list pages one listing tool reads at most."""
_READ_ONLY: Final = {"readOnlyHint": True, "idempotentHint": True}
"""The four tools' annotations: each only reads."""


class _Call(Protocol):
    @property
    def outbox(self) -> Any: ...


class Served(Protocol):
    """What the tools need of a Suite: to answer a request, and to serve them."""

    async def handle(self, request: Request, assigns: Mapping[str, Any], meta: Any) -> Any: ...

    def add_tool(self, provider: Any, *, local: bool = False) -> Any: ...


async def ask(suite: Served, method: str, params: dict[str, Any], channel: Channel,
              meta: Mapping[str, Any]) -> tuple[Any, dict[str, Any] | None]:  # fmt: skip
    """``method`` answered by ``suite`` as the calling client: ``(result, error)``."""
    request = Request(f"genmcp-as-tool-{next(_IDS)}", method, params)
    call = await suite.handle(request, channel.assigns, dict(meta))
    while True:
        event = await call.outbox.get()
        if isinstance(event, Answer):
            response = event.response
            return response.get("result"), response.get("error")


async def _listed(suite: Served, method: str, key: str, channel: Channel,
                  meta: Mapping[str, Any]) -> tuple[list[Any], dict[str, Any] | None]:  # fmt: skip
    items: list[Any] = []
    params: dict[str, Any] = {}
    for _ in range(_MAX_PAGES):
        result, error = await ask(suite, method, params, channel, meta)
        if error is not None:
            return items, error
        items.extend(result.get(key, ()))
        cursor = result.get("nextCursor")
        if not cursor:
            break
        params = {"cursor": cursor}
    return items, None


def _failed(error: Mapping[str, Any]) -> Result:
    return Result(call_tool_result(error=str(error.get("message", "the request failed"))))


class _Listing(Tool, annotations=_READ_ONLY):
    """A listing tool: its ``lists`` (method, result key) read whole, each under its key. An
    error on the first is the tool's error; a later one lists nothing (a server without
    resource templates answers their method unknown)."""

    lists: ClassVar[tuple[tuple[str, str], ...]]

    async def call(self, request: ToolRequest, channel: Channel, arg: Served) -> Result:
        found: dict[str, list[Any]] = {}
        for method, key in self.lists:
            items, error = await _listed(arg, method, key, channel, request.meta)
            if error is not None and not found:
                return _failed(error)
            found[key] = items if error is None else []
        return Result(call_tool_result(structured=found))


class ListPrompts(
    _Listing,
    name="list_prompts",
    description="Lists the prompts this server offers: each one's name, description and "
    "arguments. Get one with get_prompt.",
):
    """``prompts/list`` as a tool; ``arg``: the Suite."""

    lists = ((PROMPTS_LIST, "prompts"),)


class GetPrompt(
    Tool,
    name="get_prompt",
    description="Renders one prompt of this server (see list_prompts) with its arguments; "
    "answers its messages.",
    annotations=_READ_ONLY,
    input_schema={
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "the prompt's name"},
            "arguments": {
                "type": "object",
                "additionalProperties": {"type": "string"},
                "description": "the prompt's arguments",
            },
        },
        "required": ["name"],
        "additionalProperties": False,
    },
):
    """``prompts/get`` as a tool; ``arg``: the Suite."""

    async def call(self, request: ToolRequest, channel: Channel, arg: Served) -> Result:
        params = {"name": request.arguments["name"]}
        if request.arguments.get("arguments"):
            params["arguments"] = request.arguments["arguments"]
        result, error = await ask(arg, PROMPTS_GET, params, channel, request.meta)
        if error is not None:
            return _failed(error)
        rendered = {key: result[key] for key in ("description", "messages") if key in result}
        return Result(call_tool_result(structured=rendered))


class ListResources(
    _Listing,
    name="list_resources",
    description="Lists the resources this server offers (URIs, names, media types) and its "
    "resource templates. Read one with read_resource.",
):
    """``resources/list`` and ``resources/templates/list`` as a tool; ``arg``: the Suite."""

    lists = ((RESOURCES_LIST, "resources"), (RESOURCES_TEMPLATES_LIST, "resourceTemplates"))


class ReadResource(
    Tool,
    name="read_resource",
    description="Reads one resource of this server by its URI (see list_resources).",
    annotations=_READ_ONLY,
    input_schema={
        "type": "object",
        "properties": {"uri": {"type": "string", "description": "the resource's URI"}},
        "required": ["uri"],
        "additionalProperties": False,
    },
):
    """``resources/read`` as a tool; ``arg``: the Suite."""

    async def call(self, request: ToolRequest, channel: Channel, arg: Served) -> Result:
        uri = request.arguments["uri"]
        result, error = await ask(arg, RESOURCES_READ, {"uri": uri}, channel, request.meta)
        if error is not None:
            return _failed(error)
        blocks: list[dict[str, Any]] = []
        for contents in result.get("contents", ()):
            media = contents.get("mimeType")
            if "text" in contents and (media is None or media.startswith("text/")):
                blocks.append(text(contents["text"]))
            elif "text" in contents:
                blocks.append(embedded_resource(contents["uri"], text=contents["text"],
                                                mime_type=media))  # fmt: skip
            else:
                blocks.append(embedded_resource(contents["uri"], blob=contents.get("blob", ""),
                                                mime_type=media))  # fmt: skip
        return Result(call_tool_result(content=blocks or [text(json.dumps(result))]))


def prompts_as_tools(suite: Served) -> None:
    """Serve ``list_prompts`` and ``get_prompt`` in ``suite`` (this process)."""
    suite.add_tool((ListPrompts, suite), local=True)
    suite.add_tool((GetPrompt, suite), local=True)


def resources_as_tools(suite: Served) -> None:
    """Serve ``list_resources`` and ``read_resource`` in ``suite`` (this process)."""
    suite.add_tool((ListResources, suite), local=True)
    suite.add_tool((ReadResource, suite), local=True)
