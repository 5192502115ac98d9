"""JSON-RPC 2.0 envelopes: parse bytes into messages, encode messages to bytes.

Owns the id, shape and batch rules of the MCP wire. Pure: no asyncio, no web
framework, nothing from genmcp but ``errors``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, TypeGuard

from genmcp.errors import MCPError

__all__ = [
    "EnvelopeError",
    "Notification",
    "Request",
    "RequestId",
    "Response",
    "decode_json",
    "encode",
    "error_response",
    "notification",
    "parse",
    "parse_message",
    "result_response",
]

RequestId = str | int


@dataclass(frozen=True, slots=True)
class Request:
    """A JSON-RPC request: it has an id and expects exactly one response."""

    id: RequestId
    method: str
    params: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Notification:
    """A JSON-RPC notification: no id, no response."""

    method: str
    params: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Response:
    """A JSON-RPC response a client sends back to a server-initiated request."""

    id: RequestId
    result: Any = None
    error: dict[str, Any] | None = None


Message = Request | Notification | Response


class EnvelopeError(MCPError):
    """Raised when bytes are not one valid JSON-RPC message; keeps the id when known."""

    def __init__(self, reason: str, message: str | None = None, request_id: Any = None) -> None:
        super().__init__(reason, message)
        self.request_id = request_id if _valid_id(request_id) else None


def _valid_id(value: Any) -> TypeGuard[RequestId]:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def decode_json(body: bytes | str) -> Any:
    """Decode JSON, turning every decoding failure into a ``parse_error``."""
    try:
        return json.loads(body)
    except (ValueError, RecursionError) as exc:
        raise EnvelopeError("parse_error") from exc


def parse(body: bytes | str) -> Message:
    """Parse one JSON-RPC message from a request body (batches are refused)."""
    obj = decode_json(body)
    if isinstance(obj, list):
        raise EnvelopeError("batch_rejected")
    return parse_message(obj)


def parse_message(obj: Any) -> Message:
    """Check an already decoded object against the JSON-RPC 2.0 message shapes."""
    if not isinstance(obj, dict):
        raise EnvelopeError("invalid_request", "Invalid Request: expected a JSON object")
    raw_id = obj.get("id")
    if obj.get("jsonrpc") != "2.0":
        raise EnvelopeError("invalid_request", 'Invalid Request: "jsonrpc" must be "2.0"', raw_id)
    if "method" not in obj:
        return _parse_response(obj, raw_id)
    method = obj["method"]
    if not isinstance(method, str) or not method:
        raise EnvelopeError(
            "invalid_request", 'Invalid Request: "method" must be a non-empty string', raw_id
        )
    params = obj.get("params", {})
    if params is None:
        params = {}
    if not isinstance(params, dict):
        raise EnvelopeError(
            "invalid_request", 'Invalid Request: "params" must be an object', raw_id
        )
    if "id" not in obj:
        return Notification(method, params)
    if not _valid_id(raw_id):
        raise EnvelopeError(
            "invalid_request", 'Invalid Request: "id" must be a string or an integer'
        )
    return Request(raw_id, method, params)


def _parse_response(obj: dict[str, Any], raw_id: Any) -> Response:
    if not _valid_id(raw_id):
        raise EnvelopeError("invalid_request", 'Invalid Request: missing "method"')
    has_result, error = "result" in obj, obj.get("error")
    if has_result == (error is not None) or (error is not None and not isinstance(error, dict)):
        raise EnvelopeError(
            "invalid_request", "Invalid Request: a response has exactly one of result and error"
        )
    return Response(raw_id, obj.get("result"), error)


def encode(obj: Any) -> bytes:
    """Serialize a message compactly, as UTF-8 JSON."""
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode()


def result_response(request_id: RequestId, result: Any) -> dict[str, Any]:
    """A JSON-RPC success response."""
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


def error_response(request_id: RequestId | None, error: MCPError) -> dict[str, Any]:
    """A JSON-RPC error response; without ``id`` when the request's id is unknown.

    The MCP schemas type ``id`` as string or integer, so an unknown id is left out
    rather than sent as null (2025-11-25 and later make it optional).
    """
    if request_id is None:
        return {"jsonrpc": "2.0", "error": error.to_error()}
    return {"jsonrpc": "2.0", "id": request_id, "error": error.to_error()}


def notification(method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    """A JSON-RPC notification."""
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        message["params"] = params
    return message
