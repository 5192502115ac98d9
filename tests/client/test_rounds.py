"""client.rounds: input rounds (MRTR) against the demo tools on uvicorn, in both eras.

A round is answered by the client's callback (a 2025 server's elicitation request the same
way), a per-call ``on_input`` wins over the client's, and without a callback the
``input_required`` result is the caller's to retry with its answers and ``requestState``.
"""

from __future__ import annotations

from typing import Any

from genmcp.client import Client


async def test_elicitation_is_answered_by_the_callback_in_each_era(
    demo: str, era: str | None
) -> None:
    asked: list[dict[str, Any]] = []

    async def elicit(params: dict[str, Any]) -> dict[str, Any]:
        asked.append(params)
        return {"action": "accept", "content": {"ok": True}}

    async with Client(demo, protocol=era, elicitation=elicit) as client:
        result = await client.call_tool("confirm", {"question": "Sure?"})

    assert asked[0]["message"] == "Sure?"
    assert result["structuredContent"]["confirmed"] is True


async def test_without_a_callback_the_round_is_the_caller_s(demo: str) -> None:
    async with Client(demo, capabilities={"elicitation": {}}) as client:
        asked = await client.call_tool("confirm", {"question": "Sure?"})
        assert asked["resultType"] == "input_required"
        answer = {"ok": {"action": "accept", "content": {"ok": False}}}
        done = await client.call_tool(
            "confirm", {"question": "Sure?"},
            input_responses=answer, request_state=asked["requestState"],
        )  # fmt: skip

    assert done["structuredContent"] == {"confirmed": False, "rounds": 2}


async def test_a_per_call_on_input_wins_over_the_client_s(demo: str, era: str | None) -> None:
    def never(params: dict[str, Any]) -> dict[str, Any]:
        raise AssertionError("the client's callback was asked")

    seen: list[str] = []

    def forward(request: dict[str, Any]) -> dict[str, Any]:
        seen.append(request["method"])
        return {"action": "decline"}

    async with Client(demo, protocol=era, elicitation=never) as client:
        result = await client.call_tool("confirm", {"question": "?"}, on_input=forward)

    assert seen == ["elicitation/create"]
    assert result["content"][0]["text"] == "not confirmed (decline)"
