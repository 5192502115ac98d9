"""Run an ASGI app's lifespan outside a web server: for stdio and the in-process test client.

``async with lifespan(app) as state:`` sends ``lifespan.startup``, waits for the app to
finish starting (its lifespan, and the lifespans of the routers it includes, such as
``mcp_router``'s), yields the lifespan ``state`` dict (what a lifespan yielded; the
requests' ``scope["state"]`` is a shallow copy of it, as uvicorn does), and at exit sends
``lifespan.shutdown`` and waits for it. A startup failure raises :class:`LifespanError` with
the app's message (its last exception line when Starlette sent a whole traceback: the
traceback is the server log's, the message is the reader's); an app that does not speak the
lifespan protocol is served without one.

Imports asyncio only; never a web framework.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

__all__ = ["LifespanError", "lifespan", "short_failure"]

_TRACEBACK = "Traceback (most recent call last):"


class LifespanError(RuntimeError):
    """The app's lifespan failed to start or to stop."""


@contextlib.asynccontextmanager
async def lifespan(app: Any, timeout_s: float = 30.0) -> AsyncIterator[dict[str, Any]]:
    """Run ``app``'s lifespan around the block; yields the lifespan state."""
    state: dict[str, Any] = {}
    inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    outbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    scope = {"type": "lifespan", "asgi": {"version": "3.0", "spec_version": "2.0"}, "state": state}

    async def run() -> None:
        await app(scope, inbox.get, outbox.put)

    task = asyncio.create_task(run(), name="genmcp:lifespan")
    await inbox.put({"type": "lifespan.startup"})
    started = await _reply(task, outbox, timeout_s, "startup")
    if started is None:  # the app does not speak the lifespan protocol
        yield state
        return
    if started["type"] == "lifespan.startup.failed":
        await asyncio.wait([task], timeout=1.0)
        if task.done() and not task.cancelled():
            task.exception()  # retrieved: Starlette re-raises what it reported (no GC warning)
        message = short_failure(str(started.get("message", "")))
        raise LifespanError(f"the app's lifespan failed to start: {message}")
    try:
        yield state
    finally:
        await inbox.put({"type": "lifespan.shutdown"})
        stopped = await _reply(task, outbox, timeout_s, "shutdown")
        await asyncio.wait([task], timeout=timeout_s)
        if stopped is not None and stopped["type"] == "lifespan.shutdown.failed":
            message = short_failure(str(stopped.get("message", "")))
            raise LifespanError(f"the app's lifespan failed to stop: {message}")


async def _reply(
    task: asyncio.Task[None], outbox: asyncio.Queue[dict[str, Any]], timeout_s: float, phase: str
) -> dict[str, Any] | None:
    """The app's answer to a lifespan event; None when the app ended without one."""
    getting = asyncio.ensure_future(outbox.get())
    done, _ = await asyncio.wait(
        (getting, task), timeout=timeout_s, return_when=asyncio.FIRST_COMPLETED
    )
    if getting in done:
        return getting.result()
    getting.cancel()
    if not done:
        task.cancel()
        raise LifespanError(f"the app's lifespan {phase} took over {timeout_s} s")
    if phase == "startup" and not task.cancelled() and task.exception() is not None:
        return None  # an app without lifespan support raises on the lifespan scope
    return None


def short_failure(message: str) -> str:
    """A lifespan failure's message without its traceback: the exception line(s) after the
    last frame (Starlette sends ``traceback.format_exc()``); any other message as it is."""
    if _TRACEBACK not in message:
        return message.strip()
    lines = message.strip().splitlines()
    last_frame = max((i for i, line in enumerate(lines) if line.startswith("  File ")), default=-1)
    rest = lines[last_frame + 1 :]
    while rest and (rest[0].startswith(" ") or not rest[0].strip()):
        rest = rest[1:]  # the frame's source line and its ^^^ markers
    return "\n".join(rest).strip() or message.strip()
