"""``storage.guard``: a deadline and a breaker around every shared-storage operation.

Driven with plain coroutines standing in for a store (the breaker knows no store): one that
answers, one that raises the store's error, one that hangs. The same breaker under a real
Redis that stops and hangs is tests/storage/test_guard_redis_faults.py.
"""

from __future__ import annotations

import asyncio
import time

import pytest

from genmcp.errors import MCPError
from genmcp.storage.guard import Breaker, LagClock, StorageUnavailable, StoreFailure


class StoreDown(Exception):
    """What the stand-in store raises when it fails."""


class Store:
    """A stand-in store: counts its calls, and fails or hangs when told to."""

    def __init__(self) -> None:
        self.calls = 0
        self.fail = False
        self.hang = False
        self.cancelled = False

    async def read(self) -> str:
        self.calls += 1
        if self.fail:
            raise StoreDown("connection refused")
        if self.hang:
            try:
                await asyncio.sleep(60)
            except asyncio.CancelledError:
                self.cancelled = True
                raise
        return "value"


async def test_an_answer_passes_through() -> None:
    store = Store()
    assert await Breaker("kv", (StoreDown,)).run(store.read) == "value"
    assert store.calls == 1


async def test_a_failure_is_storage_unavailable_then_calls_fail_fast_until_the_cooldown() -> None:
    store, breaker = Store(), Breaker("kv", (StoreDown,), cooldown_s=0.1)
    store.fail = True
    with pytest.raises(StorageUnavailable) as failed:
        await breaker.run(store.read)
    assert isinstance(failed.value, MCPError)
    assert failed.value.data == {"reason": "storage_unavailable", "store": "kv"}
    assert "kv is unreachable (StoreDown)" in str(failed.value)
    assert breaker.open
    store.fail = False
    with pytest.raises(StorageUnavailable, match="not retried yet"):
        await breaker.run(store.read)
    assert store.calls == 1  # the open breaker never touched the store
    await asyncio.sleep(0.12)
    assert not breaker.open
    assert await breaker.run(store.read) == "value"  # the probe succeeds: closed again
    assert store.calls == 2


async def test_a_hung_store_costs_the_deadline_and_its_operation_is_cancelled() -> None:
    store, breaker = Store(), Breaker("kv", (StoreDown,), deadline_s=0.1)
    store.hang = True  # for 60 s: only the deadline answers before the hang guard
    started = time.monotonic()
    with pytest.raises(StorageUnavailable, match="no answer in time"):
        await asyncio.wait_for(breaker.run(store.read), 10)  # a hang guard, not a budget
    assert time.monotonic() - started >= 0.09  # it waited the deadline, not less
    await asyncio.sleep(0)
    assert store.cancelled


async def test_errors_that_are_not_the_stores_pass_unchanged_and_do_not_trip_it() -> None:
    breaker = Breaker("kv", (StoreDown,))

    async def bug() -> None:
        raise KeyError("a bug of the caller")

    with pytest.raises(KeyError):
        await breaker.run(bug)
    assert not breaker.open


class Refusing(StoreFailure):
    """A store's own failure that says what failed (as Redis's ``WritesRefused`` does)."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.cause = f"refusing: {code}"


async def test_a_store_failure_names_its_cause_an_unnamed_one_its_class() -> None:
    async def refused() -> None:
        raise Refusing("FULL")

    async def unnamed() -> None:
        raise StoreFailure("no words of its own")

    for operation, cause in ((refused, "refusing: FULL"), (unnamed, "StoreFailure")):
        breaker = Breaker("kv", (StoreFailure,))
        with pytest.raises(StorageUnavailable) as failed:
            await breaker.run(operation)
        assert f"kv is unreachable ({cause})" in str(failed.value)


def test_a_breaker_refuses_bounds_that_cannot_work() -> None:
    with pytest.raises(ValueError, match="deadline_s"):
        Breaker("kv", (), deadline_s=0)
    with pytest.raises(ValueError, match="cooldown_s"):
        Breaker("kv", (), cooldown_s=-1)
    with pytest.raises(ValueError, match="concurrency"):
        Breaker("kv", (), concurrency=0)


class Pooled:
    """A stand-in client with a pool of two connections: a third operation waits for one."""

    def __init__(self) -> None:
        self.pool = asyncio.Semaphore(2)
        self.in_flight = self.most_in_flight = 0

    async def read(self) -> str:
        async with self.pool:
            self.in_flight += 1
            self.most_in_flight = max(self.most_in_flight, self.in_flight)
            await asyncio.sleep(0.3)  # each answer takes well under the deadline
            self.in_flight -= 1
        return "value"


async def test_a_burst_queues_outside_the_deadline_behind_the_concurrency() -> None:
    """Six at once on a pool of two: the last wait 0.6 s for a connection, over the 0.8 s
    deadline with their own 0.3 s; that wait is this process's backlog, not the store
    failing (a burst of posts once tripped the breaker on a healthy Redis)."""
    pooled, breaker = Pooled(), Breaker("kv", (StoreDown,), deadline_s=0.8, concurrency=2)
    answers = await asyncio.wait_for(  # a hang guard, not a budget
        asyncio.gather(*(breaker.run(pooled.read) for _ in range(6))), 30
    )
    assert answers == ["value"] * 6
    assert pooled.most_in_flight == 2 and not breaker.open


async def test_a_hung_store_fails_the_queued_operations_without_touching_it() -> None:
    store, breaker = Store(), Breaker("kv", (StoreDown,), deadline_s=0.1, concurrency=1)
    store.hang = True
    outcomes = await asyncio.wait_for(  # a hang guard, not a budget
        asyncio.gather(*(breaker.run(store.read) for _ in range(3)), return_exceptions=True), 30
    )
    assert [type(outcome) for outcome in outcomes] == [StorageUnavailable] * 3
    assert "no answer in time" in str(outcomes[0])
    assert all("not retried yet" in str(outcome) for outcome in outcomes[1:])
    assert store.calls == 1  # the queued two saw the breaker open once their turn came


async def test_the_lag_clock_is_one_per_loop_and_counts_a_blocked_loop() -> None:
    loop = asyncio.get_running_loop()
    clock = LagClock.of(loop)
    assert LagClock.of(loop) is clock
    before = clock.lag
    await asyncio.sleep(0.06)  # let it tick once on time
    time.sleep(0.2)  # noqa: ASYNC251 (the loop is blocked on purpose: the next tick is late)
    await asyncio.sleep(0.06)
    assert clock.lag - before >= 0.1
