"""JSON-RPC 2.0 envelopes: parse bytes into messages, encode messages to bytes.

Owns the id, shape and batch rules of the MCP wire, and its JSON codec: ``decode_json`` and
``encode`` go through orjson when it is installed (genmcp depends on it where it has wheels)
and keep the standard library's rules exactly: whatever orjson refuses, or could read other
than the standard library would (integers past 64 bits), is decoded or encoded the standard
library's way. Pure: no asyncio, no web framework, nothing from genmcp but ``errors``.
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from typing import Any, Final, TypeGuard

from genmcp.errors import MCPError
from genmcp.protocol.json_steps import decode_in_steps

_loads: Callable[[bytes], Any] | None
_dumps: Callable[[Any], bytes] | None
try:
    import orjson
except ImportError:  # pragma: no cover - a platform without its wheels: the stdlib alone
    _loads = _dumps = None
else:
    _loads, _dumps = orjson.loads, orjson.dumps

__all__ = [
    "EncodedResult",
    "EnvelopeError",
    "Notification",
    "Request",
    "RequestId",
    "Response",
    "decode_json",
    "encode",
    "error_response",
    "is_request_id",
    "notification",
    "parse",
    "parse_in_steps",
    "parse_message",
    "result_response",
]

RequestId = str | int
_NO_PARAMS: Any = object()
"""``Request``'s default ``params``: a new dict each (its field's ``default_factory``)."""


@dataclass(frozen=True, slots=True, init=False)
class Request:
    """A JSON-RPC request: it has an id and expects exactly one response."""

    id: RequestId
    method: str
    params: dict[str, Any] = field(default_factory=dict)

    def __init__(self, id: RequestId, method: str, params: dict[str, Any] = _NO_PARAMS) -> None:
        # through the slots' own setters: a frozen dataclass's generated __init__ goes
        # through object.__setattr__ per field (every request makes one: the hot path)
        _REQUEST_ID(self, id)
        _REQUEST_METHOD(self, method)
        _REQUEST_PARAMS(self, {} if params is _NO_PARAMS else params)


_REQUEST_ID: Final = vars(Request)["id"].__set__
_REQUEST_METHOD: Final = vars(Request)["method"].__set__
_REQUEST_PARAMS: Final = vars(Request)["params"].__set__


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
        self.request_id = request_id if is_request_id(request_id) else None


def is_request_id(value: Any) -> TypeGuard[RequestId]:
    """True for a JSON-RPC id MCP allows: a string or an integer (not a boolean)."""
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


MAX_JSON_DEPTH = 64
"""Deepest nesting of arrays and objects a body may have (the envelope counts: a tool's
arguments sit at depth 3). Read at each decode: assign to change."""


def _not_json(token: str) -> Any:
    raise ValueError(f"{token} is not JSON")


def _finite(token: str) -> float:
    number = float(token)
    if math.isinf(number):
        raise ValueError(f"{token[:40]} is out of range")
    return number


_DECODER = json.JSONDecoder(parse_float=_finite, parse_constant=_not_json)
_SCAN: Final = bytes(
    48 if 48 <= byte <= 57 else 91 if byte in b"[{" else 32 for byte in range(256)
)
"""``bytes.translate`` table: every digit becomes ``0``, each ``[`` and ``{`` a ``[``, every
other byte a space (``decode_json`` reads the long digit runs and the brackets from it)."""
_LONG_DIGITS: Final = b"0" * 19
"""A run of digits that may be an integer past 64 bits, which orjson reads as a float: such a
body (rare: ids and numbers are shorter) is decoded by the standard library. Found by a
substring search in the translated body: both C passes, a few ns per byte, where a regex
search for ``[0-9]{19}`` cost ~10x that (the curves' 10 MB arguments, bench/RESULTS.md)."""


def _deeper_than(value: Any, limit: int) -> bool:
    """True when arrays and objects nest more than ``limit`` levels (one level per pass)."""
    level = [value] if type(value) is dict or type(value) is list else []
    for _ in range(limit):
        level = [
            child
            for node in level
            for child in (node.values() if type(node) is dict else node)
            if type(child) is dict or type(child) is list
        ]
        if not level:
            return False
    return bool(level)


def _text_of(body: bytes) -> str:
    """The body as text: UTF-8 (nearly always, decoded in C), else what JSON allows."""
    try:
        return body.decode()
    except UnicodeDecodeError:  # UTF-16/32 bodies, or UTF-8 carrying lone surrogates
        return body.decode(json.detect_encoding(body), "surrogatepass")


def decode_json(body: bytes | str) -> Any:
    """Decode JSON, turning every decoding failure into a ``parse_error``.

    Refused too: NaN, Infinity and numbers out of float range (not JSON, and they would
    come back out as non-JSON), integers over ``sys.get_int_max_str_digits()`` digits,
    and nesting deeper than ``MAX_JSON_DEPTH``. The depth check is a ``count`` of the
    brackets unless the body has more of them than the limit, then one walk.
    """
    limit = MAX_JSON_DEPTH
    if _loads is not None and type(body) is bytes:
        scan = body.translate(_SCAN)
        # what is removed by replace, not find/count/in: on a small body the argument
        # parsing of bytes.find and count costs more than their scan, and bytes' ``in``
        # tries the needle as an int first, formatting and dropping a TypeError
        if len(scan.replace(_LONG_DIGITS, b"")) == len(scan):
            try:
                value = _loads(body)
            except ValueError:
                pass  # not plain UTF-8 JSON: the standard library decides, with its reasons
            else:
                brackets = len(scan) - len(scan.replace(b"[", b""))  # of both kinds
                if brackets > limit and _deeper_than(value, limit):
                    raise EnvelopeError(
                        "parse_error", f"Parse error: JSON nested deeper than {limit} levels"
                    )
                return value
    try:
        if isinstance(body, bytes):
            text = _text_of(body)
        else:
            text = body
        value = _DECODER.decode(text)
        too_deep = text.count("[") + text.count("{") > limit and _deeper_than(value, limit)
    except RecursionError:  # the C scanner gives up near 1000 levels, in microseconds
        too_deep = True
    except ValueError as exc:
        reason = str(exc)
        message = None
        if "Exceeds the limit" in reason:
            message = f"Parse error: an integer has over {sys.get_int_max_str_digits()} digits"
        elif "not JSON" in reason or "out of range" in reason:
            message = f"Parse error: {reason}"
        raise EnvelopeError("parse_error", message) from exc
    if too_deep:
        raise EnvelopeError("parse_error", f"Parse error: JSON nested deeper than {limit} levels")
    return value


def parse(body: bytes | str) -> Message:
    """Parse one JSON-RPC message from a request body (batches are refused)."""
    obj = decode_json(body)
    if isinstance(obj, list):
        raise EnvelopeError("batch_rejected")
    return parse_message(obj)


def parse_in_steps(body: bytes) -> Generator[None, None, Message]:
    """:func:`parse` as a generator that yields between steps (``json_steps``): for large
    bodies, so the transport can let its event loop run while they are decoded."""
    try:
        text = _text_of(body)
        obj = yield from decode_in_steps(text, _DECODER, MAX_JSON_DEPTH)
    except RecursionError:  # never from the stepped walk; kept for symmetry with parse
        raise EnvelopeError("parse_error") from None
    except ValueError as exc:
        reason = str(exc)
        message = None
        if "Exceeds the limit" in reason:
            message = f"Parse error: an integer has over {sys.get_int_max_str_digits()} digits"
        elif "not JSON" in reason or "out of range" in reason or "nested deeper" in reason:
            message = f"Parse error: {reason}"
        raise EnvelopeError("parse_error", message) from exc
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
    # a str or an int (not a bool): decided with no is_request_id frame (the hot path)
    if type(raw_id) is not int and type(raw_id) is not str and not is_request_id(raw_id):
        raise EnvelopeError(
            "invalid_request", 'Invalid Request: "id" must be a string or an integer'
        )
    return Request(raw_id, method, params)


def _parse_response(obj: dict[str, Any], raw_id: Any) -> Response:
    has_result, error = "result" in obj, obj.get("error")
    if not is_request_id(raw_id):
        if has_result or error is not None:
            raise EnvelopeError(
                "invalid_request", 'Invalid Request: a response "id" must be a string or an integer'
            )
        raise EnvelopeError("invalid_request", 'Invalid Request: missing "method"')
    if has_result == (error is not None):
        raise EnvelopeError(
            "invalid_request", "Invalid Request: a response has exactly one of result and error"
        )
    if error is not None and not _is_error_object(error):
        raise EnvelopeError(
            "invalid_request",
            'Invalid Request: a response "error" is an object with an integer "code" and a '
            'string "message"',
        )
    if has_result and not isinstance(obj["result"], dict):
        raise EnvelopeError(
            "invalid_request", 'Invalid Request: a response "result" must be an object'
        )
    return Response(raw_id, obj.get("result"), error)


def _is_error_object(error: Any) -> bool:
    """A JSON-RPC error object: an integer ``code`` and a string ``message``."""
    if not isinstance(error, dict):
        return False
    code = error.get("code")
    integer = isinstance(code, int) and not isinstance(code, bool)
    return integer and isinstance(error.get("message"), str)


_ENCODER: Final = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)


class EncodedResult(dict[str, Any]):
    """A result that also keeps its JSON bytes, encoded once (e.g. a cached list page).

    ``encode`` splices the bytes into the response instead of serializing the result
    again; anything that changes the result must build a new dict (translations do).
    """

    __slots__ = ("deflated", "encoded")

    def __init__(self, result: dict[str, Any]) -> None:
        super().__init__(result)
        self.encoded = encode(result)
        self.deflated: tuple[bytes, int, int] | None = None
        """The HTTP transport's gzip form (``transports.http.gzip``), made on first need."""


def encode(obj: Any) -> bytes:
    """Serialize a message compactly, as UTF-8 JSON (NaN and infinities become ``null``).

    A response whose result is an ``EncodedResult`` reuses the result's bytes. A lone
    surrogate (valid in JSON text, not in UTF-8) falls back to ASCII escapes.
    """
    if type(obj) is dict and len(obj) == 3 and type(obj.get("result")) is EncodedResult:
        head = encode({"jsonrpc": obj["jsonrpc"], "id": obj["id"]})
        return b"".join((head[:-1], b',"result":', obj["result"].encoded, b"}"))
    if _dumps is not None:
        try:
            return _dumps(obj)
        except TypeError:
            pass  # integers past 64 bits, lone surrogates, non-string keys: the stdlib's way
    text = _ENCODER.encode(obj)
    try:
        return text.encode()
    except UnicodeEncodeError:
        return json.dumps(obj, separators=(",", ":")).encode()


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
