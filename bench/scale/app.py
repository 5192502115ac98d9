"""One process of a scaled-out genmcp app: what `bench/scale/run.py` and the nginx tests serve.

Configured from the environment: REDIS_URL (required), GENMCP_PREFIX (key prefix, default
"scale:"), GENMCP_SECRET_KEY (shared by every process), GENMCP_HEARTBEAT_S and
GENMCP_HEARTBEAT_TTL_S (process liveness), GENMCP_RATE_LIMIT ("<calls>/<seconds>": every
process limits each `X-User` to that many tools/call in one budget kept in Redis, with the
quota headers; unset: no limit). Tools: `add` (a plain call), `ticker` (streams
`n` log events, then answers), `poll` (closes its stream at once, SSE polling, then
does what `ticker` does: the client resumes with `Last-Event-ID`), `wait_mail` (waits for one message posted to its worker id,
then returns it), `extra` (added by `POST /admin/extra/{word}`, removed by `DELETE
/admin/extra`: runtime catalog changes), and a route
`POST /post/{worker}` that posts a JSON body to a worker wherever it runs (`suite.post`).
Every response carries `X-Genmcp-Process` (this process's id) so tests see where it landed.
Run: `REDIS_URL=redis://127.0.0.1:6379/0 uvicorn --app-dir bench/scale app:app`.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI

from genmcp import Result, Stream, Suite, Tool, call_tool_result, mcp_router
from genmcp.scaleout import LegacyServer, RedisBroker, RedisSessionRegistry

URL = os.environ["REDIS_URL"]
PREFIX = os.environ.get("GENMCP_PREFIX", "scale:")
os.environ.setdefault("GENMCP_SECRET_KEY", "genmcp-scale-bench-not-a-secret-0123456789abcdef")
ADD = {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}}


class Add(Tool, name="add", description="Adds two numbers.", input_schema=ADD):
    async def call(self, request, channel, arg):
        args = request.arguments
        return Result(call_tool_result(text=str(args.get("a", 0) + args.get("b", 0))))


class WaitMail(Tool, name="wait_mail", description="Returns the first message posted to it."):
    async def call(self, request, channel, arg):
        channel.send_notification("notifications/message", {
            "level": "info", "data": {"worker": channel.mailbox.id}})
        return Stream(None)

    async def handle_message(self, message, channel, state, arg):
        return Result(call_tool_result(structured={"message": message}))


TICKS = {"type": "object", "properties": {"n": {"type": "integer"}, "every": {"type": "number"}}}


class Ticker(
    Tool, name="ticker", description="Sends `n` log events, `every` s apart.", input_schema=TICKS
):
    async def call(self, request, channel, arg):
        args = request.arguments
        n, every = int(args.get("n", 3)), float(args.get("every", 0.2))
        channel.start_stream()
        for i in range(1, n + 1):
            channel.send_notification("notifications/message", {"level": "info", "data": {"tick": i}})
            await asyncio.sleep(every)
        return Result(call_tool_result(text=f"{n} ticks"))


class Poll(
    Tool, name="poll", description="Closes its stream, then ticks like `ticker`.", input_schema=TICKS
):
    async def call(self, request, channel, arg):
        args = request.arguments
        n, every = int(args.get("n", 3)), float(args.get("every", 0.2))
        channel.close_stream()  # a 2025-11-25 client resumes it with GET + Last-Event-ID
        for i in range(1, n + 1):
            await asyncio.sleep(every)
            channel.send_notification("notifications/message", {"level": "info", "data": {"tick": i}})
        return Result(call_tool_result(text=f"{n} ticks after the close"))


class Extra(Tool, name="extra", description="Added and removed at run time (/admin/extra)."):
    async def call(self, request, channel, arg):
        return Result(call_tool_result(text=f"extra says {arg['word']}"))


broker = RedisBroker.from_url(URL, prefix=PREFIX)
# how soon a dead process counts as gone (tests shorten it; production keeps 3 s / 10 s)
if hasattr(broker, "inboxes"):  # (absent before issue 13: the bench also runs old code)
    broker.inboxes.heartbeat_s = float(os.environ.get("GENMCP_HEARTBEAT_S", "3"))
    broker.inboxes.heartbeat_ttl_s = float(os.environ.get("GENMCP_HEARTBEAT_TTL_S", "10"))
registry = RedisSessionRegistry.from_url(URL, prefix=PREFIX)
limits: dict[str, Any] = {}  # GENMCP_RATE_LIMIT: the limit's middleware and auth
if os.environ.get("GENMCP_RATE_LIMIT"):
    from fastapi import Request

    from genmcp import Limit, RateLimit
    from genmcp.scaleout import RedisBuckets

    calls, seconds = os.environ["GENMCP_RATE_LIMIT"].split("/")
    buckets = RedisBuckets.from_url(URL, prefix=PREFIX)
    limit = RateLimit(Limit.per(int(calls), float(seconds)), methods={"tools/call"},
                      store=buckets, headers=True)

    async def who(request: Request) -> dict[str, Any]:
        """The principal: the X-User header (a stand-in for auth)."""
        user = request.headers.get("x-user")
        return {"principal": user} if user else {}

    limits = {"middleware": [limit]}
suite = Suite(
    server_name="scale", server_version="1.0", tools=[Add, WaitMail, Ticker, Poll], broker=broker,
    **limits,
)
router = mcp_router(suite=suite, legacy=LegacyServer(suite, registry=registry),
                    **({"auth": who} if limits else {}))


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    yield
    await broker.aclose()
    await registry.aclose()
    if limits:
        await buckets.aclose()


api = FastAPI(lifespan=lifespan)
api.include_router(router, prefix="/mcp")
PROCESS = str(os.getpid()).encode()


@api.post("/admin/extra/{word}")
async def add_extra(word: str) -> dict[str, Any]:
    suite.add_tool((Extra, {"word": word}))  # every process serves it (the catalog travels)
    await synced()
    return {"added": "extra"}


@api.delete("/admin/extra")
async def remove_extra() -> dict[str, Any]:
    removed = suite.remove_tool("extra")
    await synced()
    return {"removed": removed}


async def synced() -> None:
    """Read after write: the change is logged and published before the route answers."""
    if hasattr(suite, "catalog_synced"):  # (absent before issue 29: the bench runs old code)
        await suite.catalog_synced()


@api.post("/post/{worker}")
async def post(worker: str, message: dict[str, Any]) -> dict[str, Any]:
    return {"delivered": await suite.post(worker, message)}


async def app(scope: Any, receive: Any, send: Any) -> None:
    """The FastAPI app, each response tagged with X-Genmcp-Process (plain ASGI: no buffering)."""

    async def tagged(message: Any) -> None:
        if message["type"] == "http.response.start":
            message = {**message, "headers": [*message.get("headers", ()),
                                              (b"x-genmcp-process", PROCESS)]}
        await send(message)

    await api(scope, receive, tagged if scope["type"] == "http" else send)
