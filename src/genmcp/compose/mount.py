"""``Mount``: another Suite's tools, prompts, resources and skills served by this Suite.

``Suite(mounts=[Mount(weather, namespace="weather")])`` serves every tool and prompt of
``weather`` as ``weather_<name>`` (no namespace: the names as they are), and its resources,
resource templates and skills under their own URIs: a URI is already a global name, and
rewriting it would break the links a tool's results and an app view carry. A name or URI the
outer Suite already serves is refused when it is built (``ValueError`` naming the mount).

The mounted behaviours run in the outer Suite, as its own: its middleware, its per-tool
scopes, its Tasks and its transports apply, and progress, logs, cancellation, input rounds
and errors are those of a direct call, since there is no hop. A change of the inner Suite's
served set later on (``add_tool``, ``remove_prompt``, ...) is made in the outer one too, so its
listeners hear ``list_changed``; ``resource_updated`` and ``resource_list_changed`` of the
inner reach the outer's subscribers.

``Mount(url=...)`` mounts a remote server instead, and ``Mount(command=[...])`` a stdio
server (a process of its own), through ``genmcp.compose.upstream`` (the pooled client) and
``genmcp.compose.remote`` (the proxy entries), imported by the first such mount: they bring
genmcp's client and httpx (a third of ``import genmcp``), which a server without remote mounts
never needs.
"""

from __future__ import annotations

import functools
import logging
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

from genmcp.suite import Suite

if TYPE_CHECKING:
    import httpx

    from genmcp.client import ClientLimits
    from genmcp.client.cache import CacheStore
    from genmcp.compose.upstream import Upstream

__all__ = ["NAMESPACE", "Mount", "renamed"]

log = logging.getLogger("genmcp")

NAMESPACE: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
"""A namespace: what may start a tool name, and short enough to leave room for the name."""


def renamed(provider: Any, prefix: str) -> Any:
    """``provider`` (a Tool or Prompt class, or ``(cls, arg)``) whose name gets ``prefix``:
    a subclass whose ``info("name", arg)`` is the prefixed one, everything else inherited."""
    if not prefix:
        return provider
    cls, rest = (provider[0], provider[1:]) if isinstance(provider, tuple) else (provider, None)
    original = cls.info

    def info(self: Any, key: str, arg: Any) -> Any:
        value = original(self, key, arg)
        return prefix + value if key == "name" and isinstance(value, str) else value

    namespace = {"info": info, "__module__": cls.__module__, "__doc__": cls.__doc__}
    namespace["__qualname__"] = cls.__qualname__
    sub = type(cls.__name__, (cls,), namespace)
    return sub if rest is None else (sub, *rest)


class Mount:
    """A Suite's catalog, or a remote server's, served by another Suite under ``namespace``.

    Args:
        suite: the Suite to mount in-process (it keeps working on its own, too).
        url: instead, a remote MCP endpoint: its tools and prompts, through one pooled
            ``genmcp.Client`` (``genmcp.compose.upstream``, ``genmcp.compose.remote``).
        command: instead, a stdio MCP server: the command that starts it, as a list
            (``["python", "-m", "weather"]``); one process, started with the outer Suite,
            serves every call (``env=`` and ``cwd=`` for it).
        namespace: the prefix of the tool and prompt names, joined with ``_``
            (``weather`` -> ``weather_get_forecast``); None or ``""``: the names as they are.
        timeout_s: (remote) seconds a connect or a read may take upstream.
        failures, cooldown_s: (remote) the circuit breaker: after ``failures`` failures in
            a row, calls are refused at once for ``cooldown_s`` seconds.
        token, headers, http: (remote) a bearer token, headers, a shared ``httpx.AsyncClient``.
        resources: (remote) serve the upstream's resources and templates too, through one
            repository that claims every URI (proxy mode: ``mcp_router(proxy=URL)``).
        protocol: (remote) the upstream's revision (``"2026-07-28"``, ``"2025-11-25"``...)
            instead of probing it.
        limits: (remote) what the upstream may send and how long a call may take
            (``genmcp.client.ClientLimits``; its defaults when None): an upstream crossing
            one fails the call as if it were down.
        cache: (remote) the upstream client's response cache (``genmcp.client.cache``): its
            listings, resource lists and reads kept as the upstream's ``ttlMs``/
            ``cacheScope`` allow, emptied by its ``list_changed``/``resources/updated``;
            None (default): the shared cache of the router serving it if it has one
            (``mcp_router(redis_url=...)``: :meth:`share_cache`), else this process's
            memory; True: this process's memory; a ``CacheStore`` to share (Redis); False:
            off.
    """

    __slots__ = ("namespace", "prefix", "shares", "suite", "upstream")

    def __init__(
        self,
        suite: Suite | None = None,
        *,
        url: str | None = None,
        command: Sequence[str] | None = None,
        namespace: str | None = None,
        timeout_s: float = 10.0,
        failures: int = 3,
        cooldown_s: float = 30.0,
        token: str | None = None,
        headers: Mapping[str, str] | None = None,
        http: httpx.AsyncClient | None = None,
        resources: bool = False,
        protocol: str | None = None,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        limits: ClientLimits | None = None,
        cache: bool | CacheStore | None = None,
    ) -> None:
        if [suite, url, command].count(None) != 2:
            raise TypeError(
                "Mount takes one of a Suite (Mount(suite)), a URL (Mount(url=...)) or a "
                "stdio command (Mount(command=[...]))"
            )
        if command is not None and (isinstance(command, str) or not command):
            raise TypeError("Mount(command=...) takes the command as a list: ['python', 'srv.py']")
        if suite is not None and not isinstance(suite, Suite):
            raise TypeError(f"Mount(suite) takes a genmcp.Suite, not {type(suite).__name__}")
        if namespace and NAMESPACE.fullmatch(namespace) is None:
            raise ValueError(
                f"Mount(namespace={namespace!r}): a namespace is 1 to 64 of A-Z a-z 0-9 _ - . "
                "and starts with a letter or digit (e.g. namespace='weather')"
            )
        self.suite, self.namespace = suite, namespace or None
        self.prefix = f"{namespace}_" if namespace else ""
        self.upstream: Upstream | None = None
        self.shares = cache is None
        """Whether :meth:`share_cache` may give it a store (its cache left at the default)."""
        target = url if url is not None else None if command is None else list(command)
        if target is not None:
            from genmcp.client import Client
            from genmcp.client.limits import DEFAULT_LIMITS
            from genmcp.compose.remote import PROXIES
            from genmcp.compose.upstream import RELAYED, Upstream

            client = Client(
                target, token=token, headers=headers, http=http, timeout=timeout_s,
                protocol=protocol, capabilities=RELAYED, env=env, cwd=cwd,
                limits=limits or DEFAULT_LIMITS, cache=True if cache is None else cache,
            )  # fmt: skip
            self.upstream = Upstream(
                target, client, proxies=PROXIES, prefix=self.prefix, timeout_s=timeout_s,
                failures=failures, cooldown_s=cooldown_s, resources=resources,
            )  # fmt: skip

    def __repr__(self) -> str:
        if self.upstream is not None:
            kind = "command" if isinstance(self.upstream.target, list) else "url"
            return f"Mount({kind}={self.upstream.target!r}, namespace={self.namespace!r})"
        assert self.suite is not None
        return f"Mount({self.suite.server_info['name']!r}, namespace={self.namespace!r})"

    def share_cache(self, store: CacheStore) -> bool:
        """(remote, its cache left at the default) Keep the upstream's cached answers in
        ``store`` instead of this process's memory: what ``mcp_router`` does with its Redis
        stores' cache, so a gateway's processes share them. False (nothing changed) for a
        Suite mount or a cache chosen explicitly."""
        if self.upstream is None or not self.shares or self.upstream.client.cache is None:
            return False
        self.upstream.client.cache.store = store
        return True

    async def start(self, outer: Suite) -> None:
        """(remote) List the upstream into ``outer`` and follow its changes; the outer
        Suite awaits it when it starts (or at its first request)."""
        if self.upstream is not None:
            await self.upstream.start(outer)

    async def aclose(self) -> None:
        """(remote) Stop following the upstream and close its pool."""
        if self.upstream is not None:
            await self.upstream.aclose()

    def attach(self, outer: Suite) -> None:
        """Serve the mounted catalog in ``outer`` (a collision raises ``ValueError``), and
        follow the mounted Suite's changes from now on (remote: from ``start`` on)."""
        if self.suite is None:
            return
        if outer is self.suite:
            raise ValueError(f"{self!r}: a Suite cannot mount itself")
        for kind, provider in self.suite.provided():
            self._add(outer, kind, provider)
        self.suite.watch(functools.partial(self._follow, outer))

    def _add(self, outer: Suite, kind: str, provider: Any) -> None:
        try:
            if kind == "tool":
                outer.add_tool(renamed(provider, self.prefix), local=True)
            elif kind == "prompt":
                outer.add_prompt(renamed(provider, self.prefix), local=True)
            elif kind == "resource":
                outer.add_resource(provider, local=True)
            else:
                outer.add_skill(provider, local=True)
        except ValueError as exc:
            fix = (
                "mount it under another namespace, or rename one of the two"
                if kind in ("tool", "prompt")
                else "URIs are not namespaced: serve it from one side only, or change its URI"
            )
            raise ValueError(
                f"{self!r} collides with what {outer.server_info['name']!r} serves: {exc}; {fix}"
            ) from exc

    def _follow(self, outer: Suite, op: str, kind: str, key: str, provider: Any) -> None:
        """One change of the mounted Suite, made in ``outer`` too."""
        if op == "updated":
            outer.resource_updated(key)
        elif op == "list_changed":
            outer.resource_list_changed()
        elif op == "remove":
            named = self.prefix + key if kind in ("tool", "prompt") else key
            remove = {
                "tool": outer.remove_tool,
                "prompt": outer.remove_prompt,
                "resource": outer.remove_resource,
                "skill": outer.remove_skill,
            }[kind]
            remove(named, local=True)
        else:
            try:
                self._add(outer, kind, provider)
            except ValueError:  # at runtime nobody catches it: the outer keeps what it had
                log.exception("%r: a runtime change of the mounted Suite was not mounted", self)
