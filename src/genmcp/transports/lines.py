"""stdio's framing: a blocking byte stream split into bounded lines on a thread, for a loop.

:func:`read_lines` runs on its own thread (reading stdin blocks), cuts what it reads at each
newline and hands every line, newline included, to an event loop's queue one at a time (the
queue's bound, ``READ_AHEAD``, holds the reader back). A line over the limit is never kept
whole: it is skipped and :data:`TOO_LONG` is queued in its place. At EOF, or when the stream
or the loop goes away, it queues None. Imports asyncio only; nothing from genmcp.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import os
from collections.abc import Callable
from typing import Any, BinaryIO, Final

__all__ = ["READ_AHEAD", "TOO_LONG", "read_lines"]

log = logging.getLogger("genmcp.stdio")

TOO_LONG: Final = b""
"""Queued in place of a line over the limit (a line read is never empty: it has its newline)."""
READ_AHEAD: Final = 64
"""How many lines a reader's queue holds before the reader waits."""
_CHUNK: Final = 65536


def read_lines(
    stream: BinaryIO, limit: int, loop: asyncio.AbstractEventLoop, lines: asyncio.Queue[Any]
) -> None:
    """Reader thread: blocking reads of ``stream`` split into lines of at most ``limit`` bytes
    (the newline aside), put on ``lines`` through ``loop`` one at a time; None at the end.

    Reads the file descriptor itself when there is one: a thread blocked in a buffered
    reader holds its lock, and the interpreter aborts at exit if it is still held.
    """

    def put(line: bytes | None) -> None:
        asyncio.run_coroutine_threadsafe(lines.put(line), loop).result()

    pending, skipping = bytearray(), False
    try:
        read = _raw_read(stream)
        while chunk := read(_CHUNK):
            start = 0
            while (end := chunk.find(b"\n", start)) >= 0:
                piece, start = chunk[start : end + 1], end + 1
                too_long = skipping or len(pending) + len(piece) > limit + 1
                put(TOO_LONG if too_long else bytes(pending + piece))
                pending.clear()
                skipping = False
            if not skipping:
                pending += chunk[start:]
                skipping = len(pending) > limit
        if pending or skipping:
            put(TOO_LONG if skipping else bytes(pending))
    except (OSError, ValueError, RuntimeError) as exc:  # stdin closed under us, loop gone
        log.debug("stdin reader stopped: %r", exc)
    except Exception:  # never leave the loop waiting for a line that cannot come
        log.exception("stdin reader failed")
    with contextlib.suppress(RuntimeError):
        asyncio.run_coroutine_threadsafe(lines.put(None), loop)


def _raw_read(stream: BinaryIO) -> Callable[[int], bytes]:
    """``read(n)`` without Python-level locks: ``os.read`` on the descriptor when possible."""
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):
        return stream.read
    return functools.partial(os.read, fd)
