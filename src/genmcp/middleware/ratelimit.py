"""Rate limiting: :class:`RateLimit`, a token-bucket middleware, in one process or in Redis.

Each caller (by default its owner, ``storage.owner``: the principal ``genmcp.auth`` sets)
has a bucket of ``burst`` tokens refilled at ``rate`` per second; a request takes one token.
A request that finds its bucket empty is answered at once, before any tool runs, with the
``rate_limited`` error (JSON-RPC -32029, ``error.data.retryAfter`` in seconds). Over modern
HTTP that response is ``429 Too Many Requests`` with ``Retry-After`` (whole seconds, rounded
up), set by the endpoint; a legacy session's error travels with 200 as every legacy error
does, and stdio has no status at all: the JSON-RPC error is the contract.

A tool may have its own :class:`Limit` (``tools={"search": Limit(1, 5)}``): its calls then
take from that tool's bucket only. ``key`` picks the bucket: the principal, a tenant, a
header, anything of the request (:func:`assigns_key`). The buckets live in ``store``
(``storage.buckets``): this process's memory by default, or ``RedisBuckets`` so that every
process of the app takes from one budget (one Redis round trip per limited request; a
limit given no store takes the buckets of ``mcp_router(stores=...)``, or of its
``redis_url=``). A
Redis that is down or hung fails the limit *closed*: the request is answered
``storage_unavailable`` (HTTP 503, ``Retry-After``) within the store's deadline;
``fail_open=True`` limits with this process's own buckets meanwhile instead.

``headers=True`` adds the IETF draft's quota fields to every limited HTTP answer
(draft-ietf-httpapi-ratelimit-headers): ``RateLimit-Policy: "default";q=20;w=2`` (``q`` the
burst, ``w`` the seconds an empty bucket takes to fill) and ``RateLimit: "default";r=19;t=1``
(``r`` whole tokens left, ``t`` seconds until the bucket is full again).

``sep3304=True`` answers a refusal as SEP-3304 (**Draft**, "Standardize Rate-Limiting Errors";
it may change) asks instead: JSON-RPC ``-32023`` with ``error.data`` ``{"retryAfterMs",
"limit", "remaining"}`` (the burst, and 0), HTTP 429 in both eras (a 2025 session's answer
too), ``Retry-After`` in whole seconds and ``RateLimit-Limit`` / ``RateLimit-Remaining``.
Off by default: the -32029 contract stays what clients of today read.

Imports genmcp's middleware chain, errors, storage and owner keys, and the standard library.
"""

from __future__ import annotations

import logging
import math
import re
import time
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import Final, final

from genmcp.call import Call
from genmcp.errors import MCPError, sep3304_refusal
from genmcp.middleware.chain import MCPRequest, Middleware, Next
from genmcp.protocol.methods import INITIALIZE, INITIALIZED, PING, TOOLS_CALL
from genmcp.storage.buckets import MAX_KEYS, Buckets, MemoryBuckets, Taken
from genmcp.storage.guard import StorageUnavailable
from genmcp.storage.owner import owner_of

__all__ = [
    "Limit",
    "RateLimit",
    "assigns_key",
    "principal_key",
    "rate_limited",
    "sep3304_rate_limited",
    "share_buckets",
]

log = logging.getLogger("genmcp")

_SESSION_METHODS: Final = frozenset({INITIALIZE, PING, INITIALIZED})
_POLICY_NAME: Final = re.compile(r"[A-Za-z0-9_.:/-]{1,64}")


@final
@dataclass(frozen=True, slots=True)
class Limit:
    """``rate`` requests per second on average, bursts of up to ``burst``."""

    rate: float
    burst: int

    def __post_init__(self) -> None:
        if not (self.rate > 0 and math.isfinite(self.rate)):
            raise ValueError(f"Limit.rate must be a positive number, got {self.rate!r}")
        if self.burst < 1:
            raise ValueError(f"Limit.burst must be at least 1, got {self.burst!r}")

    @classmethod
    def per(cls, count: int, seconds: float) -> Limit:
        """``count`` requests per ``seconds``: a bucket of ``count`` refilled over ``seconds``
        (``Limit.per(10, 10)``: 10 at once, then one a second)."""
        return cls(count / seconds, count)


def principal_key(request: MCPRequest) -> str | None:
    """The default key: the caller's owner (``storage.owner``: issuer-namespaced, an
    identity-less token its own); None (one shared bucket) on a server without auth."""
    return owner_of(request.assigns)


def assigns_key(name: str) -> Callable[[MCPRequest], str | None]:
    """A key function: the assigns entry ``name`` (e.g. ``"tenant"``), None when absent."""

    def key(request: MCPRequest) -> str | None:
        value = request.assigns.get(name)
        return None if value is None else str(value)

    key.__name__ = f"assigns_key({name!r})"
    return key


def rate_limited(retry_after_s: float) -> MCPError:
    """The ``rate_limited`` error telling the client to retry after ``retry_after_s``."""
    wait = round(max(retry_after_s, 0.001), 3)
    return MCPError("rate_limited", f"Too many requests: retry in {wait:g}s", {"retryAfter": wait})


def sep3304_rate_limited(retry_after_s: float, limit: int, remaining: int = 0) -> MCPError:
    """The SEP-3304 (Draft) form: ``-32023`` with ``retryAfterMs`` (whole milliseconds, at
    least 1), ``limit`` and ``remaining`` (``errors.sep3304_refusal``, shared with the Tasks
    quota)."""
    return sep3304_refusal("Too many requests", retry_after_s, limit, remaining)


class RateLimit(Middleware):
    """A token bucket per caller (and per tool with its own limit); see the module docstring.

    Args:
        default: the limit of every counted request without a tool limit; None: only the
            tools in ``tools`` are limited.
        tools: per-tool limits, by tool name.
        methods: the methods counted against ``default`` (None: all but ``initialize`` and
            ``ping``).
        key: the bucket a request takes from: a string, or None for the shared anonymous
            bucket (default: :func:`principal_key`; :func:`assigns_key` for another entry).
        store: where the buckets live (default: ``MemoryBuckets``, this process, unless
            ``mcp_router(stores=...)`` or ``redis_url=`` gives it the bundle's;
            ``RedisBuckets``: every process shares them).
        name: the policy's name: separates this limit's buckets from another's in a shared
            store, and names it in the quota headers (``A-Za-z0-9_.:/-``).
        headers: add ``RateLimit-Policy`` and ``RateLimit`` to limited HTTP answers.
        sep3304: refuse in the SEP-3304 draft's shape (``-32023``, ``retryAfterMs``, 429 in
            both eras, ``RateLimit-Limit``/``-Remaining``); see the module docstring.
        fail_open: when ``store`` is unavailable, limit with this process's own buckets
            (False, the default: answer ``storage_unavailable``, HTTP 503).
        max_keys: callers tracked at most in memory (the least recently seen are forgotten).
        clock: seconds, monotonic, of the memory buckets (default ``time.monotonic``).
    """

    def __init__(
        self,
        default: Limit | None = Limit(10, 20),
        *,
        tools: Mapping[str, Limit] | None = None,
        methods: Collection[str] | None = None,
        key: Callable[[MCPRequest], str | None] = principal_key,
        store: Buckets | None = None,
        name: str = "default",
        headers: bool = False,
        sep3304: bool = False,
        fail_open: bool = False,
        max_keys: int = MAX_KEYS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if not _POLICY_NAME.fullmatch(name):
            raise ValueError(f"RateLimit name must be 1-64 of A-Za-z0-9_.:/-, got {name!r}")
        self.default, self.tools = default, dict(tools or {})
        self.methods = None if methods is None else frozenset(methods)
        self.key, self.name, self.headers, self.fail_open = key, name, headers, fail_open
        self.sep3304 = sep3304
        self.local = MemoryBuckets(max_keys=max_keys, clock=clock)
        self.store: Buckets = self.local if store is None else store
        self._policies: dict[str | None, tuple[str, str]] = {}
        if default is not None:
            self._policies[None] = self._policy(name, default)
        for tool, limit in self.tools.items():
            self._policies[tool] = self._policy(f"{name}:{tool}", limit)

    @staticmethod
    def _policy(name: str, limit: Limit) -> tuple[str, str]:
        """``RateLimit-Policy``'s item for ``limit``, and the ``RateLimit`` item's start."""
        if not name.isascii() or not name.isprintable():
            raise ValueError(f"RateLimit: a limited tool's name must be printable ASCII: {name!r}")
        quoted = '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'  # a string item
        window = max(1, math.ceil(limit.burst / limit.rate))
        return f"{quoted};q={limit.burst};w={window}", quoted

    async def on_request(self, request: MCPRequest, call_next: Next) -> Call:
        limit, scope = self._limit(request)
        if limit is None:
            return await call_next(request)
        bucket = self._bucket(request, scope)
        if self.store is self.local:  # the default: nothing to wait for, nothing to fail
            taken = self.local.take_now(bucket, limit.rate, limit.burst)
        else:
            taken = await self._take(bucket, limit)
        if taken.ok:
            call = await call_next(request)
        elif self.sep3304:
            left = max(0, math.floor(taken.tokens + 1e-9))
            call = request.fail(sep3304_rate_limited(taken.wait_s, limit.burst, left))
        else:
            call = request.fail(rate_limited(taken.wait_s))
        if self.headers:
            call.response_headers = (*call.response_headers, *self._fields(scope, limit, taken))
        return call

    def _limit(self, request: MCPRequest) -> tuple[Limit | None, str | None]:
        """The limit a request is counted against and its bucket's scope (a tool, or None)."""
        method = request.method
        if method == TOOLS_CALL:
            name = request.target
            own = None if name is None else self.tools.get(name)
            if own is not None:
                return own, name
        if self.methods is None:
            counted = method not in _SESSION_METHODS
        else:
            counted = method in self.methods
        return (self.default if counted else None), None

    def _bucket(self, request: MCPRequest, scope: str | None) -> str:
        """The store's key of a request's bucket: this policy's, its scope's, its key's."""
        return bucket_key(self.name, scope, self.key(request))

    async def _take(self, bucket: str, limit: Limit) -> Taken:
        """Take from the shared store; on its failure, fail closed or use the local buckets."""
        try:
            return await self.store.take(bucket, limit.rate, limit.burst)
        except StorageUnavailable:
            if not self.fail_open:
                raise  # fail closed: 503 with Retry-After, nothing runs
            return self.local.take_now(bucket, limit.rate, limit.burst)

    def _fields(self, scope: str | None, limit: Limit, taken: Taken) -> tuple[tuple[str, str], ...]:
        policy, item = self._policies[scope]
        full_in = max(0, math.ceil((limit.burst - taken.tokens) / limit.rate))
        left = max(0, math.floor(taken.tokens + 1e-9))
        return ("ratelimit-policy", policy), ("ratelimit", f"{item};r={left};t={full_in}")

    def adopt(self, store: Buckets) -> bool:
        """Keep the buckets in ``store`` from now on, if this limit was given no store (what
        ``mcp_router(stores=...)`` does with the bundle's buckets); True if so."""
        if self.store is not self.local:
            return False
        self.store = store
        return True

    def remaining(self, key: str | None, tool: str | None = None) -> float | None:
        """Tokens left in a caller's bucket of this process's memory now (None when it has
        none yet, or this limit has no such bucket), for tests."""
        limit = self.tools.get(tool) if tool is not None else self.default
        if limit is None:
            return None
        return self.local.peek(bucket_key(self.name, tool, key), limit.rate, limit.burst)


def share_buckets(middleware: Iterable[object], store: Buckets) -> None:
    """Every ``RateLimit`` of ``middleware`` given no store takes from ``store`` (``adopt``)."""
    for link in middleware:
        if isinstance(link, RateLimit):
            link.adopt(store)


def bucket_key(name: str, scope: str | None, key: str | None) -> str:
    """The store's name of a bucket: a policy's, for a tool (or all) and a caller (or none);
    ``=`` marks a present value, so that None and ``""`` differ (``\x1f`` separates)."""
    tool = "" if scope is None else "=" + scope
    return f"{name}\x1f{tool}\x1f{'' if key is None else '=' + key}"
