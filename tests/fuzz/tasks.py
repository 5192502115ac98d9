"""Fuzz cases of the Tasks extension: hostile `tasks/*` requests, and real tasks hammered.

Owns: `GENERATORS` (`tasks.hostile`: `tasks/get|update|cancel` with the extension declared
and hostile ids, `inputResponses`, `Mcp-Name` and params) and `SCENARIOS`
(`scenario.tasks`: a real task of one of the server's task tools is created, then sent
mutated ids, garbage answers, a lying `Mcp-Name` and requests without the extension, and
finally cancelled, so no worker outlives the run). Every exchange is judged by the usual
oracle: never a 5xx, never -32603 for these client faults. Pure request building; no
genmcp import (the harness is black-box).
"""

from __future__ import annotations

import json
import random
from typing import TYPE_CHECKING, Any, Final

from fuzz import values
from fuzz.cases import LATEST, Case, Catalog, encode, meta, modern_headers

if TYPE_CHECKING:
    from fuzz.runner import Outcome, Target

EXT: Final = "io.modelcontextprotocol/tasks"
TASK_METHODS: Final = ("tasks/get", "tasks/update", "tasks/cancel")
TASK_TOOLS: Final = {
    "slow_compute": {"seconds": 0.2, "label": "fuzz"},
    "confirm_delete": {"path": "/tmp/fuzz"},
    "multi_input": {},
    "test_tool_with_task": {},
    "failing_job": {},
}
"""Task tools of the everything server and arguments that make them run briefly or park."""


def _request(method: str, params: Any, request_id: Any, *, declare: bool = True) -> dict[str, Any]:
    capabilities: dict[str, Any] = {"elicitation": {}}
    if declare:
        capabilities["extensions"] = {EXT: {}}
    body_params = dict(params) if isinstance(params, dict) else {}
    body_params["_meta"] = meta(**{"io.modelcontextprotocol/clientCapabilities": capabilities})
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": body_params}


def _case(category: str, message: dict[str, Any], **header: str | bytes) -> Case:
    return Case(
        category,
        encode(message),
        {**modern_headers(message), **header},
        rpc_method=message["method"],
        versions=(LATEST,),
    )


def hostile(rng: random.Random, catalog: Catalog) -> Case:
    """One `tasks/*` request with the extension and a hostile id, answers or header."""
    method = rng.choice(TASK_METHODS)
    params: dict[str, Any] = {
        "taskId": rng.choice((values.garbage_token(rng), values.hostile(rng)))
    }
    if method == "tasks/update":
        params["inputResponses"] = rng.choice(
            (
                {},
                [],
                None,
                "x",
                {"k": 1},
                {"k": {"action": values.hostile(rng)}},
                values.hostile(rng),
            )
        )
    if rng.random() < 0.2:
        params = rng.choice(({}, {"taskId": None}, {"taskId": {"x": 1}}, {"taskId": "a" * 5000}))
    message = _request(method, params, rng.randint(1, 2**31))
    case = _case("tasks.hostile", message)
    if rng.random() < 0.3:
        case.headers["mcp-name"] = values.garbage_token(rng) or "x"
    return case


def _task_id_of(outcome: Outcome) -> str | None:
    for message in outcome.answer.messages:
        result = message.get("result") if isinstance(message, dict) else None
        if isinstance(result, dict) and isinstance(result.get("taskId"), str):
            return str(result["taskId"])
    return None


async def hammered_task(target: Target, rng: random.Random) -> list[Outcome]:
    """Create a real task, send it hostile requests, then cancel it."""
    tools = [name for name in TASK_TOOLS if name in target.catalog_tools]
    if not tools:
        return []
    name = rng.choice(tools)
    create = _request(
        "tools/call", {"name": name, "arguments": TASK_TOOLS[name]}, rng.randint(1, 2**31)
    )
    outcomes = [await target.send(_case("scenario.tasks", create))]
    task_id = _task_id_of(outcomes[0])
    if task_id is None:  # a quota refusal (429), or the tool answered at once
        return outcomes
    for _ in range(rng.randint(2, 6)):
        method = rng.choice(TASK_METHODS)
        params: dict[str, Any] = {"taskId": task_id}
        mutation = rng.randrange(6)
        if mutation == 0:
            params["taskId"] = values.mutate_token(rng, task_id) or "x"
        if method == "tasks/update" or mutation == 1:
            params["inputResponses"] = rng.choice(
                (
                    {},
                    {"confirm": {"action": "accept", "content": {"confirm": True}}},
                    {"confirm": {"action": values.hostile(rng)}},
                    {"unknown": {"action": "decline"}},
                    [1],
                    values.hostile(rng),
                )
            )
            method = "tasks/update"
        message = _request(method, params, rng.randint(1, 2**31), declare=mutation != 2)
        case = _case("scenario.tasks", message)
        if mutation == 3:
            case.headers["mcp-name"] = values.mutate_token(rng, task_id) or "x"
        if mutation == 4:
            case.headers.pop("mcp-name", None)
        outcomes.append(await target.send(case))
    cancel = _request("tasks/cancel", {"taskId": task_id}, rng.randint(1, 2**31))
    ended = await target.send(_case("scenario.tasks", cancel))
    if ended.answer.status != 200 or "error" in json.dumps(ended.answer.messages):
        ended.problems.append("the task's own owner could not cancel it")
    outcomes.append(ended)
    return outcomes


GENERATORS: Final = {"tasks.hostile": (hostile, 6)}
"""Category -> (generator, weight)."""

SCENARIOS: Final = {"scenario.tasks": (hammered_task, 4)}
"""Category -> (scenario, weight)."""
