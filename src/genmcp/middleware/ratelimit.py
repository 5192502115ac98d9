"""Per-principal rate limiting: :class:`RateLimit`, a token-bucket middleware.

Each caller (by default its ``principal`` from the assigns ``genmcp.auth`` sets) has a
bucket of ``burst`` tokens refilled at ``rate`` per second; a request takes one token. A
request that finds its bucket empty is answered at once, before any tool runs, with the
``rate_limited`` error (JSON-RPC -32029, ``error.data.retryAfter`` in seconds). Over
modern HTTP that response is ``429 Too Many Requests`` with ``Retry-After`` (whole seconds,
rounded up), set by the endpoint; a legacy session's error travels with 200 as every
legacy error does, and stdio has no status at all: the JSON-RPC error is the contract.

A tool may have its own :class:`Limit` (``tools={"search": Limit(1, 5)}``): its calls then
take from that tool's bucket only. Buckets live in this process (one per worker); at most
``max_keys`` callers are tracked, the least recently seen forgotten first.

Imports only genmcp's middleware, errors and owner keys, and the standard library.
"""

from __future__ import annotations

import math
import time
from collections import OrderedDict
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Final, final

from genmcp.errors import MCPError
from genmcp.middleware.chain import Call, MCPRequest, Middleware, Next
from genmcp.protocol.methods import INITIALIZE, INITIALIZED, PING, TOOLS_CALL
from genmcp.storage.owner import owner_of

__all__ = ["Limit", "RateLimit", "principal_key", "rate_limited"]

_SESSION_METHODS: Final = frozenset({INITIALIZE, PING, INITIALIZED})


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


@dataclass(slots=True)
class _Bucket:
    tokens: float
    stamp: float


def principal_key(request: MCPRequest) -> str | None:
    """The default key: the caller's owner (``storage.owner``: issuer-namespaced, an
    identity-less token its own); None (one shared bucket) on a server without auth."""
    return owner_of(request.assigns)


def rate_limited(retry_after_s: float) -> MCPError:
    """The ``rate_limited`` error telling the client to retry after ``retry_after_s``."""
    wait = round(max(retry_after_s, 0.001), 3)
    return MCPError("rate_limited", f"Too many requests: retry in {wait:g}s", {"retryAfter": wait})


class RateLimit(Middleware):
    """A token bucket per caller (and per tool with its own limit); see the module docstring.

    Args:
        default: the limit of every counted request without a tool limit; None: only the
            tools in ``tools`` are limited.
        tools: per-tool limits, by tool name.
        methods: the methods counted against ``default`` (None: all but ``initialize`` and
            ``ping``).
        key: the bucket a request takes from: a string, or None for the shared anonymous
            bucket (default: :func:`principal_key`). Return e.g. a header your proxy sets
            to limit anonymous callers apart.
        max_keys: callers tracked at most (the least recently seen are forgotten).
        clock: seconds, monotonic (default ``time.monotonic``).
    """

    def __init__(
        self,
        default: Limit | None = Limit(10, 20),
        *,
        tools: Mapping[str, Limit] | None = None,
        methods: Collection[str] | None = None,
        key: Callable[[MCPRequest], str | None] = principal_key,
        max_keys: int = 10_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.default, self.tools = default, dict(tools or {})
        self.methods = None if methods is None else frozenset(methods)
        self.key, self.max_keys, self.clock = key, max_keys, clock
        self._buckets: OrderedDict[tuple[str | None, str | None], _Bucket] = OrderedDict()

    async def on_request(self, request: MCPRequest, call_next: Next) -> Call:
        limit, scope = self._limit(request)
        if limit is not None:
            wait = self._take((self.key(request), scope), limit)
            if wait > 0:
                return request.fail(rate_limited(wait))
        return await call_next(request)

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

    def _take(self, where: tuple[str | None, str | None], limit: Limit) -> float:
        """Take a token; 0 when taken, else the seconds until one is there."""
        now = self.clock()
        bucket = self._buckets.get(where)
        if bucket is None:
            bucket = _Bucket(float(limit.burst), now)
            self._buckets[where] = bucket
            while len(self._buckets) > self.max_keys:
                self._buckets.popitem(last=False)
        else:
            self._buckets.move_to_end(where)
            bucket.tokens = min(limit.burst, bucket.tokens + (now - bucket.stamp) * limit.rate)
            bucket.stamp = now
        if bucket.tokens >= 1:
            bucket.tokens -= 1
            return 0.0
        return (1 - bucket.tokens) / limit.rate

    def remaining(self, key: str | None, tool: str | None = None) -> float | None:
        """Tokens left in a caller's bucket now (None when it has none yet), for tests."""
        bucket = self._buckets.get((key, tool))
        limit = self.tools.get(tool) if tool is not None else self.default
        if bucket is None or limit is None:
            return None
        return min(limit.burst, bucket.tokens + (self.clock() - bucket.stamp) * limit.rate)
