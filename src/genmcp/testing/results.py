"""What ``MCPTestClient`` hands back: replies, call results, errors, and answer builders.

* ``Reply``: one request's response, HTTP status and notifications (errors included).
* ``CallResult``: a ``tools/call`` outcome with the notifications and input rounds seen.
* ``accept``, ``decline``, ``cancel``: ``ElicitResult`` values to answer input requests.

A JSON-RPC error response raises ``genmcp.client.errors.RPCError`` (one exception for "the
server answered with a JSON-RPC error", whichever client asked), its ``notifications`` the
ones seen before it. Plain data; imports nothing from genmcp but the method names and the
client's error.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from genmcp.client.errors import RPCError
from genmcp.protocol.methods import MESSAGE, PROGRESS

__all__ = ["CallResult", "Reply", "accept", "cancel", "decline"]

Message = dict[str, Any]


def accept(content: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """An ``ElicitResult`` accepting the request, with the form ``content`` if any."""
    result: dict[str, Any] = {"action": "accept"}
    if content is not None:
        result["content"] = dict(content)
    return result


def decline() -> dict[str, Any]:
    """An ``ElicitResult`` declining the request."""
    return {"action": "decline"}


def cancel() -> dict[str, Any]:
    """An ``ElicitResult`` dismissing the request."""
    return {"action": "cancel"}


@dataclass
class Reply:
    """One request's whole exchange: the response, its status and the notifications before it."""

    response: Message | None
    status: int
    notifications: list[Message] = field(default_factory=list)

    @property
    def result(self) -> Any:
        """The ``result`` member, or None."""
        return None if self.response is None else self.response.get("result")

    @property
    def error(self) -> dict[str, Any] | None:
        """The ``error`` member, or None."""
        error = None if self.response is None else self.response.get("error")
        return error if isinstance(error, dict) else None

    def unwrap(self) -> Any:
        """The result; raises ``RPCError`` for an error response."""
        if self.response is None:
            raise AssertionError(f"no response (status {self.status})")
        if self.error is not None:
            failure = RPCError.from_error(self.error, status=self.status)
            failure.notifications = list(self.notifications)
            raise failure
        return self.result


@dataclass
class CallResult:
    """The outcome of ``call_tool``: the final result and everything seen on the way.

    ``notifications`` holds every round's notifications in order; ``rounds`` the
    ``input_required`` results answered before the final one; ``server_requests`` the
    requests a 2025 session's server sent on the call's stream (its input rounds).
    """

    name: str
    arguments: Any
    result: dict[str, Any]
    notifications: list[Message] = field(default_factory=list)
    rounds: list[dict[str, Any]] = field(default_factory=list)
    server_requests: list[Message] = field(default_factory=list)

    @property
    def result_type(self) -> str:
        """``"complete"``, ``"input_required"`` or an extension's value."""
        return str(self.result.get("resultType", "complete"))

    @property
    def is_error(self) -> bool:
        """True for a tool-level error result (``isError``)."""
        return bool(self.result.get("isError"))

    @property
    def content(self) -> list[dict[str, Any]]:
        """The content blocks."""
        content = self.result.get("content")
        return content if isinstance(content, list) else []

    @property
    def text(self) -> str:
        """The text blocks, joined by newlines."""
        return "\n".join(b["text"] for b in self.content if b.get("type") == "text")

    @property
    def structured(self) -> Any:
        """``structuredContent``, or None."""
        return self.result.get("structuredContent")

    @property
    def input_requests(self) -> dict[str, Any]:
        """The nested requests of an ``input_required`` result (else empty)."""
        requests = self.result.get("inputRequests")
        return requests if isinstance(requests, dict) else {}

    @property
    def request_state(self) -> str | None:
        """The ``requestState`` to echo on the retry, if any."""
        state = self.result.get("requestState")
        return state if isinstance(state, str) else None

    @property
    def progress(self) -> list[dict[str, Any]]:
        """The params of every ``notifications/progress``."""
        return _params(self.notifications, PROGRESS)

    @property
    def logs(self) -> list[dict[str, Any]]:
        """The params of every ``notifications/message`` (log)."""
        return _params(self.notifications, MESSAGE)


def _params(messages: list[Message], method: str) -> list[dict[str, Any]]:
    return [m.get("params", {}) for m in messages if m.get("method") == method]
