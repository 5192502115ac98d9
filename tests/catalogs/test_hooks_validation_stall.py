"""The event loop is never held by a validation: measured on a real uvicorn server.

Each hostile case validates on the server's loop through ``checked_request`` (what the
worker awaits before ``call``) while the test sends ``tools/list`` to the same server one
after another; the slowest answer is the stall. No wall-clock budget: the stall is judged
against the same validation's own duration, measured in the same run (a loaded machine
stretches both), and by how many answers came while it ran. Arguments are decoded already: the JSON
decoding of a multi-megabyte body is the transport's, measured in bench/validation/stall.py.
The harness itself is checked: the same validation run synchronously on the loop (what the
worker did before) shows up as a stall.
"""

from __future__ import annotations

import asyncio
import gc
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

import pytest
from fastapi import FastAPI

from genmcp import Channel, InvalidArguments, Result, Tool, ToolRequest, call_tool_result
from genmcp.catalogs.hooks import checked_request
from genmcp.fastapi.router import mcp_router
from support.client import ModernClient
from support.server import LiveServer

pytestmark = pytest.mark.long  # 200k-value inputs validated for their whole budget, about 6 s

PIECES: Final = 3
"""The loop answers at least this many times while a validation runs, and no answer waits
more than this fraction (1/PIECES) of the validation: the work is cut into pieces, whatever
the machine's speed (idle: 14-32 pieces; both cores under a CPU hog: 4-10). Run inline on
the loop, one answer waits for nearly all of it (under 2)."""
ATTEMPTS: Final = 3
"""A stall the code causes shows in every attempt; one caused by the machine's other load
does not: the best of a few attempts is judged."""


def one_of_chain(depth: int) -> dict[str, Any]:
    """Level k: ``oneOf`` two references to level k-1: a small schema, 2**depth descents."""
    defs: dict[str, Any] = {"l0": {"type": "object"}}
    for k in range(1, depth + 1):
        below = {"$ref": f"#/$defs/l{k - 1}"}
        defs[f"l{k}"] = {"oneOf": [below, {"allOf": [below]}]}
    return {"$defs": defs, "$ref": f"#/$defs/l{depth}"}


HOSTILE: Final[dict[str, tuple[dict[str, Any], Callable[[], Any]]]] = {
    "uniqueItems over 200k arrays": (
        {"type": "array", "uniqueItems": True, "items": {"type": "array"}},
        lambda: [[i] for i in range(200_000)],
    ),
    "$ref with 200k keys": (
        {
            "$defs": {"v": {"type": "integer", "multipleOf": 1}},
            "type": "object",
            "additionalProperties": {"$ref": "#/$defs/v"},
        },
        lambda: {f"k{i}": i for i in range(200_000)},
    ),
    "24-level oneOf chain on {}": (one_of_chain(24), dict),
    "contains over 200k items": (
        {"type": "array", "contains": {"type": "string"}},
        lambda: list(range(200_000)),
    ),
    "unevaluatedProperties with 200k keys": (
        {
            "type": "object",
            "properties": {"a": {}},
            "unevaluatedProperties": {"type": "string", "minLength": 2},
        },
        lambda: {f"k{i}": "v" for i in range(200_000)},
    ),
}


def tool_for(schema: dict[str, Any]) -> type[Tool]:
    """A tool taking the hostile value as ``x`` (``$defs`` moved to the root)."""
    inner = {key: value for key, value in schema.items() if key != "$defs"}
    root = {"type": "object", "properties": {"x": inner}, "$defs": schema.get("$defs", {})}

    class Hostile(Tool, name="hostile", input_schema=root):
        async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
            return Result(call_tool_result(text="accepted"))

    return Hostile


@dataclass
class Stalls:
    """What the loop did for the test's client while a job ran on it."""

    slowest: float  # the slowest tools/list answer (s)
    answered: int  # tools/list answered while the job ran
    took: float  # the job's duration (s), measured in the same run
    outcome: Any

    def pieces(self) -> float:
        """How many times the slowest answer fits in the job: 1 when it waited for all of it."""
        return self.took / self.slowest if self.slowest else float("inf")

    def chunked(self) -> bool:
        return self.answered >= PIECES and self.pieces() >= PIECES


async def slowest_answer_while(client: ModernClient, server: LiveServer, job: Any) -> Stalls:
    """The tools/list answers while ``job`` runs on the server's loop, one after another."""
    started = time.perf_counter()
    running = asyncio.wrap_future(server.submit(job))
    slowest, answered = 0.0, 0
    while not running.done():
        begin = time.perf_counter()
        reply = await client.request("tools/list", {}, validate=False)
        assert reply.result["tools"][0]["name"] == "hostile"
        slowest = max(slowest, time.perf_counter() - begin)
        answered += 1
    try:
        outcome: Any = await running
    except InvalidArguments as exc:
        outcome = exc
    return Stalls(slowest, answered, time.perf_counter() - started, outcome)


@pytest.fixture
def serve(live_server: Any, modern_client: Any) -> Callable[[type[Tool]], Any]:
    def start(tool: type[Tool]) -> tuple[ModernClient, LiveServer, Tool]:
        app = FastAPI()
        router = mcp_router(server_name="t", server_version="1", tools=[tool])
        app.include_router(router, prefix="/mcp")
        server = live_server.start(app)
        client: ModernClient = modern_client(server.url, timeout=5.0)
        entry = router.suite._tools.entries["hostile"]
        return client, server, entry.tool

    return start


@pytest.mark.exclusive  # less noise; the judgement is a ratio, load stretches both sides
@pytest.mark.timeout(20)
@pytest.mark.parametrize("case", sorted(HOSTILE))
async def test_a_hostile_validation_never_stalls_the_loop(case: str, serve: Any) -> None:
    schema, make = HOSTILE[case]
    client, server, tool = serve(tool_for(schema))
    await client.request("tools/list", {}, validate=False)  # connection warm
    request = ToolRequest("hostile", {"x": make()})
    best: Stalls | None = None
    for _attempt in range(ATTEMPTS):  # another job on a shared machine can hold the CPU
        gc.collect()  # the collection that building 200k values sets off is not validation's
        seen = await slowest_answer_while(client, server, checked_request(tool, request, None))
        if best is None or seen.pieces() > best.pieces():
            best = seen
        if best.chunked():
            break
    assert best is not None
    outcome = best.outcome
    verdict = outcome.describe() if isinstance(outcome, InvalidArguments) else "valid"
    print(f"{case}: slowest tools/list {best.slowest * 1000:.1f} ms of {best.answered} "
          f"during {best.took * 1000:.0f} ms ({best.pieces():.0f} pieces)")  # fmt: skip
    print(f"  {verdict[:150]}")
    assert isinstance(outcome, InvalidArguments | ToolRequest)
    assert "could not be validated" not in verdict
    assert best.chunked(), (
        f"{case}: {best.answered} answers during {best.took * 1000:.0f} ms, "
        f"one waited {best.slowest * 1000:.0f} ms"
    )


@pytest.mark.timeout(20)
async def test_the_harness_sees_a_validation_run_on_the_loop(serve: Any) -> None:
    schema, make = HOSTILE["contains over 200k items"]
    client, server, tool = serve(tool_for(schema))
    await client.request("tools/list", {}, validate=False)
    request = ToolRequest("hostile", {"x": make()})

    async def on_the_loop() -> Any:  # what the worker did before: validate_request inline
        await asyncio.sleep(0.02)  # a first tools/list is under way
        return tool.validate_request(request, None)

    seen = await slowest_answer_while(client, server, on_the_loop())
    assert isinstance(seen.outcome, InvalidArguments | ToolRequest)
    assert not seen.chunked() and seen.pieces() < 2, seen  # one answer waited for most of it
