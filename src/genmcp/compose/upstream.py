"""The connection to one remote MCP server behind a mount: its pooled ``Client``, listing, breaker.

``Upstream`` owns the ``genmcp.Client`` of one remote server (one connection pool for all its
calls, ``timeout_s`` for each connect and read) and its listing: fetched when the outer Suite
starts, refreshed when the upstream says ``list_changed``, each tool, prompt and (with
``resources=True``) the resource repository served in the outer Suite through the mount's
proxy entries (``genmcp.compose.remote``). Every upstream request goes through
:meth:`Upstream.send`, which turns the upstream's failures into outcomes.

An upstream that cannot be reached answers its tools' calls with a -32603 error naming it;
after ``failures`` failures in a row the :class:`Breaker` opens and calls are refused at once
for ``cooldown_s`` (no wait on a dead server), then one call tries again. An upstream that
crosses one of the client's bounds (``ClientLimits``: an answer too large, a listing without
end, a call past its deadline, an answer with another request's id) fails the same way (its
error's ``data`` names the ``limit``; a deadline is -32001, a request timeout); one that does so
while the outer Suite starts leaves it unlisted and counts as down: the outer starts anyway.

Imports genmcp's client (and so httpx), ``compose.pending`` and ``compose.subscriptions``;
never ``compose.remote``, which imports this module: its proxy entries come in as
:class:`Proxies` (``remote.PROXIES``, passed by ``compose.mount``). Loaded with the first
remote ``Mount``, never by ``import genmcp``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final, NamedTuple

from genmcp.client import (
    Client,
    ClientError,
    DeadlineExceeded,
    LimitExceeded,
    RPCError,
)
from genmcp.compose.pending import PendingCalls
from genmcp.compose.subscriptions import UpstreamSubscriptions
from genmcp.errors import MISSING_CAPABILITY, REQUEST_TIMEOUT, MCPError
from genmcp.outcomes import Error
from genmcp.prompts import Prompt
from genmcp.protocol.methods import (
    PROMPTS_LIST_CHANGED,
    RESOURCES_LIST_CHANGED,
    RESOURCES_UPDATED,
    TOOLS_LIST_CHANGED,
)
from genmcp.protocol.tasks import EXTENSION as TASKS_EXTENSION
from genmcp.resources import ResourceRepo
from genmcp.tools import Tool

if TYPE_CHECKING:
    from genmcp.suite import Suite

__all__ = ["Breaker", "Proxies", "Upstream", "UpstreamDown"]

log = logging.getLogger("genmcp")

INTERNAL: Final = -32603
RELAYED: Final[Mapping[str, Any]] = {"elicitation": {}, "sampling": {}, "roots": {}}
"""What a 2025 session upstream is told at ``initialize`` the proxy answers: its requests
are relayed to the outer client (who may refuse them). A 2026-07-28 request declares the
outer client's own capabilities instead."""


class Proxies(NamedTuple):
    """The classes an upstream's catalog is served through in the outer Suite (each entry's
    ``arg``: ``(upstream, descriptor)`` for a tool or a prompt, the upstream for the repo)."""

    tool: type[Tool]
    prompt: type[Prompt]
    repo: type[ResourceRepo]


class UpstreamDown(Exception):
    """The upstream cannot be reached now (refused, timed out, or the breaker is open)."""


class Breaker:
    """Opens after ``failures`` failures in a row; refuses for ``cooldown_s``, then lets one
    call try (half open): a success closes it, a failure opens it again."""

    __slots__ = ("cooldown_s", "failures", "opened_at", "threshold")

    def __init__(self, failures: int, cooldown_s: float) -> None:
        self.threshold, self.cooldown_s = failures, cooldown_s
        self.failures = 0
        self.opened_at: float | None = None

    def allows(self) -> bool:
        """False while open and cooling down."""
        if self.opened_at is None:
            return True
        if time.monotonic() - self.opened_at >= self.cooldown_s:
            self.opened_at = None  # half open: this call tries
            self.failures = self.threshold - 1
            return True
        return False

    def retry_in(self) -> float:
        """Seconds until the next try is let through."""
        if self.opened_at is None:
            return 0.0
        return max(0.0, self.cooldown_s - (time.monotonic() - self.opened_at))

    def failed(self) -> None:
        self.failures += 1
        if self.failures >= self.threshold:
            self.opened_at = time.monotonic()

    def succeeded(self) -> None:
        self.failures, self.opened_at = 0, None


class Upstream:
    """One remote server behind a mount (see the module docstring).

    Args:
        target: the upstream MCP endpoint URL, or a stdio server's command (a list).
        client: the ``Client`` of ``target``, declaring :data:`RELAYED` as its capabilities
            (the mount makes it with its connection options: token, headers, limits, cache...).
        proxies: the entries its tools, prompts and resources are served through.
        prefix: what the mount puts before each name (``"weather_"``, or ``""``).
        timeout_s: seconds a connect or a read may take upstream (the client's ``timeout``).
        failures, cooldown_s: the circuit breaker.
        resources: serve the upstream's resources too (proxy mode).
    """

    def __init__(
        self,
        target: str | Sequence[str],
        client: Client,
        *,
        proxies: Proxies,
        prefix: str,
        timeout_s: float,
        failures: int,
        cooldown_s: float,
        resources: bool = False,
    ) -> None:
        self.proxies, self.prefix, self.timeout_s = proxies, prefix, timeout_s
        self.target = target if isinstance(target, str) else list(target)
        self.resources = resources
        self.templates: list[dict[str, Any]] | None = None  # served by the proxies' repo
        self.client = client
        self.url = self.client.url
        """The URL, or the stdio command as one line: what messages and logs name."""
        self._modern = False
        self.breaker = Breaker(failures, cooldown_s)
        self.tools: dict[str, dict[str, Any]] = {}  # upstream name -> descriptor
        self.prompts: dict[str, dict[str, Any]] = {}
        self.suite: Suite | None = None  # the outer Suite, from start on
        self._follow: asyncio.Task[None] | None = None
        self._background: set[asyncio.Task[Any]] = set()
        self.pending = PendingCalls()
        """Calls to a 2025 session upstream held between the outer client's input rounds."""
        self.subscriptions = UpstreamSubscriptions(self, self.owns)
        """The outer subscribers' resource subscriptions, held upstream (``resources``)."""

    def owns(self, uri: str) -> bool:
        """True when the outer Suite routes ``uri`` to this upstream's repository."""
        found = None if self.suite is None else self.suite.resource_repo(uri)
        return found is not None and isinstance(found[0], self.proxies.repo) and found[1] is self

    def modern(self) -> bool:
        """True for a 2026-07-28 upstream, whose requests then declare only the outer
        client's capabilities (``RELAYED`` is a 2025 session's, declared once)."""
        if not self._modern and self.client.era is not None and self.client.session is None:
            self.client.connection.capabilities.clear()
            self._modern = True
        return self._modern

    @property
    def serves_tasks(self) -> bool:
        """Whether the upstream advertises the Tasks extension (its tools may run as tasks)."""
        extensions = self.client.server_capabilities.get("extensions")
        return isinstance(extensions, Mapping) and TASKS_EXTENSION in extensions

    def background(self, work: Any, name: str) -> None:
        """Run ``work`` (a coroutine) on its own, e.g. a ``tasks/cancel`` upstream; its
        failure is logged; ``aclose`` cancels what is left."""

        async def run() -> None:
            try:
                await work
            except Exception as exc:
                log.info("mount %s: %s failed (%s)", self.url, name, exc)

        task = asyncio.get_running_loop().create_task(run(), name=f"mount {self.url}: {name}")
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    # -- the listing --------------------------------------------------------------------

    async def start(self, suite: Suite) -> None:
        """List the upstream into ``suite``, then follow its changes in the background (a
        down upstream is retried there: the outer server starts anyway)."""
        self.suite = suite
        if self.resources:
            self.subscriptions.start(suite)
        try:
            await self.refresh(suite)
        except (ClientError, OSError) as exc:
            self.breaker.failed()  # down (or misbehaving) from the start
            log.warning("mount %s: not listed yet (%s); retrying in the background", self.url, exc)
        self._follow = asyncio.create_task(self._changes(suite), name=f"mount {self.url}")

    async def refresh(self, suite: Suite, *, cache: bool = True) -> None:
        """Fetch the upstream's tools and prompts; serve the new ones, drop the gone ones
        (``cache=False``: past the response cache, after a reconnect)."""
        client = self.client
        tools = {t["name"]: t for t in await client.list_tools(cache=cache) if "name" in t}
        capabilities = client.server_capabilities
        prompts = {}
        if "prompts" in capabilities:
            found = await client.list_prompts(cache=cache)
            prompts = {p["name"]: p for p in found if "name" in p}
        templates = None
        if self.resources and "resources" in capabilities:
            templates = await client.list_resource_templates(cache=cache)
        self.breaker.succeeded()
        self._apply(suite, "tool", self.tools, tools)
        self._apply(suite, "prompt", self.prompts, prompts)
        if templates is not None and templates != self.templates:
            if self.templates is not None:
                suite.remove_resource("", local=True)
            self.templates = templates
            suite.add_resource((self.proxies.repo, self), local=True)
            self.subscriptions.resync()

    def _apply(
        self, suite: Suite, kind: str, held: dict[str, dict[str, Any]], found: dict[str, Any]
    ) -> None:
        add: Any = suite.add_tool if kind == "tool" else suite.add_prompt
        remove = suite.remove_tool if kind == "tool" else suite.remove_prompt
        proxies = self.proxies
        proxy: type[Tool] | type[Prompt] = proxies.tool if kind == "tool" else proxies.prompt
        for name in [name for name, old in held.items() if found.get(name) != old]:
            remove(self.prefix + name, local=True)
            del held[name]
        for name, descriptor in found.items():
            if name in held:
                continue
            try:
                add((proxy, (self, descriptor)), local=True)
            except ValueError as exc:  # a collision, or a schema the outer refuses
                log.error("mount %s: %s %r not served: %s", self.url, kind, name, exc)
                continue
            held[name] = descriptor

    async def _changes(self, suite: Suite) -> None:
        """Re-list on every ``list_changed``; reconnect (and re-list) after a failure."""
        while True:
            try:
                async with self.client.listen(resources=self.resources) as changes:
                    await self.refresh(suite, cache=False)  # changed before the stream opened
                    async for note in changes:
                        method = note.get("method")
                        if method in (TOOLS_LIST_CHANGED, PROMPTS_LIST_CHANGED):
                            await self.refresh(suite)
                        elif method == RESOURCES_LIST_CHANGED and self.templates is not None:
                            await self.refresh(suite)
                            suite.resource_list_changed()
                        elif method == RESOURCES_UPDATED and self.templates is not None:
                            uri = (note.get("params") or {}).get("uri")
                            if isinstance(uri, str):
                                suite.resource_updated(uri)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # down, or no listen there: try again later
                log.info("mount %s: change stream ended (%s)", self.url, exc)
            await asyncio.sleep(self.breaker.cooldown_s)

    async def aclose(self) -> None:
        """Stop following and close the pool."""
        if self._follow is not None:
            self._follow.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._follow
        self.pending.cancel_all()
        await self.subscriptions.aclose()
        if self._background:  # a cancel upstream in flight: let it go out, briefly
            await asyncio.wait(set(self._background), timeout=self.timeout_s)
        await self.client.aclose()

    # -- calls ----------------------------------------------------------------------------

    def down(self, exc: BaseException | None = None) -> Error:
        """The error a call gets while the upstream cannot be reached."""
        if exc is None:
            wait = self.breaker.retry_in()
            why = f"it failed {self.breaker.threshold} times in a row; next try in {wait:.0f} s"
        else:
            why = str(exc) or type(exc).__name__
        data: dict[str, Any] = {"upstream": self.url}
        code = INTERNAL
        if isinstance(exc, LimitExceeded):
            data["limit"] = exc.limit
            code = REQUEST_TIMEOUT if isinstance(exc, DeadlineExceeded) else INTERNAL
        return Error(f"upstream {self.url} is unavailable: {why}", code, data)

    async def send(self, call: Any) -> Any:
        """Run one upstream request (``call`` makes the coroutine); errors become outcomes."""
        if not self.breaker.allows():
            return self.down()
        try:
            result = await call()
        except RPCError as exc:  # the upstream answered: it is up, its error passes on
            self.breaker.succeeded()
            if exc.code == MISSING_CAPABILITY:  # with its HTTP status (400), as upstream
                raise MCPError("missing_capability", exc.message, exc.data) from None
            error = exc.to_error()
            return Error(error["message"], error["code"], error.get("data"))
        except (ClientError, OSError) as exc:
            self.breaker.failed()
            return self.down(exc)
        self.breaker.succeeded()
        return result
