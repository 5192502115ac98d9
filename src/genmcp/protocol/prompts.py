"""Builders for the MCP 2026-07-28 prompt and completion shapes.

``prompts/get`` answers with messages (``{role, content}``) whose content is any content block
of :mod:`genmcp.protocol.v2607` (``text``, ``image``, ``audio``, ``resource_link``,
``embedded_resource``); ``completion/complete`` answers with at most 100 values.
Conventions in :mod:`genmcp.protocol.shapes`; the Suite adds ``resultType`` and the server
``_meta``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

from genmcp.errors import CallbackReturnError, MCPError
from genmcp.protocol.shapes import JSONObject, copy_mapping, put

__all__ = [
    "MAX_COMPLETION_VALUES",
    "ROLES",
    "CompletionRef",
    "as_complete_result",
    "assistant_message",
    "complete_result",
    "get_prompt_result",
    "parse_complete_params",
    "prompt_argument",
    "prompt_message",
    "user_message",
]

ROLES: Final = ("user", "assistant")
MAX_COMPLETION_VALUES: Final = 100
"""The spec's cap on ``completion.values``."""

Content = str | Mapping[str, Any]
"""A content block, or a str standing for a text block."""

CompletionRef = tuple[str, str, str, str, dict[str, str]]
"""``(ref type, prompt name or template URI, argument name, partial value, context)``."""


def _content(content: Content) -> JSONObject:
    if isinstance(content, str):
        return {"type": "text", "text": content}
    if not isinstance(content, Mapping) or not isinstance(content.get("type"), str):
        raise TypeError(
            f"message content must be a str or a content block (text(...), image(...), ...), "
            f"not {content!r:.200}"
        )
    return dict(content)


def prompt_message(role: str, content: Content) -> JSONObject:
    """Build a ``PromptMessage``.

    Args:
        role: ``"user"`` or ``"assistant"``.
        content: A content block (``text(...)``, ``image(...)``, ``audio(...)``,
            ``resource_link(...)``, ``embedded_resource(...)``), or a str for a text block.

    Returns:
        ``{"role": ..., "content": {...}}``.

    Raises:
        ValueError: ``role`` is not a known role.
        TypeError: ``content`` is neither a str nor a content block.
    """
    if role not in ROLES:
        raise ValueError(f"role must be one of {', '.join(ROLES)}, not {role!r}")
    return {"role": role, "content": _content(content)}


def user_message(content: Content) -> JSONObject:
    """Build a ``PromptMessage`` from the user (see :func:`prompt_message`)."""
    return prompt_message("user", content)


def assistant_message(content: Content) -> JSONObject:
    """Build a ``PromptMessage`` from the assistant (see :func:`prompt_message`)."""
    return prompt_message("assistant", content)


def get_prompt_result(
    messages: str | Iterable[str | Mapping[str, Any]],
    *,
    description: str | None = None,
    meta: Mapping[str, Any] | None = None,
) -> JSONObject:
    """Build a ``GetPromptResult`` without ``resultType`` (the Suite adds it).

    Args:
        messages: Prompt messages (:func:`user_message`, :func:`assistant_message`); a str
            item is a user text message, and a bare str stands for one such message.
        description: Optional description of the prompt.
        meta: Optional ``_meta`` object of the result.

    Returns:
        ``{"messages": [...]}`` plus ``description``/``_meta`` when given.

    Raises:
        TypeError: A message is neither a str nor a ``{"role", "content"}`` object.
    """
    items = [messages] if isinstance(messages, str) else list(messages)
    built: list[JSONObject] = []
    for item in items:
        if isinstance(item, str):
            built.append(user_message(item))
        elif isinstance(item, Mapping) and "role" in item and "content" in item:
            built.append(prompt_message(item["role"], item["content"]))
        else:
            raise TypeError(
                f"a prompt message is a str or built with user_message(...) / "
                f"assistant_message(...), not {item!r:.200}"
            )
    result: JSONObject = {"messages": built}
    put(result, "description", description)
    put(result, "_meta", copy_mapping(meta))
    return result


def prompt_argument(
    name: str,
    *,
    title: str | None = None,
    description: str | None = None,
    required: bool | None = None,
) -> JSONObject:
    """Build a ``PromptArgument`` (an entry of a prompt's ``arguments``)."""
    argument: JSONObject = {"name": name}
    put(argument, "title", title)
    put(argument, "description", description)
    put(argument, "required", required)
    return argument


def complete_result(
    values: Iterable[str],
    *,
    total: int | None = None,
    has_more: bool | None = None,
) -> JSONObject:
    """Build a ``CompleteResult`` without ``resultType``, capped at 100 values.

    Args:
        values: Completion values, best first. Beyond the first 100 they are dropped, and
            ``total`` (unless given) tells how many there were, with ``hasMore: true``.
        total: The number of matches, if known (may exceed the values sent).
        has_more: Whether more matches exist than were sent; derived when unset.

    Returns:
        ``{"completion": {"values": [...], "total"?: int, "hasMore"?: bool}}``.

    Raises:
        TypeError: A value is not a str.
    """
    collected: list[str] = []
    count = 0
    for value in values:
        if not isinstance(value, str):
            raise TypeError(f"completion values are strings, got {value!r:.200}")
        count += 1
        if count <= MAX_COMPLETION_VALUES:
            collected.append(value)
    completion: JSONObject = {"values": collected}
    truncated = count > len(collected)
    if total is None and truncated:
        total = count
    put(completion, "total", total)
    if has_more is None and (truncated or (total is not None and total > len(collected))):
        has_more = True
    put(completion, "hasMore", has_more)
    return {"completion": completion}


def _bad_complete(message: str) -> MCPError:
    return MCPError("invalid_params", f"Invalid params: completion/complete {message}")


def parse_complete_params(params: Mapping[str, Any]) -> CompletionRef:
    """Read a ``completion/complete`` request (hostile input: -32602 on any wrong shape).

    Returns:
        ``("ref/prompt", name, ...)`` or ``("ref/resource", uri_template, ...)``, then the
        argument name, its partial value and the context arguments (``{}`` when absent).
    """
    ref = params.get("ref")
    if not isinstance(ref, dict):
        raise _bad_complete("needs params.ref (an object)")
    kind = ref.get("type")
    target = ref.get("name") if kind == "ref/prompt" else ref.get("uri")
    if kind not in ("ref/prompt", "ref/resource") or not isinstance(target, str):
        raise _bad_complete("ref must be {type: 'ref/prompt', name} or {type: 'ref/resource', uri}")
    argument = params.get("argument")
    if not (
        isinstance(argument, dict)
        and isinstance(argument.get("name"), str)
        and isinstance(argument.get("value"), str)
    ):
        raise _bad_complete("needs params.argument {name, value} (strings)")
    context = params.get("context")
    arguments = context.get("arguments") if isinstance(context, dict) else None
    if context is not None and not isinstance(context, dict):
        raise _bad_complete("context must be an object")
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict) or not all(isinstance(v, str) for v in arguments.values()):
        raise _bad_complete("context.arguments must map names to strings")
    return kind, target, argument["name"], argument["value"], arguments


def as_complete_result(value: Any, *, kind: str, owner: str) -> JSONObject:
    """Turn what the ``complete`` hook of ``owner`` returned into a ``CompleteResult``.

    A sequence of str goes through :func:`complete_result` (capped at 100); a
    ``complete_result(...)`` dict is checked and kept.

    Raises:
        CallbackReturnError: anything else, or a result over the cap.
    """
    if isinstance(value, Sequence) and not isinstance(value, str):
        if all(isinstance(v, str) for v in value):
            return complete_result(value)
    completion = value.get("completion") if isinstance(value, Mapping) else None
    values = completion.get("values") if isinstance(completion, Mapping) else None
    if (
        isinstance(values, list)
        and len(values) <= MAX_COMPLETION_VALUES
        and all(isinstance(v, str) for v in values)
    ):
        return {"completion": dict(completion)}  # type: ignore[arg-type]
    raise CallbackReturnError(
        kind,
        owner,
        "complete",
        value,
        f"a list of strings or complete_result(...) (at most {MAX_COMPLETION_VALUES} values)",
    )
