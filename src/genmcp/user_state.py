"""``UserStates``: a small store of named JSON values per user, across stateless calls.

MCP 2026-07-28 is stateless: nothing ties one ``tools/call`` to the next but the caller.
``UserStates`` keys state by the caller, as every other per-caller thing in genmcp is keyed
(``storage.owner.owner_of``: the issuer and subject of a verified token, or the principal a
dependency returned) and by its tenant (``assigns["tenant"]``, ``genmcp.fastapi.tenants``).
A tool reaches it from its channel: ``channel.user_state`` when the ``UserStates`` is in
the Suite's ``middleware=`` (it binds itself around each request), or ``states.of(channel)``
anywhere::

    state = channel.user_state         # this caller's state
    seen = await state.get("seen", 0)
    await state.set("seen", seen + 1)

The same caller gets the same state on every process sharing the store (Redis), in either
era (2025 session calls and 2026 stateless calls carry the same assigns), in a task's
worker; another principal's calls reach only their own: a state handle is made from the
caller's own assigns, never from anything the client sends. A caller with no principal (a
server without auth) has no state: ``of`` raises ``ValueError``.

Bounds: a value is at most ``max_value_bytes`` of JSON (``ValueError`` beyond), a user holds
at most ``max_names`` names (``set`` of a new name then returns False and stores nothing),
and a user's values expire ``ttl_s`` after the last write of any of them. The memory store
also bounds its users (``MemoryStateStore(max_owners=...)``).

Compared with ``requestState`` (``InputRequired``): that is sealed, carried by the client
through the rounds of one request, and gone when the request ends; this is held by the
server, per user, for as long as ``ttl_s``, across requests and sessions.

Imports genmcp's storage interfaces, owner keys and the middleware chain's types; no web
framework.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any, Final, Protocol

from genmcp.call import Call
from genmcp.caller import TENANT
from genmcp.channel import USER_STATES
from genmcp.middleware.chain import MCPRequest, Next
from genmcp.storage import StateStore
from genmcp.storage.memory.states import MemoryStateStore
from genmcp.storage.owner import owner_of

__all__ = ["MAX_NAME_CHARS", "Assigned", "UserState", "UserStates"]

MAX_NAME_CHARS: Final = 200
"""The longest name of a value."""


class Assigned(Protocol):
    """What carries a request's assigns: a ``Channel``, an ``MCPRequest``, a ``Caller``."""

    @property
    def assigns(self) -> Mapping[str, Any]:
        """What auth put there (the principal, the tenant ...)."""
        ...


class UserStates:
    """Per-user state on ``store`` (this process's memory by default).

    Args:
        store: where values live: ``MemoryStateStore()`` (one process), or
            ``RedisStores.states`` / ``RedisStateStore`` (every process of the app).
        ttl_s: a user's values expire this long after the last write of any of them.
        max_names: names one user holds at most.
        max_value_bytes: the largest value, as compact JSON.
    """

    def __init__(
        self,
        store: StateStore | None = None,
        *,
        ttl_s: float = 86_400.0,
        max_names: int = 64,
        max_value_bytes: int = 64 * 1024,
    ) -> None:
        if ttl_s <= 0 or max_names < 1 or max_value_bytes < 1:
            raise ValueError("UserStates: ttl_s > 0, max_names >= 1, max_value_bytes >= 1")
        self.store: StateStore = MemoryStateStore() if store is None else store
        self.ttl_s, self.max_names, self.max_value_bytes = ttl_s, max_names, max_value_bytes

    async def __call__(self, request: MCPRequest, call_next: Next) -> Call:
        """As middleware: bind this store around the request, for ``channel.user_state``."""
        token = USER_STATES.set(self)
        try:
            return await call_next(request)
        finally:
            USER_STATES.reset(token)

    def of(self, caller: Assigned | Mapping[str, Any]) -> UserState:
        """The state of the caller of ``caller``: a ``Channel`` (anything :class:`Assigned`:
        its ``assigns``) or the assigns themselves. ``ValueError`` when the caller has no
        principal."""
        try:
            assigns = caller if isinstance(caller, Mapping) else caller.assigns
        except AttributeError:  # neither: the TypeError below says what to give
            assigns = None
        if not isinstance(assigns, Mapping):
            raise TypeError("UserStates.of takes a Channel or its assigns")
        principal = owner_of(assigns)
        if principal is None:
            raise ValueError(
                "UserStates: the caller has no principal (a server without auth): state is "
                "kept per user, so give the server an auth= that names its callers"
            )
        tenant = assigns.get(TENANT)
        return UserState(self, None if tenant is None else str(tenant), principal)


class UserState:
    """One user's values (made by :meth:`UserStates.of`; cheap, made per call)."""

    __slots__ = ("_key", "_states", "principal", "tenant")

    def __init__(self, states: UserStates, tenant: str | None, principal: str) -> None:
        self._states, self.tenant, self.principal = states, tenant, principal
        who = json.dumps([tenant, principal], separators=(",", ":"))
        self._key = hashlib.sha256(who.encode()).hexdigest()[:40]  # bounded, no braces

    async def get(self, name: str, default: Any = None) -> Any:
        """The value ``name``, or ``default`` when there is none (or it expired)."""
        raw = await self._states.store.get(self._key, _checked(name))
        return default if raw is None else json.loads(raw)

    async def set(self, name: str, value: Any) -> bool:
        """Store ``value`` (a JSON value) as ``name``; False when this user already holds
        ``max_names`` other names (nothing stored). ``ValueError`` for a value that is not
        JSON or is larger than ``max_value_bytes``."""
        states = self._states
        try:
            raw = json.dumps(value, separators=(",", ":"), allow_nan=False)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"user state {name!r}: not a JSON value ({exc})") from None
        if len(raw.encode()) > states.max_value_bytes:
            raise ValueError(
                f"user state {name!r}: {len(raw.encode())} bytes of JSON, over "
                f"max_value_bytes={states.max_value_bytes}"
            )
        return await states.store.put(
            self._key, _checked(name), raw, states.ttl_s, states.max_names
        )

    async def delete(self, name: str) -> bool:
        """Remove ``name``; whether it was there."""
        return await self._states.store.delete(self._key, _checked(name))

    async def names(self) -> list[str]:
        """The names this user holds, sorted."""
        return await self._states.store.names(self._key)

    async def clear(self) -> None:
        """Remove every value of this user."""
        await self._states.store.clear(self._key)


def _checked(name: str) -> str:
    if not isinstance(name, str) or not 0 < len(name) <= MAX_NAME_CHARS:
        raise ValueError(f"a user state name is a string of 1 to {MAX_NAME_CHARS} characters")
    return name
