"""A database-backed FastAPI service whose routers are also an MCP server.

The service is written as FastAPI's own documentation writes one, and MCP is added without
changing any of it:

* the database (SQLAlchemy's asyncio engine on aiosqlite) is made by the app's lifespan and
  handed out as one ``AsyncSession`` per request by ``get_session``, a ``yield`` dependency;
* ``current_user`` reads ``Authorization: Bearer <token>`` and checks the ``Security``
  scopes the route or tool asks for (401 without a known token, 403 without the scope);
* the ticket routes live in an ``APIRouter`` (``/tickets``, router-level ``Security``)
  included in an ``/api`` router, included in the app.

MCP at ``/mcp`` serves three of those routes as tools (``route_tools``: each call goes
through the app, so the router's own dependencies decide) and two ``@tool`` functions that
take the same ``get_session`` and ``current_user`` dependencies. Every MCP call, like every
HTTP request, gets its own session, opened and closed in the call's task; a tool that raises
is seen by the session's ``async with`` (rolled back), as in a route.

Tests swap the database with ``app.dependency_overrides[get_session]`` (the FastAPI habit);
``tests/examples/test_helpdesk.py`` does.

Serve it::

    uvicorn --app-dir examples helpdesk:app

    curl -s -H 'Authorization: Bearer alice-token' http://127.0.0.1:8000/api/tickets
"""

from __future__ import annotations

import os
import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Annotated, Any, Final

from fastapi import APIRouter, Depends, FastAPI, HTTPException, Request, Security
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer, SecurityScopes
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import String, select
from sqlalchemy.ext.asyncio import (
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column
from sqlalchemy.pool import StaticPool

from genmcp import mcp_router, tool
from genmcp.routes_as_tools import route_tools

DATABASE_URL: Final = os.environ.get("HELPDESK_DATABASE_URL", "sqlite+aiosqlite://")
"""Where the tickets live; the default is a database in memory, made empty at start-up."""

USERS: Final[dict[str, tuple[str, frozenset[str]]]] = {
    # token -> (user, scopes). Demo values: a real service verifies tokens it was issued.
    "alice-token": ("alice", frozenset({"tickets:read", "tickets:write"})),
    "bob-token": ("bob", frozenset({"tickets:read"})),
}


# -- the database -----------------------------------------------------------------------------


# --8<-- [start:database]
class Base(DeclarativeBase):
    """The tables of the service."""


class TicketRow(Base):
    """A ticket as stored."""

    __tablename__ = "tickets"
    id: Mapped[int] = mapped_column(primary_key=True)
    title: Mapped[str] = mapped_column(String(200))
    status: Mapped[str] = mapped_column(String(20), default="open")
    owner: Mapped[str] = mapped_column(String(50))


def make_engine(url: str = DATABASE_URL) -> AsyncEngine:
    """An engine for ``url``; an in-memory SQLite keeps one connection, shared."""
    if url.startswith("sqlite") and (":memory:" in url or url.endswith("://")):
        return create_async_engine(url, poolclass=StaticPool)
    return create_async_engine(url)


async def create_tables(engine: AsyncEngine) -> None:
    """Create the tables that do not exist yet."""
    async with engine.begin() as connection:
        await connection.run_sync(Base.metadata.create_all)


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[dict[str, Any]]:
    """Open the database for the app's life; its session maker is lifespan state."""
    engine = make_engine()
    await create_tables(engine)
    try:
        yield {"sessions": async_sessionmaker(engine, expire_on_commit=False)}
    finally:
        await engine.dispose()


async def get_session(request: Request) -> AsyncIterator[AsyncSession]:
    """One session per request or MCP call; closing it rolls back what was not committed."""
    async with request.state.sessions() as session:
        yield session


Session = Annotated[AsyncSession, Depends(get_session)]
# --8<-- [end:database]


# -- who calls --------------------------------------------------------------------------------


# --8<-- [start:users]
class User(BaseModel):
    """The caller, as ``current_user`` found it."""

    name: str
    scopes: frozenset[str]


bearer = HTTPBearer(auto_error=False)


def current_user(
    security_scopes: SecurityScopes,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
) -> User:
    """The caller of a known bearer token holding every scope the route or tool asks for."""
    known = None if credentials is None else _lookup(credentials.credentials)
    if known is None:
        raise HTTPException(
            401, "A valid bearer token is required", headers={"WWW-Authenticate": "Bearer"}
        )
    name, scopes = known
    missing = [scope for scope in security_scopes.scopes if scope not in scopes]
    if missing:
        raise HTTPException(403, f"Missing scope: {' '.join(missing)}")
    return User(name=name, scopes=scopes)


def _lookup(token: str) -> tuple[str, frozenset[str]] | None:
    for known, user in USERS.items():
        if secrets.compare_digest(known, token):
            return user
    return None


Reader = Annotated[User, Security(current_user, scopes=["tickets:read"])]
Writer = Annotated[User, Security(current_user, scopes=["tickets:write"])]
# --8<-- [end:users]


# -- the routes -------------------------------------------------------------------------------


# --8<-- [start:routes]
class NewTicket(BaseModel):
    """What ``open_ticket`` takes."""

    title: str = Field(min_length=1, max_length=200, description="What is wrong")


class Ticket(NewTicket):
    """A ticket."""

    model_config = ConfigDict(from_attributes=True)

    id: int
    status: str = Field(description="open or closed")
    owner: str


tickets = APIRouter(
    prefix="/tickets",
    tags=["tickets"],
    dependencies=[Security(current_user, scopes=["tickets:read"])],
)


@tickets.get("", operation_id="list_tickets", summary="List tickets")
async def list_tickets(session: Session, status: str | None = None) -> list[Ticket]:
    """Every ticket, or those with this status, oldest first."""
    query = select(TicketRow).order_by(TicketRow.id)
    if status is not None:
        query = query.where(TicketRow.status == status)
    return [Ticket.model_validate(row) for row in await session.scalars(query)]


@tickets.get("/{ticket_id}", operation_id="get_ticket", summary="Read one ticket")
async def get_ticket(ticket_id: int, session: Session) -> Ticket:
    """The ticket with this id, or 404."""
    row = await session.get(TicketRow, ticket_id)
    if row is None:
        raise HTTPException(404, f"No ticket {ticket_id}")
    return Ticket.model_validate(row)


@tickets.post("", operation_id="open_ticket", summary="Open a ticket", status_code=201)
async def open_ticket(new: NewTicket, session: Session, user: Writer) -> Ticket:
    """Opens a ticket owned by the caller."""
    row = TicketRow(title=new.title, owner=user.name)
    session.add(row)
    await session.commit()
    return Ticket.model_validate(row)


api = APIRouter(prefix="/api")
api.include_router(tickets)

app = FastAPI(title="helpdesk", lifespan=lifespan)
app.include_router(api)


@app.get("/health")
async def health() -> dict[str, str]:
    """Liveness."""
    return {"status": "ok"}
# --8<-- [end:routes]


# -- MCP --------------------------------------------------------------------------------------


# --8<-- [start:mcp]
@tool(annotations={"readOnlyHint": True})
async def search_tickets(query: str, session: Session, user: Reader) -> list[Ticket]:
    """Tickets whose title contains the query (case-insensitive), oldest first."""
    found = select(TicketRow).where(TicketRow.title.icontains(query)).order_by(TicketRow.id)
    return [Ticket.model_validate(row) for row in await session.scalars(found)]


@tool(error_results=True)  # a refusal is a result the model reads
async def close_ticket(ticket_id: int, session: Session, user: Writer) -> Ticket:
    """Closes a ticket the caller owns; the change is committed only if it succeeds."""
    row = await session.get(TicketRow, ticket_id)
    if row is None:
        raise ValueError(f"No ticket {ticket_id}")
    row.status = "closed"
    if row.owner != user.name:  # the change above is rolled back when the session closes
        raise PermissionError(f"ticket {ticket_id} belongs to {row.owner}")
    await session.commit()
    return Ticket.model_validate(row)


app.include_router(
    mcp_router(
        server_name="helpdesk",
        server_version="1.0.0",
        tools=[*route_tools(app, tags=["tickets"]), search_tickets, close_ticket],
        auth=current_user,
    ),
    prefix="/mcp",
)
# --8<-- [end:mcp]
