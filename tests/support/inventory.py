"""The external API of the OpenAPI import tests: a FastAPI app served by its own uvicorn.

Its OpenAPI document is committed (``inventory_openapi.json``, written by ``python -m
support.inventory``): the tests import the file, as a client of someone else's API would,
and ``tests/openapi/test_build.py`` checks it is still what the app serves.

``hits`` counts the requests that reached it (the breaker tests read it); ``/slow`` waits
until ``release`` is set (the timeout tests), never on a clock.
"""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path
from typing import Annotated, Any, Final

from fastapi import FastAPI, Header, HTTPException, Query
from fastapi.responses import JSONResponse, PlainTextResponse
from pydantic import BaseModel, Field

SPEC: Final = Path(__file__).with_name("inventory_openapi.json")
TOKEN: Final = "inventory-secret"


class Dimensions(BaseModel):
    width_cm: int = Field(ge=1)
    height_cm: int = Field(ge=1)


class NewItem(BaseModel):
    name: str = Field(min_length=1, max_length=40)
    dimensions: Dimensions | None = None
    tags: list[str] = []


class Item(NewItem):
    id: int


class State:
    """What the app holds; shared with the test thread."""

    def __init__(self) -> None:
        self.items: dict[int, Item] = {1: Item(id=1, name="lamp", tags=["light"])}
        self.hits = 0
        self.seen_headers: list[dict[str, str]] = []
        self.release = threading.Event()
        self.lock = threading.Lock()

    def hit(self, headers: dict[str, str]) -> None:
        with self.lock:
            self.hits += 1
            self.seen_headers.append(headers)


def make_app() -> tuple[FastAPI, State]:
    state = State()
    app = FastAPI(title="Inventory", version="1.0", servers=[{"url": "/"}])

    @app.middleware("http")
    async def count(request: Any, call_next: Any) -> Any:
        state.hit({k.lower(): v for k, v in request.headers.items()})
        return await call_next(request)

    @app.get("/v1/items/{item_id}", operation_id="getItem", tags=["items"],
             summary="Read an item", response_model=Item,
             responses={404: {"description": "No such item"}})
    async def get_item(item_id: int) -> Any:
        """Returns one item by its id."""
        found = state.items.get(item_id)
        if found is None:
            return JSONResponse({"error": "not_found", "id": item_id}, status_code=404)
        return found

    @app.get("/v1/items", operation_id="listItems", tags=["items"], response_model=list[Item])
    async def list_items(
        tag: Annotated[str | None, Query(description="Only items with this tag")] = None,
        limit: Annotated[int, Query(ge=1, le=50)] = 10,
    ) -> list[Item]:
        """Lists items."""
        found = [i for i in state.items.values() if tag is None or tag in i.tags]
        return found[:limit]

    @app.post("/v1/items", operation_id="createItem", tags=["items"], status_code=201,
              response_model=Item)
    async def create_item(
        item: NewItem, authorization: Annotated[str | None, Header()] = None
    ) -> Item:
        """Adds an item (needs the bearer token)."""
        if authorization != f"Bearer {TOKEN}":
            raise HTTPException(401, "a valid bearer token is required")
        made = Item(id=max(state.items) + 1, **item.model_dump())
        state.items[made.id] = made
        return made

    @app.delete("/v1/items/{item_id}", operation_id="deleteItem", tags=["admin"],
                status_code=204)
    async def delete_item(item_id: int) -> None:
        state.items.pop(item_id, None)

    @app.get("/v1/whoami", operation_id="whoAmI", tags=["meta"])
    async def whoami(
        authorization: Annotated[str | None, Header()] = None,
        x_api_key: Annotated[str | None, Header()] = None,
    ) -> dict[str, Any]:
        """Echoes the credentials the call carried."""
        return {"authorization": authorization, "api_key": x_api_key}

    @app.get("/v1/boom", operation_id="boom", tags=["meta"])
    async def boom() -> dict[str, Any]:
        """Always fails with a 503."""
        raise HTTPException(503, "down for maintenance")

    @app.get("/v1/slow", operation_id="slow", tags=["meta"])
    async def slow() -> PlainTextResponse:
        """Answers once the test releases it."""
        await asyncio.to_thread(state.release.wait, 60.0)  # a hang guard only
        return PlainTextResponse("finally")

    return app, state


def document() -> dict[str, Any]:
    """The document the app serves now."""
    return make_app()[0].openapi()


if __name__ == "__main__":
    SPEC.write_text(json.dumps(document(), indent=2) + "\n", encoding="utf-8")
