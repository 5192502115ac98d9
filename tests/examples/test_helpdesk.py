"""examples/helpdesk.py: a database-backed service in APIRouters, tested as FastAPI apps are.

The database is swapped with ``app.dependency_overrides[get_session]`` (a SQLite file of the
test's own on aiosqlite); every MCP test runs in both eras (2026-07-28 calls and a 2025
session). The overriding dependency records the task each session was opened and closed in,
and the exception it saw, so the tests check what FastAPI promises of a ``yield`` dependency.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import httpx
import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from genmcp.testing import MCPTestClient, RPCError
from support import examples

helpdesk = examples.load("helpdesk")

ALICE: Final = {"Authorization": "Bearer alice-token"}
BOB: Final = {"Authorization": "Bearer bob-token"}
ERAS: Final = pytest.mark.parametrize("era", ["2026-07-28", "2025-11-25"])


@dataclass
class Database:
    """The test's database and what the overriding ``get_session`` saw."""

    sessions: async_sessionmaker[AsyncSession]
    opened: list[dict[str, Any]] = field(default_factory=list)

    async def status(self, ticket_id: int) -> str:
        async with self.sessions() as session:
            row = await session.get(helpdesk.TicketRow, ticket_id)
            assert row is not None
            return str(row.status)


@pytest.fixture
async def database(tmp_path: Path) -> AsyncIterator[Database]:
    engine = helpdesk.make_engine(f"sqlite+aiosqlite:///{tmp_path / 'tickets.db'}")
    await helpdesk.create_tables(engine)
    database = Database(async_sessionmaker(engine, expire_on_commit=False))
    async with database.sessions() as session:
        session.add_all(
            [
                helpdesk.TicketRow(title="Printer on fire", owner="alice"),
                helpdesk.TicketRow(title="VPN drops", owner="bob"),
                helpdesk.TicketRow(title="Printer out of paper", owner="bob", status="closed"),
            ]
        )
        await session.commit()

    async def test_session() -> AsyncIterator[AsyncSession]:
        seen: dict[str, Any] = {"opened_in": asyncio.current_task()}
        database.opened.append(seen)
        async with database.sessions() as session:
            try:
                yield session
            except Exception as exc:
                seen["error"] = exc
                raise
            finally:
                seen["closed_in"] = asyncio.current_task()

    helpdesk.app.dependency_overrides[helpdesk.get_session] = test_session
    try:
        yield database
    finally:
        helpdesk.app.dependency_overrides.clear()
        await engine.dispose()


def client(era: str, headers: dict[str, str] = ALICE) -> MCPTestClient:
    return MCPTestClient(helpdesk.app, headers=headers, protocol_version=era)


def closed_where_opened(database: Database) -> bool:
    return all(seen["closed_in"] is seen["opened_in"] for seen in database.opened)


# -- the service's own routes -------------------------------------------------------------------


async def test_the_routes_answer_over_http_with_their_router_dependencies(
    database: Database,
) -> None:
    transport = httpx.ASGITransport(app=helpdesk.app)
    async with httpx.AsyncClient(transport=transport, base_url="http://helpdesk") as http:
        assert (await http.get("/api/tickets")).status_code == 401
        listed = await http.get("/api/tickets", params={"status": "open"}, headers=BOB)
        refused = await http.post("/api/tickets", json={"title": "x"}, headers=BOB)
        made = await http.post("/api/tickets", json={"title": "Badge broken"}, headers=ALICE)
    assert [t["title"] for t in listed.json()] == ["Printer on fire", "VPN drops"]
    assert refused.status_code == 403
    assert refused.json() == {"detail": "Missing scope: tickets:write"}
    assert made.status_code == 201
    assert made.json() == {"title": "Badge broken", "id": 4, "status": "open", "owner": "alice"}


# -- MCP ----------------------------------------------------------------------------------------


@ERAS
async def test_the_routers_routes_and_the_functions_are_tools(era: str, database: Database) -> None:
    async with client(era) as mcp:
        names = sorted(t["name"] for t in await mcp.list_tools())
        ticket = await mcp.call_tool("get_ticket", {"ticket_id": 2})
    assert names == ["close_ticket", "get_ticket", "list_tickets", "open_ticket", "search_tickets"]
    assert ticket.structured == {"title": "VPN drops", "id": 2, "status": "open", "owner": "bob"}


@ERAS
async def test_a_route_tool_runs_the_routers_security_scopes(era: str, database: Database) -> None:
    async with client(era, BOB) as mcp:
        refused = await mcp.call_tool("open_ticket", {"title": "Badge broken"})
        listed = await mcp.call_tool("list_tickets", {"status": "closed"})
    assert refused.is_error
    assert json.loads(refused.text) == {"status": 403, "detail": "Missing scope: tickets:write"}
    assert [t["title"] for t in listed.structured["result"]] == ["Printer out of paper"]


@ERAS
async def test_a_tool_gets_its_own_session_opened_and_closed_in_its_call(
    era: str, database: Database
) -> None:
    async with client(era) as mcp:
        found = await mcp.call_tool("search_tickets", {"query": "printer"})
        again = await mcp.call_tool("search_tickets", {"query": "vpn"})
    assert [t["id"] for t in found.structured["result"]] == [1, 3]
    assert [t["id"] for t in again.structured["result"]] == [2]
    assert json.loads(found.text) == found.structured
    assert len(database.opened) == 2 and closed_where_opened(database)
    assert database.opened[0]["opened_in"] is not database.opened[1]["opened_in"]
    assert all("error" not in seen for seen in database.opened)


@ERAS
async def test_a_failing_tool_is_seen_by_its_session_and_commits_nothing(
    era: str, database: Database
) -> None:
    async with client(era) as mcp:
        failed = await mcp.call_tool("close_ticket", {"ticket_id": 2})  # bob's ticket
        closed = await mcp.call_tool("close_ticket", {"ticket_id": 1})
    assert failed.is_error and "belongs to bob" in failed.text
    assert closed.structured["status"] == "closed"
    assert isinstance(database.opened[0]["error"], PermissionError)
    assert closed_where_opened(database)
    assert (await database.status(2), await database.status(1)) == ("open", "closed")


@ERAS
async def test_a_tool_asks_for_its_security_scopes(era: str, database: Database) -> None:
    async with client(era, BOB) as mcp:
        with pytest.raises(RPCError) as refused:
            await mcp.call_tool("close_ticket", {"ticket_id": 2})
        assert (await mcp.call_tool("search_tickets", {"query": "vpn"})).structured["result"]
    assert "Missing scope: tickets:write" in refused.value.message
    assert await database.status(2) == "open"


async def test_the_lifespan_database_serves_without_overrides() -> None:
    async with client("2026-07-28") as mcp:
        made = await mcp.call_tool("open_ticket", {"title": "Coffee machine"})
        found = await mcp.call_tool("search_tickets", {"query": "coffee"})
    assert made.structured["owner"] == "alice"
    assert [t["title"] for t in found.structured["result"]] == ["Coffee machine"]
