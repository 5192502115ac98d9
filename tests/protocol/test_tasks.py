"""protocol.tasks: the Tasks extension's vocabulary: ids, records and their wire shapes."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from genmcp.errors import MISSING_CAPABILITY, MCPError
from genmcp.protocol import tasks

CAPS = "io.modelcontextprotocol/clientCapabilities"


def test_task_ids_are_unguessable_and_url_safe() -> None:
    ids = {tasks.new_task_id() for _ in range(200)}
    assert len(ids) == 200
    assert all(re.fullmatch(r"[A-Za-z0-9_-]{22}", task_id) for task_id in ids)  # 128 bits


def test_iso_now_is_utc_with_milliseconds() -> None:
    stamp = tasks.iso_now()
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", stamp)
    parsed = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    assert abs(datetime.now(UTC) - parsed) < timedelta(seconds=5)


@pytest.mark.parametrize(
    ("meta", "declared"),
    [
        ({CAPS: {"extensions": {tasks.EXTENSION: {}}}}, True),
        ({CAPS: {"extensions": {"other": {}}}}, False),
        ({CAPS: {"extensions": [tasks.EXTENSION]}}, False),
        ({CAPS: {}}, False),
        ({}, False),
    ],
)
def test_declares_tasks(meta: dict[str, Any], declared: bool) -> None:
    assert tasks.declares_tasks(meta) is declared


def test_the_errors_name_what_is_missing() -> None:
    required = tasks.tasks_required()
    assert (required.code, required.reason) == (MISSING_CAPABILITY, "missing_capability")
    assert required.data == {"requiredCapabilities": {"extensions": {tasks.EXTENSION: {}}}}
    unknown = tasks.unknown_task("t-1")
    assert unknown.reason == "unknown_task"
    assert unknown.message == "Invalid params: no task 't-1' (unknown or expired)"
    assert tasks.lease_lost_error()["code"] == -32603


@pytest.mark.parametrize("task_id", [None, "", 7, "t" * 257, ["t"]])
def test_task_id_of_refuses_what_is_no_short_string(task_id: Any) -> None:
    with pytest.raises(MCPError, match=r"^Invalid params: tasks/get needs a string taskId$"):
        tasks.task_id_of({"taskId": task_id}, tasks.GET)


def test_task_id_of() -> None:
    assert tasks.task_id_of({"taskId": "t" * 256}, tasks.CANCEL) == "t" * 256


@pytest.mark.parametrize("responses", [None, [], {"a": "yes"}, {"a": {}, "b": []}])
def test_update_responses_must_be_an_object_of_objects(responses: Any) -> None:
    with pytest.raises(MCPError) as caught:
        tasks.update_responses({"inputResponses": responses})
    assert caught.value.reason == "bad_input_responses"


def test_update_responses() -> None:
    responses = {"ask": {"action": "accept", "content": {}}}
    assert tasks.update_responses({"inputResponses": responses}) is responses
    assert tasks.update_responses({"inputResponses": {}}) == {}


def test_a_new_record_is_working() -> None:
    record = tasks.new_record("t", "alice", 60_000, None)
    assert record["status"] == "working" and record["version"] == 1
    assert record["createdAt"] == record["lastUpdatedAt"]
    assert (record["principal"], record["ttlMs"]) == ("alice", 60_000)
    assert "pollIntervalMs" not in record
    assert tasks.new_record("t", None, None, 500)["pollIntervalMs"] == 500


def test_created_shows_the_task_fields_flat() -> None:
    record = tasks.new_record("t", "alice", None, 250)
    shown = tasks.created(record, {"m": 1})
    assert shown == {
        "resultType": "task",
        "taskId": "t",
        "status": "working",
        "createdAt": record["createdAt"],
        "lastUpdatedAt": record["lastUpdatedAt"],
        "ttlMs": None,  # ttlMs is always shown: null means no expiry
        "pollIntervalMs": 250,
        "_meta": {"m": 1},
    }
    assert "principal" not in shown and "version" not in shown


@pytest.mark.parametrize(
    ("extra", "shown"),
    [
        ({"status": "working"}, {}),
        ({"status": "input_required", "inputRequests": {"a": {"method": "x"}}},
         {"inputRequests": {"a": {"method": "x"}}}),
        ({"status": "input_required"}, {"inputRequests": {}}),
        ({"status": "completed", "result": {"content": [], "isError": True}},
         {"result": {"content": [], "isError": True}}),
        ({"status": "completed"}, {"result": {"content": []}}),
        ({"status": "failed", "error": {"code": 1, "message": "m"}},
         {"error": {"code": 1, "message": "m"}}),
        ({"status": "failed"}, {"error": {"code": -32603, "message": "Internal error"}}),
        ({"status": "cancelled", "result": {"content": []}}, {}),
        ({"status": "working", "statusMessage": "half way"}, {"statusMessage": "half way"}),
    ],
)  # fmt: skip
def test_detailed_carries_what_its_status_does(extra: dict[str, Any], shown: Any) -> None:
    record = {**tasks.new_record("t", None, 1000, None), **extra}
    base = {key: record[key] for key in ("taskId", "status", "createdAt", "lastUpdatedAt")}
    assert tasks.detailed(record) == {**base, "ttlMs": 1000, **shown}


def test_the_status_notification_is_the_detailed_task() -> None:
    record = {**tasks.new_record("t", None, None, None), "status": "completed"}
    assert tasks.status_notification(record) == {
        "jsonrpc": "2.0",
        "method": tasks.NOTIFICATION,
        "params": tasks.detailed(record),
    }


def test_the_statuses() -> None:
    assert tasks.TERMINAL < tasks.STATUSES
    assert tasks.STATUSES - tasks.TERMINAL == {"working", "input_required"}
    assert tasks.METHODS == ("tasks/get", "tasks/update", "tasks/cancel")
