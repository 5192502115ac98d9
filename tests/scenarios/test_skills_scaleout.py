"""Skills across processes: two real servers sharing one Redis answer as one.

A and B are uvicorn servers, each with its own `RedisBroker` on a shared prefix and one
secret, serving examples/skills with one skill per page: a `skills/list` cursor A hands out
opens the next page on B, entries and digests are the same on both, and a skill added or
removed at runtime on one is served or gone on the other (`make conformance-scaled` runs
the suite's sep-2640 scenarios through nginx over three such processes).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Final

import pytest
from fastapi import FastAPI

from genmcp import Skill, SkillRepo, Suite, mcp_router
from support.client import ModernClient
from support.server import LiveServers

SECRET: Final = "skills-scale-out-test-secret-0123456789abcdef0123456789"
EXAMPLES: Final = Path(__file__).resolve().parents[2] / "examples" / "skills"


def build(redis_url: str, prefix: str) -> tuple[FastAPI, Suite]:
    from genmcp.storage.redis import RedisBroker

    broker = RedisBroker.from_url(redis_url, prefix=prefix)
    suite = Suite(
        server_name="skills-scale-out", server_version="1", secret_key=SECRET, broker=broker,
        skills=[(SkillRepo, str(EXAMPLES))], page_size=1,
    )  # fmt: skip

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        yield  # the router's lifespan closes the Suite first
        await broker.aclose()

    app = FastAPI(lifespan=lifespan)
    app.include_router(mcp_router(suite=suite), prefix="/mcp")
    return app, suite


@pytest.fixture
def nodes(
    redis_url: str, redis_prefix: str, live_server: LiveServers
) -> Iterator[list[tuple[str, Suite, Any]]]:
    made = []
    for _ in range(2):
        app, suite = build(redis_url, redis_prefix)
        server = live_server.start(app)
        made.append((server.url, suite, server))
    yield made


async def test_a_cursor_from_a_opens_the_next_page_on_b(
    nodes: list[tuple[str, Suite, Any]], modern_client: Callable[..., ModernClient]
) -> None:
    (url_a, _, _), (url_b, _, _) = nodes
    on_a, on_b = modern_client(url_a), modern_client(url_b)
    first = (await on_a.request("skills/list", {})).result
    second = (await on_b.request("skills/list", {"cursor": first["nextCursor"]})).result
    assert [s["uri"] for s in first["skills"] + second["skills"]] == [
        "skill://git-workflow/SKILL.md",
        "skill://pdf-processing/SKILL.md",
    ]
    assert "nextCursor" not in second
    uri = second["skills"][0]["uri"]
    got_a = (await on_a.request("skills/get", {"uri": uri})).result["skill"]
    got_b = (await on_b.request("skills/get", {"uri": uri})).result["skill"]
    assert got_a == got_b == second["skills"][0]  # the same digests on every process
    directory = {"uri": "skill://pdf-processing"}
    page_a = (await on_a.request("resources/directory/read", directory)).result
    page_b = (
        await on_b.request(
            "resources/directory/read", {**directory, "cursor": page_a["nextCursor"]}
        )
    ).result
    assert page_a["resources"] != page_b["resources"]  # B went on where A stopped


class Later(Skill):
    """A skill added at runtime (its directory is the provider argument: JSON, it travels)."""


async def test_a_skill_added_on_a_is_served_by_b_and_removed_everywhere(
    nodes: list[tuple[str, Suite, Any]],
    modern_client: Callable[..., ModernClient],
    tmp_path: Path,
) -> None:
    (url_a, suite_a, server_a), (url_b, suite_b, server_b) = nodes
    skill = tmp_path / "later"
    skill.mkdir()
    (skill / "SKILL.md").write_text("---\nname: later\ndescription: Added at runtime.\n---\n")
    on_b = modern_client(url_b)

    async def add() -> Any:
        return suite_a.add_skill((Later, str(skill)))

    group = await server_a.run_in_loop(add())
    await until(lambda: served(on_b, "skill://later/SKILL.md"))
    read = await on_b.request("resources/read", {"uri": "skill://later/SKILL.md"})
    assert read.result["contents"][0]["mimeType"] == "text/markdown"

    async def remove() -> bool:
        return suite_b.remove_skill(group.name)

    assert await server_b.run_in_loop(remove()) is True
    on_a = modern_client(url_a)
    await until(lambda: gone(on_a, "skill://later/SKILL.md"))


async def served(client: ModernClient, uri: str) -> bool:
    return (await client.request("skills/get", {"uri": uri})).error is None


async def gone(client: ModernClient, uri: str) -> bool:
    return not await served(client, uri)


async def until(check: Callable[[], Any], within: float = 5.0) -> None:
    deadline = asyncio.get_running_loop().time() + within
    while not await check():
        assert asyncio.get_running_loop().time() < deadline, f"not seen within {within} s"
        await asyncio.sleep(0.01)
