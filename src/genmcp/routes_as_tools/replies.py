"""A route's HTTP response as a ``CallToolResult``.

Owns the mapping, one rule per kind of response:

* 2xx JSON: ``structuredContent`` when the route has a ``response_model`` (wrapped as
  ``{"result": ...}`` when its schema is not an object), else the JSON as text;
* 2xx text, image or audio: a text, image or audio block; other media: an embedded
  resource blob; an empty body: a text block naming the status;
* 4xx: an ``isError`` result whose text is JSON ``{"status", "detail"}``, FastAPI's
  ``detail`` as the route gave it; a 422 adds ``"errors"``: argument -> messages;
* 5xx: ``isError`` with the status and, only when the route raised an ``HTTPException``
  with a string detail, that detail. Never the body of a crash (a debug traceback).

Pure: imports genmcp's protocol builders only.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from http import HTTPStatus
from typing import Any

from genmcp.protocol.content import audio, call_tool_result, embedded_resource, image, text

__all__ = ["error_result", "report_result", "success_result"]


def _json(body: bytes) -> tuple[bool, Any]:
    try:
        return True, json.loads(body)
    except ValueError:
        return False, None


def _phrase(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "HTTP error"


def report_result(
    status: int, detail: Any, *, errors: dict[str, list[str]] | None = None
) -> dict[str, Any]:
    """An ``isError`` result whose text is JSON ``{"status": ..., "detail": ...}`` (and the
    ``errors`` per argument, as for a 422)."""
    report: dict[str, Any] = {"status": status, "detail": detail}
    if errors:
        report["errors"] = errors
    return call_tool_result(error=json.dumps(report, ensure_ascii=False))


def error_result(
    status: int,
    media_type: str,
    body: bytes,
    name_of: Callable[[Iterable[Any]], str],
    *,
    crashed: bool = False,
) -> dict[str, Any]:
    """The ``isError`` result of an HTTP error status."""
    report: dict[str, Any] = {"status": status}
    is_json, value = _json(body) if media_type.endswith("json") and not crashed else (False, None)
    detail = value.get("detail") if is_json and isinstance(value, dict) else None
    if status >= 500:
        report["detail"] = detail if isinstance(detail, str) else _phrase(status)
    elif detail is not None:
        report["detail"] = detail
    elif body and media_type.startswith("text/"):
        report["detail"] = body.decode("utf-8", "replace")[:2000]
    else:
        report["detail"] = _phrase(status)
    if status == 422 and isinstance(detail, list):
        report["errors"] = _per_argument(detail, name_of)
    return call_tool_result(error=json.dumps(report, ensure_ascii=False))


def _per_argument(
    detail: list[Any], name_of: Callable[[Iterable[Any]], str]
) -> dict[str, list[str]]:
    errors: dict[str, list[str]] = {}
    for entry in detail:
        if isinstance(entry, dict) and isinstance(entry.get("loc"), list):
            errors.setdefault(name_of(entry["loc"]), []).append(str(entry.get("msg", "")))
    return errors


def success_result(
    status: int, media_type: str, body: bytes, *, structured: bool, wrapped: bool, uri: str
) -> dict[str, Any]:
    """The result of a 2xx (or 3xx) response."""
    if not body:
        if structured and not wrapped:
            return call_tool_result(error=f"the route answered {status} with no body")
        return call_tool_result(text=f"{status} {_phrase(status)}")
    if media_type == "application/json" or media_type.endswith("+json"):
        is_json, value = _json(body)
        if not is_json:
            return call_tool_result(error="the route's JSON response could not be read")
        if structured:
            return call_tool_result(structured={"result": value} if wrapped else value)
        return call_tool_result(text=json.dumps(value, ensure_ascii=False))
    if media_type.startswith("text/") or media_type == "":
        return call_tool_result(text=body.decode("utf-8", "replace"))
    if media_type.startswith("image/"):
        return call_tool_result(content=[image(body, media_type)])
    if media_type.startswith("audio/"):
        return call_tool_result(content=[audio(body, media_type)])
    block = embedded_resource(uri, blob=body, mime_type=media_type)
    return call_tool_result(content=[block, text(f"{len(body)} bytes of {media_type}")])
