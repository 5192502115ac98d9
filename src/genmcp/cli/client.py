"""The command line's HTTP client: a small blocking 2026-07-28 Streamable HTTP client.

``HTTPClient`` runs on the standard library's ``http.client`` (the ``genmcp list`` /
``genmcp call`` commands): JSON or SSE replies, notifications handed over as they arrive,
a 2025 session (``cli.legacy_session``) when the server has no 2026-07-28. Requests and
their headers are built by ``genmcp.protocol.client``. No web framework.
"""

from __future__ import annotations

import http.client
import itertools
import json
import socket
import ssl
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import urlsplit

from genmcp.cli.legacy_session import LegacySession, is_modern_error, open_session
from genmcp.protocol.client import (
    CLI_INFO,
    PROTOCOL_VERSION,
    Message,
    SSEParser,
    build_request,
    request_headers,
)

__all__ = ["CLIError", "HTTPClient", "RPCFailure"]


class CLIError(Exception):
    """Raised when the server cannot be reached or understood; the message is for a user."""


class RPCFailure(CLIError):
    """Raised when the server answers with a JSON-RPC error."""

    def __init__(self, error: Any) -> None:
        error = error if isinstance(error, Mapping) else {}
        self.code = error.get("code")
        self.data = error.get("data")
        super().__init__(f"{error.get('message', 'error')} ({self.code})")


class HTTPClient:
    """A blocking Streamable HTTP client: one connection per request.

    The first request probes the server as the spec says: ``server/discover`` in
    2026-07-28; when the server does not answer it as a modern server (an HTTP error
    without a modern JSON-RPC error), the client opens a 2025 session instead
    (``initialize``, ``Mcp-Session-Id``) and speaks it until :meth:`close`. ``era`` then
    says which: ``"2026-07-28"`` or the negotiated 2025 revision.

    Args:
        url: the MCP endpoint (``http://`` or ``https://``).
        headers: extra headers on every request (e.g. ``Authorization``).
        timeout: seconds any connect or read may take.
        capabilities: the client capabilities declared (``{"elicitation": {}}``).
        on_request: answers a server request (``{"method", "params"}``: elicitation) with
            its result; declared capabilities need one.
    """

    def __init__(
        self,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        timeout: float = 60.0,
        client_info: Mapping[str, Any] = CLI_INFO,
        capabilities: Mapping[str, Any] | None = None,
        on_request: Callable[[Message], Any] | None = None,
    ) -> None:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise CLIError(f"not an http(s) URL: {url!r}")
        self.url, self.timeout = url, timeout
        self.headers = dict(headers or {})
        self.client_info = dict(client_info)
        self.capabilities = dict(capabilities or {})
        self.on_request = on_request
        self.era: str | None = None
        self.server: dict[str, Any] = {}
        """The ``server/discover`` result, or the 2025 ``initialize`` result."""
        self.session: LegacySession | None = None
        self._parts = parts
        self._target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        self._ids = itertools.count(1)

    def list_all(self, method: str, key: str) -> list[dict[str, Any]]:
        """Every item of a list method (``tools/list``, ``tools``), following ``nextCursor``."""
        items: list[dict[str, Any]] = []
        params: dict[str, Any] = {}
        while True:
            page = self.request(method, params)
            items.extend(page.get(key) or [])
            if not page.get("nextCursor"):
                return items
            params = {"cursor": page["nextCursor"]}

    def list_tools(self) -> list[dict[str, Any]]:
        """Every tool, following ``nextCursor`` to the last page."""
        return self.list_all("tools/list", "tools")

    def call_tool(
        self,
        name: str,
        arguments: Mapping[str, Any],
        *,
        params: Mapping[str, str] | None = None,
        on_notification: Callable[[Message], None] | None = None,
        log_level: str | None = None,
        max_rounds: int = 8,
    ) -> dict[str, Any]:
        """Call a tool, asking for progress; ``params`` are its ``x-mcp-header`` names.

        A 2026-07-28 ``input_required`` result is answered through ``on_request`` and the
        call retried (up to ``max_rounds``); in a 2025 session the server asks on the stream.
        """
        body: dict[str, Any] = {"name": name, "arguments": dict(arguments)}
        for _ in range(max_rounds):
            result: dict[str, Any] = self.request(
                "tools/call",
                body,
                header_params=params,
                on_notification=on_notification,
                progress=True,
                log_level=log_level,
            )
            if result.get("resultType") != "input_required" or self.on_request is None:
                return result
            asked = result.get("inputRequests") or {}
            body = {k: v for k, v in body.items() if k not in ("inputResponses", "requestState")}
            if asked:
                body["inputResponses"] = {key: self.on_request(ask) for key, ask in asked.items()}
            if "requestState" in result:
                body["requestState"] = result["requestState"]
        raise CLIError(f"{name!r} still asked for input after {max_rounds} rounds")

    def request(
        self,
        method: str,
        params: Mapping[str, Any] | None = None,
        *,
        header_params: Mapping[str, str] | None = None,
        on_notification: Callable[[Message], None] | None = None,
        progress: bool = False,
        log_level: str | None = None,
    ) -> Any:
        """Send one request; return its result (``RPCFailure`` for an error response)."""
        if self.era is None:
            self.probe()
        request_id = next(self._ids)
        token = f"progress-{request_id}" if progress else None
        if self.session is not None:
            message = self.session.request(method, params, request_id, token, log_level)
            headers = {**self.session.headers(), **self.headers}
        else:
            message = build_request(
                method,
                params,
                request_id,
                version=PROTOCOL_VERSION,
                capabilities=self.capabilities,
                client_info=self.client_info,
                progress_token=token,
                log_level=log_level,
            )
            headers = {**request_headers(message, header_params), **self.headers}
        _, _, reply = self.post(message, headers, on_notification)
        if reply is None:
            raise CLIError(f"{self.url} sent no response to {method}")
        if "error" in reply:
            raise RPCFailure(reply["error"])
        return reply.get("result")

    def probe(self) -> dict[str, Any]:
        """Learn the server's era (see the class docstring); the discover/initialize result."""
        if self.era is not None:
            return self.server
        message = build_request(
            "server/discover",
            {},
            next(self._ids),
            version=PROTOCOL_VERSION,
            capabilities=self.capabilities,
            client_info=self.client_info,
        )
        headers = {**request_headers(message), **self.headers}
        try:
            status, _, reply = self.post(message, headers, None)
        except CLIError as exc:  # not even JSON-RPC: an older server's 400/404/405 page
            failure: CLIError = exc
        else:
            if reply is not None and "result" in reply:
                self.era, self.server = PROTOCOL_VERSION, dict(reply["result"])
                return self.server
            error = (reply or {}).get("error")
            if status in (401, 403) or is_modern_error(error):
                self.era = PROTOCOL_VERSION
                raise RPCFailure(error)
            failure = RPCFailure(error)
        session = open_session(self)
        if session is None:
            raise failure
        return self.server

    def close(self) -> None:
        """End a 2025 session (``DELETE``); nothing to do in 2026-07-28."""
        session, self.session = self.session, None
        if session is not None:
            connection = self._connection()
            try:
                connection.request(
                    "DELETE", self._target, headers={**session.headers(), **self.headers}
                )
                connection.getresponse().read()
            except (OSError, http.client.HTTPException):
                pass
            finally:
                connection.close()

    def post(
        self,
        message: Message,
        headers: Mapping[str, str],
        on_notification: Callable[[Message], None] | None,
    ) -> tuple[int, http.client.HTTPResponse, Message | None]:
        """POST one message; the status, the response and the JSON-RPC reply (None: 202)."""
        connection = self._connection()
        try:
            connection.request("POST", self._target, json.dumps(message).encode(), dict(headers))
            response = connection.getresponse()
            if response.status == 202:
                response.read()
                return 202, response, None
            reply = self._read(response, on_notification or (lambda m: None))
            return response.status, response, reply
        except ConnectionRefusedError:
            raise CLIError(f"cannot connect to {self.url}: connection refused") from None
        except socket.gaierror as exc:
            raise CLIError(f"cannot resolve {self._parts.hostname}: {exc.strerror}") from None
        except TimeoutError:
            raise CLIError(f"no answer from {self.url} within {self.timeout:g} s") from None
        except (OSError, http.client.HTTPException) as exc:
            raise CLIError(f"cannot talk to {self.url}: {exc}") from None
        finally:
            connection.close()

    def _connection(self) -> http.client.HTTPConnection:
        host, port = self._parts.hostname or "", self._parts.port
        if self._parts.scheme == "https":
            context = ssl.create_default_context()
            return http.client.HTTPSConnection(host, port, timeout=self.timeout, context=context)
        return http.client.HTTPConnection(host, port, timeout=self.timeout)

    def _read(
        self, response: http.client.HTTPResponse, on_notification: Callable[[Message], None]
    ) -> Message:
        content_type = (response.getheader("content-type") or "").partition(";")[0].strip()
        if content_type.lower() == "text/event-stream":
            parser = SSEParser()
            while True:
                line = response.readline()
                for data in parser.feed(line, final=not line):
                    message = json.loads(data)
                    if "method" not in message:
                        return dict(message)
                    if "id" not in message:
                        on_notification(message)
                    elif self.session is not None:  # a 2025 server request on the stream
                        self.session.answer(self, message)
                if not line:
                    raise CLIError(f"{self.url} ended its stream without a response")
        body = response.read()
        try:
            decoded = json.loads(body)
        except ValueError:
            decoded = None
        if isinstance(decoded, dict) and decoded.get("jsonrpc") == "2.0":
            return decoded
        snippet = body[:200].decode(errors="replace").strip()
        raise CLIError(
            f"{self.url} answered HTTP {response.status} {response.reason}, not MCP"
            + (f": {snippet}" if snippet else "")
        )
