"""Cached list pages sent gzip-compressed (``transports/http/gzip.py``).

The gzip body is built from a page deflated once and the id appended as a stored block: it
must be one valid gzip member (no trailing data, the CRC and length right) for every id,
over a real server to httpx and to the official SDK client, and plain JSON to a client that
does not accept gzip.
"""

from __future__ import annotations

import asyncio
import gzip
import json
import zlib
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from mcp import Client
from starlette.middleware.gzip import GZipMiddleware

from genmcp import Result, Tool, call_tool_result, mcp_router
from genmcp.protocol.jsonrpc import EncodedResult, result_response
from genmcp.transports.http.gzip import (
    MIN_BYTES,
    THREAD_BYTES,
    accepts_gzip,
    gzip_page_response,
    send_page,
)
from support.oauth import VERSION, call_message
from support.recorder import Recorder
from support.server import LiveServers


@pytest.mark.parametrize(
    ("value", "accepted"),
    [
        ("gzip", True),
        ("gzip, deflate, br, zstd", True),  # httpx with brotli and zstd installed
        ("GZIP;q=0.5", True),
        ("x-gzip", True),
        ("gzip ; q=1.0", True),
        ("br;q=1, gzip;q=0", False),
        ("gzip;q=abc", False),
        ("deflate, br", False),
        ("identity", False),
        ("*", False),  # only asked for by name
        (None, False),
    ],
)
def test_accept_encoding_takes_gzip_by_name_with_a_weight_above_zero(
    value: str | None, accepted: bool
) -> None:
    assert accepts_gzip(value) is accepted


def page(tools: int) -> EncodedResult:
    return EncodedResult(
        {"tools": [{"name": f"t{i}", "description": "café " * 10} for i in range(tools)]}
    )


@pytest.mark.parametrize("request_id", [1, 0, -7, 2**62, "abc", "ü-\\\"quoted\\\"", "x" * 5000])
def test_the_gzip_body_is_one_member_holding_the_response_for_every_id(request_id: Any) -> None:
    listing = page(100)
    body = gzip_page_response(result_response(request_id, listing))
    assert body is not None
    inflate = zlib.decompressobj(16 + zlib.MAX_WBITS)
    plain = inflate.decompress(body)
    assert inflate.eof and inflate.unused_data == b""  # one member, nothing after it
    assert plain == gzip.decompress(body)  # CRC-32 and length checked
    assert json.loads(plain) == {"jsonrpc": "2.0", "id": request_id, "result": dict(listing)}
    assert len(body) - len(json.dumps(request_id)) < len(listing.encoded) / 5  # the id as is
    again = gzip_page_response(result_response(request_id, listing))
    assert again == body and listing.deflated is not None  # deflated once, kept


def test_small_pages_other_results_and_huge_ids_are_not_compressed() -> None:
    small = page(1)
    assert len(small.encoded) < MIN_BYTES
    assert gzip_page_response(result_response(1, small)) is None
    assert gzip_page_response(result_response(1, dict(page(100)))) is None  # not a page
    assert gzip_page_response(result_response("x" * 70000, page(100))) is None


ECHO_SCHEMA = {"type": "object", "properties": {"text": {"type": "string"}}}


class Echo(
    Tool,
    name="echo",
    description="Says the text back, a long description. " * 3,
    input_schema=ECHO_SCHEMA,
):
    async def call(self, request: Any, channel: Any, arg: Any) -> Result:
        return Result(call_tool_result(text=request.arguments.get("text", "")))


def app_with_tools(count: int) -> FastAPI:
    tools = [
        type(f"Echo{i}", (Echo,), {}, name=f"echo_{i:03d}", input_schema=ECHO_SCHEMA)
        for i in range(count)
    ]
    app = FastAPI()
    app.include_router(mcp_router(server_name="g", server_version="1", tools=tools), prefix="/mcp")
    return app


def list_request(request_id: int) -> tuple[bytes, dict[str, str]]:
    meta = call_message("any", {}, 1)["params"]["_meta"]
    body = json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "tools/list",
                       "params": {"_meta": meta}}).encode()  # fmt: skip
    headers = {
        "accept": "application/json, text/event-stream",
        "content-type": "application/json",
        "mcp-protocol-version": VERSION,
        "mcp-method": "tools/list",
    }
    return body, headers


async def test_a_real_server_sends_a_large_page_gzipped_only_to_a_client_that_accepts_it(
    live_server: LiveServers,
) -> None:
    url = live_server(app_with_tools(90)) + "/mcp"
    async with httpx.AsyncClient(timeout=10) as http:  # httpx asks for gzip by default
        plain_sizes = []
        for request_id in (1, 2, 77):
            body, headers = list_request(request_id)
            zipped = await http.post(url, content=body, headers=headers)
            assert zipped.status_code == 200, zipped.text
            assert zipped.headers["content-encoding"] == "gzip"
            assert zipped.headers["vary"] == "accept-encoding"
            assert int(zipped.headers["content-length"]) == zipped.num_bytes_downloaded
            listed = zipped.json()
            assert listed["id"] == request_id and len(listed["result"]["tools"]) == 90
            identity = {**headers, "accept-encoding": "identity"}
            plain = await http.post(url, content=body, headers=identity)
            assert "content-encoding" not in plain.headers
            assert plain.json() == listed  # the same response, only the bytes differ
            plain_sizes.append(plain.num_bytes_downloaded)
            assert zipped.num_bytes_downloaded < plain.num_bytes_downloaded / 5
        call = call_message("echo_001", {"text": "hi"}, 9)
        answer = await http.post(url, json=call, headers={**headers, "mcp-method": "tools/call",
                                                          "mcp-name": "echo_001"})  # fmt: skip
        assert "content-encoding" not in answer.headers  # a tool result: never
        assert answer.json()["result"]["content"][0]["text"] == "hi"
    assert len(set(plain_sizes)) == 2  # ids 1 and 2 the same size, 77 one byte more


async def test_the_official_sdk_client_lists_a_gzipped_catalog(live_server: LiveServers) -> None:
    wire = Recorder(app_with_tools(150))
    url = live_server(wire) + "/mcp"
    async with Client(url) as client:
        listing = await client.list_tools()
        names = [tool.name for tool in listing.tools]
        while listing.next_cursor is not None:
            listing = await client.list_tools(cursor=listing.next_cursor)
            names += [tool.name for tool in listing.tools]
    assert names == [f"echo_{i:03d}" for i in range(150)]  # pages of 100 and of 50
    lists = wire.posts("tools/list")
    assert [x.response_headers.get("content-encoding") for x in lists] == ["gzip", "gzip"]


async def test_an_apps_own_gzip_middleware_leaves_the_page_as_it_is(
    live_server: LiveServers,
) -> None:
    """Starlette's ``GZipMiddleware`` passes a response with a ``Content-Encoding`` through:
    the page is compressed once, not twice, and a tool result is compressed by it alone."""
    app = app_with_tools(90)
    app.add_middleware(GZipMiddleware, minimum_size=10)
    url = live_server(app) + "/mcp"
    body, headers = list_request(3)
    async with httpx.AsyncClient(timeout=10) as http:
        listed = await http.post(url, content=body, headers=headers)
        call = call_message("echo_002", {"text": "hi " * 20}, 4)
        answer = await http.post(url, json=call, headers={**headers, "mcp-method": "tools/call",
                                                          "mcp-name": "echo_002"})  # fmt: skip
    assert listed.headers["content-encoding"] == "gzip"
    assert listed.headers["vary"] == "accept-encoding"
    assert listed.json()["id"] == 3 and len(listed.json()["result"]["tools"]) == 90
    assert answer.headers["content-encoding"] == "gzip"  # the middleware's own
    assert answer.json()["result"]["content"][0]["text"] == "hi " * 20


async def test_a_page_over_a_megabyte_is_deflated_off_the_event_loop() -> None:
    """The first gzip answer of a big page deflates it in a worker thread: the loop goes on
    running other work meanwhile (a ticker counts its turns), and the body is right."""
    big = EncodedResult({"tools": [{"name": f"t{i}", "description": f"{i} " * 40}
                                   for i in range(60000)]})  # fmt: skip
    assert len(big.encoded) > THREAD_BYTES
    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0)
            ticks += 1

    counting = asyncio.create_task(ticker())
    try:
        await send_page(send, result_response(5, big), "gzip", ())
    finally:
        counting.cancel()
    assert ticks > 10, ticks  # inline, the ticker would not have run at all
    headers = dict(sent[0]["headers"])
    assert headers[b"content-encoding"] == b"gzip"
    assert json.loads(gzip.decompress(sent[1]["body"]))["result"] == dict(big)
