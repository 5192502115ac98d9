"""client.exchange: what arrives during a request reaches the call's callbacks, and a
server's request is answered through `on_input` or the client's `Inputs`."""

from __future__ import annotations

from typing import Any

from genmcp.client import Handlers
from genmcp.client.exchange import Sink, answer_all
from genmcp.client.inputs import Inputs


def note(method: str, **params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": method, "params": params}


async def test_progress_logs_and_raw_notifications_reach_their_callbacks() -> None:
    seen: dict[str, list[Any]] = {"progress": [], "log": [], "raw": [], "elsewhere": []}

    async def elsewhere(message: dict[str, Any]) -> None:
        seen["elsewhere"].append(message["method"])

    handlers = Handlers(
        on_progress=lambda *a: seen["progress"].append(a),
        on_log=lambda *a: seen["log"].append(a),
        on_notification=lambda m: seen["raw"].append(m["method"]),
    )
    sink = Sink(handlers, Inputs(), reply=lambda m: None, elsewhere=elsewhere)  # type: ignore[arg-type,return-value]
    await sink(note("notifications/progress", progressToken="p", progress=1, total=2))
    await sink(note("notifications/message", level="info", data={"x": 1}, logger="l"))
    await sink(note("notifications/tools/list_changed"))

    assert seen["progress"] == [(1, 2, None)]
    assert seen["log"] == [("info", {"x": 1}, "l")]
    assert seen["raw"] == ["notifications/progress", "notifications/message",
                           "notifications/tools/list_changed"]  # fmt: skip
    assert seen["elsewhere"] == ["notifications/tools/list_changed"]


async def test_a_server_request_is_answered_and_a_failing_callback_is_an_error() -> None:
    replies: list[dict[str, Any]] = []

    async def reply(message: dict[str, Any]) -> None:
        replies.append(message)

    def broken(params: dict[str, Any]) -> dict[str, Any]:
        raise RuntimeError("the user's code broke")

    asked = {"jsonrpc": "2.0", "id": "s1", "method": "elicitation/create", "params": {}}
    await Sink(Handlers(on_input=lambda r: {"action": "cancel"}), Inputs(), reply)(asked)
    await Sink(Handlers(), Inputs(elicitation=broken), reply)(asked)
    await Sink(Handlers(), Inputs(), reply)({**asked, "id": "s2", "method": "roots/list"})
    await Sink(Handlers(on_input=lambda r: {"no": 1}), Inputs(), reply)(
        {**asked, "id": "s3", "method": "ping"}
    )

    assert replies[0] == {"jsonrpc": "2.0", "id": "s1", "result": {"action": "cancel"}}
    assert replies[1]["error"]["code"] == -32603
    assert replies[2]["error"]["code"] == -32601 and "roots/list" in replies[2]["error"]["message"]
    assert replies[3] == {"jsonrpc": "2.0", "id": "s3", "result": {}}  # ping never asks on_input


async def test_answer_all_answers_every_key_or_gives_the_round_back() -> None:
    asked = {"a": {"method": "elicitation/create", "params": {}}, "b": {"method": "roots/list"}}
    inputs = Inputs(elicitation=lambda p: {"action": "accept", "content": {}}, roots=[])

    assert await answer_all(asked, Handlers(), inputs) == {
        "a": {"action": "accept", "content": {}}, "b": {"roots": []},
    }  # fmt: skip
    assert await answer_all(asked, Handlers(), Inputs(roots=[])) is None
    forwarded = await answer_all(asked, Handlers(on_input=lambda r: {"m": r["method"]}), Inputs())
    assert forwarded == {"a": {"m": "elicitation/create"}, "b": {"m": "roots/list"}}
