"""auth.redact: token query parameters never reach a log line."""

from __future__ import annotations

import logging

import pytest

from genmcp.auth.redact import QueryTokenFilter, redact_query


def test_redact_query() -> None:
    line = "GET /mcp?x=1&access_token=abc.def&token=t HTTP/1.1"
    assert redact_query(line) == "GET /mcp?x=1&access_token=[redacted]&token=[redacted] HTTP/1.1"


@pytest.mark.parametrize(
    ("text", "redacted"),
    [
        ("/cb?ID_TOKEN=x.y.z", "/cb?ID_TOKEN=[redacted]"),  # any case
        ("/cb?a=1;refresh_token=r;b=2", "/cb?a=1;refresh_token=[redacted];b=2"),
        ('"/cb?token=secret" 200', '"/cb?token=[redacted]" 200'),  # stops at the quote
        ("token=lead", "token=[redacted]"),  # at the start of the text
        ("/cb?mytoken=keep&tokens=keep", "/cb?mytoken=keep&tokens=keep"),  # other names
        ("/cb?token=", "/cb?token=[redacted]"),
    ],
)
def test_what_is_redacted(text: str, redacted: str) -> None:
    assert redact_query(text) == redacted


def test_the_filter_redacts_message_and_arguments(caplog: pytest.LogCaptureFixture) -> None:
    logger = logging.getLogger("genmcp.tests.redact")
    redactor = QueryTokenFilter()
    logger.addFilter(redactor)
    try:
        with caplog.at_level(logging.INFO, logger=logger.name):
            logger.info("GET /mcp?access_token=abc %s %s %d", "/x?token=def", b"?token=raw", 7)
    finally:
        logger.removeFilter(redactor)
    (record,) = caplog.records
    assert record.getMessage() == (
        "GET /mcp?access_token=[redacted] /x?token=[redacted] b'?token=raw' 7"
    )  # bytes are not text: left alone
    assert "abc" not in caplog.text and "def" not in caplog.text
