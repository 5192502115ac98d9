"""genmcp.readiness: a Suite answers once its shared catalog is replayed and its mounts started.

The mounts start once and side by side, however many first requests wait; a failed start is
every waiter's answer; after a shutdown the next lifespan starts them again; a Suite with
nothing to wait for is ready from the start. Driven on a Suite's real parts (``Wiring``) and
through a real Suite with a ``Mountable`` of the test's own (what ``Suite(mounts=...)`` takes).
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from genmcp import Suite
from genmcp.protocol import methods
from genmcp.readiness import Readiness
from genmcp.storage.memory import MemoryBroker
from tests.test_suite import ask
from tests.test_wiring import KEY, parts


class Counted:
    """A mount's start: counts its runs, and waits for ``gate`` when one is given."""

    def __init__(self, gate: asyncio.Event | None = None) -> None:
        self.runs = 0
        self.gate = gate
        self.started = asyncio.Event()

    async def __call__(self) -> None:
        self.runs += 1
        self.started.set()
        if self.gate is not None:
            await self.gate.wait()


async def test_nothing_to_wait_for_is_ready_from_the_start() -> None:
    readiness = Readiness(parts().catalog, ())
    assert readiness.ready
    await readiness.wait()
    readiness.reset()  # no mounts: nothing to start again
    assert readiness.ready


async def test_concurrent_waiters_share_one_start_of_each_mount() -> None:
    gate = asyncio.Event()
    first, second = Counted(gate), Counted()
    readiness = Readiness(parts().catalog, (first, second))
    assert not readiness.ready
    waiters = [asyncio.ensure_future(readiness.wait()) for _ in range(3)]
    await first.started.wait()
    await second.started.wait()  # side by side: the second did not wait for the first
    assert (first.runs, second.runs) == (1, 1)
    assert not readiness.ready and not any(w.done() for w in waiters)
    gate.set()
    await asyncio.gather(*waiters)
    assert readiness.ready and (first.runs, second.runs) == (1, 1)


async def test_a_failed_start_is_every_waiters_answer() -> None:
    async def broken() -> None:
        raise RuntimeError("upstream refused")

    readiness = Readiness(parts().catalog, (broken,))
    results = await asyncio.gather(readiness.wait(), readiness.wait(), return_exceptions=True)
    assert [str(r) for r in results] == ["upstream refused"] * 2
    assert not readiness.ready


async def test_after_a_reset_the_mounts_start_again() -> None:
    start = Counted()
    readiness = Readiness(parts().catalog, (start,))
    readiness.reset()  # never started: nothing to undo
    await readiness.wait()
    await readiness.wait()
    assert readiness.ready and start.runs == 1
    readiness.reset()
    assert not readiness.ready
    await readiness.wait()
    assert readiness.ready and start.runs == 2


async def test_a_shared_catalog_is_replayed_before_the_first_answer() -> None:
    catalog = parts(broker=MemoryBroker()).catalog
    readiness = Readiness(catalog, ())
    assert not readiness.ready and not catalog.started
    await readiness.wait()
    assert readiness.ready and catalog.started


class Mounted:
    """A ``Mountable`` of the test's own: what the Suite calls, counted."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def attach(self, suite: Suite) -> None:
        self.calls.append("attach")

    async def start(self, suite: Suite) -> None:
        self.calls.append("start")

    async def aclose(self) -> None:
        self.calls.append("aclose")


@pytest.mark.parametrize("lifespan", [False, True])
async def test_a_suites_mounts_start_once_per_lifespan(lifespan: bool) -> None:
    mount = Mounted()
    suite = Suite(server_name="s", server_version="1", secret_key=KEY, mounts=[mount])
    assert mount.calls == ["attach"]
    if lifespan:
        await suite.start()
    answers: list[Any] = await asyncio.gather(*(ask(suite, methods.TOOLS_LIST) for _ in range(3)))
    assert [a["result"]["tools"] for a in answers] == [[], [], []]
    assert mount.calls == ["attach", "start"]
    await suite.aclose()
    await suite.start()  # the next lifespan
    assert mount.calls == ["attach", "start", "aclose", "start"]
