"""A shop written with the function forms: a FastAPI app with its own lifespan-made pool and
bearer auth, served over MCP in both eras (tests/examples/test_shop_functions.py,
tests/e2e/test_sdk_shop_functions.py run it).

    uvicorn --app-dir examples shop:app      # MCP at /mcp, Authorization: Bearer alice-token
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Annotated, Any, Literal

from fastapi import Depends, FastAPI, Header, HTTPException, Request
from pydantic import BaseModel, Field

from genmcp import (
    Channel,
    InputRequired,
    ResourceNotFound,
    ToolRequest,
    elicit_request,
    mcp_router,
    prompt,
    resource,
    route_tools,
    tool,
)

TOKENS = {"alice-token": "alice", "bob-token": "bob"}


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[dict[str, Any]]:
    db: dict[str, Any] = {"orders": {}, "customers": {"ada": "Paris", "alan": "London"}}
    yield {"db": db}  # stands in for a pool: channel.state.db, request.state.db


def auth(authorization: Annotated[str, Header()] = "") -> dict[str, str]:
    user = TOKENS.get(authorization.removeprefix("Bearer "))
    if user is None:
        raise HTTPException(401, "A bearer token is required", {"WWW-Authenticate": "Bearer"})
    return {"principal": user}


def get_db(request: Request) -> dict[str, Any]:
    return request.state.db  # type: ignore[no-any-return]


DB = Annotated[dict[str, Any], Depends(get_db)]  # FastAPI dependencies, in tools as in routes
User = Annotated[dict[str, str], Depends(auth)]


class NewOrder(BaseModel):
    customer: str
    item: str = Field(min_length=1)
    quantity: int = Field(1, ge=1, le=100)


class Order(NewOrder):
    id: int
    by: str


@tool
async def create_order(order: NewOrder, db: DB, channel: Channel) -> Order:
    """Place an order for a customer."""
    created = Order(id=len(db["orders"]) + 1, by=channel.assigns["principal"], **order.model_dump())
    db["orders"][created.id] = created
    return created


@tool(annotations={"readOnlyHint": True})
def hash_text(text: str, rounds: Annotated[int, Field(ge=1, le=100_000)] = 1000) -> str:
    """SHA-256 a text, round after round (blocking work: it runs in a thread)."""
    digest = text.encode()
    for _ in range(rounds):
        digest = hashlib.sha256(digest).digest()
    return digest.hex()


@tool
async def export_orders(db: DB, channel: Channel) -> str:
    """Export every order as CSV, reporting progress."""
    orders, lines = list(db["orders"].values()), ["id,customer,item,quantity"]
    for done, order in enumerate(orders, 1):
        lines.append(f"{order.id},{order.customer},{order.item},{order.quantity}")
        channel.send_progress(done, total=len(orders))
        await asyncio.sleep(0)  # a real export awaits its I/O here
    return "\n".join(lines)


class Confirm(BaseModel):
    yes: bool = Field(description="Delete it for good?")


@tool(annotations={"destructiveHint": True})
async def delete_order(order_id: int, request: ToolRequest, db: DB) -> str | InputRequired:
    """Delete an order once the user confirms."""
    if order_id not in db["orders"]:
        return f"There is no order {order_id}."
    if (confirm := request.input(Confirm)) is None:
        return InputRequired({"confirm": elicit_request(f"Delete order {order_id}?", Confirm)})
    if confirm.yes:
        del db["orders"][order_id]
    return f"Order {order_id} {'deleted' if confirm.yes else 'kept'}."


def customer_names(value: str, channel: Channel) -> list[str]:
    return [name for name in channel.state.db["customers"] if name.startswith(value)]


class Customer(BaseModel):
    name: str
    city: str
    orders: int


@resource("shop://customers/{name}", complete={"name": customer_names})
def customer(name: str, db: DB) -> Customer | ResourceNotFound:
    """A customer and how many orders they placed."""
    if name not in db["customers"]:
        return ResourceNotFound()
    placed = sum(order.customer == name for order in db["orders"].values())
    return Customer(name=name, city=db["customers"][name], orders=placed)


@prompt(complete={"customer": customer_names})
def follow_up(customer: str, tone: Literal["warm", "formal"] = "warm") -> str:
    """Draft a follow-up email to a customer about their orders."""
    return f"Write a {tone} follow-up email to {customer} about their recent orders."


app = FastAPI(title="shop", lifespan=lifespan)


@app.get("/customers/{name}/city", operation_id="customer_city")
def customer_city(name: str, db: DB, user: User) -> dict[str, str]:
    """The shop's own API: where a customer lives (asked by a signed-in user)."""
    if name not in db["customers"]:
        raise HTTPException(404, f"No customer {name!r}")
    return {"name": name, "city": db["customers"][name], "asked_by": user["principal"]}


routes = route_tools(app, operations=["customer_city"])  # an existing route, as a tool
app.include_router(mcp_router(
    server_name="shop", server_version="1.0.0", auth=auth, resources=[customer],
    prompts=[follow_up], tools=[create_order, hash_text, export_orders, delete_order, *routes],
), prefix="/mcp")  # fmt: skip
