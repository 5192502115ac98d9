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
  JSON, no valid JSON-RPC response, an id of a wrong type) ends the waiting call, instead of
  leaving it to wait for the server's `answer_timeout_s` (600 s: past the runner's hang
  guard);
- `scenario.legacy_duplicate_ids`: a second in-flight id is refused;
- `scenario.legacy_elicitation_error`: a JSON-RPC error answer is no -32603;
- `hostile_schema.stall`: pings sent one after another during a costly validation are
  answered all along: none waits for a large part of the call, judged against the call's
  own duration in the same run (`Stall`; sent `ALONE`: one at a time, after the others).
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from fuzz import values
from fuzz.cases import LATEST, Case, Catalog, encode, legacy_headers, modern_headers, modern_request

if TYPE_CHECKING:
    from fuzz.runner import Outcome, Target

STALL_PIECES: Final = 3
"""While a costly call runs, the loop answers at least this many pings, and none waits more
than this fraction (1/STALL_PIECES) of the call. Measured (one attempt each): healthy, 3.2-36
pieces (both cores under a CPU hog: 6.8-30); validation run on the loop, 1.0-1.2 for the
small-bodied `one_of_chain` and 1.9-2.8 for the multi-megabyte ones, whose body is decoded
in steps on the loop first (under a CPU hog their decoding stretches and the fixed 0.5 s
budget does not: 3-6 pieces, missed; `tests/catalogs/test_hooks_validation_stall.py` judges
validation alone)."""
STALL_ATTEMPTS: Final = 5
"""A stall the code causes shows in every attempt; one caused by the machine's other load
does not: the best of a few attempts is judged."""
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
    if call.answer.error is not None:
        call.problems.append(
            f"the call did not end with an unusable answer ({call.answer.error}): it waits "
            "for answer_timeout_s"
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


@dataclass
class Stall:
    """What the server's loop did for a train of pings while one costly call ran."""

    took: float
    """The costly call's duration (s): the yardstick, measured in the same run."""
    slowest: float
    """The longest a ping waited while the costly call ran (the one in flight at its
    answer counted up to that answer: what the client does afterwards is not the loop's)."""
    answered: int
    """Pings answered before the costly call's answer."""

    def pieces(self) -> float:
        """How many times the slowest wait fits in the costly call: ~1 when it waited for all
        of the validation."""
        return self.took / self.slowest if self.slowest else float("inf")

    def chunked(self) -> bool:
        return self.answered >= STALL_PIECES and self.pieces() >= STALL_PIECES


async def pings_during(target: Target, costly: Case, probe: Case) -> tuple[Stall, list[Outcome]]:
    """Send `costly`, and `probe` one after another until its answer; measure the waits."""

    async def timed() -> tuple[float, Outcome]:
        return time.perf_counter(), await target.send(costly)

    running = asyncio.ensure_future(timed())
    sent: list[tuple[float, Outcome]] = []
    while not running.done():
        begin = time.perf_counter()
        sent.append((begin, await target.send(probe)))
    started, call = await running
    answered_at = started + call.answer.seconds
    during = [(begin, begin + o.answer.seconds) for begin, o in sent if begin < answered_at]
    stall = Stall(
        took=call.answer.seconds,
        slowest=max((min(end, answered_at) - begin for begin, end in during), default=0.0),
        answered=sum(end < answered_at for _, end in during),
    )
    return stall, [call, *(o for _, o in sent)]


async def hostile_stall(target: Target, rng: random.Random) -> list[Outcome]:
    """A costly tools/call with a train of pings beside it: no ping waits for a large part of
    it (`STALL_PIECES`), the best of `STALL_ATTEMPTS` judged."""
    listing = _modern("hostile_schema.stall", modern_request("tools/list"), HOSTILE_PATH)
    outcomes = [await target.send(listing)]
    served = {
        tool.get("name")
        for message in outcomes[0].answer.messages
        if isinstance(message, dict)
        for tool in message.get("result", {}).get("tools", [])
        if isinstance(tool, dict)
    }
    choices = [(name, make) for name, make in COSTLY_ARGUMENTS if name in served]
    if not choices:
        outcomes[0].problems.append("the hostile server serves none of the costly tools")
        return outcomes
    name, arguments = rng.choice(choices)
    costly = _modern("hostile_schema.stall", _call(name, arguments(rng)), HOSTILE_PATH)
    probe = _modern("hostile_schema.stall", modern_request("server/discover", request_id=2))
    best: Stall | None = None
    for _attempt in range(STALL_ATTEMPTS):
        seen, exchanged = await pings_during(target, costly, probe)
        outcomes += exchanged
        if best is None or seen.pieces() > best.pieces():
            best = seen
        if best.chunked():
            return outcomes
    assert best is not None
    outcomes[1].problems.append(
        f"event loop stalled during tools/call {name} (best of {STALL_ATTEMPTS}): "
        f"{best.answered} pings answered during its {best.took * 1000:.0f} ms, one waited "
        f"{best.slowest * 1000:.0f} ms ({best.pieces():.1f} pieces, at least {STALL_PIECES})"
    )
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
