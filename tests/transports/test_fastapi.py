"""``mcp_router`` and ``HTTPOptions`` (``transports/fastapi.py``, ``transports/options.py``).

The HTTP options and their defaults are defined once, in ``HTTPOptions``: ``mcp_router``'s
keywords and ``options=`` build the same endpoint, a bad value fails when the router is
built with the option's name, and the options given are the ones a real server enforces.
Without auth the endpoint is the route itself and calls no auth hook.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import itertools
import json
import math
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from starlette.routing import Route

from genmcp import HTTPOptions, Suite, mcp_router
from genmcp.fastapi import HTTPOptions as FastAPIHTTPOptions
from genmcp.transports import options as options_module
from genmcp.transports.endpoint import MCPEndpoint
from genmcp.transports.http import LOCAL_HOSTS, MAX_BODY_BYTES, host_allow_list
from genmcp.transports.options import OPTION_NAMES
from support.oauth import VERSION, call_message
from support.server import LiveServers

SEVEN = {
    "allowed_hosts",
    "allowed_origins",
    "max_body_bytes",
    "body_timeout_s",
    "keepalive_s",
    "send_timeout_s",
    "shutdown_grace_s",
}

SOME: dict[str, Any] = {
    "allowed_hosts": ["MCP.Example.com", "::1"],
    "allowed_origins": ["https://app.example"],
    "max_body_bytes": 2048,
    "body_timeout_s": 3.5,
    "keepalive_s": 0,
    "send_timeout_s": None,
    "shutdown_grace_s": 0.25,
}


def suite() -> Suite:
    return Suite(server_name="s", server_version="1")


def test_the_options_and_their_defaults_are_defined_once() -> None:
    assert OPTION_NAMES == SEVEN == {field.name for field in dataclasses.fields(HTTPOptions)}
    assert FastAPIHTTPOptions is HTTPOptions
    assert not SEVEN & set(inspect.signature(mcp_router).parameters)  # not written again
    assert not SEVEN & set(inspect.signature(MCPEndpoint).parameters)
    defaults = HTTPOptions()
    assert mcp_router(suite=suite()).endpoint.options == defaults
    assert MCPEndpoint(suite()).options == defaults
    assert defaults.allowed_hosts == host_allow_list(LOCAL_HOSTS)
    assert defaults.max_body_bytes == MAX_BODY_BYTES
    assert (defaults.allowed_origins, defaults.body_timeout_s, defaults.keepalive_s) == (
        None,
        30.0,
        15.0,
    )
    assert (defaults.send_timeout_s, defaults.shutdown_grace_s) == (30.0, 2.0)
    [body] = [node for node in ast.parse(inspect.getsource(options_module)).body
              if isinstance(node, ast.ClassDef) and node.name == "HTTPOptions"]  # fmt: skip
    documented = {
        statement.target.id
        for statement, after in itertools.pairwise(body.body)
        if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name)
        and isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant)
    }  # fmt: skip
    assert documented == SEVEN  # each field has its docstring (the reference page shows it)


def test_keywords_and_options_build_the_same_endpoint() -> None:
    by_keywords = mcp_router(suite=suite(), **SOME).endpoint.options
    by_object = mcp_router(suite=suite(), options=HTTPOptions(**SOME)).endpoint.options
    assert by_keywords == by_object == HTTPOptions(**SOME)
    assert by_keywords.allowed_hosts == frozenset({"mcp.example.com", "::1"})  # normalized
    assert by_keywords.allowed_origins == frozenset({"https://app.example"})
    one = mcp_router(server_name="a", server_version="1", keepalive_s=5, page_size=7)
    assert one.endpoint.options == HTTPOptions(keepalive_s=5)  # the rest went to the Suite
    assert one.suite.page_size == 7
    options = HTTPOptions(max_body_bytes=10)
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.max_body_bytes = 11  # type: ignore[misc]
    assert hash(options) == hash(HTTPOptions(max_body_bytes=10))


def test_options_and_keywords_together_are_refused_by_name() -> None:
    with pytest.raises(TypeError, match=r"not both \(keepalive_s, max_body_bytes\)"):
        mcp_router(suite=suite(), options=HTTPOptions(), keepalive_s=1, max_body_bytes=9)
    with pytest.raises(TypeError, match="options= takes an HTTPOptions"):
        mcp_router(suite=suite(), options={"keepalive_s": 1})  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="give tools and Suite options to the Suite"):
        mcp_router(suite=suite(), keepalive_s=1, page_size=3)  # HTTP options are fine here
    with pytest.raises(TypeError, match="keepalive"):  # a misspelt option reaches Suite
        mcp_router(server_name="a", server_version="1", keepalive=1)


@pytest.mark.parametrize(
    ("option", "value", "error", "says"),
    [
        ("allowed_hosts", "localhost", TypeError, "allowed_hosts takes a list of strings"),
        ("allowed_hosts", ["localhost", 8000], TypeError, "allowed_hosts takes strings, not 8000"),
        ("allowed_hosts", ["localhost:8000"], ValueError, "without a port"),
        ("allowed_origins", "https://a.example", TypeError, "allowed_origins takes a list"),
        ("max_body_bytes", 0, ValueError, "max_body_bytes must be at least 1"),
        ("max_body_bytes", 1.5, TypeError, "max_body_bytes must be an int"),
        ("max_body_bytes", True, TypeError, "max_body_bytes must be an int"),
        ("body_timeout_s", 0, ValueError, r"body_timeout_s must be finite and above 0 \(None"),
        ("body_timeout_s", "30", TypeError, "body_timeout_s must be a number of seconds or None"),
        ("keepalive_s", -1, ValueError, "keepalive_s must be finite and at least 0"),
        ("keepalive_s", None, TypeError, "keepalive_s must be a number of seconds, not None"),
        ("send_timeout_s", math.inf, ValueError, "send_timeout_s must be finite"),
        ("send_timeout_s", math.nan, ValueError, "send_timeout_s must be finite"),
        ("shutdown_grace_s", -0.5, ValueError, "shutdown_grace_s must be finite and at least 0"),
    ],
)
def test_a_bad_value_fails_when_the_router_is_built_naming_the_option(
    option: str, value: Any, error: type[Exception], says: str
) -> None:
    with pytest.raises(error, match=says):
        HTTPOptions(**{option: value})
    with pytest.raises(error, match=says):
        mcp_router(suite=suite(), **{option: value})


def test_without_auth_the_endpoint_is_the_route_and_calls_no_hook() -> None:
    router = mcp_router(suite=suite(), path="/x")
    assert [type(route) for route in router.routes] == [Route, Route]  # "/x" and "/x/"
    assert all(route.endpoint is router.endpoint for route in router.routes)  # type: ignore[attr-defined]
    endpoint = router.endpoint
    assert (endpoint.auth, endpoint.authenticate, endpoint.authorize) == (None, None, None)
    assert router.auth is None


@pytest.mark.parametrize("given", ["keywords", "options"])
async def test_a_real_server_enforces_the_options_given(
    given: str, live_server: LiveServers
) -> None:
    chosen: dict[str, Any] = {"max_body_bytes": 300, "allowed_hosts": ["127.0.0.1"]}
    options = chosen if given == "keywords" else {"options": HTTPOptions(**chosen)}
    app = FastAPI()
    app.include_router(mcp_router(suite=suite(), **options), prefix="/mcp")
    url = live_server(app) + "/mcp"
    headers = {
        "accept": "application/json, text/event-stream",
        "content-type": "application/json",
        "mcp-protocol-version": VERSION,
        "mcp-method": "tools/list",
    }
    meta = call_message("any", {}, 1)["params"]["_meta"]
    ping = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list",
                       "params": {"_meta": meta}}).encode()  # fmt: skip
    async with httpx.AsyncClient(timeout=10) as client:
        small = await client.post(url, content=ping, headers=headers)
        large = await client.post(url, content=ping + b" " * 300, headers=headers)
        elsewhere = await client.post(url, content=ping, headers={**headers, "host": "localhost"})
    assert small.status_code == 200 and small.json()["result"]["tools"] == [], small.text
    assert large.status_code == 413 and "300 bytes" in large.json()["error"]["message"]
    assert elsewhere.status_code == 421  # localhost is a default host, not one given here
