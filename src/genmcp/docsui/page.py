"""``DocsPage``: the raw ASGI app that serves the endpoint's interactive page.

The page is ``assets/docs.html`` with ``docs.css`` and ``docs.js`` inlined (one response, read
from the package once, then kept), and with the one method fact its requests need, which
params key each ``Mcp-Name`` header repeats (``protocol.client.NAME_PARAMS``, read from the
``protocol.methods`` records), as a JSON block: the page keeps no table of its own. It speaks
MCP from the browser to the endpoint it is served beside (the page's own URL without
``/docs``), with the caller's bearer token or the app's cookies, so it sees exactly what that
caller sees. The router adds its route only when
asked (``docs=True``, or ``GENMCP_DOCS=1`` when ``docs`` is left None, as ``genmcp dev``
does): disabled, nothing of it is on the request path.
"""

from __future__ import annotations

import functools
import json
import os
from importlib import resources
from typing import Any, Final

from genmcp.protocol.client import NAME_PARAMS

__all__ = ["DOCS_ENV", "DocsPage", "docs_enabled", "page_bytes"]

DOCS_ENV: Final = "GENMCP_DOCS"
"""The environment variable that turns the page on when ``docs`` is not given (``1``)."""

_HEADERS: Final = (
    (b"content-type", b"text/html; charset=utf-8"),
    (b"cache-control", b"no-cache"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    # a page where a token is pasted is framed by no one
    (b"content-security-policy", b"frame-ancestors 'none'"),
    (b"x-frame-options", b"DENY"),
)


def docs_enabled(docs: bool | None) -> bool:
    """``docs`` when given, else whether ``GENMCP_DOCS`` is ``1`` (read once, at build)."""
    if docs is not None:
        return docs
    return os.environ.get(DOCS_ENV, "") == "1"


@functools.cache
def page_bytes() -> bytes:
    """The page: ``docs.html`` with its stylesheet, script and ``Mcp-Name`` table inlined,
    UTF-8."""
    assets = resources.files("genmcp.docsui").joinpath("assets")
    html = assets.joinpath("docs.html").read_text(encoding="utf-8")
    css = assets.joinpath("docs.css").read_text(encoding="utf-8")
    script = assets.joinpath("docs.js").read_text(encoding="utf-8")
    names = json.dumps(dict(NAME_PARAMS), sort_keys=True).replace("</", "<\\/")
    html = html.replace("/*name-params*/", names)  # before the assets: their text is theirs
    html = html.replace("/*docs.css*/", css).replace("/*docs.js*/", script)
    return html.encode("utf-8")


class DocsPage:
    """An ASGI app answering GET and HEAD with the page; any other method is 405."""

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        method = scope.get("method", "GET")
        if method not in ("GET", "HEAD"):
            await _plain(send, 405, b"Method Not Allowed", ((b"allow", b"GET, HEAD"),))
            return
        body = page_bytes()
        headers = [*_HEADERS, (b"content-length", str(len(body)).encode())]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": b"" if method == "HEAD" else body})


async def _plain(
    send: Any, status: int, text: bytes, more: tuple[tuple[bytes, bytes], ...]
) -> None:
    headers = [(b"content-type", b"text/plain; charset=utf-8"),
               (b"content-length", str(len(text)).encode()), *more]  # fmt: skip
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": text})
