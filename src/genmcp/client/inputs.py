"""Answering what a server asks of the user: elicitation, sampling, roots.

``Inputs`` holds the callbacks a ``Client`` was given and answers one request in its
``{"method", "params"}`` shape, the same in both eras: a 2026-07-28 ``input_required``
result's ``inputRequests`` entry, or a 2025 server request from a session's stream. The
callbacks it holds are also the client capabilities it declares (``elicitation``,
``sampling``, ``roots``): a client never claims what it cannot answer.

A callback may be a coroutine function or a plain function; ``roots`` may also be a list.
An accepted form comes back with the schema's ``default`` of each field left out.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias

from genmcp.client.errors import RPCError
from genmcp.protocol.methods import ELICITATION_CREATE, PING, ROOTS_LIST, SAMPLING_CREATE_MESSAGE

__all__ = ["Answer", "InputHandler", "Inputs", "RootsSource", "resolve", "with_defaults"]

Answer: TypeAlias = "dict[str, Any] | Awaitable[dict[str, Any]]"
InputHandler: TypeAlias = Callable[[dict[str, Any]], Any]
"""Takes a request's ``params`` (or, as ``on_input``, the whole ``{"method", "params"}``)
and returns (or awaits to) its result: an ``ElicitResult``, a ``CreateMessageResult``..."""
RootsSource: TypeAlias = "Sequence[Mapping[str, Any]] | Callable[[], Any]"


async def resolve(value: Any) -> Any:
    """``value``, awaited when it is awaitable (callbacks may be sync or async)."""
    if inspect.isawaitable(value):
        return await value
    return value


@dataclass(frozen=True)
class Inputs:
    """The user's answers to server requests; each None means "cannot answer that"."""

    elicitation: InputHandler | None = None
    sampling: InputHandler | None = None
    roots: RootsSource | None = None

    def capabilities(self) -> dict[str, Any]:
        """The client capabilities these callbacks make true."""
        found: dict[str, Any] = {}
        if self.elicitation is not None:
            found["elicitation"] = {}  # form mode; pass capabilities= to add "url"
        if self.sampling is not None:
            found["sampling"] = {}
        if self.roots is not None:
            found["roots"] = {}
        return found

    def answers(self, method: Any) -> bool:
        """True when a request of ``method`` has a callback here."""
        return (
            method == PING
            or {
                ELICITATION_CREATE: self.elicitation,
                SAMPLING_CREATE_MESSAGE: self.sampling,
                ROOTS_LIST: self.roots,
            }.get(method)
            is not None
        )

    async def answer(self, request: Mapping[str, Any]) -> dict[str, Any]:
        """The result for ``{"method", "params"}``; ``RPCError`` -32601 when nothing answers it."""
        method = request.get("method")
        params = dict(request.get("params") or {})
        if method == PING:
            return {}
        if method == ROOTS_LIST and self.roots is not None:
            roots = self.roots() if callable(self.roots) else self.roots
            listed = await resolve(roots)
            return {"roots": [dict(root) for root in listed]}
        handler = {ELICITATION_CREATE: self.elicitation, SAMPLING_CREATE_MESSAGE: self.sampling}
        chosen = handler.get(method) if isinstance(method, str) else None
        if chosen is None:
            raise RPCError(-32601, f"this client has no callback for {method!r}")
        result = await resolve(chosen(params))
        if not isinstance(result, Mapping):
            raise TypeError(f"the {method} callback returned {result!r}, not a result dict")
        if method == ELICITATION_CREATE:
            return with_defaults(params, result)
        return dict(result)


def with_defaults(params: Mapping[str, Any], result: Mapping[str, Any]) -> dict[str, Any]:
    """An accepted form's content with each field left out filled from its schema ``default``
    (SEP-1034: the form showed the defaults, so the user accepted them)."""
    answered = dict(result)
    schema = params.get("requestedSchema")
    properties = schema.get("properties") if isinstance(schema, Mapping) else None
    if answered.get("action") != "accept" or not isinstance(properties, Mapping):
        return answered
    content = dict(answered.get("content") or {})
    for name, spec in properties.items():
        if name not in content and isinstance(spec, Mapping) and "default" in spec:
            content[name] = spec["default"]
    answered["content"] = content
    return answered
