"""LegacyClient: a small raw-httpx client for the 2025 session revisions, for tests.

Owns: the `initialize` handshake (any offered version), the `Mcp-Session-Id` and
`MCP-Protocol-Version` headers, reading JSON or SSE replies as they arrive (so a test can
answer a server request mid-stream), and checking every server message against the schema
of the negotiated revision, twice:

* `support.schema.validate_server_message` (the official schema, as for modern messages);
* `strict_check`: the same definitions with `additionalProperties: false` on every
  definition (and inline `params`) that lists its properties, so a field the revision does
  not know fails the test ("emit only fields the negotiated schema knows").

Knows nothing of genmcp.

    client = LegacyClient(base_url, version="2025-06-18")
    await client.open()                      # initialize + notifications/initialized
    reply = await client.request("tools/list")
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import json
from collections import deque
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Self

import httpx
from jsonschema.validators import validator_for

from support import schema
from support.sse import SSEEvent, SSEParser

CLIENT_INFO: Final[Mapping[str, str]] = {"name": "genmcp-legacy-tests", "version": "0"}
ACCEPT: Final = "application/json, text/event-stream"
ANSWERS: Final[Mapping[str, str]] = {
    "elicitation/create": "ElicitRequest",
    "sampling/createMessage": "CreateMessageRequest",
    "roots/list": "ListRootsRequest",
}
#: Definitions other definitions extend with `allOf`: closing them would break those.
_EXTENDED: Final = frozenset({"Result", "Task", "Error", "NotificationParams", "RequestParams"})
#: SEP-1724 extensions: MCP Apps (ext-apps specification/2026-01-26) negotiates in `initialize`
#: `capabilities.extensions`, which the 2025 schemas leave open without naming it.
_EXTENSIONS_SLOT: Final = {"type": "object", "additionalProperties": {"type": "object"}}

Message = dict[str, Any]


def is_response(message: Message) -> bool:
    return "method" not in message and ("result" in message or "error" in message)


def is_server_request(message: Message) -> bool:
    return "method" in message and "id" in message


# --------------------------------------------------------------------------- strict schema


@functools.cache
def _strict_document(version: str) -> tuple[dict[str, Any], str]:
    document = json.loads(schema.require_schema(version).read_text(encoding="utf-8"))
    key = "$defs" if "$defs" in document else "definitions"
    for name, definition in document[key].items():
        if name in ("ServerCapabilities", "ClientCapabilities"):
            definition["properties"].setdefault("extensions", _EXTENSIONS_SLOT)
        if name not in _EXTENDED:
            _close(definition)
        params = definition.get("properties", {}).get("params")
        if isinstance(params, dict):
            _close(params)
    return document, key


def _close(node: dict[str, Any]) -> None:
    if "properties" in node and "additionalProperties" not in node:
        node["additionalProperties"] = False


@functools.cache
def _strict_validator(version: str, definition: str) -> Any:
    document, key = _strict_document(version)
    if definition not in document[key]:
        raise KeyError(f"{version} schema has no definition {definition!r}")
    root = {**document, "$ref": f"#/{key}/{definition}"}
    return validator_for(document)(root)


def strict_validate(instance: Any, definition: str, version: str) -> None:
    errors = list(_strict_validator(version, definition).iter_errors(instance))
    if errors:
        raise schema.SchemaViolation(f"{definition} (strict)", version, instance, errors)


def strict_check(message: Message, method: str | None, version: str) -> None:
    """Check that `message` has no field the `version` schema does not define."""
    if "error" in message:
        return
    if "result" in message:
        name = schema.DEFINITIONS.get(method or "", "Result")
        strict_validate(message["result"], name, version)
        return
    name = ANSWERS.get(message["method"]) if "id" in message else None
    name = name or schema.DEFINITIONS.get(message["method"])
    if name is None:
        return
    envelope = {k: v for k, v in message.items() if k not in ("jsonrpc", "id")}
    definition = _strict_document(version)[0][_strict_document(version)[1]][name]
    if "jsonrpc" in definition.get("properties", {}):
        envelope = dict(message)
    strict_validate(envelope, name, version)


def check_message(message: Any, method: str | None, version: str) -> None:
    """Both checks: the official schema, then the strict one."""
    if not isinstance(message, dict):
        raise schema.WireViolation(f"not a JSON-RPC message: {message!r:.300}")
    if "error" in message and "id" not in message:
        # The 2025 transport texts send transport errors "without an id"; only the
        # 2025-11-25 schema allows that shape, so it judges them all.
        schema.validate(message, "JSONRPCErrorResponse", "2025-11-25")
        return
    schema.validate_server_message(message, method=method, version=version)
    strict_check(message, method, version)


# --------------------------------------------------------------------------- replies


@dataclass
class LegacyReply:
    """Everything one HTTP exchange brought back, in wire order."""

    status: int
    headers: httpx.Headers
    content_type: str
    body: bytes = b""
    messages: list[Message] = field(default_factory=list)
    events: list[SSEEvent] = field(default_factory=list)

    @property
    def is_sse(self) -> bool:
        return self.content_type == "text/event-stream"

    @property
    def notifications(self) -> list[Message]:
        return [m for m in self.messages if "method" in m and "id" not in m]

    @property
    def requests(self) -> list[Message]:
        return [m for m in self.messages if is_server_request(m)]

    @property
    def response(self) -> Message | None:
        responses = [m for m in self.messages if is_response(m)]
        return responses[-1] if responses else None

    @property
    def result(self) -> Any:
        return None if self.response is None else self.response.get("result")

    @property
    def error(self) -> Any:
        response = self.response
        return None if response is None else response.get("error")


class LegacyExchange:
    """One reply read as it arrives: `async for message in exchange`, or `drain()`."""

    def __init__(
        self, response: httpx.Response, *, method: str | None, version: str, check: bool
    ) -> None:
        content_type = response.headers.get("content-type", "").partition(";")[0].strip().lower()
        self.reply = LegacyReply(response.status_code, response.headers, content_type)
        self._response = response
        self._method = method
        self._version = version
        self._check = check
        self._parser = SSEParser() if self.reply.is_sse else None
        self._chunks = response.aiter_bytes()
        self._ready: deque[Message] = deque()
        self.done = False

    def __aiter__(self) -> Self:
        return self

    async def __anext__(self) -> Message:
        while not self._ready:
            if self.done:
                raise StopAsyncIteration
            await self._read()
        return self._ready.popleft()

    async def drain(self) -> LegacyReply:
        async for _ in self:
            pass
        return self.reply

    async def _read(self) -> None:
        if self._parser is None:
            self.reply.body = await self._response.aread()
            self.done = True
            if self.reply.body.strip():
                self._take(self.reply.body)
            return
        try:
            chunk = await anext(self._chunks)
        except StopAsyncIteration:
            self.done = True
            items = self._parser.close()
        else:
            self.reply.body += chunk
            items = self._parser.feed(chunk)
        for item in items:
            if isinstance(item, SSEEvent):
                self.reply.events.append(item)
                if item.data.strip():
                    self._take(item.data.encode())

    def _take(self, raw: bytes) -> None:
        message = json.loads(raw)
        if self._check:
            if self.reply.response is not None:
                raise schema.WireViolation(f"message after the response: {message!r:.300}")
            check_message(message, self._method, self._version)
        self.reply.messages.append(message)
        self._ready.append(message)


class LegacyClient:
    """Speaks one 2025 revision to `base_url + path` and checks every server message."""

    def __init__(
        self,
        base_url: str,
        path: str = "/mcp",
        *,
        version: str = "2025-11-25",
        capabilities: Mapping[str, Any] | None = None,
        client_info: Mapping[str, Any] = CLIENT_INFO,
        validate: bool = True,
        send_version_header: bool = True,
        timeout: float = 10.0,
    ) -> None:
        self.url = base_url.rstrip("/") + path
        self.offered = version
        self.version = version
        self.capabilities = dict(capabilities or {})
        self.client_info = dict(client_info)
        self.validate = validate
        self.send_version_header = send_version_header
        self.session_id: str | None = None
        self.http = httpx.AsyncClient(timeout=timeout, follow_redirects=False)
        self._ids = itertools.count(1)

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self.http.aclose()

    def headers(self, extra: Mapping[str, str | None] | None = None) -> dict[str, str]:
        """Accept, Content-Type, and the session headers once initialized; None removes."""
        headers = {"Accept": ACCEPT, "Content-Type": "application/json"}
        if self.session_id is not None:
            headers["Mcp-Session-Id"] = self.session_id
            if self.send_version_header:
                headers["MCP-Protocol-Version"] = self.version
        merged: dict[str, str | None] = {**headers, **(extra or {})}
        return {k: v for k, v in merged.items() if v is not None}

    async def initialize(
        self, *, version: str | None = None, capabilities: Mapping[str, Any] | None = None
    ) -> LegacyReply:
        """Send `initialize`; keep the session id and negotiated version it returns."""
        params = {
            "protocolVersion": version or self.offered,
            "capabilities": dict(self.capabilities if capabilities is None else capabilities),
            "clientInfo": self.client_info,
        }
        self.session_id = None
        reply = await self.request("initialize", params, validate=False)
        if reply.status == 200 and reply.result is not None:
            self.version = reply.result["protocolVersion"]
            self.session_id = reply.headers.get("mcp-session-id")
        if self.validate:
            for message in reply.messages:
                check_message(message, "initialize", self.version)
        return reply

    async def open(self) -> LegacyReply:
        """`initialize` then `notifications/initialized` (which must be 202)."""
        reply = await self.initialize()
        assert reply.status == 200 and self.session_id, reply
        initialized = await self.notify("notifications/initialized")
        assert initialized.status == 202, initialized
        return reply

    async def request(
        self,
        method: str,
        params: Mapping[str, Any] | None = None,
        *,
        id: str | int | None = None,
        headers: Mapping[str, str | None] | None = None,
        validate: bool | None = None,
    ) -> LegacyReply:
        async with self.stream(
            method, params, id=id, headers=headers, validate=validate
        ) as exchange:
            return await exchange.drain()

    @contextlib.asynccontextmanager
    async def stream(
        self,
        method: str,
        params: Mapping[str, Any] | None = None,
        *,
        id: str | int | None = None,
        headers: Mapping[str, str | None] | None = None,
        validate: bool | None = None,
    ) -> AsyncIterator[LegacyExchange]:
        body: Message = {"jsonrpc": "2.0", "id": next(self._ids) if id is None else id}
        body["method"] = method
        if params is not None:
            body["params"] = dict(params)
        async with self._exchange("POST", body, headers, method, validate) as exchange:
            yield exchange

    async def notify(
        self,
        method: str,
        params: Mapping[str, Any] | None = None,
        *,
        headers: Mapping[str, str | None] | None = None,
    ) -> LegacyReply:
        body: Message = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            body["params"] = dict(params)
        async with self._exchange("POST", body, headers, None, None) as exchange:
            return await exchange.drain()

    async def respond(
        self, request_id: str | int, result: Any = None, *, error: Message | None = None
    ) -> LegacyReply:
        """POST the answer to a server request."""
        body: Message = {"jsonrpc": "2.0", "id": request_id}
        body.update({"error": error} if error is not None else {"result": result})
        async with self._exchange("POST", body, None, None, None) as exchange:
            return await exchange.drain()

    async def post_raw(
        self, body: Any, headers: Mapping[str, str | None] | None = None
    ) -> LegacyReply:
        """POST any JSON value (a batch, a malformed message) with the session headers."""
        async with self._exchange("POST", body, headers, None, None) as exchange:
            return await exchange.drain()

    async def delete(self, headers: Mapping[str, str | None] | None = None) -> LegacyReply:
        async with self._exchange("DELETE", None, headers, None, None) as exchange:
            return await exchange.drain()

    @contextlib.asynccontextmanager
    async def get_stream(
        self, headers: Mapping[str, str | None] | None = None
    ) -> AsyncIterator[LegacyExchange]:
        """`GET` the session's notification stream; leaving the block closes it."""
        extra = {"Accept": "text/event-stream", "Content-Type": None, **(headers or {})}
        async with self._exchange("GET", None, extra, None, None) as exchange:
            yield exchange

    @contextlib.asynccontextmanager
    async def _exchange(
        self,
        http_method: str,
        body: Any,
        headers: Mapping[str, str | None] | None,
        method: str | None,
        validate: bool | None,
    ) -> AsyncIterator[LegacyExchange]:
        content = None if body is None else json.dumps(body).encode()
        request = self.http.build_request(
            http_method, self.url, content=content, headers=self.headers(headers)
        )
        response = await self.http.send(request, stream=True)
        check = self.validate if validate is None else validate
        try:
            yield LegacyExchange(response, method=method, version=self.version, check=check)
        finally:
            await response.aclose()
