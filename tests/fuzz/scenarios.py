"""Multi-request fuzz cases: what one request cannot show (ids, cancels, answers, stalls).

Owns: `SCENARIOS`, each an `async (target, rng) -> list[Exchange-outcomes]` run by the
runner for a `Case` of its category; and the hostile-schema generators of `hostile_app`.
Every exchange is judged by the usual oracle; a scenario adds its own problems:

- `scenario.modern_duplicate_ids`: concurrent modern requests sharing one id each get
  their own answer;
- `scenario.legacy_cancel`: cancelling a running legacy call (or an id never sent) ends
  cleanly;
- `scenario.legacy_client_answers`: garbage answers to a server's `elicitation/create`;
- `scenario.legacy_unparsable_answer` (finding F3): an answer the server cannot use (not
  JSON, no valid JSON-RPC response, an id of a wrong type) ends the waiting call within
  `PROMPT_S`;
- `scenario.legacy_duplicate_ids`: a second in-flight id is refused;
- `scenario.legacy_elicitation_error`: a JSON-RPC error answer is no -32603;
- `hostile_schema.stall`: a ping sent during a costly validation is answered within
  `STALL_LIMIT_S` (sent `ALONE`: one at a time, after the others).
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Final

from fuzz import values
from fuzz.cases import LATEST, Case, Catalog, encode, legacy_headers, modern_headers, modern_request

if TYPE_CHECKING:
    from fuzz.runner import Outcome, Target

STALL_LIMIT_S: Final = 0.4
PROMPT_S: Final = 2.0
"""How long a call may take in all when its client's answer cannot be used (finding F3)."""
ALONE: Final = frozenset({"hostile_schema.stall"})
"""Categories the runner sends one at a time, after the others (they measure the loop)."""
HOSTILE_PATH: Final = "/hostile"
LEGACY: Final = "2025-06-18"


def _modern(category: str, message: dict[str, Any], path: str = "/mcp") -> Case:
    return Case(
        category,
        encode(message),
        modern_headers(message),
        rpc_method=message["method"],
        versions=(LATEST,),
        path=path,
    )


def _legacy(category: str, message: dict[str, Any], session: str) -> Case:
    headers = {**legacy_headers(LEGACY), "mcp-session-id": session}
    method = message.get("method")
    return Case(
        category,
        encode(message),
        headers,
        rpc_method=method if isinstance(method, str) else None,
        versions=(LEGACY,),
        session=None,
    )


def _call(name: str, arguments: Any, request_id: Any = 1) -> dict[str, Any]:
    return modern_request("tools/call", {"name": name, "arguments": arguments}, request_id)


async def modern_duplicate_ids(target: Target, rng: random.Random) -> list[Outcome]:
    regions = [f"r{rng.randrange(10**6)}-{i}" for i in range(rng.randint(2, 12))]
    cases = []
    for region in regions:
        case = _modern(
            "scenario.modern_duplicate_ids", _call("test_x_mcp_header", {"region": region})
        )
        case.headers["mcp-param-region"] = region
        cases.append(case)
    outcomes = await asyncio.gather(*(target.send(c) for c in cases))
    for region, outcome in zip(regions, outcomes, strict=True):
        text = json.dumps(outcome.answer.messages)
        if f"region={region}" not in text:
            outcome.problems.append(f"answer of region {region} is not its own: {text[:300]}")
    return list(outcomes)


async def _stream_call(
    target: Target, case: Case, on_message: Callable[[Any], Awaitable[None]]
) -> Outcome:
    """Send `case`, calling `on_message` for each message as it arrives."""
    return await target.send(case, on_message=on_message)


async def legacy_cancel(target: Target, rng: random.Random) -> list[Outcome]:
    session = await target.open_session(LEGACY)
    request_id = rng.choice((1, "a", 2**53))
    call = _legacy(
        "scenario.legacy_cancel",
        {
            "jsonrpc": "2.0",
            "id": request_id,
            "method": "tools/call",
            "params": {"name": "test_long_running_operation", "arguments": {"seconds": 0.5}},
        },
        session,
    )
    call.silent_end = True  # a cancelled 2025 request gets no response (its stream just ends)
    target_id = request_id if rng.random() < 0.7 else values.hostile(rng)
    cancel = _legacy(
        "scenario.legacy_cancel",
        {
            "jsonrpc": "2.0",
            "method": "notifications/cancelled",
            "params": {"requestId": target_id, "reason": "fuzz"},
        },
        session,
    )

    async def later() -> Outcome:
        await asyncio.sleep(rng.random() * 0.3)
        return await target.send(cancel)

    return list(await asyncio.gather(target.send(call), later()))


async def _elicit(
    target: Target,
    rng: random.Random,
    category: str,
    answer: Callable[[Any], dict[str, Any] | bytes],
) -> list[Outcome]:
    """A `test_elicitation` call whose server request gets `answer` (members added to
    `{"jsonrpc", "id"}`, or the whole body as bytes)."""
    session = await target.open_session(LEGACY, {"elicitation": {}})
    call = _legacy(
        category,
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "test_elicitation", "arguments": {"message": "fuzz"}},
        },
        session,
    )
    replies: list[Outcome] = []

    async def on_message(message: Any) -> None:
        if isinstance(message, dict) and message.get("method") == "elicitation/create":
            members = answer(message)
            if isinstance(members, bytes):
                case = _legacy(category, {}, session)
                case.body = members
            else:
                reply = {"jsonrpc": "2.0", "id": message.get("id"), **members}
                case = _legacy(category, reply, session)
            replies.append(await target.send(case))

    outcome = await target.send(call, on_message=on_message)
    if not replies:
        outcome.problems.append("the server never sent elicitation/create")
    return [outcome, *replies]


def _parsable(rng: random.Random) -> Any:
    return rng.choice(
        (
            values.scalar(rng),
            values.lone_surrogate(rng),
            values.huge_string(rng),
            rng.choice(values.WEIRD_STRINGS),
            2**64,
            values.wide(rng),
        )
    )


async def legacy_client_answers(target: Target, rng: random.Random) -> list[Outcome]:
    def answer(_: Any) -> dict[str, Any]:
        return rng.choice(
            (
                {"result": _parsable(rng)},
                {"result": {"action": _parsable(rng), "content": _parsable(rng)}},
                {"result": {"action": "accept", "content": {"username": _parsable(rng)}}},
                {"result": {"action": "decline"}},
            )
        )

    return await _elicit(target, rng, "scenario.legacy_client_answers", answer)


def _unusable(rng: random.Random, request_id: Any) -> dict[str, Any] | bytes:
    """An answer to `request_id` the server cannot use, of one of the shapes of finding F3."""
    whole = {"jsonrpc": "2.0", "id": request_id, "result": {"action": "accept"}}
    kind = rng.randrange(8)
    if kind == 0:  # does not parse: a huge integer, too deep, or cut short
        if rng.random() < 0.5:
            return encode(whole)[: rng.randrange(1, len(encode(whole)))]
        return {"result": {"action": rng.choice((values.huge_int(rng), values.deep(rng)))}}
    if kind == 1:
        return {"result": {}, "error": {"code": 1, "message": "both"}}
    if kind == 2:
        return {}  # neither
    if kind == 3:  # an error object without an integer code or a string message
        return {"error": rng.choice(({"message": "x"}, {"code": values.hostile(rng)}, "no"))}
    if kind == 4:  # a result that is no object
        return {"result": rng.choice((None, 1, "accept", [whole["result"]], True))}
    if kind == 5:
        return encode({k: v for k, v in whole.items() if k != "jsonrpc"})
    if kind == 6:
        return encode([whole])  # a batch
    wrong_id = rng.choice((None, 1.5, True, [request_id], {"id": request_id}))
    return encode({**whole, "id": wrong_id})


async def legacy_unparsable_answer(target: Target, rng: random.Random) -> list[Outcome]:
    """An answer the server cannot use: the waiting call must end at once (finding F3)."""
    outcomes = await _elicit(
        target, rng, "scenario.legacy_unparsable_answer", lambda m: _unusable(rng, m.get("id"))
    )
    call = outcomes[0]
    if call.answer.seconds > PROMPT_S:
        call.problems.append(
            f"the call took {call.answer.seconds:.2f} s with an unusable answer "
            f"(limit {PROMPT_S} s)"
        )
    return outcomes


async def legacy_elicitation_error(target: Target, rng: random.Random) -> list[Outcome]:
    def answer(_: Any) -> dict[str, Any]:
        return {"error": {"code": rng.choice((-1, -32603, 1)), "message": "user closed the dialog"}}

    return await _elicit(target, rng, "scenario.legacy_elicitation_error", answer)


async def legacy_duplicate_ids(target: Target, rng: random.Random) -> list[Outcome]:
    session = await target.open_session(LEGACY)
    message = {
        "jsonrpc": "2.0",
        "id": rng.choice((7, "dup")),
        "method": "tools/call",
        # long enough that the twin lands while the first runs, even on a loaded machine
        "params": {"name": "test_long_running_operation", "arguments": {"seconds": 1.5}},
    }
    cases = [_legacy("scenario.legacy_duplicate_ids", message, session) for _ in range(2)]
    outcomes = list(await asyncio.gather(*(target.send(c) for c in cases)))
    done = [
        o for o in outcomes if any("result" in m for m in o.answer.messages if isinstance(m, dict))
    ]
    if len(done) > 1:
        outcomes[1].problems.append("two in-flight requests with one id both ran to a result")
    return outcomes


COSTLY_ARGUMENTS: Final[tuple[tuple[str, Callable[[random.Random], Any]], ...]] = (
    ("unique", lambda rng: {"items": values.Raw(json.dumps([[i] for i in range(200_000)]))}),
    ("backtrack", lambda rng: {"s": "a" * rng.choice((28, 30, 32))}),
    ("one_of_chain", lambda rng: {"v": {}}),
    ("unevaluated", lambda rng: {"a": 1, **{f"k{i}": i for i in range(200_000)}}),
)


async def hostile_stall(target: Target, rng: random.Random) -> list[Outcome]:
    name, arguments = rng.choice(COSTLY_ARGUMENTS)
    costly = _modern("hostile_schema.stall", _call(name, arguments(rng)), HOSTILE_PATH)
    probe = _modern("hostile_schema.stall", modern_request("server/discover", request_id=2))

    async def ping() -> Outcome:
        await asyncio.sleep(0.05)
        return await target.send(probe)

    started = time.perf_counter()
    outcomes = list(await asyncio.gather(target.send(costly), ping()))
    if outcomes[1].answer.seconds > STALL_LIMIT_S:
        outcomes[1].problems.append(
            f"a ping sent during tools/call {name} took {outcomes[1].answer.seconds * 1000:.0f} ms"
            f" (limit {STALL_LIMIT_S * 1000:.0f} ms; event loop stalled)"
        )
    del started
    return outcomes


SCENARIOS: Final[
    dict[str, tuple[Callable[[Target, random.Random], Awaitable[list[Outcome]]], int]]
] = {
    "scenario.modern_duplicate_ids": (modern_duplicate_ids, 1),
    "scenario.legacy_cancel": (legacy_cancel, 1),
    "scenario.legacy_client_answers": (legacy_client_answers, 1),
    "scenario.legacy_unparsable_answer": (legacy_unparsable_answer, 1),
    "scenario.legacy_duplicate_ids": (legacy_duplicate_ids, 1),
    "scenario.legacy_elicitation_error": (legacy_elicitation_error, 1),
    "hostile_schema.stall": (hostile_stall, 1),
}
"""Category -> (scenario, weight)."""


# --------------------------------------------------------------------------- hostile schemas


def hostile_values(rng: random.Random, catalog: Catalog) -> Case:
    """Hostile values against the bounded tools of `hostile_app` (holds today)."""
    if rng.random() < 0.7:
        arguments: Any = {rng.choice("snxeaopfz"): values.hostile(rng) for _ in range(3)}
        name = "bounded"
    else:
        name = "tree"
        arguments = {"root": rng.choice((values.deep(rng), {"children": [values.hostile(rng)]}))}
    return _modern("hostile_schema.values", _call(name, arguments), HOSTILE_PATH)


def huge_numbers(rng: random.Random, catalog: Catalog) -> Case:
    """Huge numbers against `multipleOf` (KNOWN: issue 12 item 1, -32603 today)."""
    arguments = {rng.choice("xy"): values.huge_int(rng)}
    return _modern("hostile_schema.huge_numbers", _call("fractions", arguments), HOSTILE_PATH)


GENERATORS: Final = {
    "hostile_schema.values": (hostile_values, 4),
    "hostile_schema.huge_numbers": (huge_numbers, 2),
}
