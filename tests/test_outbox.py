"""genmcp.outbox: the bound, the order, foreign threads, taps and the reader's wake-up, on
the object (a real event loop, real threads)."""

from __future__ import annotations

import asyncio
import threading

from genmcp.events import STREAM_START, Answer, Event, Interim
from genmcp.outbox import OUTBOX_CAPACITY, Outbox

NOTE = Interim({"jsonrpc": "2.0", "method": "notifications/progress", "params": {}})


async def test_the_outbox_drops_notifications_past_its_bound_never_the_answer() -> None:
    outbox = Outbox(capacity=2)
    note = Interim({"jsonrpc": "2.0", "method": "notifications/progress", "params": {}})
    ask = Interim({"jsonrpc": "2.0", "id": 7, "method": "elicitation/create", "params": {}})
    answer = Answer({"jsonrpc": "2.0", "id": 1, "result": {}})
    assert [outbox.put(note), outbox.put(note), outbox.put(note)] == [True, True, False]
    assert outbox.dropped == 1
    assert outbox.put(ask) and outbox.put(STREAM_START) and outbox.put(answer)
    assert len(outbox) == 5
    taken = [outbox.get_nowait() for _ in range(5)]
    assert taken == [note, note, ask, STREAM_START, answer] and outbox.get_nowait() is None


async def test_the_bound_defaults_to_outbox_capacity() -> None:
    assert Outbox().capacity == OUTBOX_CAPACITY


async def test_puts_from_another_thread_arrive_in_order_on_the_loop() -> None:
    outbox = Outbox()
    notes = [Interim({"jsonrpc": "2.0", "method": "m", "params": {"n": n}}) for n in range(50)]

    def worker() -> None:
        for note in notes:
            assert outbox.put(note)

    thread = threading.Thread(target=worker)
    thread.start()
    thread.join()
    assert len(outbox) == 50  # handed over, counted before the loop appends them
    taken = [await outbox.get() for _ in range(50)]
    assert taken == notes and len(outbox) == 0


async def test_a_tap_sees_the_waiting_events_then_each_one_put() -> None:
    outbox = Outbox()
    seen: list[Event] = []
    outbox.put(NOTE)
    outbox.tap(seen.append)
    answer = Answer({"jsonrpc": "2.0", "id": 1, "result": {}})
    outbox.put(answer)
    assert seen == [NOTE, answer]


async def test_wake_ends_a_waiting_reader_with_none_and_get_waits_for_an_event() -> None:
    outbox = Outbox()
    reader = asyncio.ensure_future(outbox.get_or_wake())
    await asyncio.sleep(0)
    assert not reader.done()
    outbox.wake()
    assert await reader is None
    waiting = asyncio.ensure_future(outbox.get())
    await asyncio.sleep(0)
    outbox.put(STREAM_START)
    assert await waiting is STREAM_START
    outbox.put(NOTE)
    outbox.clear()
    assert outbox.get_nowait() is None and len(outbox) == 0
