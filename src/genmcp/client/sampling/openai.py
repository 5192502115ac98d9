"""``OpenAISampling``: ``sampling/createMessage`` through an OpenAI-compatible chat API.

``POST {base_url}/chat/completions`` (OpenAI, and the servers that speak its format: vLLM,
Ollama, LiteLLM...), the key as ``Authorization: Bearer``. The mapping:

* ``systemPrompt`` -> a first ``system`` message; ``maxTokens`` -> ``max_tokens``;
  ``temperature``; ``stopSequences`` -> ``stop``; ``modelPreferences`` -> ``model``;
* text -> a text part, an image -> an ``image_url`` part (a ``data:`` URL), audio ->
  ``input_audio`` (wav or mp3); an assistant's ``tool_use`` blocks -> its ``tool_calls``
  (arguments as JSON text); a user's ``tool_result`` blocks -> one ``tool`` message each;
* ``tools`` -> ``function`` tools (``inputSchema`` as ``parameters``); ``toolChoice.mode``
  -> ``tool_choice`` (``auto``, ``required``, ``none``).

Back: the first choice's text and ``tool_calls`` (as ``tool_use`` blocks), ``finish_reason``
``stop``/``length``/``tool_calls`` -> ``stopReason`` ``endTurn``/``maxTokens``/``toolUse``
(``stopSequence`` when the text ended on one of the stop sequences is not told apart by this
API: ``endTurn``), and the answering ``model``.
"""

from __future__ import annotations

import json
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

__all__ = ["OpenAISampling"]

STOP_REASONS: Final[Mapping[str, str]] = {
    "stop": "endTurn",
    "length": "maxTokens",
    "tool_calls": "toolUse",
    "function_call": "toolUse",
}
_ROLE_OF: Final[Mapping[str, str]] = {"tool_use": "assistant", "tool_result": "user"}
AUDIO_FORMATS: Final[Mapping[str, str]] = {
    "audio/wav": "wav", "audio/x-wav": "wav", "audio/mpeg": "mp3", "audio/mp3": "mp3",
}  # fmt: skip


def _part(block: Mapping[str, Any]) -> dict[str, Any]:
    """A user or assistant content part for a text, image or audio block."""
    kind = block.get("type")
    if kind == "text":
        return {"type": "text", "text": str(block.get("text", ""))}
    if kind == "image":
        url = f"data:{block.get('mimeType')};base64,{block.get('data')}"
        return {"type": "image_url", "image_url": {"url": url}}
    if kind == "audio" and block.get("mimeType") in AUDIO_FORMATS:
        found = {"data": block.get("data"), "format": AUDIO_FORMATS[str(block["mimeType"])]}
        return {"type": "input_audio", "input_audio": found}
    raise RPCError(INVALID_PARAMS, f"a {kind!r} block ({block.get('mimeType', '')}) has no "
                   "form in the chat completions API")  # fmt: skip


def _text_of(content: Any) -> str:
    """A tool result's content blocks as the text a ``tool`` message carries."""
    parts = []
    for block in content if isinstance(content, list) else []:
        if isinstance(block, Mapping) and block.get("type") == "text":
            parts.append(str(block.get("text", "")))
        elif isinstance(block, Mapping):
            parts.append(json.dumps(block))
    return "\n".join(parts)


def _messages(message: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The chat messages of one sampling message (tool results become ``tool`` messages)."""
    role = message.get("role")
    if role not in ("user", "assistant"):
        raise RPCError(
            INVALID_PARAMS, f"a sampling message's role is user or assistant, not {role!r}"
        )
    found: list[dict[str, Any]] = []
    parts: list[dict[str, Any]] = []
    calls: list[dict[str, Any]] = []
    for block in blocks(message.get("content")):
        kind = block.get("type")
        if kind in ("tool_result", "tool_use") and role != _ROLE_OF[kind]:
            raise RPCError(INVALID_PARAMS, f"a {kind} block belongs in a {_ROLE_OF[kind]} message")
        if kind == "tool_result":
            found.append({"role": "tool", "tool_call_id": str(block.get("toolUseId")),
                          "content": _text_of(block.get("content"))})  # fmt: skip
        elif kind == "tool_use":
            arguments = json.dumps(block.get("input") or {})
            function = {"name": str(block.get("name")), "arguments": arguments}
            calls.append({"id": str(block.get("id")), "type": "function", "function": function})
        else:
            parts.append(_part(block))
    if role == "assistant":
        text = "".join(p["text"] for p in parts if p["type"] == "text")
        if len(parts) != sum(1 for p in parts if p["type"] == "text"):
            raise RPCError(INVALID_PARAMS, "an assistant message holds text and tool calls only")
        if parts or calls:
            entry: dict[str, Any] = {"role": "assistant", "content": text or None}
            if calls:
                entry["tool_calls"] = calls
            found.append(entry)
    elif parts:
        found.append({"role": "user", "content": parts})
    return found


class OpenAISampling(SamplingAdapter):
    """Answers ``sampling/createMessage`` with an OpenAI-compatible chat completions API.

    ``base_url`` is the API's root with its version (``https://api.openai.com/v1``);
    ``tokens_field`` the name ``maxTokens`` goes under (``"max_tokens"``, what compatible
    servers read; OpenAI's reasoning models want ``"max_completion_tokens"``); the rest are
    ``SamplingAdapter``'s.
    """

    path = "/chat/completions"

    def __init__(self, base_url: str, *, tokens_field: str = "max_tokens", **options: Any) -> None:
        super().__init__(base_url, **options)
        self.tokens_field = tokens_field

    def auth_headers(self) -> dict[str, str]:
        return {} if self.api_key is None else {"Authorization": f"Bearer {self.api_key}"}

    def request_body(self, params: Mapping[str, Any], model: str) -> dict[str, Any]:
        messages: list[dict[str, Any]] = []
        system = params.get("systemPrompt")
        if isinstance(system, str) and system:
            messages.append({"role": "system", "content": system})
        for message in params.get("messages") or []:
            messages.extend(_messages(message))
        body: dict[str, Any] = {"model": model, "messages": messages,
                                self.tokens_field: params.get("maxTokens")}  # fmt: skip
        body.update(options_of(params, "stop"))
        tools = params.get("tools")
        if tools:
            body["tools"] = [
                {"type": "function", "function": {
                    "name": tool.get("name"), "description": tool.get("description", ""),
                    "parameters": tool.get("inputSchema") or {"type": "object"}}}
                for tool in tools
            ]  # fmt: skip
            mode = tool_mode(params)
            if mode is not None:
                body["tool_choice"] = mode
        return body

    def result(self, answer: Mapping[str, Any], params: Mapping[str, Any]) -> dict[str, Any]:
        choice = answer["choices"][0]
        message = choice["message"]
        content: list[dict[str, Any]] = []
        if message.get("content"):
            content.append({"type": "text", "text": str(message["content"])})
        for call in message.get("tool_calls") or []:
            function = call["function"]
            arguments = function.get("arguments") or "{}"
            used = {"id": str(call["id"]), "name": str(function["name"])}
            content.append({"type": "tool_use", **used, "input": json.loads(arguments)})
        reason = STOP_REASONS.get(str(choice.get("finish_reason")))
        return assistant_result(content, params, answer.get("model"), reason)
