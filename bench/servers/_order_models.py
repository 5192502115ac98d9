"""create_order's input as pydantic models, for the servers that derive schemas from type hints
(mcp MCPServer, FastMCP). Mirrors _common.ORDER_SCHEMA field for field."""

from __future__ import annotations

import datetime as dt
import uuid
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Customer(_Strict):
    id: uuid.UUID
    email: str = Field(pattern=r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
    name: str = Field(min_length=1, max_length=120)
    tier: Literal["free", "pro", "enterprise"]


class ItemOptions(_Strict):
    gift_wrap: bool | None = None
    color: Literal["red", "green", "blue", "black"] | None = None


class Item(_Strict):
    sku: str = Field(pattern=r"^[A-Z]{3}-[0-9]{4}$")
    quantity: int = Field(ge=1, le=1000)
    unit_price: float = Field(ge=0)
    options: ItemOptions | None = None


class Address(_Strict):
    line1: str = Field(min_length=1, max_length=200)
    line2: str | None = Field(default=None, max_length=200)
    city: str = Field(min_length=1)
    postal_code: str = Field(pattern=r"^[0-9A-Z -]{3,10}$")
    country: str = Field(pattern=r"^[A-Z]{2}$")


class Shipping(_Strict):
    address: Address
    method: Literal["standard", "express", "overnight"]
    requested_date: dt.date | None = None
