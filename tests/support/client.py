"""ModernClient: a small httpx client that speaks MCP 2026-07-28 Streamable HTTP, for tests.

Owns: building correct modern requests (`params._meta`, `MCP-Protocol-Version`, `Mcp-Method`,
`Mcp-Name`, `Accept`), reading JSON or SSE replies, and checking every server message
against the official schema (`support.schema`) unless told not to. Knows nothing of genmcp.

    async with ModernClient(base_url) as client:
        reply = await client.request("tools/call", {"name": "add", "arguments": {"a": 1}})
        assert reply.result["content"][0]["text"] == "..."
"""

from __future__ import annotations

import base64
import contextlib
import functools
import itertools
import json
import logging
from collections import deque
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Self

import httpx

from support import schema
from support.sse import SSEComment, SSEEvent, SSEParser

PROTOCOL_VERSION: Final = "2026-07-28"
META_VERSION: Final = "io.modelcontextprotocol/protocolVersion"
META_CAPABILITIES: Final = "io.modelcontextprotocol/clientCapabilities"
META_CLIENT_INFO: Final = "io.modelcontextprotocol/clientInfo"
META_LOG_LEVEL: Final = "io.modelcontextprotocol/logLevel"
CLIENT_INFO: Final[Mapping[str, str]] = {"name": "genmcp-tests", "version": "0"}
ACCEPT: Final = "application/json, text/event-stream"

#: The request param that `Mcp-Name` mirrors, per method (spec digest §5.1).
NAME_PARAMS: Final[Mapping[str, str]] = {
    "tools/call": "name",
    "prompts/get": "name",
    "resources/read": "uri",
    "tasks/get": "taskId",
    "tasks/update": "taskId",
    "tasks/cancel": "taskId",
}

HeaderValue = str | bytes | None
Message = dict[str, Any]

_log = logging.getLogger(__name__)
_BASE64_PREFIX: Final = "=?base64?"
_BASE64_SUFFIX: Final = "?="


def encode_header_value(value: str | int | bool) -> str:
    """Encode a value for `Mcp-Name` / `Mcp-Param-*`: plain when safe, else `=?base64?…?=`."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    unsafe = (
        value != value.strip(" ")
        or any(not " " <= char <= "~" for char in value)
        or value.lower().startswith(_BASE64_PREFIX)
    )
    if not unsafe:
        return value
    encoded = base64.b64encode(value.encode("utf-8")).decode("ascii")
    return f"{_BASE64_PREFIX}{encoded}{_BASE64_SUFFIX}"


def decode_header_value(value: str) -> str:
    """Inverse of `encode_header_value` for strings."""
    if value.startswith(_BASE64_PREFIX) and value.endswith(_BASE64_SUFFIX):
        inner = value[len(_BASE64_PREFIX) : -len(_BASE64_SUFFIX)]
        return base64.b64decode(inner, validate=True).decode("utf-8")
    return value


def is_response(message: Message) -> bool:
    return "method" not in message and ("result" in message or "error" in message)


@dataclass
class Reply:
    """Everything one HTTP exchange brought back, in wire order."""

    status: int
    headers: httpx.Headers
    content_type: str
    body: bytes = b""
    messages: list[Message] = field(default_factory=list)
    events: list[SSEEvent] = field(default_factory=list)
    comments: list[str] = field(default_factory=list)

    @property
    def is_sse(self) -> bool:
        return self.content_type == "text/event-stream"

    @property
    def notifications(self) -> list[Message]:
        return [m for m in self.messages if "method" in m and "id" not in m]

    @property
    def response(self) -> Message | None:
        """The last JSON-RPC response received, or None."""
        responses = [m for m in self.messages if is_response(m)]
        return responses[-1] if responses else None

    @property
    def result(self) -> Any:
        response = self.response
        return None if response is None else response.get("result")

    @property
    def error(self) -> Any:
        response = self.response
        return None if response is None else response.get("error")


class Exchange:
    """One streamed HTTP reply, read as it arrives; see `ModernClient.stream`.

    `async for message in exchange` yields the JSON-RPC messages; `exchange.items()` yields
    every SSE event and comment instead (nothing for a JSON body). Both fill in
    `exchange.reply`. Leaving the `stream()` block closes the connection, which is how a
    modern client cancels a request.
    """

    def __init__(
        self, response: httpx.Response, *, method: str | None, request_id: object, check: bool
    ) -> None:
        self._response = response
        self._method = method
        self._request_id = request_id
        self._check = check
        content_type = response.headers.get("content-type", "").partition(";")[0]
        self.reply = Reply(response.status_code, response.headers, content_type.strip().lower())
        self._parser = SSEParser() if self.reply.is_sse else None
        self._chunks = response.aiter_bytes()
        self._ready: deque[SSEEvent | SSEComment | Message] = deque()
        self.done = False

    @property
    def status(self) -> int:
        return self.reply.status

    @property
    def headers(self) -> httpx.Headers:
        return self.reply.headers

    @property
    def content_type(self) -> str:
        return self.reply.content_type

    def __aiter__(self) -> Self:
        return self

    async def __anext__(self) -> Message:
        while (item := await self.next_item()) is not None:
            if isinstance(item, dict):
                return item
        raise StopAsyncIteration

    async def items(self) -> AsyncIterator[SSEEvent | SSEComment]:
        """Every SSE event and comment, as it arrives."""
        while (item := await self.next_item()) is not None:
            if not isinstance(item, dict):
                yield item

    async def next_item(self) -> SSEEvent | SSEComment | Message | None:
        """The next event, comment or message (a message follows its event); None at the end."""
        while not self._ready:
            if self.done:
                return None
            await self._read()
        return self._ready.popleft()

    async def drain(self) -> Reply:
        """Read to the end of the body and return the whole reply."""
        while await self.next_item() is not None:
            pass
        return self.reply

    async def _read(self) -> None:
        if self._parser is None:
            self.reply.body = await self._response.aread()
            self.done = True
            self._ready.extend(self._parse_json(self.reply.body))
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
            self._ready.extend(self._take(item))

    def _take(self, item: SSEEvent | SSEComment) -> list[SSEEvent | SSEComment | Message]:
        if isinstance(item, SSEComment):
            self.reply.comments.append(item.text)
            return [item]
        self.reply.events.append(item)
        if not item.data.strip():
            return [item]
        return [item, *self._parse_json(item.data.encode("utf-8"))]

    def _parse_json(self, body: bytes) -> list[Message]:
        if not body.strip() or ("json" not in self.content_type and not self.reply.is_sse):
            return []
        try:
            decoded = json.loads(body)
        except ValueError as exc:
            if self._check:
                raise schema.WireViolation(f"server sent invalid JSON: {body[:300]!r}") from exc
            return []
        accepted = []
        for message in decoded if isinstance(decoded, list) else [decoded]:
            if self._check:
                self._validate(message)
            if isinstance(message, dict):
                accepted.append(message)
                self.reply.messages.append(message)
        return accepted

    def _validate(self, message: object) -> None:
        if self.reply.response is not None:
            raise schema.WireViolation(f"message after the response: {message!r:.300}")
        schema.validate_server_message(message, method=self._method)
        assert isinstance(message, dict)
        answered = message.get("id") if is_response(message) else None
        if None not in (answered, self._request_id) and answered != self._request_id:
            raise schema.WireViolation(
                f"response id {answered!r} is not the request's id {self._request_id!r}"
            )


class ModernClient:
    """Sends 2026-07-28 requests to `base_url + path` and checks what comes back.

    `validate=False` (here or per call) turns the wire checks off, for tests of broken
    paths. The schemas are the repository's copies (`tests/support/spec/`).
    """

    def __init__(
        self,
        base_url: str,
        path: str = "/mcp",
        *,
        protocol_version: str = PROTOCOL_VERSION,
        client_info: Mapping[str, Any] = CLIENT_INFO,
        headers: Mapping[str, str] | None = None,
        validate: bool = True,
        timeout: float = 10.0,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.url = base_url.rstrip("/") + path
        self.protocol_version = protocol_version
        self.client_info = dict(client_info)
        self.validate = validate
        self.http = httpx.AsyncClient(
            headers=headers, timeout=timeout, transport=transport, follow_redirects=False
        )
        self._ids = itertools.count(1)

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self.http.aclose()

    def build(
        self,
        method: str,
        params: Mapping[str, Any] | None = None,
        *,
        id: str | int | None = None,
        meta: Mapping[str, Any] | None = None,
        headers: Mapping[str, HeaderValue] | None = None,
        progress_token: str | int | None = None,
        log_level: str | None = None,
        capabilities: Mapping[str, Any] | None = None,
    ) -> tuple[Message, dict[str, HeaderValue]]:
        """The request body and headers `request()` would send (`id` None: the next number).

        `meta` entries are merged last into `params._meta`; a None value removes a key. A
        non-object `params["_meta"]` is sent as given.
        `headers` entries override the computed ones; a None value removes a header; str
        values go out UTF-8 encoded (so a test can send raw non-ASCII), bytes as they are.
        """
        wanted: dict[str, Any] = {
            META_VERSION: self.protocol_version,
            META_CAPABILITIES: dict(capabilities or {}),
            META_CLIENT_INFO: self.client_info,
        }
        if progress_token is not None:
            wanted["progressToken"] = progress_token
        if log_level is not None:
            wanted[META_LOG_LEVEL] = log_level
        body_params = dict(params or {})
        given = body_params.get("_meta", {})
        if isinstance(given, Mapping):  # anything else is a deliberately broken _meta: keep it
            _merge(wanted, given)
            _merge(wanted, meta or {})
            body_params["_meta"] = wanted
        request_id = next(self._ids) if id is None else id
        body = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": body_params}
        version = wanted.get(META_VERSION)
        computed: dict[str, str | bytes] = {
            "Accept": ACCEPT,
            "Content-Type": "application/json",
            "MCP-Protocol-Version": version if isinstance(version, str) else self.protocol_version,
            "Mcp-Method": method,
        }
        name = body_params.get(NAME_PARAMS.get(method, ""))
        if isinstance(name, str | int) and not isinstance(name, bool):
            computed["Mcp-Name"] = encode_header_value(name)
        return body, _override(computed, headers)

    async def request(
        self,
        method: str,
        params: Mapping[str, Any] | None = None,
        *,
        id: str | int | None = None,
        meta: Mapping[str, Any] | None = None,
        headers: Mapping[str, HeaderValue] | None = None,
        progress_token: str | int | None = None,
        log_level: str | None = None,
        capabilities: Mapping[str, Any] | None = None,
        validate: bool | None = None,
    ) -> Reply:
        """Send one request and read the whole reply (JSON, or SSE to its end)."""
        async with self.stream(
            method,
            params,
            id=id,
            meta=meta,
            headers=headers,
            progress_token=progress_token,
            log_level=log_level,
            capabilities=capabilities,
            validate=validate,
        ) as exchange:
            reply = await exchange.drain()
        if self._checking(validate) and reply.status == 200 and reply.response is None:
            raise schema.WireViolation(
                f"200 reply to {method} has no response: {reply.body!r:.300}"
            )
        return reply

    @contextlib.asynccontextmanager
    async def stream(
        self,
        method: str,
        params: Mapping[str, Any] | None = None,
        *,
        id: str | int | None = None,
        meta: Mapping[str, Any] | None = None,
        headers: Mapping[str, HeaderValue] | None = None,
        progress_token: str | int | None = None,
        log_level: str | None = None,
        capabilities: Mapping[str, Any] | None = None,
        validate: bool | None = None,
    ) -> AsyncIterator[Exchange]:
        """Send one request and yield the reply as it streams; leaving closes the connection."""
        body, sent_headers = self.build(
            method,
            params,
            id=id,
            meta=meta,
            headers=headers,
            progress_token=progress_token,
            log_level=log_level,
            capabilities=capabilities,
        )
        content = json.dumps(body).encode("utf-8")
        async with self._exchange(content, sent_headers, method, body["id"], validate) as exchange:
            yield exchange

    async def notify(
        self,
        method: str,
        params: Mapping[str, Any] | None = None,
        *,
        headers: Mapping[str, HeaderValue] | None = None,
        validate: bool | None = None,
    ) -> Reply:
        """POST a notification (no id, no `_meta` added); a modern server answers 202 or 4xx."""
        body: Message = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            body["params"] = dict(params)
        computed: dict[str, str | bytes] = {
            "Accept": ACCEPT,
            "Content-Type": "application/json",
            "MCP-Protocol-Version": self.protocol_version,
            "Mcp-Method": method,
        }
        content = json.dumps(body).encode("utf-8")
        sent = _override(computed, headers)
        async with self._exchange(content, sent, None, None, validate) as exchange:
            return await exchange.drain()

    async def raw_post(
        self,
        body: bytes | str,
        headers: Mapping[str, HeaderValue] | None = None,
        *,
        validate: bool | None = None,
    ) -> Reply:
        """POST exactly `body`, with only `Accept` and `Content-Type` unless `headers` adds more.

        Error replies are still checked against the schema (a parse error too); the
        method, when the body names one, picks the result definition.
        """
        content = body.encode("utf-8") if isinstance(body, str) else body
        method, request_id = _peek(content)
        computed: dict[str, str | bytes] = {"Accept": ACCEPT, "Content-Type": "application/json"}
        sent = _override(computed, headers)
        async with self._exchange(content, sent, method, request_id, validate) as exchange:
            return await exchange.drain()

    @contextlib.asynccontextmanager
    async def _exchange(
        self,
        content: bytes,
        headers: Mapping[str, HeaderValue],
        method: str | None,
        request_id: object,
        validate: bool | None,
    ) -> AsyncIterator[Exchange]:
        check = self._checking(validate)
        raw_headers = [
            (name.encode("ascii"), value if isinstance(value, bytes) else value.encode("utf-8"))
            for name, value in headers.items()
            if value is not None
        ]
        request = self.http.build_request("POST", self.url, content=content, headers=raw_headers)
        for name, value in headers.items():
            if value is None:  # also drops httpx's own default, e.g. "Accept: */*"
                request.headers.pop(name, None)
        response = await self.http.send(request, stream=True)
        try:
            yield Exchange(response, method=method, request_id=request_id, check=check)
        finally:
            await response.aclose()

    def _checking(self, validate: bool | None) -> bool:
        wanted = self.validate if validate is None else validate
        if wanted:
            _schema_present()
        return wanted


@functools.cache
def _schema_present() -> Path:
    """The 2026-07-28 schema file (in the repository: its absence fails the test)."""
    return schema.require_schema()


def _merge(target: dict[str, Any], changes: Mapping[str, Any]) -> None:
    for key, value in changes.items():
        if value is None:
            target.pop(key, None)
        else:
            target[key] = value


def _override(
    computed: Mapping[str, str | bytes], changes: Mapping[str, HeaderValue] | None
) -> dict[str, HeaderValue]:
    """Apply `changes` case-insensitively; a removed header stays as None until sent."""
    headers: dict[str, tuple[str, HeaderValue]] = {
        name.lower(): (name, value) for name, value in computed.items()
    }
    for name, change in (changes or {}).items():
        headers[name.lower()] = (name, change)
    return dict(headers.values())


def _peek(content: bytes) -> tuple[str | None, object]:
    try:
        decoded = json.loads(content)
    except ValueError:
        return None, None
    if not isinstance(decoded, dict):
        return None, None
    method = decoded.get("method")
    return (method if isinstance(method, str) else None), decoded.get("id")
