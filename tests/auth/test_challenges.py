"""auth.challenges: the WWW-Authenticate header and the JSON-RPC body of a refusal."""

from __future__ import annotations

import pytest

from genmcp.auth import Challenge
from genmcp.auth.challenges import quote, www_authenticate
from genmcp.errors import INVALID_REQUEST
from support.www_authenticate import parse_bearer

METADATA = "https://h.example/.well-known/oauth-protected-resource/mcp"


@pytest.mark.parametrize("value", ['a"b', "a\\b", 'x", scope="admin', "a\r\nSet-Cookie: x=1", "é"])
def test_quote_round_trips_through_a_strict_parser(value: str) -> None:
    parsed = parse_bearer(f"Bearer scope={quote(value)}")
    assert parsed == {"scope": "".join(ch for ch in value if " " <= ch <= "~")}


def test_quote_escapes_backslash_before_quote() -> None:
    assert quote('a\\"b') == '"a\\\\\\"b"'
    assert quote("") == '""'


def test_www_authenticate_without_parameters_is_bare() -> None:
    assert www_authenticate([]) == "Bearer"
    assert www_authenticate([("a", "1"), ("b", "2")]) == 'Bearer a="1", b="2"'


@pytest.mark.parametrize(
    ("error", "status", "message"),
    [
        (None, 401, "Unauthorized: a bearer token is required"),
        ("invalid_token", 401, "Unauthorized: invalid access token"),
        ("insufficient_scope", 403, "Forbidden: insufficient scope"),
        ("invalid_request", 400, "Bad Request: malformed Authorization header"),
    ],
)
def test_each_error_has_its_status_and_message(
    error: str | None, status: int, message: str
) -> None:
    challenge = Challenge(error, (), METADATA)
    assert challenge.status == status
    assert challenge.body(1)["error"]["message"] == message


def test_the_header_names_error_description_scopes_and_metadata_in_order() -> None:
    challenge = Challenge("insufficient_scope", ("a", "b"), METADATA, "needs more")
    assert challenge.header() == (
        f'Bearer error="insufficient_scope", error_description="needs more", '
        f'scope="a b", resource_metadata="{METADATA}"'
    )
    assert parse_bearer(challenge.header())["scope"] == "a b"


def test_no_credentials_say_no_error_and_no_description() -> None:
    challenge = Challenge(None, (), METADATA, "ignored without an error")
    assert challenge.header() == f'Bearer resource_metadata="{METADATA}"'
    assert challenge.body()["error"]["data"] == {
        "error": "unauthorized",
        "resource_metadata": METADATA,
    }


def test_the_body_carries_the_facts_of_the_header() -> None:
    challenge = Challenge("invalid_token", ("mcp:tools",), METADATA, "the token has expired")
    assert challenge.body("r-1") == {
        "jsonrpc": "2.0",
        "id": "r-1",
        "error": {
            "code": INVALID_REQUEST,
            "message": "Unauthorized: invalid access token: the token has expired",
            "data": {
                "error": "invalid_token",
                "scope": "mcp:tools",
                "resource_metadata": METADATA,
            },
        },
    }


def test_the_answer_is_body_status_and_one_header() -> None:
    challenge = Challenge("insufficient_scope", ("admin",), METADATA)
    body, status, headers = challenge.answer(9)
    assert (body, status) == (challenge.body(9), 403)
    assert headers == [("www-authenticate", challenge.header())]
