"""A realistic FastAPI app for the routes-as-tools tests: the kind of app users already have.

Path, query and body parameters, nested models, enums, optional fields, a bearer-token
auth dependency (scopes: ``read``, ``write``), a DB-session-like ``yield`` dependency that
counts open sessions, per-request ``request.state``, lifespan state, a header parameter,
and 404 / 422 / 500 / 503 paths. ``make_app(debug=...)`` builds a fresh one, its MCP
router built by the caller. (No ``from __future__ import annotations``: the routes use
dependency aliases local to ``make_app``, which FastAPI must see evaluated.)
"""

import asyncio
import contextlib
import enum
import itertools
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from typing import Annotated, Any, Final

from fastapi import Depends, FastAPI, Header, HTTPException, Query, Request
from fastapi.responses import StreamingResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel, Field, field_validator

TOKENS: Final = {"alice-token": ("alice", {"read", "write"}), "bob-token": ("bob", {"read"})}
ALICE: Final = {"Authorization": "Bearer alice-token"}
BOB: Final = {"Authorization": "Bearer bob-token"}


class Color(enum.StrEnum):
    RED = "red"
    GREEN = "green"


class Dimensions(BaseModel):
    width_cm: float = Field(gt=0)
    height_cm: float = Field(gt=0)


class ProductIn(BaseModel):
    """A product to add."""

    name: str = Field(min_length=1, max_length=40)
    color: Color
    dimensions: Dimensions | None = None
    tags: list[str] = []

    @field_validator("name")
    @classmethod
    def no_shouting(cls, value: str) -> str:  # a rule JSON Schema cannot say: FastAPI's 422
        if value.isupper():
            raise ValueError("name must not be all capitals")
        return value


class Product(ProductIn):
    id: int
    owner: str
    session: int


@dataclass
class Database:
    """Counts sessions, so a test can see each call got its own and all were closed."""

    opened: int = 0
    open_now: set[int] = field(default_factory=set)
    ids: Iterator[int] = field(default_factory=lambda: itertools.count(1))
    products: dict[int, dict[str, Any]] = field(default_factory=dict)


@dataclass
class Session:
    id: int
    db: Database


def make_app(*, debug: bool = False) -> tuple[FastAPI, Database]:
    """A fresh shop app and its database."""
    db = Database()
    bearer = HTTPBearer(auto_error=False)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[dict[str, Any]]:
        yield {"shop_name": "the test shop"}

    app = FastAPI(title="shop", debug=debug, lifespan=lifespan)

    def user(
        credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
    ) -> tuple[str, set[str]]:
        entry = TOKENS.get(credentials.credentials) if credentials else None
        if entry is None:
            raise HTTPException(401, "Not authenticated", headers={"WWW-Authenticate": "Bearer"})
        return entry

    def writer(who: Annotated[tuple[str, set[str]], Depends(user)]) -> str:
        if "write" not in who[1]:
            raise HTTPException(403, "The write scope is required")
        return who[0]

    async def session(request: Request) -> AsyncIterator[Session]:
        assert not hasattr(request.state, "session"), "request state leaked between calls"
        opened = Session(db.opened + 1, db)
        db.opened += 1
        db.open_now.add(opened.id)
        request.state.session = opened
        try:
            await asyncio.sleep(0)  # let concurrent calls interleave
            yield opened
        finally:
            db.open_now.discard(opened.id)

    _products(app, db, user, writer, session)
    _others(app, user)
    return app, db


def _products(app: FastAPI, db: Database, user: Any, writer: Any, session: Any) -> None:
    Reader = Annotated[tuple[str, set[str]], Depends(user)]
    DB = Annotated[Session, Depends(session)]

    @app.get("/products/{product_id}", operation_id="get_product", tags=["products"],
             summary="Read a product", response_model=Product)
    async def get_product(product_id: int, who: Reader, s: DB) -> dict[str, Any]:
        """Returns one product, or 404 when there is none."""
        product = db.products.get(product_id)
        if product is None:
            raise HTTPException(404, f"No product {product_id}")
        return {**product, "session": s.id}

    @app.get("/products", operation_id="list_products", tags=["products"],
             response_model=list[Product])
    async def list_products(
        who: Reader,
        s: DB,
        color: Color | None = None,
        tag: Annotated[list[str] | None, Query(description="Any of these tags")] = None,
        limit: Annotated[int, Query(ge=1, le=50)] = 10,
    ) -> list[dict[str, Any]]:
        """Lists products, filtered by color and tags."""
        found = [
            {**p, "session": s.id}
            for p in db.products.values()
            if (color is None or p["color"] == color)
            and (not tag or set(tag) & set(p["tags"]))
        ]
        return found[:limit]

    @app.post("/products", operation_id="create_product", tags=["products"], status_code=201,
              response_model=Product)
    async def create_product(
        product: ProductIn, owner: Annotated[str, Depends(writer)], s: DB
    ) -> dict[str, Any]:
        """Adds a product."""
        new_id = next(db.ids)
        stored = {**product.model_dump(mode="json"), "id": new_id, "owner": owner}
        db.products[new_id] = stored
        return {**stored, "session": s.id}

    @app.delete("/products/{product_id}", operation_id="delete_product", tags=["products"],
                status_code=204)
    async def delete_product(product_id: int, owner: Annotated[str, Depends(writer)]) -> None:
        """Removes a product."""
        if db.products.pop(product_id, None) is None:
            raise HTTPException(404, f"No product {product_id}")


def _others(app: FastAPI, user: Any) -> None:
    Reader = Annotated[tuple[str, set[str]], Depends(user)]

    @app.get("/whoami", operation_id="whoami", tags=["meta"])
    async def whoami(
        request: Request, who: Reader, x_tenant: Annotated[str | None, Header()] = None
    ) -> dict[str, Any]:
        """Who the route saw, the tenant header and the lifespan state."""
        return {"user": who[0], "tenant": x_tenant, "shop": request.state.shop_name}

    @app.get("/crash", operation_id="crash", tags=["broken"])
    async def crash(who: Reader) -> dict[str, str]:
        raise RuntimeError("secret-internal-detail in a traceback")

    @app.get("/maintenance", operation_id="maintenance", tags=["broken"])
    async def maintenance() -> dict[str, str]:
        raise HTTPException(503, "Down for maintenance")

    @app.get("/export", operation_id="export", tags=["files"])
    async def export() -> StreamingResponse:
        return StreamingResponse(iter([b"a,b\n"]), media_type="text/csv")
