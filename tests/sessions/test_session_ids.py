"""Legacy session ids on the one `/mcp` endpoint: required, sealed (tampered, foreign, expired
ids are 404), ended by DELETE.

How every rule here is driven and checked: session_kit.py.
"""

from __future__ import annotations

from collections.abc import Callable

import itsdangerous.timed
import pytest

from genmcp import (
    MCPRouter,
)
from genmcp.sealing import Sealer
from support.legacy_client import LegacyClient
from tests.sessions.session_kit import (
    INVALID_REQUEST,
    SECRET,
    VERSIONS,
    Calls,
    assert_error,
    opened,
)

# -- session ids ----------------------------------------------------------------------------


@pytest.mark.parametrize("version", VERSIONS)
async def test_a_request_without_a_session_id_is_400(
    connect: Callable[..., LegacyClient], version: str
) -> None:
    client = await opened(connect, version)
    reply = await client.request("tools/list", id=7, headers={"Mcp-Session-Id": None})
    assert_error(reply, 400, INVALID_REQUEST)
    assert reply.response["id"] == 7
    bare = await client.request(
        "tools/list", headers={"Mcp-Session-Id": None, "MCP-Protocol-Version": None}
    )
    assert_error(bare, 400, INVALID_REQUEST)


def tampered(token: str) -> str:
    # Not the last character: its low bits are base64 padding, ignored when decoding.
    at = len(token) - 10
    flipped = "A" if token[at] != "A" else "B"
    return token[:at] + flipped + token[at + 1 :]


async def test_unknown_tampered_or_foreign_session_ids_are_404(
    connect: Callable[..., LegacyClient],
) -> None:
    client = await opened(connect, "2025-06-18")
    assert client.session_id is not None
    foreign = Sealer(["another-secret-key-0123456789abcdefghijkl"]).seal(
        "session", {"k": "x", "v": "2025-06-18", "c": {}, "i": {}, "p": "", "t": 0}
    )
    other_purpose = Sealer([SECRET]).seal("request_state", {"k": "x"})
    for session_id in ("abc", tampered(client.session_id), foreign, other_purpose):
        reply = await client.request("tools/list", headers={"Mcp-Session-Id": session_id})
        assert_error(reply, 404, INVALID_REQUEST)
    assert (await client.request("tools/list")).status == 200


async def test_an_expired_session_id_is_404(
    server: tuple[str, MCPRouter, Calls],
    connect: Callable[..., LegacyClient],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    legacy = server[1].endpoint.legacy
    assert legacy is not None
    real = itsdangerous.timed.TimestampSigner.get_timestamp
    epoch = await legacy.registry.epoch(legacy.session_max_age_s)
    with monkeypatch.context() as patch:
        patch.setattr(
            itsdangerous.timed.TimestampSigner,
            "get_timestamp",
            lambda self: real(self) - int(legacy.session_max_age_s) - 5,
        )
        old = legacy.ids.new("2025-06-18", {}, {"name": "c", "version": "1"}, None, epoch)
    fresh = legacy.ids.new("2025-06-18", {}, {"name": "c", "version": "1"}, None, epoch)
    client = connect("2025-06-18")
    client.version = "2025-06-18"
    client.session_id = old
    assert_error(await client.request("tools/list"), 404, INVALID_REQUEST)
    client.session_id = fresh
    assert (await client.request("tools/list")).status == 200


@pytest.mark.parametrize("version", VERSIONS)
async def test_delete_ends_the_session_and_its_id_is_404_afterwards(
    connect: Callable[..., LegacyClient], version: str
) -> None:
    client = await opened(connect, version)
    assert (await client.request("ping")).status == 200
    deleted = await client.delete()
    assert deleted.status == 200
    assert_error(await client.request("ping"), 404, INVALID_REQUEST)
    assert (await client.notify("notifications/initialized")).status == 404
    assert (await client.delete()).status == 404
    async with client.get_stream() as stream:
        assert stream.reply.status == 404
    again = await opened(connect, version)
    assert (await again.request("ping")).status == 200


async def test_delete_without_a_session_is_400_and_with_a_modern_header_405(
    connect: Callable[..., LegacyClient],
) -> None:
    client = await opened(connect, "2025-11-25")
    missing = await client.delete(headers={"Mcp-Session-Id": None})
    assert missing.status == 400
    modern = await client.delete(headers={"MCP-Protocol-Version": "2026-07-28"})
    assert modern.status == 405
    assert "DELETE" in modern.headers["allow"]
    assert (await client.request("ping")).status == 200
