"""The stream log's priming event: what a polled session stream opens with (SSE polling)."""

from __future__ import annotations

from genmcp.protocol.client import SSEParser
from genmcp.sessions.stream_log import priming


def test_a_priming_event_is_an_id_the_retry_delay_and_empty_data() -> None:
    assert priming("get~1-0", 250) == b"id: get~1-0\nretry: 250\ndata:\n\n"


def test_a_client_takes_the_priming_event_for_an_id_and_a_delay_without_a_message() -> None:
    parser = SSEParser()
    assert parser.feed(priming("s~7", 1000)) == []
    assert (parser.last_id, parser.retry_ms) == ("s~7", 1000)
