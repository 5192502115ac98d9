"""An existing FastAPI app whose routes become MCP tools, with their own auth enforced.

``GET /items/{item_id}`` (operation id ``get_item``) and ``POST /items`` (``create_item``,
a pydantic body) sit behind ``require_token``, an ordinary FastAPI dependency accepting
``Authorization: Bearer secret-token``. ``routes_router`` turns both routes into the MCP
tools ``get_item`` and ``create_item``; a tool call runs the route in-process through the
app's ASGI stack with the MCP request's ``Authorization`` header, so ``require_token``
decides, exactly as for an HTTP client. A caller without the token gets an ``isError``
result carrying the route's 401: ``{"status": 401, "detail": "..."}``.

The MCP endpoint itself has no auth here (the routes enforce theirs); give
``routes_router(..., auth=...)`` to guard ``tools/list`` too.

Serve it::

    uvicorn --app-dir examples routes_as_tools:app

    curl -s -H 'Authorization: Bearer secret-token' http://127.0.0.1:8000/items/1
"""

from __future__ import annotations

import secrets
from typing import Annotated, Final

from fastapi import Depends, FastAPI, HTTPException
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel, Field

from genmcp.routes_as_tools import routes_router

TOKEN: Final = "secret-token"  # demo value: never ship a token in code


class NewItem(BaseModel):
    """What ``create_item`` takes."""

    name: str = Field(min_length=1, description="What the item is called")
    price: float = Field(gt=0, description="Price in euros")


class Item(NewItem):
    """An item of the inventory."""

    id: int


ITEMS: dict[int, Item] = {1: Item(id=1, name="hammer", price=12.5)}

bearer = HTTPBearer(auto_error=False)


def require_token(
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
) -> str:
    """The routes' own auth: 401 unless ``Authorization: Bearer secret-token``."""
    if credentials is None or not secrets.compare_digest(credentials.credentials, TOKEN):
        raise HTTPException(401, "A valid bearer token is required",
                            headers={"WWW-Authenticate": "Bearer"})
    return "demo-user"


app = FastAPI(title="inventory")


@app.get("/items/{item_id}", operation_id="get_item", summary="Read one item")
async def get_item(item_id: int, user: Annotated[str, Depends(require_token)]) -> Item:
    """Returns the item with this id, or 404."""
    item = ITEMS.get(item_id)
    if item is None:
        raise HTTPException(404, f"No item {item_id}")
    return item


@app.post("/items", operation_id="create_item", summary="Add an item", status_code=201)
async def create_item(new: NewItem, user: Annotated[str, Depends(require_token)]) -> Item:
    """Adds an item to the inventory and returns it with its id."""
    item = Item(id=max(ITEMS, default=0) + 1, **new.model_dump())
    ITEMS[item.id] = item
    return item


app.include_router(
    routes_router(
        app,
        server_name="inventory",
        server_version="1.0.0",
        operations=["get_item", "create_item"],
    ),
    prefix="/mcp",
)
