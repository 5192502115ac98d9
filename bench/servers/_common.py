"""Shared pieces of the benchmark servers: env knobs, uvicorn settings, the nested-schema tool.

Stdlib only: every server imports this by path from its own virtualenv.

Environment:
  PORT           TCP port on 127.0.0.1 (default 8000)
  EXTRA_TOOLS    N extra no-op tools `tool_0000`..`tool_{N-1}` (default 0)
  STATEFUL       1 = legacy session mode (initialize + Mcp-Session-Id) where it is a switch
  JSON_RESPONSE  1 = plain application/json answers (default); 0 = SSE answers, which the SDK
                 servers need for progress notifications (the driver sets 0 for `stream`)
"""

from __future__ import annotations

import os

PORT = int(os.environ.get("PORT", "8000"))
EXTRA_TOOLS = int(os.environ.get("EXTRA_TOOLS", "0"))
STATEFUL = os.environ.get("STATEFUL", "0") == "1"
JSON_RESPONSE = os.environ.get("JSON_RESPONSE", "1") != "0"

MODERN_VERSION = "2026-07-28"

ADD_SCHEMA = {
    "type": "object",
    "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
    "required": ["a", "b"],
}
ECHO_SCHEMA = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
PROGRESS_SCHEMA = {
    "type": "object",
    "properties": {
        "steps": {"type": "integer", "default": 10},
        "interval_ms": {"type": "integer", "default": 100},
    },
}
EXTRA_SCHEMA = {"type": "object", "properties": {}}


def extra_name(i: int) -> str:
    return f"tool_{i:04d}"


def extra_description(i: int) -> str:
    return f"No-op filler tool {i} for the tools/list benchmark."


# --- nested-schema tool (validation-cost scenario) ----------------------------------------
# A realistic order-entry input: nested objects, an array of objects, enums, formats,
# patterns, bounds, an optional nullable field and a free-form string map.
_ADDRESS = {
    "type": "object",
    "properties": {
        "line1": {"type": "string", "minLength": 1, "maxLength": 200},
        "line2": {"type": "string", "maxLength": 200},
        "city": {"type": "string", "minLength": 1},
        "postal_code": {"type": "string", "pattern": "^[0-9A-Z -]{3,10}$"},
        "country": {"type": "string", "pattern": "^[A-Z]{2}$"},
    },
    "required": ["line1", "city", "postal_code", "country"],
    "additionalProperties": False,
}
ORDER_SCHEMA = {
    "type": "object",
    "properties": {
        "customer": {
            "type": "object",
            "properties": {
                "id": {"type": "string", "format": "uuid"},
                "email": {"type": "string", "format": "email"},
                "name": {"type": "string", "minLength": 1, "maxLength": 120},
                "tier": {"type": "string", "enum": ["free", "pro", "enterprise"]},
            },
            "required": ["id", "email", "name", "tier"],
            "additionalProperties": False,
        },
        "items": {
            "type": "array",
            "minItems": 1,
            "maxItems": 100,
            "items": {
                "type": "object",
                "properties": {
                    "sku": {"type": "string", "pattern": "^[A-Z]{3}-[0-9]{4}$"},
                    "quantity": {"type": "integer", "minimum": 1, "maximum": 1000},
                    "unit_price": {"type": "number", "minimum": 0},
                    "options": {
                        "type": "object",
                        "properties": {
                            "gift_wrap": {"type": "boolean"},
                            "color": {"type": "string", "enum": ["red", "green", "blue", "black"]},
                        },
                        "additionalProperties": False,
                    },
                },
                "required": ["sku", "quantity", "unit_price"],
                "additionalProperties": False,
            },
        },
        "shipping": {
            "type": "object",
            "properties": {
                "address": _ADDRESS,
                "method": {"type": "string", "enum": ["standard", "express", "overnight"]},
                "requested_date": {"type": "string", "format": "date"},
            },
            "required": ["address", "method"],
            "additionalProperties": False,
        },
        "coupon": {"type": ["string", "null"], "maxLength": 32},
        "notes": {"type": "string", "maxLength": 500},
        "metadata": {"type": "object", "additionalProperties": {"type": "string"}},
    },
    "required": ["customer", "items", "shipping"],
    "additionalProperties": False,
}
ORDER_DESCRIPTION = "Create an order for a customer (nested input schema)."

# The arguments every nested-scenario request sends (the driver imports this too).
ORDER_ARGS = {
    "customer": {
        "id": "3f2b7c1e-9a4d-4e8b-b1c2-7d6e5f4a3b21",
        "email": "ada@example.com",
        "name": "Ada Lovelace",
        "tier": "pro",
    },
    "items": [
        {
            "sku": "ABC-0001",
            "quantity": 2,
            "unit_price": 9.5,
            "options": {"gift_wrap": True, "color": "red"},
        },
        {"sku": "DEF-0042", "quantity": 1, "unit_price": 120.0},
        {"sku": "GHI-1234", "quantity": 5, "unit_price": 3.25, "options": {"color": "blue"}},
        {"sku": "JKL-9999", "quantity": 10, "unit_price": 0.99, "options": {"gift_wrap": False}},
        {"sku": "MNO-0007", "quantity": 3, "unit_price": 15.0},
    ],
    "shipping": {
        "address": {
            "line1": "12 St James's Square",
            "city": "London",
            "postal_code": "SW1Y 4JH",
            "country": "GB",
        },
        "method": "express",
        "requested_date": "2026-12-24",
    },
    "coupon": None,
    "notes": "Leave at the front desk.",
    "metadata": {"channel": "web", "campaign": "winter"},
}


def order_summary(items) -> str:
    """The text every server returns for create_order (items: list of dicts or objects)."""
    total = 0.0
    count = 0
    for it in items:
        q = it["quantity"] if isinstance(it, dict) else it.quantity
        p = it["unit_price"] if isinstance(it, dict) else it.unit_price
        total += q * p
        count += q
    return f"order accepted: {count} units, total {total:.2f}"


ORDER_RESULT_TEXT = order_summary(ORDER_ARGS["items"])


def serve(app) -> None:
    """One uvicorn worker on 127.0.0.1:$PORT, uvloop + httptools (``UVICORN_LOOP``,
    ``UVICORN_HTTP`` choose others), access log off."""
    import uvicorn

    uvicorn.run(
        app,
        host="127.0.0.1",
        port=PORT,
        workers=1,
        loop=os.environ.get("UVICORN_LOOP", "uvloop"),
        http=os.environ.get("UVICORN_HTTP", "httptools"),
        access_log=False,
        log_level="warning",
        backlog=4096,
        lifespan="auto",
    )
