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

Pure data: imports nothing but ``typing``.
"""

from __future__ import annotations

from typing import Final

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

# -- sets -------------------------------------------------------------------------------

SERVER_REQUESTS: Final = frozenset({ELICITATION_CREATE, SAMPLING_CREATE_MESSAGE, ROOTS_LIST})
"""The requests a server sends a client (a tool's input requests)."""
REQUESTS: Final = frozenset(
    {
        SERVER_DISCOVER,
        TOOLS_LIST,
        TOOLS_CALL,
        PROMPTS_LIST,
        PROMPTS_GET,
        RESOURCES_LIST,
        RESOURCES_TEMPLATES_LIST,
        RESOURCES_READ,
        COMPLETION_COMPLETE,
        SUBSCRIPTIONS_LISTEN,
        SKILLS_LIST,
        SKILLS_GET,
        RESOURCES_DIRECTORY_READ,
        TASKS_GET,
        TASKS_UPDATE,
        TASKS_CANCEL,
        TASKS_RESULT,
        TASKS_LIST,
        INITIALIZE,
        PING,
        LOGGING_SET_LEVEL,
        RESOURCES_SUBSCRIBE,
        RESOURCES_UNSUBSCRIBE,
        *SERVER_REQUESTS,
    }
)
"""Every request name above, whoever sends it."""
LEGACY_ONLY: Final = frozenset(
    {INITIALIZE, PING, LOGGING_SET_LEVEL, RESOURCES_SUBSCRIBE, RESOURCES_UNSUBSCRIBE}
)
"""The requests only the 2025 revisions have (a session's handshake and its state)."""
NOTIFICATIONS: Final = frozenset(
    {
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
    }
)
"""Every notification name above."""
