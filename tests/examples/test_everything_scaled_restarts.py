"""examples/everything_server.py in three uvicorn processes on one Redis that restarts empty.

Issue 47 item 4: a runtime change is one ``notifications/tools/list_changed`` on every open
stream, and every process serves the same catalog, also after Redis restarted with no data
(no persistence) twice. The changes go through the server's own trigger tool, through nginx
(round-robin: each change is made by whichever process nginx picks, from its own catalog).
Before the catalog log's versions carried the restart (its counter began again at 1), a
process ignored every change whose version was below one it had applied before the restart:
the catalogs drifted, a trigger added on one process what another still served, and a
stream got two or three notices for one call, or none.

Per restart: the 2026 listen streams stay open (the broker subscribes again); the 2025
sessions are gone with the registry's data, so each round opens new ones and their GET
streams (that is also the wait for every process to reach the new Redis).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from typing import Any, Final

import httpx
import pytest
import redis.asyncio as aioredis

from support.everything_scaled import collect, everything_scaled, headers, modern
from support.legacy_http import open_session
from support.redis_server import OwnRedis

pytestmark = pytest.mark.long  # three processes, nginx, two Redis restarts (make test-long)

CHANGED: Final = "notifications/tools/list_changed"
DYNAMIC: Final = "test_dynamic_tool"
PREFIX: Final = "everything:"  # the example's default key prefix


@pytest.fixture
def deployment() -> Iterator[tuple[OwnRedis, str, list[str]]]:
    """The test's own Redis, the MCP URL through nginx, and each process's own."""
    with everything_scaled("r" * 43) as deployed:
        yield deployed


async def call(http: httpx.AsyncClient, url: str, name: str) -> str:
    """Call the tool ``name`` (2026, through ``url``): its text, or the error's message."""
    body = modern(7, "tools/call", {"name": name, "arguments": {}})
    answer = (await http.post(url, json=body, headers=headers("tools/call", name))).json()
    return str(answer["result"]["content"][0]["text"] if "result" in answer else answer["error"])


async def listed(http: httpx.AsyncClient, url: str) -> bool:
    """Whether ``tools/list`` at ``url`` lists the dynamic tool."""
    reply = await http.post(url, json=modern(8, "tools/list", {}), headers=headers("tools/list"))
    return DYNAMIC in {tool["name"] for tool in reply.json()["result"]["tools"]}


async def subscribers(redis: OwnRedis) -> dict[str, int]:
    """Subscribers per pub/sub channel of the app (each process subscribes a topic once)."""
    client = aioredis.Redis(port=redis.port)
    try:
        channels = [c.decode() for c in await client.pubsub_channels(f"{PREFIX}*")]
        counted = await client.pubsub_numsub(*channels) if channels else []
        return {channel.decode(): n for channel, n in counted}
    finally:
        await client.aclose()


async def subscribed_again(redis: OwnRedis, wanted: dict[str, int]) -> bool:
    """Whether each channel of ``wanted`` has its subscribers again."""
    now = await subscribers(redis)
    return all(now.get(channel) == n for channel, n in wanted.items())


async def until(check: Any, what: str) -> None:
    """Poll ``check()`` until it is true; a hang guard, not a budget (fails after 60 s)."""
    try:
        async with asyncio.timeout(60):
            while not await check():  # noqa: ASYNC110 (Redis and the processes offer no event)
                await asyncio.sleep(0.05)
    except TimeoutError:
        raise AssertionError(f"never: {what}") from None


async def test_one_list_changed_per_change_and_one_catalog_across_redis_restarts(
    deployment: tuple[OwnRedis, str, list[str]],
) -> None:
    redis, via_nginx, processes = deployment
    listen = modern(1, "subscriptions/listen", {"notifications": {"toolsListChanged": True}})
    seen: list[list[str]] = []  # per stream: the listen streams, then this round's GET streams
    texts: list[str] = []
    counts: list[list[int]] = []
    agree: list[list[bool]] = []
    served: list[str] = []
    async with httpx.AsyncClient(timeout=30) as http, contextlib.AsyncExitStack() as streams:
        readers = []
        for url in processes:  # a listen stream on each process, for the whole test
            post = await streams.enter_async_context(
                http.stream("POST", url, json=listen, headers=headers("subscriptions/listen"))
            )
            assert post.status_code == 200
            seen.append([])
            readers.append(asyncio.create_task(collect(post, seen[-1])))
            streams.callback(readers[-1].cancel)
        await asyncio.sleep(0.5)  # the acknowledgements
        wanted = await subscribers(redis)  # the catalog's topic (pub/sub)
        assert wanted[f"{PREFIX}genmcp.catalog"] == 3
        # the listen streams' changes are durable: the notice stream (storage.redis.notices),
        # read by each process from its last id, not a pub/sub channel
        assert f"{PREFIX}genmcp.changes" not in wanted
        for restarts in range(3):
            if restarts:
                redis.stop()
                redis.start(empty=True)
                # Every process subscribed again to every topic it had (its streams' too).
                await until(lambda: subscribed_again(redis, wanted), "subscribed again")
            async with contextlib.AsyncExitStack() as legacy:
                gets, got = [], []
                for url in processes:  # this round's GET streams (a new session each)
                    session: dict[str, str] = {}

                    async def opened(url: str = url, session: dict[str, str] = session) -> bool:
                        with contextlib.suppress(AssertionError, httpx.HTTPError):
                            session.update(await open_session(http, url, initialized=True))
                            return True
                        return False

                    await until(opened, f"a session opens at {url}")
                    get = await legacy.enter_async_context(http.stream("GET", url, headers=session))
                    assert get.status_code == 200
                    got.append([])
                    gets.append(asyncio.create_task(collect(get, got[-1])))
                    legacy.callback(gets[-1].cancel)
                await asyncio.sleep(0.5)  # the acknowledgements, the priming events
                for _ in range(3):
                    every = seen + got
                    before = [messages.count(CHANGED) for messages in every]
                    texts.append(await call(http, via_nginx, "test_trigger_tool_change"))
                    added = texts[-1].startswith("Added")
                    await asyncio.sleep(0.6)  # each notice arrives; an extra one too
                    counts.append(
                        [m.count(CHANGED) - b for m, b in zip(every, before, strict=True)]
                    )
                    agree.append([await listed(http, url) == added for url in processes])
                    if added:  # served at once by every process
                        served += [await call(http, url, DYNAMIC) for url in processes]
        assert not any(reader.done() for reader in readers)  # every listen stream still open
    assert texts == ["Added test_dynamic_tool.", "Removed test_dynamic_tool."] * 4 + [
        "Added test_dynamic_tool."
    ]
    assert served == ["The dynamic tool is here."] * 15
    assert agree == [[True] * 3] * 9  # every process lists what the last change left
    assert counts == [[1] * 6] * 9  # one per change, on each of the six streams
