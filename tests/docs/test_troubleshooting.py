"""docs/guides/troubleshooting.md quotes genmcp's messages as genmcp says them.

Each message is made by the code that says it (or read from the constant it is built from)
and its first words must be on the page: a reworded message fails here until the page
follows.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, Final

import httpx
import pytest
from fastapi import FastAPI

from genmcp import Suite, Tool, mcp_router
from genmcp.cli.install import weak_key
from genmcp.errors import TOOL_CRASH_HINT, CallbackReturnError
from genmcp.fastapi.lifespan import LifespanError
from genmcp.sessions.lookup import FOREIGN_SESSION
from genmcp.sessions.session_ids import UNKNOWN_KEY
from genmcp.testing import MCPTestClient

PAGE: Final = (Path(__file__).resolve().parents[2] / "docs/guides/troubleshooting.md").read_text(
    encoding="utf-8"
)


def on_page(message: str, words: int = 8) -> None:
    start = " ".join(message.split()[:words])
    assert start in " ".join(PAGE.split()), f"troubleshooting.md does not quote: {start!r}"


def test_the_multi_worker_messages() -> None:
    on_page("Session not found: " + UNKNOWN_KEY)
    on_page("Session not found: " + FOREIGN_SESSION)
    on_page("Invalid requestState (tampered): altered, or signed with an unknown key", 9)
    on_page("Invalid requestState (signed with an unknown key)", 6)


def test_the_build_time_messages() -> None:
    class X(Tool, name="x"):
        async def call(self, request):  # type: ignore[no-untyped-def, override]
            return "never"

    class Y(Tool, name="y"):
        pass

    for provider in (X, Y):
        with pytest.raises(TypeError) as caught:
            Suite(server_name="s", server_version="1", tools=[provider])
        message = str(caught.value).split("<locals>.")[-1].replace("Y does", "X does")
        on_page(message, 12)


def test_the_call_messages() -> None:
    on_page("Internal error in tool 'x' " + TOOL_CRASH_HINT, 14)
    returned = CallbackReturnError("tool", "x", "call", 42, "a str (text), a pydantic model "
                                   "or a dict (structured content), Result, Stream, Error or "
                                   "InputRequired")  # fmt: skip
    on_page(f"CallbackReturnError: {returned}", 30)


def test_the_mounting_messages() -> None:
    app = FastAPI()
    for _ in range(2):
        app.include_router(mcp_router(server_name="a", server_version="1"), prefix="/mcp")

    async def start() -> str:
        try:
            async with MCPTestClient(app):
                pass
        except LifespanError as exc:
            return str(exc)
        raise AssertionError("expected a LifespanError")

    on_page(asyncio.run(start()), 12)

    one = FastAPI()
    one.include_router(mcp_router(server_name="a", server_version="1"), prefix="/mcp")

    async def wrong() -> Any:
        transport = httpx.ASGITransport(app=one)
        async with one.router.lifespan_context(one):  # the help is added at start-up
            async with httpx.AsyncClient(transport=transport, base_url="http://x") as http:
                return (await http.post("/mcp/mcp", json={})).json()["error"]["message"]

    on_page(asyncio.run(wrong()), 13)


def test_the_command_line_messages() -> None:
    for key in ("abc", "a" * 40):
        why = weak_key(key)
        assert why is not None
        on_page(why.replace("3 bytes", "N bytes").replace("only 1 distinct", "only N distinct"), 5)
