"""``HTTPUpstream``: the one pooled HTTP client of an imported API, its breaker and its auth.

Every tool ``openapi_tools`` makes from one document shares one :class:`HTTPUpstream`: one
``httpx.AsyncClient`` (one connection pool, made on the event loop of the first call; a
call on another loop gets a pool of its own there), ``timeout_s`` for each connect, read
and write, and the circuit breaker of the remote mounts (``compose.upstream.Breaker``):
after ``failures`` failures in a row (a refused connection, a timeout, a 5xx) calls are
refused at once for ``cooldown_s``, then one call tries again.

Auth is per upstream and never implicit: ``credentials`` (headers, or ``caller -> headers``)
is what the server itself holds for the API; ``forward_bearer=True`` is the explicit rule
that passes the MCP caller's own ``Authorization: Bearer`` on. Without either nothing is
sent, whatever the MCP request carried.

Imports httpx and genmcp's breaker.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

import httpx

from genmcp.caller import Caller
from genmcp.compose.upstream import Breaker

__all__ = ["APIUnavailable", "Credentials", "HTTPUpstream", "Reply"]

log = logging.getLogger("genmcp")

Credentials = Mapping[str, str] | Callable[[Caller], Mapping[str, str]]
"""What the server sends the API: fixed headers, or headers made from the MCP caller."""
_READ_CHUNK: Final = 65536


class APIUnavailable(Exception):
    """The API cannot answer now: refused, timed out, a 5xx, or the breaker is open."""

    def __init__(self, why: str, status: int | None = None) -> None:
        super().__init__(why)
        self.status = status


@dataclass(slots=True)
class Reply:
    """The API's answer to one call (a 2xx, 3xx or 4xx: a 5xx is :class:`APIUnavailable`)."""

    status: int
    media_type: str
    body: bytes = b""
    too_large: bool = False


@dataclass(slots=True)
class HTTPUpstream:
    """One external API behind imported tools (see the module docstring).

    Args:
        base_url: where its operations answer (``https://api.example.com/v1``).
        timeout_s: seconds a connect, a read or a write may take.
        failures, cooldown_s: the circuit breaker.
        credentials: headers sent on every call, or ``caller -> headers``.
        forward_bearer: pass the MCP caller's ``Authorization: Bearer`` on (explicit only).
        max_response_bytes: a larger response is refused (an ``isError`` result).
        http: an ``httpx.AsyncClient`` to use instead of the upstream's own (not closed here).
    """

    base_url: str
    timeout_s: float = 10.0
    failures: int = 3
    cooldown_s: float = 30.0
    credentials: Credentials | None = None
    forward_bearer: bool = False
    max_response_bytes: int = 4 * 1024 * 1024
    http: httpx.AsyncClient | None = None
    breaker: Breaker = field(init=False)
    _pools: dict[asyncio.AbstractEventLoop, httpx.AsyncClient] = field(
        init=False, default_factory=dict
    )

    def __post_init__(self) -> None:
        if self.timeout_s <= 0 or self.failures < 1 or self.cooldown_s < 0:
            raise ValueError("HTTPUpstream: timeout_s > 0, failures >= 1, cooldown_s >= 0")
        self.base_url = self.base_url.rstrip("/")
        self.breaker = Breaker(self.failures, self.cooldown_s)

    @property
    def pools(self) -> int:
        """How many connection pools are open (one per event loop that called)."""
        return len(self._pools)

    def client(self) -> httpx.AsyncClient:
        """The pool of the running loop (made at its first call)."""
        if self.http is not None:
            return self.http
        loop = asyncio.get_running_loop()
        pool = self._pools.get(loop)
        if pool is None:
            for dead in [old for old in self._pools if old.is_closed()]:
                del self._pools[dead]
            pool = self._pools[loop] = httpx.AsyncClient(timeout=httpx.Timeout(self.timeout_s))
        return pool

    def auth_headers(self, caller: Caller, authorization: str | None) -> list[tuple[str, str]]:
        """The credential headers of one call: the caller's bearer when the rule says so and
        the request carries one, else the configured credentials, else none."""
        if self.forward_bearer and authorization and authorization[:7].lower() == "bearer ":
            return [("authorization", authorization)]
        credentials = self.credentials
        if credentials is None:
            return []
        made = credentials(caller) if callable(credentials) else credentials
        return [(str(name), str(value)) for name, value in made.items()]

    def down_message(self, why: str) -> str:
        """What a call is told while the API is down."""
        return f"upstream {self.base_url} is unavailable: {why}"

    async def send(
        self,
        method: str,
        path: str,
        *,
        query: list[tuple[str, str]],
        headers: list[tuple[str, str]],
        body: Any = None,
        has_body: bool = False,
    ) -> Reply:
        """One call to the API; :class:`APIUnavailable` when it cannot answer."""
        breaker = self.breaker
        if not breaker.allows():
            wait = breaker.retry_in()
            raise APIUnavailable(
                f"it failed {breaker.threshold} times in a row; next try in {wait:.0f} s"
            )
        request_headers = dict(headers)
        request_headers.setdefault("accept", "application/json")
        try:
            async with self.client().stream(
                method,
                self.base_url + path,
                params=tuple(query),
                headers=request_headers,
                json=body if has_body else None,
            ) as response:
                reply = await self._read(response)
        except httpx.TimeoutException:
            breaker.failed()
            raise APIUnavailable(f"no answer within {self.timeout_s:g} s") from None
        except (httpx.HTTPError, OSError) as exc:
            breaker.failed()
            raise APIUnavailable(str(exc) or type(exc).__name__) from None
        if reply.status >= 500:
            breaker.failed()
            raise APIUnavailable(f"it answered {reply.status}", reply.status)
        breaker.succeeded()
        return reply

    async def _read(self, response: httpx.Response) -> Reply:
        media_type = response.headers.get("content-type", "").partition(";")[0].strip().lower()
        reply = Reply(response.status_code, media_type)
        chunks: list[bytes] = []
        size = 0
        async for chunk in response.aiter_bytes(_READ_CHUNK):
            size += len(chunk)
            if size > self.max_response_bytes:
                reply.too_large = True
                return reply
            chunks.append(chunk)
        reply.body = b"".join(chunks)
        return reply

    async def aclose(self) -> None:
        """Close the pool of the running loop (those of other loops close with them)."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        pool = self._pools.pop(loop, None)
        if pool is not None:
            with contextlib.suppress(Exception):
                await pool.aclose()
