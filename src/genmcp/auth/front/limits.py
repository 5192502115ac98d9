"""The front's abuse bounds: what one source address, one client and everyone together may
start, so that a flood is refused to the flooder and never evicts anyone else's sign-in.

Every ``/authorize`` that would store a consent takes a token from its source address's
bucket, then from its client's (token buckets, ``genmcp.storage.buckets``: ``burst`` at once,
refilled over ``window_s``); ``/register`` takes from its source's registration bucket. An
empty bucket is a 429 with ``Retry-After`` for that source or client only. Behind them, a
store-wide bound (``RecordStore.admit``) caps the consents and pending sign-ins started in
their lifetime: once reached, new ones are a 503 with ``Retry-After``; none is ever evicted.

The source is the connection's address (IPv6: its /64, what one host usually has); behind a
proxy, make that the client's (uvicorn ``--proxy-headers --forwarded-allow-ips``) or pass
``AuthorizationFront(source=...)``.

Pure: no asyncio, no web framework, no HTTP client.
"""

from __future__ import annotations

import ipaddress
import math
from dataclasses import dataclass

from genmcp.storage import RecordStore
from genmcp.storage.buckets import Buckets
from genmcp.storage.memory import MemoryRecordStore

__all__ = ["FrontLimits", "Gate", "Throttled", "room", "source_key"]


@dataclass(frozen=True, slots=True)
class FrontLimits:
    """The front's bounds (``AuthorizationFront(limits=...)``); the security guide's table
    lists them with what each protects.

    Attributes:
        sign_ins_per_source: consents one source address may start at once, then refilled
            over ``sign_in_window_s`` (a token bucket).
        sign_ins_per_client: the same for one client (all sources together).
        sign_in_window_s: the seconds those buckets take to refill.
        max_pending: consents, and pending upstream sign-ins, started within their life
            (10 minutes) in all; more are refused (503), none evicted. A ``MemoryRecordStore``
            holds at most its ``max_entries`` of each: the smaller bound wins.
        registrations_per_source: dynamic registrations one source may make at once, then
            refilled over ``registration_window_s``.
        registration_window_s: the seconds that bucket takes to refill.
    """

    sign_ins_per_source: int = 30
    sign_ins_per_client: int = 300
    sign_in_window_s: float = 600.0
    max_pending: int = 10_000
    registrations_per_source: int = 20
    registration_window_s: float = 3600.0

    def __post_init__(self) -> None:
        counts = (self.sign_ins_per_source, self.sign_ins_per_client, self.max_pending,
                  self.registrations_per_source)  # fmt: skip
        if min(counts) < 1 or not (self.sign_in_window_s > 0 and self.registration_window_s > 0):
            raise ValueError("FrontLimits needs counts >= 1 and windows > 0")


class Throttled(Exception):
    """A request refused by a bound: its HTTP status (429: this source or client; 503:
    everyone), a description, and the seconds to wait (``Retry-After``)."""

    def __init__(self, status: int, description: str, retry_after_s: float) -> None:
        super().__init__(description)
        self.status, self.description = status, description
        self.retry_after = max(1, math.ceil(retry_after_s))


def source_key(host: str | None) -> str:
    """The bucket key of a connection's address: itself, an IPv6 address's /64."""
    if not host:
        return "unknown"
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)


def room(store: RecordStore, limit: int) -> int:
    """``limit``, or less when an in-memory ``store`` holds fewer records of a kind (a full
    one would evict the oldest: the bound must refuse before that)."""
    if isinstance(store, MemoryRecordStore):
        return max(1, min(limit, store.max_entries))
    return limit


class Gate:
    """Takes the per-source and per-client tokens of :class:`FrontLimits` from ``buckets``."""

    def __init__(self, limits: FrontLimits, buckets: Buckets) -> None:
        self.limits, self.buckets = limits, buckets

    async def sign_in(self, source: str, client_id: str) -> None:
        """One more consent for ``client_id`` from ``source``; :class:`Throttled` else."""
        limits = self.limits
        await self._take(f"front:sign-in:source:{source}", limits.sign_ins_per_source,
                         limits.sign_in_window_s, "too many sign-ins from your address")
        await self._take(f"front:sign-in:client:{client_id}", limits.sign_ins_per_client,
                         limits.sign_in_window_s, "too many sign-ins for this application")

    async def register(self, source: str) -> None:
        """One more registration from ``source``; :class:`Throttled` else."""
        limits = self.limits
        await self._take(f"front:register:{source}", limits.registrations_per_source,
                         limits.registration_window_s, "too many registrations from your address")

    async def _take(self, key: str, burst: int, window_s: float, description: str) -> None:
        taken = await self.buckets.take(key, burst / window_s, burst)
        if not taken.ok:
            raise Throttled(429, f"{description}: retry later", taken.wait_s)
