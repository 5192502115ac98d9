"""SEP-2792 (Draft) language negotiation on the wire: real uvicorn, raw httpx, both eras.

``Suite(sep2792=Languages(...))``: a request's ``_meta`` ``acceptLanguage`` is the tool's
``channel.languages``, what the tool says it answered in comes back in ``result._meta``
``contentLanguage`` and ``Content-Language`` (``Vary: Accept-Language``), an
``Accept-Language`` header that is not the ``_meta`` value byte for byte (after trimming) is
400 ``-32020`` (a 2025 session's request too), a bare header or a malformed value counts as
no preference, and ``tools/list`` is negotiated: each language's pages cached and gzipped
once. Off by default: none of it.
"""

from __future__ import annotations

import gzip
import json
import types
from typing import Any, Final

import httpx
from fastapi import FastAPI

from genmcp import (
    Channel,
    Languages,
    Result,
    Suite,
    Tool,
    ToolRequest,
    call_tool_result,
    mcp_router,
)
from genmcp.errors import MCPError
from genmcp.protocol.languages import ACCEPT_LANGUAGE_META, CONTENT_LANGUAGE_META
from support.legacy_http import ACCEPT, open_session
from support.server import LiveServers

VERSION: Final = "2026-07-28"
GREETINGS: Final = {"en": "Hello", "fr": "Bonjour"}


class Greet(Tool, name="greet", title="Greet", description="Says hello in your language."):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        spoken = channel.choose_language(GREETINGS)
        channel.send_progress(1, 1, GREETINGS[spoken or "en"])
        return Result(call_tool_result(text=f"{GREETINGS[spoken or 'en']}|"
                                            + ",".join(channel.languages)))  # fmt: skip


class Filler(Tool):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        return Result(call_tool_result(text="filled"))


class Refuse(Tool, name="refuse", title="Refuse", description="Refuses in your language."):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        if channel.choose_language(["en", "fr"]) == "fr":
            raise MCPError("invalid_params", "Arguments invalides : « lieu » est requis.")
        raise MCPError("invalid_params", "Invalid arguments: 'place' is required.")


def filler(i: int) -> type[Tool]:
    """A tool with a long description: 30 of them make a list page worth compressing."""
    options = {"name": f"tool{i:02}", "title": f"Tool {i}", "description": "A filler. " * 12}
    return types.new_class(f"Filler{i}", (Filler,), options)


TITLES: Final = {"fr": {"greet": "Saluer", **{f"tool{i:02}": f"Outil {i}" for i in range(30)}}}


def serve(live_server: LiveServers, **suite: Any) -> str:
    made = Suite(server_name="lang", server_version="1",
                 tools=[Greet, Refuse, *(filler(i) for i in range(30))], **suite)  # fmt: skip
    app = FastAPI()
    app.include_router(mcp_router(suite=made), prefix="/mcp")
    return live_server.start(app).url + "/mcp"


def message(method: str, params: dict[str, Any], language: str | None, i: int = 1) -> Any:
    meta: dict[str, Any] = {"io.modelcontextprotocol/protocolVersion": VERSION,
                            "io.modelcontextprotocol/clientCapabilities": {},
                            "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"}}
    if language is not None:
        meta[ACCEPT_LANGUAGE_META] = language
    return {"jsonrpc": "2.0", "id": i, "method": method, "params": {**params, "_meta": meta}}


def headers(method: str, name: str | None = None, **more: str) -> dict[str, str]:
    found = {"accept": ACCEPT, "mcp-protocol-version": VERSION, "mcp-method": method, **more}
    if name is not None:
        found["mcp-name"] = name
    return found


async def greet(http: httpx.AsyncClient, url: str, language: str | None,
                header: str | None = None) -> httpx.Response:  # fmt: skip
    more = {} if header is None else {"accept-language": header}
    body = message("tools/call", {"name": "greet", "arguments": {}}, language)
    return await http.post(url, json=body, headers=headers("tools/call", "greet", **more))


def text_of(reply: httpx.Response) -> str:
    assert reply.status_code == 200, reply.text
    result = reply.json()["result"]
    text: str = result["content"][0]["text"]
    return f"{text}@{result.get('_meta', {}).get(CONTENT_LANGUAGE_META)}"


def vary(reply: httpx.Response) -> set[str]:
    return {v.strip().lower() for line in reply.headers.get_list("vary") for v in line.split(",")}


async def test_a_tool_sees_the_languages_and_says_its_own(live_server: LiveServers) -> None:
    url = serve(live_server, sep2792=Languages(["en", "fr"], titles=TITLES))
    preference = "fr-CA,fr;q=0.9,en;q=0.5"
    async with httpx.AsyncClient(timeout=30) as http:
        mirrored = await greet(http, url, preference, preference)
        stripped = await greet(http, url, preference)  # a CDN took the header: _meta rules
        trimmed = await greet(http, url, f" {preference}\t", preference)
        switched = await greet(http, url, "en", "en")  # the next request, another language
        bare = await greet(http, url, None, "fr")  # a bare header is no MCP preference
        malformed = await greet(http, url, "fr;q=2", "fr;q=2")  # treated as absent
        wildcard = await greet(http, url, "de, *;q=0.1")  # nothing matches: the default
        mismatched = await greet(http, url, preference, "fr-ca,fr;q=0.9,en;q=0.5")
        reordered = await greet(http, url, "fr,en", "en,fr")
    assert text_of(mirrored) == "Bonjour|fr-CA,fr,en@fr"
    assert mirrored.headers["content-language"] == "fr"
    assert "accept-language" in vary(mirrored)
    assert text_of(stripped) == text_of(trimmed) == "Bonjour|fr-CA,fr,en@fr"
    assert text_of(switched) == "Hello|en@en" and switched.headers["content-language"] == "en"
    assert text_of(bare) == text_of(malformed) == "Hello|@en"
    assert text_of(wildcard) == "Hello|de,*@en"
    for refused in (mismatched, reordered):
        assert refused.status_code == 400, refused.text
        assert refused.json()["error"]["code"] == -32020
        assert "Accept-Language" in refused.json()["error"]["message"]


async def test_a_localized_error_names_its_language(live_server: LiveServers) -> None:
    url = serve(live_server, sep2792=True)
    body = message("tools/call", {"name": "refuse", "arguments": {}}, "fr")
    async with httpx.AsyncClient(timeout=30) as http:
        reply = await http.post(url, json=body, headers=headers("tools/call", "refuse"))
    error = reply.json()["error"]
    assert error["code"] == -32602 and error["message"].startswith("Arguments invalides")
    assert error["data"] == {"_meta": {CONTENT_LANGUAGE_META: "fr"}}
    assert reply.headers["content-language"] == "fr"


async def test_progress_in_a_language_names_it(live_server: LiveServers) -> None:
    url = serve(live_server, sep2792=True)
    body = message("tools/call", {"name": "greet", "arguments": {}}, "fr")
    body["params"]["_meta"]["progressToken"] = "p"
    async with httpx.AsyncClient(timeout=30) as http:
        reply = await http.post(url, json=body, headers=headers("tools/call", "greet"))
    assert reply.headers["content-type"].startswith("text/event-stream")
    events = [line[5:].strip() for line in reply.text.splitlines() if line.startswith("data:")]
    assert '"io.modelcontextprotocol/contentLanguage":"fr"' in events[0]  # the progress
    assert "Bonjour" in events[0] and f'"{CONTENT_LANGUAGE_META}":"fr"' in events[-1]
    assert "content-language" not in reply.headers  # SSE: the events carry it
    async with httpx.AsyncClient(timeout=30) as http:  # lists not negotiated: no Vary
        listed = await http.post(url, json=message("tools/list", {}, "fr"),
                                 headers=headers("tools/list"))  # fmt: skip
    assert "accept-language" not in vary(listed) and "content-language" not in listed.headers


async def test_lists_are_negotiated_and_each_language_gzipped_once(
    live_server: LiveServers,
) -> None:
    url = serve(live_server, sep2792=Languages(["en", "fr"], titles=TITLES))
    gz = {"accept-encoding": "gzip"}
    async with httpx.AsyncClient(timeout=30) as http:

        async def listed(language: str | None) -> tuple[httpx.Response, bytes]:
            body = message("tools/list", {}, language)
            sent = headers("tools/list", **gz)
            async with http.stream("POST", url, json=body, headers=sent) as reply:
                raw = b"".join([chunk async for chunk in reply.aiter_raw()])
            return reply, raw

        (first, raw), (_, raw_again) = [await listed("fr-FR, en;q=0.5") for _ in range(2)]
        replies = [await listed(language) for language in ("en", "de", None)]
    assert first.headers["content-encoding"] == "gzip"
    assert raw == raw_again  # the same compressed page (one per language, cached)
    page = json.loads(gzip.decompress(raw))["result"]
    titles = {tool["name"]: tool["title"] for tool in page["tools"]}
    assert titles["greet"] == "Saluer" and titles["tool07"] == "Outil 7"
    assert page["_meta"][CONTENT_LANGUAGE_META] == "fr"
    assert first.headers["content-language"] == "fr"
    assert {"accept-language", "accept-encoding"} <= vary(first)
    for (reply, compressed), language in zip(replies, ("en", "en", None), strict=True):
        listing = json.loads(gzip.decompress(compressed))["result"]
        assert {t["name"]: t["title"] for t in listing["tools"]}["greet"] == "Greet"
        assert listing["_meta"].get(CONTENT_LANGUAGE_META) == language
        assert reply.headers.get("content-language") == language
        assert "accept-language" in vary(reply) and reply.headers["content-encoding"] == "gzip"
    assert replies[0][1] != raw and replies[0][1] == replies[1][1]  # "de" falls back to "en"


async def test_a_2025_session_negotiates_per_request_too(live_server: LiveServers) -> None:
    url = serve(live_server, sep2792=Languages(["en", "fr"], titles=TITLES))
    async with httpx.AsyncClient(timeout=30) as http:
        session = await open_session(http, url, initialized=True)

        async def post(method: str, params: dict[str, Any], language: str, header: str) -> Any:
            body = {"jsonrpc": "2.0", "id": 7, "method": method,
                    "params": {**params, "_meta": {ACCEPT_LANGUAGE_META: language}}}  # fmt: skip
            return await http.post(url, json=body, headers={**session, "accept-language": header})

        call = await post("tools/call", {"name": "greet", "arguments": {}}, "fr", "fr")
        listed = await post("tools/list", {}, "fr", "fr")
        english = await post("tools/call", {"name": "greet", "arguments": {}}, "en", "en")
        mismatched = await post("tools/call", {"name": "greet", "arguments": {}}, "fr", "en")
    assert text_of(call) == "Bonjour|fr@fr" and call.headers["content-language"] == "fr"
    assert text_of(english) == "Hello|en@en"
    tools = listed.json()["result"]["tools"]
    assert {t["name"]: t["title"] for t in tools}["greet"] == "Saluer"
    assert listed.headers["content-language"] == "fr"
    assert mismatched.status_code == 400 and mismatched.json()["error"]["code"] == -32020


async def test_off_by_default(live_server: LiveServers) -> None:
    url = serve(live_server)
    async with httpx.AsyncClient(timeout=30) as http:
        call = await greet(http, url, "fr", "en")  # no mirror check either
        body = message("tools/list", {}, "fr")
        listed = await http.post(url, json=body, headers=headers("tools/list"))
        session = await open_session(http, url, initialized=True)
        legacy_body = {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                       "params": {"name": "greet", "arguments": {},
                                  "_meta": {ACCEPT_LANGUAGE_META: "fr"}}}  # fmt: skip
        legacy = await http.post(url, json=legacy_body,
                                 headers={**session, "accept-language": "en"})  # fmt: skip
    assert text_of(call) == "Hello|@None" and "content-language" not in call.headers
    assert text_of(legacy) == "Hello|@None" and "content-language" not in legacy.headers
    page = listed.json()["result"]
    assert {t["name"]: t["title"] for t in page["tools"]}["greet"] == "Greet"
    assert CONTENT_LANGUAGE_META not in page["_meta"] and "accept-language" not in vary(listed)


async def test_without_http_the_meta_alone_carries_it() -> None:
    """A Suite driven in process (stdio's path): ``_meta`` is the only carrier, the same
    client changes language from one request to the next."""
    from genmcp.testing import MCPTestClient

    made = Suite(server_name="lang", server_version="1", tools=[Greet], sep2792=True)
    async with MCPTestClient(made) as client:
        said = [await client.call_tool("greet", {}, meta={ACCEPT_LANGUAGE_META: language})
                for language in ("fr", "en-GB,en;q=0.5", "fr")]  # fmt: skip
    assert [(r.text, r.result["_meta"][CONTENT_LANGUAGE_META]) for r in said] == [
        ("Bonjour|fr", "fr"), ("Hello|en-GB,en", "en"), ("Bonjour|fr", "fr")]  # fmt: skip
