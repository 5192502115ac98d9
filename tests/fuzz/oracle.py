"""The oracle: what every answer to a fuzz case must satisfy.

Owns: `judge()`, which turns one HTTP answer into a list of problems (empty: it passed).
The rules (issue 12, "A fuzz harness"): no HTTP 5xx; no -32603 (every fuzz request is a
client fault or a legal request); every message is valid JSON-RPC per the official schema of
one of the case's revisions (`support.schema`); a response's id is one the request sent; a
status from `Case.expect_status` when the case names some; a non-empty body is JSON or SSE,
never text or HTML. No time limit but the runner's hang guard (`runner.READ_LIMIT_S`): how
fast an answer comes is bench/'s business.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Final

from fuzz.cases import Case
from support import schema
from support.sse import SSEEvent, SSEParser

INTERNAL_ERROR: Final = -32603
ID_LESS_JUDGE: Final = "2025-11-25"
"""The 2025 transport texts send transport errors without an id; this schema allows it."""


@dataclass
class Answer:
    """What came back for one case (`error`: a transport failure instead of an answer)."""

    status: int = 0
    content_type: str = ""
    body: bytes = b""
    seconds: float = 0.0
    error: str | None = None
    truncated: bool = False
    """The runner stopped reading a long-lived stream (GET, subscriptions/listen)."""
    messages: list[Any] = field(default_factory=list)


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def parse(answer: Answer) -> list[str]:
    """Fill `answer.messages` from its body; return the problems met."""
    if not answer.body:
        return []
    if answer.content_type == "text/event-stream":
        parser = SSEParser()
        events = [*parser.feed(answer.body), *([] if answer.truncated else parser.close())]
        texts = [e.data for e in events if isinstance(e, SSEEvent) and e.data]
    elif answer.content_type == "application/json":
        texts = [answer.body.decode("utf-8", "replace")]
    else:
        return [f"body is {answer.content_type or 'untyped'}, not JSON-RPC: {answer.body[:200]!r}"]
    problems = []
    for text in texts:
        try:
            value = json.loads(text, parse_constant=_no_constants)
        except ValueError as exc:
            problems.append(f"answer is not JSON ({exc}): {text[:200]!r}")
            continue
        answer.messages.extend(value if isinstance(value, list) and value else [value])
    return problems


def request_ids(body: bytes) -> dict[str, set[str]]:
    """Request id (as JSON text) -> methods, for each request in the body; {} if unparsable."""
    try:
        value = json.loads(body)
    except (ValueError, RecursionError):
        return {}
    out: dict[str, set[str]] = {}
    for item in value if isinstance(value, list) else [value]:
        if isinstance(item, dict) and "id" in item:
            method = item.get("method")
            key = _id_key(item["id"])
            out.setdefault(key, set()).add(method if isinstance(method, str) else "")
    return out


def _id_key(value: Any) -> str:
    try:
        return json.dumps(value, sort_keys=True)
    except ValueError:  # an int past the str-digits limit
        return f"<int of {value.bit_length()} bits>"


def judge(case: Case, answer: Answer) -> list[str]:
    """Every rule `answer` breaks, as readable sentences."""
    if answer.error is not None:
        return [f"no answer: {answer.error}"]
    problems: list[str] = []
    if answer.status >= 500:
        problems.append(f"HTTP {answer.status}")
    if case.expect_status is not None and answer.status not in case.expect_status:
        problems.append(f"HTTP {answer.status}, expected one of {case.expect_status}")
    problems += parse(answer)
    quiet = answer.truncated or case.silent_end or case.http_method in ("HEAD", "DELETE")
    if not answer.body and answer.status == 200 and not quiet:
        problems.append("HTTP 200 with an empty body")
    ids = request_ids(case.body)
    for message in answer.messages:
        problems += _check_message(case, message, ids)
    return problems


def _check_message(case: Case, message: Any, ids: dict[str, set[str]]) -> list[str]:
    problems: list[str] = []
    if isinstance(message, dict):
        error = message.get("error")
        if isinstance(error, dict) and error.get("code") == INTERNAL_ERROR:
            problems.append(f"-32603 for a client request: {_short(message)}")
        is_response = "method" not in message
        if is_response and message.get("id") is not None:
            key = _id_key(message["id"])
            if ids and key not in ids:
                problems.append(f"response id {key[:80]} was never sent")
        methods: Iterable[str | None] = (
            ids.get(_id_key(message.get("id")), {case.rpc_method or ""}) if is_response else {None}
        )
    else:
        methods = {case.rpc_method}
    failure = _schema_failure(case, message, methods)
    if failure:
        problems.append(failure)
    return problems


def _schema_failure(case: Case, message: Any, methods: Iterable[str | None]) -> str | None:
    versions = list(case.versions)
    if isinstance(message, dict) and "error" in message and "id" not in message:
        versions.append(ID_LESS_JUDGE)
    first: str | None = None
    for version in versions:
        for method in methods:
            try:
                schema.validate_server_message(message, method=method or None, version=version)
            except schema.WireViolation as exc:
                first = first or f"invalid JSON-RPC for {version}: {exc}"[:1500]
            else:
                return None
    return first


def _short(message: Any) -> str:
    text = json.dumps(message, default=repr)
    return text if len(text) < 600 else text[:600] + "..."
