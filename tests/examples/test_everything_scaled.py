"""examples/everything_server.py in three uvicorn processes on one Redis, behind nginx.

What a client sees when it changes the catalog through the server's own trigger tool (issue
47 items 4 and 7), every request through nginx (round-robin, no stickiness):

- each ``test_trigger_tool_change`` call (an add, then a remove, in turn) reaches every open
  stream, a 2026 ``subscriptions/listen`` and a 2025 GET stream held on each process, as
  exactly one ``notifications/tools/list_changed`` (an add sent two: the trigger's removal of
  a tool served nowhere was announced too);
- the tool it added is served at once by every process (read after write: the trigger
  awaits ``Suite.catalog_synced()``).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from typing import Final

import httpx
import pytest

from support.everything_scaled import collect, everything_scaled, headers, modern
from support.legacy_http import open_session

pytestmark = pytest.mark.long  # three processes behind nginx (make test-long)

CHANGED: Final = "notifications/tools/list_changed"


@pytest.fixture(scope="module")
def mcp() -> Iterator[tuple[str, list[str]]]:
    """The MCP URL through nginx, and each process's own."""
    with everything_scaled("e" * 43) as (_, via_nginx, processes):
        yield via_nginx, processes


async def call(http: httpx.AsyncClient, url: str, n: int, name: str) -> tuple[str, str]:
    """Call the tool ``name`` (2026, through ``url``): its text, or the error's message;
    and the process that answered."""
    body = modern(n, "tools/call", {"name": name, "arguments": {}})
    reply = await http.post(url, json=body, headers=headers("tools/call", name))
    answer = reply.json()
    text = answer["result"]["content"][0]["text"] if "result" in answer else answer["error"]
    return str(text), reply.headers.get("x-genmcp-process", "")


async def test_each_trigger_call_is_one_list_changed_on_every_stream_and_read_after_write(
    mcp: tuple[str, list[str]],
) -> None:
    via_nginx, processes = mcp
    seen: list[list[str]] = []
    readers: list[asyncio.Task[None]] = []
    listen = modern(1, "subscriptions/listen", {"notifications": {"toolsListChanged": True}})
    async with httpx.AsyncClient(timeout=30) as http, contextlib.AsyncExitStack() as streams:
        for url in processes:  # a listen stream and a GET stream held on each process
            session = await open_session(http, url, initialized=True)
            get = await streams.enter_async_context(http.stream("GET", url, headers=session))
            post = await streams.enter_async_context(
                http.stream("POST", url, json=listen, headers=headers("subscriptions/listen"))
            )
            for response in (get, post):
                assert response.status_code == 200
                seen.append([])
                readers.append(asyncio.create_task(collect(response, seen[-1])))
        await asyncio.sleep(0.5)  # the acknowledgements
        texts, served = [], []
        counts: list[list[int]] = []
        for n in range(6):
            before = [messages.count(CHANGED) for messages in seen]
            text, _ = await call(http, via_nginx, 10 + n, "test_trigger_tool_change")
            texts.append(text)
            if text.startswith("Added"):  # at once, on every process
                served += [
                    text
                    for text, _ in await asyncio.gather(
                        *(call(http, url, 20 + n, "test_dynamic_tool") for url in processes)
                    )
                ]
            await asyncio.sleep(0.6)
            counts.append([m.count(CHANGED) - b for m, b in zip(seen, before, strict=True)])
        for reader in readers:
            assert not reader.done()  # every stream still open
            reader.cancel()
    assert texts == ["Added test_dynamic_tool.", "Removed test_dynamic_tool."] * 3
    assert served == ["The dynamic tool is here."] * 9
    assert counts == [[1] * 6] * 6  # one per change, on each of the six streams
