"""A shop: an existing FastAPI app (own routes, a lifespan-made DB pool, bearer auth) with MCP.

Tools reach the app as FastAPI routes do: ``channel.state.db`` is what the lifespan yielded,
``await channel.resolve(get_cart)`` runs a FastAPI dependency for this call (sub-dependencies,
``app.dependency_overrides``, a ``yield`` cleaned up after the call). Shown: a pydantic tool
with structured output, a blocking ``def`` tool, a stream fed by a background job through
the mailbox, an elicitation, a resource template, a prompt with completion.

    uvicorn --app-dir examples shop_app:app            # HTTP, MCP at /mcp
    genmcp run shop_app:app --app-dir examples --transport stdio \\
        --header 'Authorization: Bearer alice-token'   # stdio: same lifespan, same auth
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import Annotated, Any

from fastapi import Depends, FastAPI, Header, HTTPException, Request
from pydantic import BaseModel

from genmcp import (
    InputRequired,
    Prompt,
    ResourceRepo,
    Result,
    Stream,
    Tool,
    call_tool_result,
    elicit_request,
    get_prompt_result,
    mcp_router,
    read_resource_result,
    text_contents,
    user_message,
)

USERS = {"alice-token": "alice", "bob-token": "bob"}


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[dict[str, Any]]:
    db = {"stock": {"hammer": 12, "saw": 0}, "carts": {}}  # stands in for a DB pool
    yield {"db": db}                                          # -> channel.state.db
    db.clear()


def auth(authorization: Annotated[str, Header()] = "") -> dict[str, str]:
    user = USERS.get(authorization.removeprefix("Bearer "))
    if user is None:
        raise HTTPException(401, "A bearer token is required", {"WWW-Authenticate": "Bearer"})
    return {"principal": user}


def get_cart(user: Annotated[dict[str, str], Depends(auth)]) -> Iterator[list[str]]:
    cart: list[str] = []                       # one per call; "saved" when the call ends
    yield cart
    CHECKOUTS.append((user["principal"], cart))


CHECKOUTS: list[tuple[str, list[str]]] = []


class Item(BaseModel):
    name: str


class Stock(Tool, name="stock", description="Units in stock.", input_schema=Item,
            output_schema={"type": "object", "properties": {"units": {"type": "integer"}}}):
    async def call(self, request, channel, arg):
        units = channel.state.db["stock"].get(request.arguments.name, 0)
        return Result(call_tool_result(structured={"units": units}))


class Buy(Tool, name="buy", description="Buys one item after the user confirms.",
          input_schema=Item):
    async def call(self, request, channel, arg):
        answer = (request.input_responses or {}).get("ok")
        if answer is None:
            ask = elicit_request(f"Buy a {request.arguments.name}?",
                                 {"type": "object", "properties": {"yes": {"type": "boolean"}}})
            return InputRequired({"ok": ask})
        if not (answer.get("content") or {}).get("yes"):
            return Result(call_tool_result(text="Not bought."))
        cart = await channel.resolve(get_cart)
        cart.append(request.arguments.name)
        return Result(call_tool_result(text=f"{channel.assigns['principal']} bought {cart}"))


class Report(Tool, name="report", description="A slow report (blocking code runs in a thread)."):
    def call(self, request, channel, arg):
        time.sleep(0.05)
        return Result(call_tool_result(text=f"{len(channel.state.db['stock'])} products"))


class Restock(Tool, name="restock", description="Restocks, reporting progress.",
              input_schema=Item):
    async def call(self, request, channel, arg):
        asyncio.get_running_loop().create_task(restock_job(channel.mailbox))
        channel.start_stream()
        return Stream(request.arguments.name)

    async def handle_message(self, message, channel, state, arg):
        if message < 3:
            channel.send_progress(message, total=3)
            return Stream(state)
        channel.state.db["stock"][state] = channel.state.db["stock"].get(state, 0) + 3
        return Result(call_tool_result(text=f"{state}: +3"))


async def restock_job(mailbox: Any) -> None:  # a background job posting to the call
    for step in (1, 2, 3):
        await asyncio.sleep(0.01)
        mailbox.send(step)


class Products(ResourceRepo, template="shop://products/{name}", name="product",
               mime_type="text/plain"):
    async def read(self, request, channel, arg):
        units = channel.state.db["stock"].get(request.params["name"], 0)
        return Result(read_resource_result(text_contents(request.uri, f"{units} units")))


class Pitch(Prompt, name="pitch", description="Write a sales pitch.",
            arguments=[{"name": "product", "required": True}]):
    async def get(self, request, channel, arg):
        return Result(get_prompt_result([user_message(f"Sell {request.arguments['product']}")]))

    async def complete(self, argument, value, context, arg):
        return [name for name in ("hammer", "saw") if name.startswith(value)]


app = FastAPI(title="shop", lifespan=lifespan)


@app.get("/stock/{name}")
async def stock(name: str, request: Request) -> dict[str, int]:   # an ordinary route
    return {"units": request.state.db["stock"].get(name, 0)}


app.include_router(mcp_router(
    server_name="shop", server_version="1.0.0", auth=auth, tools=[Stock, Buy, Report, Restock],
    resources=[Products], prompts=[Pitch]), prefix="/mcp")
