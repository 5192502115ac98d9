"""protocol.listen: ``subscriptions/listen`` filters read, narrowed, matched and acknowledged."""

from __future__ import annotations

from typing import Any

import pytest

from genmcp.errors import MCPError
from genmcp.protocol.listen import (
    ACKNOWLEDGED,
    MAX_RESOURCE_SUBSCRIPTIONS,
    MAX_TASK_IDS,
    PROMPTS_LIST_CHANGED,
    RESOURCE_UPDATED,
    RESOURCES_LIST_CHANGED,
    TOOLS_LIST_CHANGED,
    Filter,
    acknowledged,
    listen_result,
    tagged,
)

SUB = "io.modelcontextprotocol/subscriptionId"


def parse(**notifications: Any) -> Filter:
    return Filter.parse({"notifications": notifications})


def test_parse_reads_flags_uris_and_task_ids() -> None:
    wanted = parse(
        toolsListChanged=True,
        promptsListChanged=False,
        resourcesListChanged=None,
        resourceSubscriptions=["a://1", "a://1", "a://2"],
        taskIds=["t1"],
        unknownFlag=True,  # ignored: a newer client may ask for more than we know
    )
    assert wanted == Filter(
        frozenset({TOOLS_LIST_CHANGED}), frozenset({"a://1", "a://2"}), frozenset({"t1"})
    )
    assert parse() == Filter()


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({}, "needs params.notifications (an object)"),
        ({"notifications": []}, "needs params.notifications"),
        ({"notifications": {"toolsListChanged": "yes"}}, "notifications.toolsListChanged must be"),
        ({"notifications": {"resourceSubscriptions": "a://1"}}, "must be an array of strings"),
        ({"notifications": {"taskIds": [1]}}, "notifications.taskIds must be an array of strings"),
        (
            {"notifications": {"resourceSubscriptions": ["u"] * (MAX_RESOURCE_SUBSCRIPTIONS + 1)}},
            f"names 1001 resources; at most {MAX_RESOURCE_SUBSCRIPTIONS} per stream",
        ),
        (
            {"notifications": {"taskIds": ["t"] * (MAX_TASK_IDS + 1)}},
            f"names 101 tasks; at most {MAX_TASK_IDS} per stream",
        ),
        (
            {"notifications": {"resourceSubscriptions": ["a" * 8193]}},
            "resourceSubscriptions holds a URI over 8192 characters",
        ),
        ({"notifications": {"taskIds": ["t" * 257]}}, "taskIds holds an id over 256 characters"),
    ],
)
def test_a_malformed_filter_is_invalid_params(params: dict[str, Any], message: str) -> None:
    with pytest.raises(MCPError) as caught:
        Filter.parse(params)
    assert caught.value.reason == "invalid_params"
    assert caught.value.message.startswith("Invalid params: subscriptions/listen ")
    assert message in caught.value.message


def test_the_limits_themselves_are_allowed() -> None:
    most = parse(resourceSubscriptions=[f"a://{n}" for n in range(MAX_RESOURCE_SUBSCRIPTIONS)])
    assert len(most.uris) == MAX_RESOURCE_SUBSCRIPTIONS
    assert parse(taskIds=["t" * 256]).task_ids == {"t" * 256}


def test_narrowed_keeps_what_the_server_honors() -> None:
    wanted = parse(
        toolsListChanged=True,
        promptsListChanged=True,
        resourceSubscriptions=["a://known", "a://unknown"],
        taskIds=["t1"],
    )
    honored = wanted.narrowed(frozenset({TOOLS_LIST_CHANGED}), lambda uri: "unknown" not in uri)
    assert honored == Filter(frozenset({TOOLS_LIST_CHANGED}), frozenset({"a://known"}))
    assert wanted.narrowed(frozenset(), lambda uri: False, tasks=True).task_ids == {"t1"}


def test_wants() -> None:
    honored = Filter(frozenset({PROMPTS_LIST_CHANGED}), frozenset({"a://1"}))
    assert honored.wants({"method": PROMPTS_LIST_CHANGED})
    assert not honored.wants({"method": TOOLS_LIST_CHANGED})
    assert honored.wants({"method": RESOURCE_UPDATED, "params": {"uri": "a://1"}})
    assert not honored.wants({"method": RESOURCE_UPDATED, "params": {"uri": "a://2"}})
    assert not honored.wants({"method": RESOURCE_UPDATED, "params": ["a://1"]})
    assert not Filter(frozenset({RESOURCE_UPDATED})).wants({"method": RESOURCE_UPDATED})


def test_to_wire_round_trips_through_parse() -> None:
    honored = Filter(
        frozenset({TOOLS_LIST_CHANGED, RESOURCES_LIST_CHANGED}),
        frozenset({"b://2", "a://1"}),
        frozenset({"t2", "t1"}),
    )
    wire = honored.to_wire()
    assert wire == {
        "toolsListChanged": True,
        "resourcesListChanged": True,
        "resourceSubscriptions": ["a://1", "b://2"],
        "taskIds": ["t1", "t2"],
    }
    assert Filter.parse({"notifications": wire}) == honored
    assert Filter().to_wire() == {}


def test_tagged_adds_the_subscription_id_and_keeps_the_rest() -> None:
    message = {"method": RESOURCE_UPDATED, "params": {"uri": "a://1", "_meta": {"k": 1}}}
    assert tagged(message, 7) == {
        "jsonrpc": "2.0",
        "method": RESOURCE_UPDATED,
        "params": {"uri": "a://1", "_meta": {"k": 1, SUB: 7}},
    }
    assert message["params"]["_meta"] == {"k": 1}  # the shared message is not changed
    assert tagged({"method": TOOLS_LIST_CHANGED}, "s")["params"] == {"_meta": {SUB: "s"}}


def test_the_acknowledgement_and_the_closing_result() -> None:
    honored = Filter(frozenset({TOOLS_LIST_CHANGED}))
    assert acknowledged(3, honored) == {
        "jsonrpc": "2.0",
        "method": ACKNOWLEDGED,
        "params": {"notifications": {"toolsListChanged": True}, "_meta": {SUB: 3}},
    }
    assert listen_result(3, {"x": 1}) == {"resultType": "complete", "_meta": {"x": 1, SUB: 3}}
