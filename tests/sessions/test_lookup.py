"""``sessions.lookup``: the live session a legacy message names, or the precise refusal.

Over the wire (a real uvicorn server, ``session_kit``): the ``MCP-Protocol-Version`` rules.
Directly, on the real parts (a sealer's ``SessionIds``, the in-memory registry): no id is
``session_required``, another version ``invalid_request``, an ended session or one of another
process's memory ``session_not_found`` (the latter naming the fix, logged once), and the log
level the registry holds comes with the session. Across two worker processes:
test_lookup_workers.py.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

import pytest

from genmcp.errors import MCPError
from genmcp.sealing import Sealer
from genmcp.sessions.lookup import FOREIGN_SESSION, LOG_LEVEL, SessionLookup
from genmcp.sessions.session_ids import SessionIds
from genmcp.storage.memory import MemorySessionRegistry
from support.legacy_client import LegacyClient
from tests.sessions.session_kit import INVALID_REQUEST, SECRET, VERSIONS, assert_error, opened

MAX_AGE_S = 3600.0

# -- MCP-Protocol-Version, over the wire ----------------------------------------------------


@pytest.mark.parametrize("version", VERSIONS)
async def test_protocol_version_header_rules(
    connect: Callable[..., LegacyClient], version: str
) -> None:
    client = await opened(connect, version)
    assert (await client.request("tools/list")).status == 200
    absent = await client.request("tools/list", headers={"MCP-Protocol-Version": None})
    assert absent.status == 200  # the negotiated version is assumed
    other = next(v for v in VERSIONS if v != version)
    mismatch = await client.request("tools/list", headers={"MCP-Protocol-Version": other})
    assert_error(mismatch, 400, INVALID_REQUEST)
    bogus = await client.request(
        "tools/list", headers={"MCP-Protocol-Version": "v999"}, validate=False
    )
    assert bogus.status == 400


# -- the lookup itself, on the real parts --------------------------------------------------


def lookup_of(registry: MemorySessionRegistry | None = None) -> SessionLookup:
    ids = SessionIds(Sealer.from_config(SECRET))
    return SessionLookup(ids, registry or MemorySessionRegistry(), MAX_AGE_S)


async def begun(lookup: SessionLookup, version: str = "2025-11-25") -> str:
    """A new session id, as ``initialize`` makes it (the registry's epoch in it)."""
    epoch = await lookup.registry.epoch(MAX_AGE_S)
    token = lookup.ids.new(version, {}, {"name": "c", "version": "1"}, None, epoch)
    assert token is not None
    return token


async def refusal(lookup: SessionLookup, token: str | None, version: str | None) -> MCPError:
    with pytest.raises(MCPError) as caught:
        await lookup.find(token, version, {})
    return caught.value


async def test_a_live_session_is_found_with_its_version_or_none_said() -> None:
    lookup = lookup_of()
    token = await begun(lookup, "2025-06-18")
    found = await lookup.find(token, "2025-06-18", {})
    assert (found.version, found.log_level) == ("2025-06-18", None)
    assert (await lookup.find(token, None, {})).key == found.key  # absent: the negotiated one


async def test_no_id_is_session_required_and_another_version_invalid_request() -> None:
    lookup = lookup_of()
    token = await begun(lookup, "2025-11-25")
    assert (await refusal(lookup, None, "2025-11-25")).reason == "session_required"
    mismatch = await refusal(lookup, token, "2025-03-26")
    assert mismatch.reason == "invalid_request"
    assert "'2025-03-26' is not the session's negotiated version '2025-11-25'" in str(mismatch)


async def test_the_level_the_registry_holds_comes_with_the_session() -> None:
    lookup = lookup_of()
    token = await begun(lookup)
    session = await lookup.find(token, None, {})
    await lookup.registry.put(session.key, LOG_LEVEL, "warning", session.ttl_s)
    assert (await lookup.find(token, None, {})).log_level == "warning"


async def test_an_ended_session_is_plainly_not_found(caplog: pytest.LogCaptureFixture) -> None:
    lookup = lookup_of()
    token = await begun(lookup)
    session = await lookup.find(token, None, {})
    await lookup.registry.end(session.key, session.ttl_s)
    with caplog.at_level(logging.WARNING, logger="genmcp"):
        ended = await refusal(lookup, token, None)
    assert (ended.reason, ended.message) == ("session_not_found", "Session not found")
    assert caplog.records == []


async def test_another_processs_session_names_the_fix_and_is_logged_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    here = lookup_of()
    there = lookup_of()  # the same secret, its own memory: another worker
    token = await begun(there)
    with caplog.at_level(logging.WARNING, logger="genmcp"):
        refused = [await refusal(here, token, None) for _ in range(3)]
    assert {(r.reason, r.message) for r in refused} == {
        ("session_not_found", f"Session not found: {FOREIGN_SESSION}")
    }
    assert [r.getMessage().count(FOREIGN_SESSION) for r in caplog.records] == [1]
