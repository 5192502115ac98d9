"""The event loop is never held by a validation: measured on a real uvicorn server.

Each hostile case validates on the server's loop through ``checked_request`` (what the
worker awaits before ``call``) while the test sends ``tools/list`` to the same server one
after another; the slowest answer is the stall. Arguments are decoded already: the JSON
decoding of a multi-megabyte body is the transport's, measured in bench/validation/stall.py.
The harness itself is checked: the same validation run synchronously on the loop (what the
worker did before) shows up as a stall.
"""

from __future__ import annotations

import asyncio
import gc
import time
from collections.abc import Callable
from typing import Any, Final

import pytest
from fastapi import FastAPI

from genmcp import Channel, InvalidArguments, Result, Tool, ToolRequest, call_tool_result
from genmcp.catalogs.hooks import checked_request
from genmcp.transports.fastapi import mcp_router
from support.client import ModernClient
from support.server import LiveServer

pytestmark = pytest.mark.long  # timing budgets of 200k-value inputs, about 6 s (make test-long)

STALL_LIMIT_S: Final = 0.05
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


async def slowest_answer_while(
    client: ModernClient, server: LiveServer, job: Any
) -> tuple[float, Any, float]:
    """(slowest tools/list answer, the job's outcome, the job's duration) while it runs."""
    started = time.perf_counter()
    running = asyncio.wrap_future(server.submit(job))
    slowest = 0.0
    while not running.done():
        begin = time.perf_counter()
        reply = await client.request("tools/list", {}, validate=False)
        assert reply.result["tools"][0]["name"] == "hostile"
        slowest = max(slowest, time.perf_counter() - begin)
    try:
        outcome: Any = await running
    except InvalidArguments as exc:
        outcome = exc
    return slowest, outcome, time.perf_counter() - started


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


@pytest.mark.exclusive  # a 50 ms stall budget: another xdist worker's load would break it
@pytest.mark.timeout(20)
@pytest.mark.parametrize("case", sorted(HOSTILE))
async def test_a_hostile_validation_never_stalls_the_loop(case: str, serve: Any) -> None:
    schema, make = HOSTILE[case]
    client, server, tool = serve(tool_for(schema))
    await client.request("tools/list", {}, validate=False)  # connection warm
    request = ToolRequest("hostile", {"x": make()})
    slowest = float("inf")
    for _attempt in range(ATTEMPTS):  # another job on a shared machine can hold the CPU
        gc.collect()  # the collection that building 200k values sets off is not validation's
        measured, outcome, took = await slowest_answer_while(
            client, server, checked_request(tool, request, None)
        )
        slowest = min(slowest, measured)
        if slowest < STALL_LIMIT_S:
            break
    verdict = outcome.describe() if isinstance(outcome, InvalidArguments) else "valid"
    print(f"{case}: slowest tools/list {slowest * 1000:.1f} ms during {took * 1000:.0f} ms")
    print(f"  {verdict[:150]}")
    assert isinstance(outcome, InvalidArguments | ToolRequest)
    assert "could not be validated" not in verdict
    assert slowest < STALL_LIMIT_S, f"{case}: the loop stalled {slowest * 1000:.0f} ms"


@pytest.mark.timeout(20)
async def test_the_harness_sees_a_validation_run_on_the_loop(serve: Any) -> None:
    schema, make = HOSTILE["contains over 200k items"]
    client, server, tool = serve(tool_for(schema))
    await client.request("tools/list", {}, validate=False)
    request = ToolRequest("hostile", {"x": make()})

    async def on_the_loop() -> Any:  # what the worker did before: validate_request inline
        await asyncio.sleep(0.02)  # a first tools/list is under way
        return tool.validate_request(request, None)

    slowest, outcome, _ = await slowest_answer_while(client, server, on_the_loop())
    assert isinstance(outcome, InvalidArguments | ToolRequest)
    assert slowest > 2 * STALL_LIMIT_S
