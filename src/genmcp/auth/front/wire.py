"""The front's HTTP plumbing: bounded bodies, form parameters, OAuth error answers, pages.

A body is read at most ``MAX_BODY`` bytes (never buffered whole); a form is
``application/x-www-form-urlencoded`` with each parameter once (RFC 6749 §3.2); an error is
the RFC 6749 §5.2 JSON with ``Cache-Control: no-store``; a page escapes what it quotes; a
route is :func:`guarded`: a shared store that is down answers 503 ``temporarily_unavailable``
with ``Retry-After``, never a 500.
"""

from __future__ import annotations

import functools
import html
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Final
from urllib.parse import parse_qsl

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response

from genmcp.auth.front.limits import Throttled
from genmcp.storage.guard import StorageUnavailable

__all__ = [
    "MAX_BODY",
    "NO_STORE",
    "Refused",
    "guarded",
    "oauth_error",
    "page",
    "read_body",
    "read_form",
    "retry_later",
]

log = logging.getLogger("genmcp.auth.front")

NO_STORE: Final = {"cache-control": "no-store", "pragma": "no-cache"}
MAX_BODY: Final = 64 * 1024


class Refused(Exception):
    """A request refused with an RFC 6749 error code, a description and an HTTP status."""

    def __init__(self, error: str, description: str, status: int = 400) -> None:
        super().__init__(description)
        self.error, self.description, self.status = error, description, status


async def read_body(request: Request) -> bytes | None:
    """The request body, or None past ``MAX_BODY`` (read no further: never all in memory)."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_BODY:
        return None
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            return None
    return body


async def read_form(request: Request) -> dict[str, str]:
    """A bounded form-encoded body, each parameter once (RFC 6749 §3.2); :class:`Refused`."""
    if "application/x-www-form-urlencoded" not in request.headers.get("content-type", ""):
        raise Refused("invalid_request", "send the request form-encoded")
    body = await read_body(request)
    if body is None:
        raise Refused("invalid_request", "the request is too large")
    try:
        pairs = parse_qsl(body.decode("utf-8"), keep_blank_values=True, max_num_fields=50)
    except (UnicodeDecodeError, ValueError):
        raise Refused("invalid_request", "the form is not valid") from None
    fields = dict(pairs)
    if len(fields) != len(pairs):
        raise Refused("invalid_request", "a parameter is repeated")
    return fields


def oauth_error(error: str, description: str, status: int = 400) -> Response:
    """The RFC 6749 §5.2 error answer (never cached; a 503 says to retry in a second)."""
    headers = {**NO_STORE, "retry-after": "1"} if status == 503 else NO_STORE
    return JSONResponse({"error": error, "error_description": description},
                        status_code=status, headers=headers)  # fmt: skip


def page(status: int, title: str, text: str) -> Response:
    """A minimal HTML page for a browser the front cannot send back (escaped, never cached)."""
    title, text = html.escape(title), html.escape(text)  # text may quote the request
    document = f"<!doctype html><title>{title}</title><h1>{title}</h1><p>{text}</p>"
    return HTMLResponse(document, status_code=status, headers=NO_STORE)


def retry_later(response: Response, throttled: Throttled) -> Response:
    """``response`` with the ``Retry-After`` of ``throttled``."""
    response.headers["retry-after"] = str(throttled.retry_after)
    return response


def guarded(
    endpoint: Callable[..., Awaitable[Response]],
) -> Callable[..., Awaitable[Response]]:
    """``endpoint``, answering 503 ``temporarily_unavailable`` when the store is down."""

    @functools.wraps(endpoint)
    async def route(*args: Any, **kwargs: Any) -> Response:
        try:
            return await endpoint(*args, **kwargs)
        except StorageUnavailable as exc:
            log.warning("the front's store is unavailable: %s", exc.store)
            return oauth_error("temporarily_unavailable", "storage is unavailable: retry", 503)

    return route
