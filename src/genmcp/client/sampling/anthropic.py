"""``AnthropicSampling``: ``sampling/createMessage`` through Anthropic's messages API.

``POST {base_url}/v1/messages`` with ``x-api-key`` and ``anthropic-version``. The mapping:

* ``systemPrompt`` -> ``system``; ``maxTokens`` -> ``max_tokens``; ``temperature``;
  ``stopSequences`` -> ``stop_sequences``; ``modelPreferences`` -> ``model``;
* text -> a ``text`` block, an image -> an ``image`` block (base64 source); audio has no form
  there (-32602); ``tool_use`` -> ``tool_use`` (``id``, ``name``, ``input``);
  ``tool_result`` -> ``tool_result`` (``tool_use_id``, its text and image content,
  ``is_error``);
* ``tools`` -> tools (``inputSchema`` as ``input_schema``); ``toolChoice.mode`` ``auto``/
  ``required``/``none`` -> ``tool_choice`` ``auto``/``any``/``none``.

Back: the answer's text and ``tool_use`` blocks, ``stop_reason`` ``end_turn``/
``stop_sequence``/``max_tokens``/``tool_use`` -> ``endTurn``/``stopSequence``/``maxTokens``/
``toolUse``, and the answering ``model``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from genmcp.client.errors import RPCError
from genmcp.client.sampling.adapter import (
    INVALID_PARAMS,
    SamplingAdapter,
    assistant_result,
    blocks,
    options_of,
    tool_mode,
)

__all__ = ["API_VERSION", "AnthropicSampling"]

API_VERSION: Final = "2023-06-01"
"""The ``anthropic-version`` header sent (the messages API's stable version)."""
STOP_REASONS: Final[Mapping[str, str]] = {
    "end_turn": "endTurn",
    "stop_sequence": "stopSequence",
    "max_tokens": "maxTokens",
    "tool_use": "toolUse",
}
TOOL_CHOICE: Final[Mapping[str, str]] = {"auto": "auto", "required": "any", "none": "none"}


def _block(block: Mapping[str, Any]) -> dict[str, Any]:
    kind = block.get("type")
    if kind == "text":
        return {"type": "text", "text": str(block.get("text", ""))}
    if kind == "image":
        source = {"type": "base64", "media_type": block.get("mimeType"), "data": block.get("data")}
        return {"type": "image", "source": source}
    if kind == "tool_use":
        return {"type": "tool_use", "id": str(block.get("id")), "name": str(block.get("name")),
                "input": dict(block.get("input") or {})}  # fmt: skip
    if kind == "tool_result":
        inner = [_block(item) for item in block.get("content") or [] if isinstance(item, Mapping)]
        found: dict[str, Any] = {"type": "tool_result", "tool_use_id": str(block.get("toolUseId")),
                                 "content": inner}  # fmt: skip
        if block.get("isError"):
            found["is_error"] = True
        return found
    raise RPCError(INVALID_PARAMS, f"a {kind!r} block has no form in the messages API")


class AnthropicSampling(SamplingAdapter):
    """Answers ``sampling/createMessage`` with Anthropic's messages API.

    ``base_url`` is the API's root (``https://api.anthropic.com``); the rest are
    ``SamplingAdapter``'s.
    """

    path = "/v1/messages"

    def auth_headers(self) -> dict[str, str]:
        found = {"anthropic-version": API_VERSION}
        if self.api_key is not None:
            found["x-api-key"] = self.api_key
        return found

    def request_body(self, params: Mapping[str, Any], model: str) -> dict[str, Any]:
        messages = []
        for message in params.get("messages") or []:
            role = message.get("role")
            if role not in ("user", "assistant"):
                raise RPCError(INVALID_PARAMS, f"a sampling message's role is user or "
                               f"assistant, not {role!r}")  # fmt: skip
            content = [_block(block) for block in blocks(message.get("content"))]
            messages.append({"role": role, "content": content})
        body: dict[str, Any] = {"model": model, "max_tokens": params.get("maxTokens"),
                                "messages": messages}  # fmt: skip
        system = params.get("systemPrompt")
        if isinstance(system, str) and system:
            body["system"] = system
        body.update(options_of(params, "stop_sequences"))
        tools = params.get("tools")
        if tools:
            body["tools"] = [
                {"name": tool.get("name"), "description": tool.get("description", ""),
                 "input_schema": tool.get("inputSchema") or {"type": "object"}}
                for tool in tools
            ]  # fmt: skip
            mode = tool_mode(params)
            if mode is not None:
                body["tool_choice"] = {"type": TOOL_CHOICE[mode]}
        return body

    def result(self, answer: Mapping[str, Any], params: Mapping[str, Any]) -> dict[str, Any]:
        content: list[dict[str, Any]] = []
        for block in answer["content"]:
            if block.get("type") == "text":
                content.append({"type": "text", "text": str(block["text"])})
            elif block.get("type") == "tool_use":
                used = {"id": str(block["id"]), "name": str(block["name"])}
                content.append({"type": "tool_use", **used, "input": dict(block["input"])})
        reason = STOP_REASONS.get(str(answer.get("stop_reason")))
        return assistant_result(content, params, answer.get("model"), reason)
