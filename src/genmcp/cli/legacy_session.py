"""The command line's 2025 session: the fallback for servers without 2026-07-28.

``HTTPClient`` probes with ``server/discover``; when the answer is not a modern one,
:func:`open_session` runs the 2025 handshake (``initialize`` at the newest 2025 revision,
then ``notifications/initialized``) and returns a :class:`LegacySession`: the session id and
negotiated revision every later request carries, and the answering of server requests
(``elicitation/create``) that arrive on a request's SSE stream.

Private to ``genmcp.cli.client``; imports genmcp's protocol modules only.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final, Protocol

from genmcp.protocol.versions import LATEST, LEGACY_VERSIONS

__all__ = ["LegacySession", "Poster", "is_modern_error", "open_session"]

Message = dict[str, Any]
ACCEPT: Final = "application/json, text/event-stream"
MODERN_CODES: Final = frozenset({-32020, -32021})
"""JSON-RPC codes only a 2026-07-28 server sends (header mismatch, missing capability)."""


class Poster(Protocol):
    """What the session needs from ``HTTPClient``."""

    capabilities: dict[str, Any]
    client_info: dict[str, Any]
    headers: dict[str, str]
    era: str | None
    server: dict[str, Any]
    session: LegacySession | None
    on_request: Callable[[Message], Any] | None

    def post(
        self, message: Message, headers: Mapping[str, str], on_notification: Any
    ) -> tuple[int, Any, Message | None]:
        """POST one message; ``(status, response, reply or None)``."""
        ...


def is_modern_error(error: Any) -> bool:
    """True for an error only a 2026-07-28 server gives: a modern code, or -32022 naming it."""
    if not isinstance(error, Mapping):
        return False
    if error.get("code") in MODERN_CODES:
        return True
    data = error.get("data")
    supported = data.get("supported") if isinstance(data, Mapping) else None
    return error.get("code") == -32022 and isinstance(supported, list) and LATEST in supported


@dataclass
class LegacySession:
    """One open 2025 session: its id (None if the server gave none) and revision."""

    session_id: str | None
    version: str

    def headers(self) -> dict[str, str]:
        """The headers every request of the session carries."""
        found = {"accept": ACCEPT, "content-type": "application/json"}
        found["mcp-protocol-version"] = self.version
        if self.session_id is not None:
            found["mcp-session-id"] = self.session_id
        return found

    def request(
        self,
        method: str,
        params: Mapping[str, Any] | None,
        request_id: int,
        progress_token: str | None,
        log_level: str | None,
    ) -> Message:
        """A 2025 request (``_meta.progressToken`` only; no per-request version)."""
        body = dict(params or {})
        if progress_token is not None:
            body["_meta"] = {"progressToken": progress_token}
        del log_level  # 2025 sets it with logging/setLevel; the CLI does not
        return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": body}

    def answer(self, client: Poster, message: Message) -> None:
        """Answer a server request from the stream with ``client.on_request``'s result."""
        request = {"method": message.get("method"), "params": message.get("params") or {}}
        if client.on_request is None or request["method"] != "elicitation/create":
            reply: Message = {
                "jsonrpc": "2.0",
                "id": message.get("id"),
                "error": {"code": -32601, "message": f"the CLI cannot answer {request['method']}"},
            }
        else:
            result = client.on_request(request)
            reply = {"jsonrpc": "2.0", "id": message.get("id"), "result": result}
        client.post(reply, {**self.headers(), **client.headers}, None)


_IDS = itertools.count(1)


def open_session(client: Poster) -> LegacySession | None:
    """Run the 2025 handshake; the session, stored on ``client``, or None when refused."""
    capabilities = {k: v for k, v in client.capabilities.items() if k == "elicitation"}
    message = {
        "jsonrpc": "2.0",
        "id": f"init-{next(_IDS)}",
        "method": "initialize",
        "params": {
            "protocolVersion": LEGACY_VERSIONS[0],
            "capabilities": capabilities,
            "clientInfo": client.client_info,
        },
    }
    headers = {"accept": ACCEPT, "content-type": "application/json", **client.headers}
    try:
        _, response, reply = client.post(message, headers, None)
    except Exception:  # not a 2025 server either: the probe's error stands
        return None
    result = (reply or {}).get("result")
    if not isinstance(result, Mapping) or result.get("protocolVersion") not in LEGACY_VERSIONS:
        return None
    session = LegacySession(response.getheader("mcp-session-id"), result["protocolVersion"])
    client.session, client.era, client.server = session, session.version, dict(result)
    initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    client.post(initialized, {**session.headers(), **client.headers}, None)
    return session
