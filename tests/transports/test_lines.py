"""``transports.lines``: stdin split into bounded lines on a thread, across read chunks, through
a pipe's descriptor or a buffered stream; a line over the limit is replaced by ``TOO_LONG``
and the lines after it are intact; None ends every read, also one that failed.
"""

from __future__ import annotations

import asyncio
import io
import os
import threading
from typing import Any, BinaryIO

from genmcp.transports.lines import READ_AHEAD, TOO_LONG, read_lines


async def lines_of(stream: BinaryIO | Any, limit: int) -> list[bytes]:
    """Every line ``read_lines`` hands over, until its None."""
    loop, queue = asyncio.get_running_loop(), asyncio.Queue[Any](READ_AHEAD)
    reader = threading.Thread(target=read_lines, args=(stream, limit, loop, queue), daemon=True)
    reader.start()
    got: list[bytes] = []
    while (line := await asyncio.wait_for(queue.get(), 10)) is not None:
        got.append(line)
    await asyncio.to_thread(reader.join, 10)
    assert not reader.is_alive()
    return got


async def test_lines_keep_their_newline_and_the_last_one_may_lack_it() -> None:
    text = b'{"a":1}\n\n{"b":2}\n{"c":3}'
    assert await lines_of(io.BytesIO(text), 100) == [b'{"a":1}\n', b"\n", b'{"b":2}\n', b'{"c":3}']


async def test_a_line_longer_than_a_read_chunk_arrives_whole() -> None:
    long = b"x" * 200_000 + b"\n"
    assert await lines_of(io.BytesIO(long + b"next\n"), 300_000) == [long, b"next\n"]


async def test_a_line_over_the_limit_is_replaced_and_the_next_ones_are_intact() -> None:
    exactly = b"y" * 10 + b"\n"  # the limit is the line's bytes, its newline aside
    text = exactly + b"z" * 11 + b"\n" + b"w" * 150_000 + b"\n" + b"ok\n" + b"v" * 11
    got = await lines_of(io.BytesIO(text), 10)
    assert got == [exactly, TOO_LONG, TOO_LONG, b"ok\n", TOO_LONG]


async def test_a_pipe_is_read_through_its_descriptor() -> None:
    read_end, write_end = os.pipe()
    messages = [b'{"n":%d}\n' % n for n in range(1000)]
    writer = threading.Thread(target=lambda: [os.write(write_end, m) for m in messages])
    writer.start()
    with os.fdopen(read_end, "rb") as stream:
        reading = asyncio.ensure_future(lines_of(stream, 100))
        await asyncio.to_thread(writer.join, 10)
        os.close(write_end)
        assert await reading == messages


class Failing(io.RawIOBase):
    """A stream whose second read fails: the reader ends, never leaves the loop waiting."""

    def __init__(self) -> None:
        self.reads = 0

    def read(self, size: int = -1) -> bytes:
        self.reads += 1
        if self.reads > 1:
            raise RuntimeError("gone")
        return b"first\nrest"


async def test_a_read_that_fails_still_ends_with_none() -> None:
    stream = Failing()
    assert await lines_of(stream, 100) == [b"first\n"]
    assert stream.reads == 2
