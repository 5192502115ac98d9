"""The wire side of ``subscriptions/listen`` (MCP 2026-07-28, spec digest §13).

A listen request names the notifications it wants in a ``SubscriptionFilter``
(``toolsListChanged``, ``promptsListChanged``, ``resourcesListChanged``,
``resourceSubscriptions: [uri]``, and with the Tasks extension ``taskIds: [id]``). The server
acknowledges the subset it honors, then sends only those kinds, each tagged with
``_meta["io.modelcontextprotocol/subscriptionId"]`` = the listen request id verbatim, and
ends a stream it closes itself with an empty ``complete`` result.

:class:`Filter` parses the request's filter (hostile input: -32602 on any wrong type, bounded
sizes), narrows it to what the server supports, and decides which change notifications it
lets through. The change notifications themselves are plain JSON-RPC notifications
(``{"jsonrpc", "method", "params"?}``), the same ones a legacy session's GET stream sends.

Pure: imports only genmcp's errors, JSON-RPC helpers, the method names and the ``_meta``
key names.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from genmcp.errors import MCPError
from genmcp.protocol.jsonrpc import RequestId, notification
from genmcp.protocol.methods import (
    PROMPTS_LIST_CHANGED,
    RESOURCES_LIST_CHANGED,
    RESOURCES_UPDATED,
    SUBSCRIPTIONS_ACKNOWLEDGED,
    TOOLS_LIST_CHANGED,
)
from genmcp.protocol.versions import META_SUBSCRIPTION_ID

__all__ = [
    "LIST_CHANGED",
    "MAX_RESOURCE_SUBSCRIPTIONS",
    "MAX_TASK_IDS",
    "Filter",
    "acknowledged",
    "listen_result",
    "tagged",
]

LIST_CHANGED: Final[Mapping[str, str]] = {
    "toolsListChanged": TOOLS_LIST_CHANGED,
    "promptsListChanged": PROMPTS_LIST_CHANGED,
    "resourcesListChanged": RESOURCES_LIST_CHANGED,
}
"""Filter flag -> the list-changed notification it opts in to."""

MAX_RESOURCE_SUBSCRIPTIONS: Final = 1000
"""Most URIs one listen request may name in ``resourceSubscriptions``."""
MAX_URI_CHARS: Final = 8192
MAX_TASK_IDS: Final = 100
"""Most task ids one listen request may name in ``taskIds`` (each costs a store read)."""
MAX_TASK_ID_CHARS: Final = 256


def _invalid(message: str) -> MCPError:
    return MCPError("invalid_params", f"Invalid params: subscriptions/listen {message}")


@dataclass(frozen=True, slots=True)
class Filter:
    """The notification kinds of one listen stream.

    Attributes:
        methods: the list-changed notification methods wanted.
        uris: the resource URIs whose ``notifications/resources/updated`` are wanted.
        task_ids: the tasks whose ``notifications/tasks`` are wanted (Tasks extension).
    """

    methods: frozenset[str] = frozenset()
    uris: frozenset[str] = frozenset()
    task_ids: frozenset[str] = frozenset()

    @classmethod
    def parse(cls, params: Mapping[str, Any]) -> Filter:
        """Read ``params.notifications`` of a listen request; -32602 when malformed."""
        wanted = params.get("notifications")
        if not isinstance(wanted, dict):
            raise _invalid("needs params.notifications (an object)")
        methods: set[str] = set()
        for flag, method in LIST_CHANGED.items():
            value = wanted.get(flag)
            if value is not None and not isinstance(value, bool):
                raise _invalid(f"notifications.{flag} must be a boolean")
            if value:
                methods.add(method)
        uris = _names(
            wanted,
            "resourceSubscriptions",
            MAX_RESOURCE_SUBSCRIPTIONS,
            MAX_URI_CHARS,
            ("resources", "a URI"),
        )
        task_ids = _names(wanted, "taskIds", MAX_TASK_IDS, MAX_TASK_ID_CHARS, ("tasks", "an id"))
        return cls(frozenset(methods), uris, task_ids)

    def narrowed(
        self, methods: frozenset[str], uri_ok: Callable[[str], bool], tasks: bool = False
    ) -> Filter:
        """The part of this filter the server honors: ``methods`` it can send, URIs it knows,
        the task ids when it serves tasks (which of them the caller may see is decided
        later, against the task store)."""
        uris = frozenset(u for u in self.uris if uri_ok(u))
        return Filter(self.methods & methods, uris, self.task_ids if tasks else frozenset())

    def wants(self, message: Mapping[str, Any]) -> bool:
        """True when the change notification ``message`` belongs on this stream."""
        method = message.get("method")
        if method == RESOURCES_UPDATED:
            params = message.get("params")
            return isinstance(params, Mapping) and params.get("uri") in self.uris
        return method in self.methods

    def to_wire(self) -> dict[str, Any]:
        """The ``SubscriptionFilter`` object (flags set to true, URIs sorted)."""
        wire: dict[str, Any] = {
            flag: True for flag, method in LIST_CHANGED.items() if method in self.methods
        }
        if self.uris:
            wire["resourceSubscriptions"] = sorted(self.uris)
        if self.task_ids:
            wire["taskIds"] = sorted(self.task_ids)
        return wire


def _names(
    wanted: Mapping[str, Any], field: str, most: int, longest: int, nouns: tuple[str, str]
) -> frozenset[str]:
    """``notifications.<field>``: at most ``most`` strings of at most ``longest`` characters
    (``nouns``: how a message names them, and one of them)."""
    value = wanted.get(field)
    if value is None:
        return frozenset()
    if not isinstance(value, list) or not all(isinstance(name, str) for name in value):
        raise _invalid(f"notifications.{field} must be an array of strings")
    plural, one = nouns
    if len(value) > most:
        raise _invalid(f"names {len(value)} {plural}; at most {most} per stream")
    if any(len(name) > longest for name in value):
        raise _invalid(f"{field} holds {one} over {longest} characters")
    return frozenset(value)


def tagged(message: Mapping[str, Any], request_id: RequestId) -> dict[str, Any]:
    """A copy of notification ``message`` carrying the stream's subscription id."""
    params = dict(message.get("params") or {})
    params["_meta"] = {**(params.get("_meta") or {}), META_SUBSCRIPTION_ID: request_id}
    return notification(str(message["method"]), params)


def acknowledged(request_id: RequestId, honored: Filter) -> dict[str, Any]:
    """The first message of a listen stream: the honored filter, tagged."""
    params = {"notifications": honored.to_wire()}
    return tagged({"method": SUBSCRIPTIONS_ACKNOWLEDGED, "params": params}, request_id)


def listen_result(request_id: RequestId, result_meta: Mapping[str, Any]) -> dict[str, Any]:
    """The ``SubscriptionsListenResult`` a server sends when it ends the stream itself."""
    return {
        "resultType": "complete",
        "_meta": {**result_meta, META_SUBSCRIPTION_ID: request_id},
    }
