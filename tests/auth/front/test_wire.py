"""The front's HTTP plumbing on real Starlette requests: bounded bodies, forms with each
parameter once, escaped pages, no-store errors."""

from __future__ import annotations

from typing import Any

import pytest
from starlette.requests import Request

from genmcp.auth.front.wire import MAX_BODY, Refused, oauth_error, page, read_body, read_form


def _request(body: bytes, content_type: str = "application/x-www-form-urlencoded",
             chunk: int = 4096, declared: bool = True) -> Request:  # fmt: skip
    headers = [(b"content-type", content_type.encode())]
    if declared:
        headers.append((b"content-length", str(len(body)).encode()))
    parts = [body[i : i + chunk] for i in range(0, len(body), chunk)] or [b""]
    sent = 0

    async def receive() -> dict[str, Any]:
        nonlocal sent
        part = parts[sent] if sent < len(parts) else b""
        sent += 1
        return {"type": "http.request", "body": part, "more_body": sent < len(parts)}

    scope = {"type": "http", "method": "POST", "path": "/token", "headers": headers}
    return Request(scope, receive)


async def test_forms_are_read_once_per_parameter() -> None:
    assert await read_form(_request(b"a=1&b=&c=%20x")) == {"a": "1", "b": "", "c": " x"}
    for body, content_type in ((b"a=1&a=2", "application/x-www-form-urlencoded"),
                               (b'{"a": 1}', "application/json"),
                               (b"\xff=1", "application/x-www-form-urlencoded")):  # fmt: skip
        with pytest.raises(Refused) as refused:
            await read_form(_request(body, content_type))
        assert refused.value.error == "invalid_request"


async def test_bodies_are_bounded_declared_or_not() -> None:
    assert await read_body(_request(b"x" * MAX_BODY)) == b"x" * MAX_BODY
    assert await read_body(_request(b"x" * (MAX_BODY + 1))) is None
    assert await read_body(_request(b"x" * (MAX_BODY * 4), declared=False)) is None


def test_errors_are_not_cached_and_pages_escape() -> None:
    error = oauth_error("invalid_grant", "no", 400)
    assert error.status_code == 400 and error.headers["cache-control"] == "no-store"
    assert error.body == b'{"error":"invalid_grant","error_description":"no"}'
    shown = page(400, "<b>", "<script>alert(1)</script>")
    assert b"<script>" not in shown.body and b"&lt;script&gt;" in shown.body
