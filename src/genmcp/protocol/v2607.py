"""Builders for MCP 2026-07-28 wire shapes, in one namespace.

The plain-dict shapes a tool author (and the Suite) puts on the wire for the 2026-07-28
revision, gathered from the modules that own them: content blocks and ``CallToolResult``
(:mod:`~genmcp.protocol.content`); the nested input requests of multi round-trip requests
(``elicitation/create``, ``sampling/createMessage``, ``roots/list``), the ``input_required``
result and the table of client capabilities those requests need
(:mod:`~genmcp.protocol.input_requests`); the ``_meta`` key names
(:mod:`~genmcp.protocol.versions`) and log levels (:mod:`~genmcp.protocol.meta`).

Every builder takes keyword arguments named in snake_case, drops the ones left unset (``None``),
maps the rest to the camelCase wire keys (``meta`` becomes ``_meta``) and returns a fresh ``dict``
that the caller owns (:mod:`~genmcp.protocol.shapes`). Nothing here does I/O: the module imports
nothing from asyncio, from any web framework, or from genmcp outside ``protocol``.
"""

from __future__ import annotations

from typing import Final

from genmcp.protocol.content import (
    audio,
    call_tool_result,
    embedded_resource,
    image,
    resource_link,
    text,
)
from genmcp.protocol.input_requests import (
    create_message_request,
    elicit_request,
    input_required_result,
    list_roots_request,
    missing_capabilities,
    required_capabilities,
)
from genmcp.protocol.meta import LOG_LEVELS
from genmcp.protocol.shapes import JSON, JSONObject
from genmcp.protocol.versions import (  # re-exported: the wire names belong with the builders
    LATEST,
    META_CLIENT_CAPABILITIES,
    META_CLIENT_INFO,
    META_LOG_LEVEL,
    META_PROTOCOL_VERSION,
    META_SERVER_INFO,
    META_SUBSCRIPTION_ID,
)

__all__ = [
    "JSON",
    "LOG_LEVELS",
    "META_CLIENT_CAPABILITIES",
    "META_CLIENT_INFO",
    "META_LOG_LEVEL",
    "META_PROTOCOL_VERSION",
    "META_SERVER_INFO",
    "META_SUBSCRIPTION_ID",
    "PROTOCOL_VERSION",
    "JSONObject",
    "audio",
    "call_tool_result",
    "create_message_request",
    "elicit_request",
    "embedded_resource",
    "image",
    "input_required_result",
    "list_roots_request",
    "missing_capabilities",
    "required_capabilities",
    "resource_link",
    "text",
]

PROTOCOL_VERSION: Final = LATEST
