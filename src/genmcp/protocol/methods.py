"""Every JSON-RPC method and notification name genmcp speaks, as one constant each.

The names of 2026-07-28 (``server/discover``, ``subscriptions/listen`` ...), of the Tasks
and Skills extensions, and of the 2025 revisions a legacy session may use (``initialize``, ``ping``,
``logging/setLevel`` ...). Code names a method through these constants, never a string
literal, so a typo is an import error and ``grep`` finds every use of a method.

Naming: a request's constant is its name in upper snake case (``tools/call`` ->
``TOOLS_CALL``, ``sampling/createMessage`` -> ``SAMPLING_CREATE_MESSAGE``); a notification's
is the same after ``notifications/`` (``notifications/tools/list_changed`` ->
``TOOLS_LIST_CHANGED``, ``notifications/tasks`` -> ``TASKS``). ``tests/protocol/test_methods.py``
holds the rule and checks the list against the official schemas.

What genmcp knows of each method is written once, in its :class:`Method` record (``METHODS``):
the params key naming its target, the ``Mcp-Name`` header rule, the middleware hook, the
scopes checked, who sends it. The tables of the middleware chain, the HTTP header checks, the
client's headers and the OAuth resource are read from the records at import, so they cannot
drift apart; the sets below (``REQUESTS`` ...) are views of the records too.

Pure data: imports nothing but ``dataclasses``, ``types`` and ``typing``.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Final, Literal, final

__all__ = [
    "CANCELLED",
    "COMPLETION_COMPLETE",
    "ELICITATION_COMPLETE",
    "ELICITATION_CREATE",
    "INITIALIZE",
    "INITIALIZED",
    "LEGACY_ONLY",
    "LOGGING_SET_LEVEL",
    "MESSAGE",
    "METHODS",
    "NOTIFICATIONS",
    "PING",
    "PROGRESS",
    "PROMPTS_GET",
    "PROMPTS_LIST",
    "PROMPTS_LIST_CHANGED",
    "REQUESTS",
    "RESOURCES_DIRECTORY_READ",
    "RESOURCES_LIST",
    "RESOURCES_LIST_CHANGED",
    "RESOURCES_READ",
    "RESOURCES_SUBSCRIBE",
    "RESOURCES_TEMPLATES_LIST",
    "RESOURCES_UNSUBSCRIBE",
    "RESOURCES_UPDATED",
    "ROOTS_LIST",
    "ROOTS_LIST_CHANGED",
    "SAMPLING_CREATE_MESSAGE",
    "SERVER_DISCOVER",
    "SERVER_REQUESTS",
    "SKILLS_GET",
    "SKILLS_LIST",
    "SUBSCRIPTIONS_ACKNOWLEDGED",
    "SUBSCRIPTIONS_LISTEN",
    "TASKS",
    "TASKS_CANCEL",
    "TASKS_GET",
    "TASKS_LIST",
    "TASKS_PREFIX",
    "TASKS_RESULT",
    "TASKS_STATUS",
    "TASKS_UPDATE",
    "TOOLS_CALL",
    "TOOLS_LIST",
    "TOOLS_LIST_CHANGED",
    "Hook",
    "Method",
]

# -- requests a client sends ------------------------------------------------------------

SERVER_DISCOVER: Final = "server/discover"
"""2026-07-28: the server's versions, capabilities and info."""
TOOLS_LIST: Final = "tools/list"
TOOLS_CALL: Final = "tools/call"
PROMPTS_LIST: Final = "prompts/list"
PROMPTS_GET: Final = "prompts/get"
RESOURCES_LIST: Final = "resources/list"
RESOURCES_TEMPLATES_LIST: Final = "resources/templates/list"
RESOURCES_READ: Final = "resources/read"
COMPLETION_COMPLETE: Final = "completion/complete"
SUBSCRIPTIONS_LISTEN: Final = "subscriptions/listen"
"""2026-07-28: a stream of change notifications (replaces the 2025 GET stream)."""

SKILLS_LIST: Final = "skills/list"
"""Skills extension (SEP-2640): the served skills, each with its file manifest."""
SKILLS_GET: Final = "skills/get"
"""Skills extension: one skill's entry, by the URI of its ``SKILL.md``."""
RESOURCES_DIRECTORY_READ: Final = "resources/directory/read"
"""Skills extension (``directoryRead``): the direct children of a directory resource."""

TASKS_PREFIX: Final = "tasks/"
"""What every task method starts with (all of them are 2026-07-28's Tasks extension's,
or 2025-11-25's own task methods)."""
TASKS_GET: Final = "tasks/get"
TASKS_UPDATE: Final = "tasks/update"
"""Tasks extension: the client's answers to a task's input requests."""
TASKS_CANCEL: Final = "tasks/cancel"
TASKS_RESULT: Final = "tasks/result"
"""2025-11-25 only (the extension reads the result with ``tasks/get``)."""
TASKS_LIST: Final = "tasks/list"
"""2025-11-25 only."""

# the 2025 revisions only: a legacy session's handshake and session state
INITIALIZE: Final = "initialize"
PING: Final = "ping"
LOGGING_SET_LEVEL: Final = "logging/setLevel"
RESOURCES_SUBSCRIBE: Final = "resources/subscribe"
RESOURCES_UNSUBSCRIBE: Final = "resources/unsubscribe"

# -- requests a server sends (2026-07-28: nested in ``inputRequests``) -------------------

ELICITATION_CREATE: Final = "elicitation/create"
SAMPLING_CREATE_MESSAGE: Final = "sampling/createMessage"
ROOTS_LIST: Final = "roots/list"

# -- notifications ----------------------------------------------------------------------

PROGRESS: Final = "notifications/progress"
MESSAGE: Final = "notifications/message"
"""A log message (``channel.send_log``)."""
CANCELLED: Final = "notifications/cancelled"
INITIALIZED: Final = "notifications/initialized"
"""The 2025 revisions: the client's end of the handshake."""
TOOLS_LIST_CHANGED: Final = "notifications/tools/list_changed"
PROMPTS_LIST_CHANGED: Final = "notifications/prompts/list_changed"
RESOURCES_LIST_CHANGED: Final = "notifications/resources/list_changed"
RESOURCES_UPDATED: Final = "notifications/resources/updated"
ROOTS_LIST_CHANGED: Final = "notifications/roots/list_changed"
SUBSCRIPTIONS_ACKNOWLEDGED: Final = "notifications/subscriptions/acknowledged"
"""2026-07-28: the first message of a listen stream, with the honored filter."""
TASKS: Final = "notifications/tasks"
"""Tasks extension: a task's status changed (on a listen stream)."""
TASKS_STATUS: Final = "notifications/tasks/status"
"""2025-11-25's task status notification."""
ELICITATION_COMPLETE: Final = "notifications/elicitation/complete"
"""The 2025 revisions: a URL elicitation finished."""

# -- one record per method --------------------------------------------------------------

Hook = Literal["on_call_tool", "on_list", "on_read_resource", "on_get_prompt"]
"""The per-method hooks of ``genmcp.middleware.Middleware``."""


@final
@dataclass(frozen=True, slots=True)
class Method:
    """Everything genmcp's tables know of one JSON-RPC method, written once.

    Attributes:
        name: the method (``tools/call``).
        target: the params key naming the tool or prompt (``name``) or the resource
            (``uri``) the request is about: ``MCPRequest.target`` in middleware; None for none.
        mcp_name: the params key whose value the 2026-07-28 HTTP transport repeats in the
            ``Mcp-Name`` header (a client sends it, a server checks it); None: no header.
        hook: the ``Middleware`` hook it runs (None: ``on_request`` only).
        scoped: its target declares OAuth scopes the caller must hold, checked by the
            transport before the Suite runs (``OAuthResource.authorize_message``).
        scoped_by_header: the scopes of its target can be named from the ``Mcp-Method`` /
            ``Mcp-Name`` headers before the body is read (a name lookup, no URI parsing),
            so every challenge lists them.
        from_server: a request a server sends a client (a tool's input requests).
        legacy_only: a 2025 session's handshake or state: 2026-07-28 has no such method.
        notification: a notification (no id, no response); else a request.
    """

    name: str
    target: Literal["name", "uri"] | None = None
    mcp_name: Literal["name", "uri", "taskId"] | None = None
    hook: Hook | None = None
    scoped: bool = False
    scoped_by_header: bool = False
    from_server: bool = False
    legacy_only: bool = False
    notification: bool = False


def _named(name: str, hook: Hook) -> Method:
    """A request about a tool or prompt by its name (``tools/call``, ``prompts/get``)."""
    return Method(
        name, target="name", mcp_name="name", hook=hook, scoped=True, scoped_by_header=True
    )


def _task(name: str) -> Method:
    """A Tasks extension request about one task: its ``Mcp-Name`` is the task id."""
    return Method(name, mcp_name="taskId")


_RECORDS: Final = (
    # requests a client sends
    Method(SERVER_DISCOVER),
    Method(TOOLS_LIST, hook="on_list"),
    _named(TOOLS_CALL, "on_call_tool"),
    Method(PROMPTS_LIST, hook="on_list"),
    _named(PROMPTS_GET, "on_get_prompt"),
    Method(RESOURCES_LIST, hook="on_list"),
    Method(RESOURCES_TEMPLATES_LIST, hook="on_list"),
    # resources/read: its scopes need the URI parsed (a repository's parse_uri): not pre-auth
    Method(RESOURCES_READ, target="uri", mcp_name="uri", hook="on_read_resource", scoped=True),
    Method(COMPLETION_COMPLETE),
    Method(SUBSCRIPTIONS_LISTEN),
    Method(SKILLS_LIST),
    Method(SKILLS_GET, target="uri", scoped=True),  # a skill, by its SKILL.md URI
    Method(RESOURCES_DIRECTORY_READ, target="uri", scoped=True),
    _task(TASKS_GET),
    _task(TASKS_UPDATE),
    _task(TASKS_CANCEL),
    Method(TASKS_RESULT),
    Method(TASKS_LIST),
    Method(INITIALIZE, legacy_only=True),
    Method(PING, legacy_only=True),
    Method(LOGGING_SET_LEVEL, legacy_only=True),
    # the session layer answers these; no scopes are checked for a subscription
    Method(RESOURCES_SUBSCRIBE, target="uri", legacy_only=True),
    Method(RESOURCES_UNSUBSCRIBE, target="uri", legacy_only=True),
    # requests a server sends
    Method(ELICITATION_CREATE, from_server=True),
    Method(SAMPLING_CREATE_MESSAGE, from_server=True),
    Method(ROOTS_LIST, from_server=True),
    # notifications
    *(
        Method(name, notification=True)
        for name in (
            PROGRESS,
            MESSAGE,
            CANCELLED,
            INITIALIZED,
            TOOLS_LIST_CHANGED,
            PROMPTS_LIST_CHANGED,
            RESOURCES_LIST_CHANGED,
            RESOURCES_UPDATED,
            ROOTS_LIST_CHANGED,
            SUBSCRIPTIONS_ACKNOWLEDGED,
            TASKS,
            TASKS_STATUS,
            ELICITATION_COMPLETE,
        )
    ),
)

METHODS: Final[MappingProxyType[str, Method]] = MappingProxyType(
    {record.name: record for record in _RECORDS}
)
"""Every method's record, by name (read-only)."""

# -- sets (views of the records) ---------------------------------------------------------

SERVER_REQUESTS: Final = frozenset(name for name, m in METHODS.items() if m.from_server)
"""The requests a server sends a client (a tool's input requests)."""
REQUESTS: Final = frozenset(name for name, m in METHODS.items() if not m.notification)
"""Every request name above, whoever sends it."""
LEGACY_ONLY: Final = frozenset(name for name, m in METHODS.items() if m.legacy_only)
"""The requests only the 2025 revisions have (a session's handshake and its state)."""
NOTIFICATIONS: Final = frozenset(name for name, m in METHODS.items() if m.notification)
"""Every notification name above."""
