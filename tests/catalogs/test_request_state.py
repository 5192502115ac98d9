"""``catalogs.request_state``: the sealed ``requestState`` of multi round-trip requests (MRTR).

``RequestStates`` seals a hook's state bound to its request (method, name, arguments) and
to the caller, and opens it only for that same request and caller; the answers a retry
brings are checked against what was asked. Through a real ``Suite`` this is
tests/catalogs/test_tools.py (``input_required`` round trips).
"""

from __future__ import annotations

from typing import Any

import pytest

from genmcp import InputRequired, create_message_request, elicit_request, list_roots_request
from genmcp.catalogs.request_state import RequestStates, input_responses, principal_of
from genmcp.errors import MCPError
from genmcp.sealing import Sealer

SEALER = Sealer([b"s" * 32])
SERVER_META = {"io.modelcontextprotocol/serverInfo": {"name": "t", "version": "1"}}
ALL_CAPS = {
    "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}, "sampling": {}, "roots": {}}
}
NAME = {"type": "object", "properties": {"name": {"type": "string"}}}
ASKED = {
    "who": elicit_request("Who?", NAME),
    "draft": create_message_request([], max_tokens=10),
    "roots": list_roots_request(),
}


def asked(
    states: RequestStates, assigns: dict[str, Any] | None = None, **arguments: Any
) -> dict[str, Any]:
    """The ``input_required`` result of a first try of tools/call ``greet``."""
    _, state, binding = states.retry({}, assigns or {}, "tools/call", "greet", arguments)
    assert state is None
    return states.input_required(ALL_CAPS, binding(), InputRequired(ASKED, {"step": 1}))


def retry(
    states: RequestStates,
    token: Any,
    answers: dict[str, Any],
    assigns: dict[str, Any] | None = None,
    **arguments: Any,
) -> tuple[Any, Any]:
    params = {"requestState": token, "inputResponses": answers}
    responses, state, _ = states.retry(params, assigns or {}, "tools/call", "greet", arguments)
    return responses, state


GOOD = {
    "who": {"action": "accept", "content": {"name": "Cy"}},
    "draft": {"role": "assistant", "model": "m", "content": {"type": "text", "text": "hi"}},
    "roots": {"roots": [{"uri": "file:///w"}]},
}


def test_a_first_try_has_no_state_and_seals_one_for_its_retry() -> None:
    states = RequestStates(SEALER, SERVER_META)
    result = asked(states, n=1)
    assert result["resultType"] == "input_required" and result["_meta"] == SERVER_META
    assert set(result["inputRequests"]) == {"who", "draft", "roots"}
    assert retry(states, result["requestState"], GOOD, n=1) == (GOOD, {"step": 1})


@pytest.mark.parametrize(
    ("assigns", "arguments"),
    [({}, {"n": 2}), ({"principal": "mallory"}, {"n": 1})],
    ids=["other arguments", "another caller"],
)
def test_a_state_opens_only_for_its_own_request_and_caller(
    assigns: dict[str, Any], arguments: dict[str, Any]
) -> None:
    states = RequestStates(SEALER, SERVER_META)
    token = asked(states, {"principal": "alice"} if assigns else {}, n=1)["requestState"]
    with pytest.raises(MCPError, match="rebound") as refused:
        retry(states, token, GOOD, assigns, **arguments)
    assert refused.value.reason == "bad_request_state"
    assert refused.value.data == {"reason": "rebound"}


def test_a_state_signed_with_another_key_or_no_token_at_all_is_refused() -> None:
    token = asked(RequestStates(Sealer([b"o" * 32]), SERVER_META), n=1)["requestState"]
    with pytest.raises(MCPError, match=r"Invalid requestState \(tampered\)") as refused:
        retry(RequestStates(SEALER, SERVER_META), token, GOOD, n=1)
    assert refused.value.data == {"reason": "tampered"}
    with pytest.raises(MCPError, match="Invalid requestState"):
        retry(RequestStates(SEALER, SERVER_META), "garbage", GOOD, n=1)


@pytest.mark.parametrize(
    ("key", "answer", "problem"),
    [
        ("who", {"action": "maybe"}, '"action"'),
        ("who", {"action": "accept", "content": "Cy"}, '"content" must be an object'),
        ("draft", {"role": "system", "model": "m", "content": {}}, '"role"'),
        ("draft", {"role": "user", "model": "m"}, 'needs "content"'),
        ("roots", {"roots": [{"name": "no uri"}]}, '"uri"'),
    ],
)
def test_answers_are_checked_against_what_was_asked(
    key: str, answer: dict[str, Any], problem: str
) -> None:
    states = RequestStates(SEALER, SERVER_META)
    token = asked(states, n=1)["requestState"]
    with pytest.raises(MCPError, match=problem) as refused:
        retry(states, token, {**GOOD, key: answer}, n=1)
    assert refused.value.reason == "bad_input_responses" and refused.value.data == {"key": key}


def test_answers_to_what_was_not_asked_are_ignored() -> None:
    states = RequestStates(SEALER, SERVER_META)
    token = asked(states, n=1)["requestState"]
    answers = {**GOOD, "extra": {"anything": True}}
    assert retry(states, token, answers, n=1) == (answers, {"step": 1})


def test_asking_what_the_client_cannot_answer_is_missing_capability() -> None:
    states = RequestStates(SEALER, SERVER_META)
    meta = {"io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}}
    with pytest.raises(MCPError) as refused:
        states.input_required(meta, "binding", InputRequired(ASKED, None))
    assert refused.value.reason == "missing_capability"


@pytest.mark.parametrize("value", [[], "x", {"k": "not a result"}, {"k": 1}])
def test_malformed_input_responses_are_invalid_params(value: Any) -> None:
    with pytest.raises(MCPError, match="inputResponses must be an object"):
        input_responses(value)
    assert input_responses(None) is None
    assert input_responses({"k": {}}) == {"k": {}}


def test_the_principal_is_what_auth_recorded() -> None:
    assert principal_of({"principal": "alice", "sub": "other"}) == "alice"
    assert principal_of({"sub": 42}) == "42"
    assert principal_of({}) is None


def test_the_state_is_opaque_to_the_client() -> None:
    import base64
    import zlib

    secret = "kept-by-the-tool-7f3a"
    states = RequestStates(SEALER, SERVER_META)
    _, _, binding = states.retry({}, {}, "tools/call", "greet", {})
    token = states.input_required(ALL_CAPS, binding(), InputRequired(ASKED, {"k": secret}))[
        "requestState"
    ]
    readable = []
    for part in token.split("."):
        try:
            data = base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))
        except ValueError:
            continue
        readable.append(data)
        try:
            readable.append(zlib.decompress(data))  # itsdangerous compresses what it can
        except zlib.error:
            pass
    assert readable and not any(secret.encode() in data for data in readable)
    assert not any(b"who" in data or b"greet" in data for data in readable)
    _, state = retry(states, token, GOOD)
    assert state == {"k": secret}
