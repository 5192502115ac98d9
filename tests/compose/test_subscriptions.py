"""Resource subscriptions through a remote mount (``genmcp.compose.subscriptions``).

A real upstream (uvicorn) serves a resource; a real outer server (uvicorn) mounts it with
``resources=True``; a ``genmcp.Client`` subscribes to the resource at the outer server, in
both eras, and the mount speaks to the upstream in both eras. The upstream's own count of
subscribers (``Suite.interest``) shows the subscription held there while the outer client
listens and ended after it left (no leak), and the upstream's update reaches the outer
client under the same URI (docs guides/composition.md).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any, Final

import pytest

from genmcp import Client, Mount, StaticResource, Suite, mcp_app
from support.server import LiveServers

URI: Final = "weather://stations"
OTHER: Final = "weather://alerts"
UPSTREAM = Suite(
    server_name="weather",
    server_version="1",
    resources=[
        StaticResource(uri=URI, name="stations", text="a,b"),
        StaticResource(uri=OTHER, name="alerts", text="none"),
    ],
)
UPSTREAM.interest.watch(lambda uri, held: None)  # counted only while watched: the test watches
ERAS: Final = (None, "2025-11-25")


@pytest.fixture(scope="module")
def upstream(live: LiveServers) -> str:
    return live(mcp_app(UPSTREAM)) + "/mcp"


@pytest.fixture(scope="module", params=ERAS, ids=("upstream-2026", "upstream-2025"))
def gateway(request: Any, live: LiveServers, upstream: str) -> str:
    mount = Mount(url=upstream, namespace="weather", resources=True, protocol=request.param)
    outer = Suite(server_name="gateway", server_version="1", mounts=[mount])
    return live(mcp_app(outer)) + "/mcp"


async def until(check: Callable[[], bool], within_s: float = 5.0) -> None:
    deadline = time.monotonic() + within_s
    while not check():
        assert time.monotonic() < deadline, "not within the time"
        await asyncio.sleep(0.02)


def held_upstream() -> int:
    return UPSTREAM.interest.held(URI)


@pytest.mark.parametrize("era", ERAS, ids=("outer-2026", "outer-2025"))
async def test_an_outer_subscription_is_held_upstream_and_its_updates_relayed(
    gateway: str, era: Any
) -> None:
    async with Client(gateway, protocol=era, timeout=5) as client:
        async with client.listen(tools=False, prompts=False, resources=False, uris=[URI]) as notes:
            await until(lambda: held_upstream() == 1)
            UPSTREAM.resource_updated(URI)
            note = await asyncio.wait_for(anext(notes), 5)
        await until(lambda: held_upstream() == 0)  # unsubscribed: ended upstream too
    assert note["method"] == "notifications/resources/updated"
    assert note["params"]["uri"] == URI


async def test_a_2025_session_that_ends_without_unsubscribing_ends_it_upstream(
    gateway: str,
) -> None:
    client = Client(gateway, protocol="2025-11-25", timeout=5)
    await client.request("resources/subscribe", {"uri": URI})
    await until(lambda: held_upstream() == 1)
    await client.aclose()  # DELETE of the session
    await until(lambda: held_upstream() == 0)


async def test_two_outer_subscribers_share_one_upstream_subscription(gateway: str) -> None:
    async with (
        Client(gateway, timeout=5) as first,
        Client(gateway, protocol="2025-11-25", timeout=5) as second,
    ):
        async with first.listen(tools=False, prompts=False, resources=False, uris=[URI]):
            async with second.listen(tools=False, prompts=False, resources=False, uris=[URI]):
                await until(lambda: held_upstream() == 1)
            await asyncio.sleep(0.2)
            assert held_upstream() == 1  # the first still listens
        await until(lambda: held_upstream() == 0)


async def test_the_upstream_follows_the_set_of_uris_held_as_it_changes(gateway: str) -> None:
    async with Client(gateway, timeout=5) as first, Client(gateway, timeout=5) as second:
        async with first.listen(tools=False, prompts=False, resources=False, uris=[URI]):
            async with second.listen(tools=False, prompts=False, resources=False, uris=[OTHER]):
                await until(lambda: (held_upstream(), UPSTREAM.interest.held(OTHER)) == (1, 1))
            await until(lambda: UPSTREAM.interest.held(OTHER) == 0)
            assert held_upstream() == 1  # the one still held stays subscribed
        await until(lambda: held_upstream() == 0)
