"""What a server loads only when first used: jsonschema, RE2, itsdangerous, sse-starlette.

A plain tool schema is proved valid without jsonschema (``schema.wellformed``), its patterns
without RE2 (``schema.re2syntax``), and both load at the first validation that needs them.
These tests guard the memory saving (a server that validates only common arguments never
loads the engines) and that a lazily built schema answers as the engine built at once. That
the shortcuts never let through what jsonschema or RE2 refuse is tested beside them
(tests/schema/test_wellformed.py, test_re2syntax.py).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any, Final

import pytest

from genmcp.schema import InvalidArguments, SchemaOptions, compile_schema, engine

TESTS: Final = str(Path(__file__).resolve().parents[1])
LAZY: Final = ("jsonschema", "re2", "itsdangerous", "sse_starlette", "difflib")

ORDER: Final[dict[str, Any]] = {
    "type": "object",
    "properties": {
        "sku": {"type": "string", "pattern": "^[A-Z]{3}-[0-9]{4}$"},
        "postal_code": {"type": "string", "pattern": "^[0-9A-Z -]{3,10}$"},
        "qty": {"type": "integer", "minimum": 1, "maximum": 1000},
        "tier": {"type": "string", "enum": ["free", "pro"]},
        "coupon": {"type": ["string", "null"], "maxLength": 8},
        "meta": {"type": "object", "additionalProperties": {"type": "string"}},
    },
    "required": ["sku", "qty"],
    "additionalProperties": False,
}
DATED: Final[dict[str, Any]] = {
    "type": "object",
    "properties": {"when": {"type": "string", "format": "date"}},
    "required": ["when"],
}

SERVER: Final = """
import http.client, json, sys
from fastapi import FastAPI
from genmcp import Result, Tool, call_tool_result, mcp_router
from genmcp.schema import limits
from support.server import serve

limits.VALIDATION_BUDGET_S = 30.0  # what loads is judged here, not how fast a busy machine is

class Order(Tool, name="order", input_schema=json.loads(sys.argv[1])):
    async def call(self, request, channel, arg):
        return Result(call_tool_result(text="ok"))

class Dated(Tool, name="dated", input_schema=json.loads(sys.argv[2])):
    async def call(self, request, channel, arg):
        return Result(call_tool_result(text="ok"))

LAZY = sys.argv[3].split(",")
app = FastAPI()
app.include_router(mcp_router(server_name="t", server_version="1", tools=[Order, Dated]),
                   prefix="/mcp")
loaded = {"built": sorted(m for m in LAZY if m in sys.modules)}
META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "c", "version": "1"}}

def call(base, name, arguments):
    host, port = base.split("//")[1].split(":")
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": name, "arguments": arguments, "_meta": META}}
    head = {"content-type": "application/json", "accept": "application/json, text/event-stream",
            "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": name}
    connection = http.client.HTTPConnection(host, int(port), timeout=30)
    connection.request("POST", "/mcp", json.dumps(body), head)
    answer = json.loads(connection.getresponse().read())
    connection.close()
    return answer

with serve(app) as base:
    loaded["started"] = sorted(m for m in LAZY if m in sys.modules)
    first = call(base, "order", {"sku": "ABC-1234", "qty": 2})
    loaded["valid call"] = sorted(m for m in LAZY if m in sys.modules)
    bad = call(base, "order", {"sku": "nope", "qty": 0})
    loaded["invalid call"] = sorted(m for m in LAZY if m in sys.modules)
    dated = call(base, "dated", {"when": "2026-02-30"})
print(json.dumps({"loaded": loaded, "first": first, "bad": bad, "dated": dated}))
"""


def test_a_server_loads_the_engines_only_when_a_call_needs_them() -> None:
    argv = [sys.executable, "-c", SERVER, json.dumps(ORDER), json.dumps(DATED), ",".join(LAZY)]
    done = subprocess.run(argv, capture_output=True, text=True, cwd=TESTS, timeout=120)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    loaded = out["loaded"]
    assert loaded["built"] == [] and loaded["started"] == []
    assert loaded["valid call"] == ["re2"]  # the first pattern checked
    assert loaded["invalid call"] == ["jsonschema", "re2"]  # the engine explains the failure
    assert out["first"]["result"]["content"][0]["text"] == "ok"
    assert out["bad"]["result"]["isError"] is True
    assert "does not match" in json.dumps(out["bad"]) and "minimum" in json.dumps(out["bad"])
    assert out["dated"]["result"]["isError"] is True  # a format, checked by jsonschema's code
    assert "is not a 'date'" in json.dumps(out["dated"])


def _eager(schema: dict[str, Any]) -> Any:
    """The validator as compiled before: jsonschema's class given, the engine built at once."""
    from genmcp.schema.compile import _DictValidator

    options = SchemaOptions()
    cls = engine.dialect_class(schema, options.default_dialect, owner="T")
    engine.check_meta(schema, cls, owner="T")
    return _DictValidator(schema, options, cls)


def _verdict(validator: Any, arguments: Any) -> Any:
    try:
        return ("valid", validator.validate(arguments))
    except InvalidArguments as exc:
        return ("invalid", exc.errors)


ARGUMENTS: Final[list[Any]] = [
    {"sku": "ABC-1234", "qty": 2},
    {"sku": "ABC-1234", "qty": 2, "tier": "pro", "coupon": None, "meta": {"a": "b"}},
    {"sku": "abc-1234", "qty": 0},
    {"sku": "ABC-1234\n", "qty": 1.0},
    {"sku": "ABC-1234", "qty": 2, "extra": 1},
    {"qty": "2", "coupon": "far too long", "meta": {"a": 1}},
    {"sku": 7, "qty": True, "postal_code": "ab"},
    [],
    "x",
    {"when": "2026-02-30"},
    {"when": "2026-02-28"},
]


@pytest.mark.parametrize("schema", [ORDER, DATED], ids=["patterns", "format"])
def test_a_lazily_built_schema_answers_as_the_one_built_at_once(schema: dict[str, Any]) -> None:
    lazy = compile_schema(schema, owner="T")
    assert lazy._validator is None  # type: ignore[attr-defined]
    eager = _eager(schema)
    for arguments in ARGUMENTS:
        assert _verdict(lazy, arguments) == _verdict(eager, arguments), arguments
