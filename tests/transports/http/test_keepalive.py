"""The keepalive wheel: streams due are told, forgotten ones never, one timer per loop.

The wheel alone on asyncio's loop and on uvloop (streams that record being told; the timer's
state and the wheel's size counted), then over real uvicorn servers on both loops: idle SSE
streams of each kind (a legacy GET stream's feed, a 2026-07-28 ``subscriptions/listen``)
keep receiving keepalive comments, counted, and leave nothing on the server loop's wheel.
"""

from __future__ import annotations

import asyncio
import gc
import weakref
from collections.abc import AsyncIterator, Callable, Coroutine
from dataclasses import dataclass
from typing import Any, Final, TypeVar

import httpx
import pytest
import uvloop
from fastapi import FastAPI

from genmcp import StaticResource, mcp_router
from genmcp.transports.http.keepalive import WAKE_CHUNK, KeepaliveWheel, keepalive_wheel
from genmcp.transports.http.sse import ShutdownHub, StreamOptions, write_feed
from support.client import ModernClient
from support.server import LiveServer, LiveServers
from support.sse import SSEComment, SSEEvent, read_items

T = TypeVar("T")
LOOPS: Final = [
    pytest.param(asyncio.new_event_loop, id="asyncio"),
    pytest.param(uvloop.new_event_loop, id="uvloop"),
]
LoopFactory = Callable[[], asyncio.AbstractEventLoop]


@dataclass(eq=False)
class Stream:
    """A stream on the wheel: records that it was told, and what a first told one saw."""

    name: str
    told: list[str]

    def keepalive_due(self) -> None:
        self.told.append(self.name)


def run(factory: LoopFactory, body: Callable[[], Coroutine[Any, Any, T]]) -> T:
    with asyncio.Runner(loop_factory=factory) as runner:
        return runner.run(body())


async def until(check: Callable[[], bool]) -> None:
    for _ in range(2000):  # a hang guard (~10 s), no budget: what is awaited comes sooner
        if check():
            return
        await asyncio.sleep(0.005)
    raise AssertionError("never came")


@pytest.mark.parametrize("factory", LOOPS)
def test_streams_due_are_told_once_and_forgotten_ones_never(factory: LoopFactory) -> None:
    async def body() -> None:
        wheel, told = KeepaliveWheel(), []
        a, b, c, last = (Stream(name, told) for name in ("a", "b", "c", "last"))
        for stream in (a, b, c):
            wheel.schedule(stream, 0.02)
        wheel.schedule(last, 0.06)  # due after the others: b's turn has passed when it is told
        wheel.forget(b)  # it closed
        wheel.forget(b)  # twice is harmless
        assert (len(wheel), wheel.armed) == (3, True)
        await until(lambda: "last" in told)
        assert sorted(told) == ["a", "c", "last"]
        assert (len(wheel), wheel.armed) == (0, False)  # all told: the timer stopped

    run(factory, body)


@pytest.mark.parametrize("factory", LOOPS)
def test_the_last_stream_forgotten_stops_the_timer_and_an_earlier_turn_moves_it(
    factory: LoopFactory,
) -> None:
    async def body() -> None:
        wheel, told = KeepaliveWheel(), []
        slow, moved = Stream("slow", told), Stream("moved", told)
        wheel.schedule(slow, 60)
        wheel.schedule(moved, 60)
        wheel.schedule(moved, 0.01)  # its turn moves earlier: the timer is set again for it
        await until(lambda: told == ["moved"])
        assert (len(wheel), wheel.armed) == (1, True)  # slow still waits, on the one timer
        wheel.forget(slow)
        assert (len(wheel), wheel.armed) == (0, False)
        wheel.schedule(slow, 0.01)  # a new turn sets the timer again
        assert wheel.armed
        await until(lambda: told == ["moved", "slow"])
        assert not wheel.armed

    run(factory, body)


@pytest.mark.parametrize("factory", LOOPS)
def test_many_due_at_once_are_told_a_chunk_per_loop_turn(factory: LoopFactory) -> None:
    seen: list[int] = []  # how many were told when the first told stream's next turn ran

    async def body() -> None:
        wheel, told = KeepaliveWheel(), []
        loop = asyncio.get_running_loop()

        class First(Stream):
            def keepalive_due(self) -> None:
                super().keepalive_due()
                if len(told) == 1:
                    loop.call_soon(lambda: seen.append(len(told)))

        streams = [First(str(n), told) for n in range(3 * WAKE_CHUNK + 5)]
        for stream in streams:
            wheel.schedule(stream, 0.04)
        while len({wheel.due(stream) for stream in streams}) != 1:  # one due time for all:
            for stream in streams:  # again if the grid's step fell between two of them
                wheel.schedule(stream, 0.04)
        assert len(wheel) == len(streams)
        await until(lambda: len(told) == len(streams))
        assert sorted(told) == sorted(stream.name for stream in streams)  # each once
        assert (len(wheel), wheel.armed) == (0, False)

    run(factory, body)
    assert seen == [WAKE_CHUNK]


@pytest.mark.parametrize("factory", LOOPS)
def test_turns_counted_from_past_writes_share_the_grid_of_the_interval(
    factory: LoopFactory,
) -> None:
    # streams that wrote at 100 different moments of the last half second are due again
    # keepalive_s after each write: on the interval's 1 s grid, not a bucket (and a timer) each
    async def body() -> set[float]:
        wheel, now = keepalive_wheel(), asyncio.get_running_loop().time()
        streams = [Stream(str(i), []) for i in range(100)]
        for i, stream in enumerate(streams):
            wheel.schedule(stream, 60, since=now - i * 0.005)
        each = [wheel.due(stream) for stream in streams]
        dues = set(each)
        assert all(due is not None and due >= now - i * 0.005 + 60 for i, due in enumerate(each))
        for stream in streams:
            wheel.forget(stream)
        return {due for due in dues if due is not None}

    assert len(run(factory, body)) <= 2


@pytest.mark.parametrize("factory", LOOPS)
def test_one_wheel_per_loop_and_a_closed_loop_is_freed(factory: LoopFactory) -> None:
    async def grab() -> KeepaliveWheel:
        return keepalive_wheel()

    async def body() -> weakref.ref[asyncio.AbstractEventLoop]:
        mine = keepalive_wheel()
        assert keepalive_wheel() is mine
        theirs = await asyncio.to_thread(asyncio.run, grab())  # another loop, another thread
        assert theirs is not mine
        stream = Stream("s", [])
        mine.schedule(stream, 60)
        mine.forget(stream)  # as a stream that closed does
        return weakref.ref(asyncio.get_running_loop())

    loop = run(factory, body)
    gc.collect()
    assert loop() is None  # the wheel kept no hold on its loop


# -- over uvicorn -----------------------------------------------------------------------

KEEPALIVE_S: Final = 0.05
STREAMS: Final = 12
PINGS: Final = 3


async def _quiet() -> AsyncIterator[tuple[str | None, Any]]:
    await asyncio.Event().wait()  # a GET stream with nothing to say
    yield None, None


def feed_app(closed: list[bool]) -> Any:
    async def never_exits() -> None:
        await asyncio.Event().wait()

    options = StreamOptions(KEEPALIVE_S, 5.0, 1.0, ShutdownHub(never_exits))

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        assert scope["type"] == "http"
        try:
            await write_feed(_quiet(), receive, send, options, retry_ms=100)
        finally:
            closed.append(True)

    return app


async def wheel_state(server: LiveServer) -> tuple[int, bool]:
    async def probe() -> tuple[int, bool]:
        wheel = keepalive_wheel()
        return len(wheel), wheel.armed

    return await server.run_in_loop(probe())


async def wheel_empties(server: LiveServer) -> None:
    for _ in range(1000):  # a hang guard, as in until()
        if await wheel_state(server) == (0, False):
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"the wheel kept {await wheel_state(server)}")


@pytest.mark.parametrize("factory", LOOPS)
async def test_idle_get_streams_keep_getting_pings_and_leave_the_wheel_empty(
    live_server: LiveServers, factory: LoopFactory
) -> None:
    closed: list[bool] = []
    server = live_server.start(feed_app(closed), lifespan="off", loop_factory=factory)
    async with httpx.AsyncClient(timeout=10) as http:

        async def one() -> list[SSEEvent | SSEComment]:
            async with http.stream("GET", server.url) as response:
                return await read_items(response.aiter_bytes(), PINGS)

        got = await asyncio.gather(*(one() for _ in range(STREAMS)))
    for items in got:
        assert [type(item) for item in items] == [SSEComment] * PINGS
        assert all(isinstance(i, SSEComment) and i.text.startswith("ping - ") for i in items)
    await wheel_empties(server)  # every stream left its bucket; the timer stopped
    await until(lambda: len(closed) == STREAMS)


@pytest.mark.parametrize("factory", LOOPS)
async def test_idle_listen_streams_keep_getting_pings_and_leave_the_wheel_empty(
    live_server: LiveServers, modern_client: Callable[..., ModernClient], factory: LoopFactory
) -> None:
    router = mcp_router(
        server_name="keepalive",
        server_version="1",
        secret_key="k" * 48,
        resources=[StaticResource(uri="test://quiet", name="quiet", text="q")],
        keepalive_s=KEEPALIVE_S,
    )
    app = FastAPI()
    app.include_router(router, prefix="/mcp")
    server = live_server.start(app, loop_factory=factory)
    client = modern_client(server.url)
    listen = {"notifications": {"resourceSubscriptions": ["test://quiet"]}}

    async def one() -> int:
        async with client.stream("subscriptions/listen", listen) as exchange:
            await anext(exchange)  # the acknowledgement
            while len(exchange.reply.comments) < PINGS:
                assert await exchange.next_item() is not None
            assert all(text.startswith("ping - ") for text in exchange.reply.comments)
            return len(exchange.reply.comments)

    assert await asyncio.gather(*(one() for _ in range(STREAMS))) == [PINGS] * STREAMS
    await wheel_empties(server)
    await until(lambda: router.suite.live_listeners == 0)
