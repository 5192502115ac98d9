"""The test client's 2025 session mode: ``MCPTestClient(app, protocol_version="2025-11-25")``.

A 2025 client negotiates once: ``initialize`` (its version, capabilities and clientInfo),
then ``notifications/initialized``; every later POST carries ``Mcp-Session-Id`` and
``MCP-Protocol-Version`` and no per-request ``_meta`` (only ``progressToken``). A tool's
``InputRequired`` reaches such a client as server requests (``elicitation/create``, ...) on
the call's own stream, which it answers by POSTing a JSON-RPC response: ``answer_for`` picks
the answer from the test's ``answers`` (by method name, or the only one given).

``open_session`` runs the handshake. Imports nothing from a web framework.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Final

from genmcp.protocol.methods import INITIALIZE, INITIALIZED
from genmcp.protocol.versions import LEGACY_VERSIONS
from genmcp.testing.exchange import Exchange
from genmcp.testing.opencall import OpenCall, callback

__all__ = ["LegacySession", "answer_for", "is_legacy", "open_session"]

Message = dict[str, Any]
Send = Callable[[Message], Awaitable[Exchange]]
LEGACY_CAPABILITIES: Final[Mapping[str, Any]] = {
    "elicitation": {"form": {}, "url": {}},
    "roots": {},
    "sampling": {},
}


def is_legacy(version: str) -> bool:
    """True for a 2025 session revision."""
    return version in LEGACY_VERSIONS


class LegacySession:
    """One 2025 session: the ``initialize`` body, then the headers of requests (their bodies
    are the client's: ``genmcp.client.session.LegacySession.request``)."""

    def __init__(
        self, version: str, capabilities: Mapping[str, Any], client_info: Mapping[str, Any]
    ) -> None:
        self.version = version
        self.capabilities = dict(capabilities)
        self.client_info = dict(client_info)
        self.session_id: str | None = None
        self.negotiated: str = version
        self.server: dict[str, Any] = {}  # the initialize result
        self.log_level: str | None = None

    def initialize(self, request_id: int) -> Message:
        """The ``initialize`` request."""
        params = {
            "protocolVersion": self.version,
            "capabilities": self.capabilities,
            "clientInfo": self.client_info,
        }
        return {"jsonrpc": "2.0", "id": request_id, "method": INITIALIZE, "params": params}

    def opened(self, result: Mapping[str, Any], session_id: str | None) -> None:
        """Record the server's ``initialize`` answer."""
        if session_id is None:
            raise AssertionError(f"initialize answered without an Mcp-Session-Id: {result}")
        self.session_id, self.server = session_id, dict(result)
        self.negotiated = str(result.get("protocolVersion", self.version))

    def headers(self) -> dict[str, str]:
        """The session headers of every POST after ``initialize``."""
        headers = {"accept": "application/json, text/event-stream"}
        headers["content-type"] = "application/json"
        if self.session_id is not None:
            headers["mcp-session-id"] = self.session_id
            headers["mcp-protocol-version"] = self.negotiated
        return headers


async def open_session(session: LegacySession, send: Send, request_id: int, wait_s: float) -> None:
    """The handshake: ``initialize`` (its answer recorded in ``session``), then
    ``notifications/initialized``; ``RPCError`` when the server refuses (``wait_s``: the
    longest wait for its answer)."""
    exchange = await send(session.initialize(request_id))
    reply = await OpenCall(exchange, INITIALIZE, None, wait_s, callback(False)).reply()
    session.opened(reply.unwrap(), exchange.headers.get("mcp-session-id"))
    await (await send({"jsonrpc": "2.0", "method": INITIALIZED})).aclose()


async def answer_for(answers: Any, request: Message) -> Message:
    """The JSON-RPC response to a server request, from a test's ``answers``.

    A 2025 server request carries no input key: a mapping is looked up by the request's
    method (``{"elicitation/create": accept({...})}``), else its only value is used; a
    callable is called as ``answers(None, {"method": ..., "params": ...})``.
    """
    method, params = request.get("method"), request.get("params") or {}
    nested = {"method": method, "params": params}
    if answers is None:
        raise AssertionError(f"the server asked {method} {params}: give call_tool(answers=...)")
    if callable(answers):
        value = answers(None, nested)
    elif isinstance(answers, Mapping) and method in answers:
        value = answers[method]
    elif isinstance(answers, Mapping) and len(answers) == 1:
        value = next(iter(answers.values()))
    else:
        raise AssertionError(
            f"no answer for the server request {method}: a 2025 session's requests carry "
            "no key, so key answers by method ({'elicitation/create': accept(...)}) or give one"
        )
    if callable(value):
        value = value(nested)
    if inspect.isawaitable(value):
        value = await value
    return {"jsonrpc": "2.0", "id": request["id"], "result": value}
