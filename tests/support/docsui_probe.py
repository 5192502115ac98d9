"""A small app for the interactive page's browser tests of what the examples do not show.

``Probe(remote)`` serves at ``/mcp`` (page on) two MCP Apps views that try to load from
``remote``, another origin (``Remote``: it records each path it is asked for): ``strict_view``
declares no CSP (the page must apply the extension's restrictive default: nothing remote),
``declared_view`` declares ``remote`` in ``connectDomains`` and ``resourceDomains`` (the page
must let exactly that through). ``report_link`` answers with a resource link to a served
resource; ``wait_for_cancel`` reports progress and waits until it is cancelled, noting it in
``Probe.cancelled``, and the app notes each ``notifications/cancelled`` POSTed to it (both
read over ``GET /probe/state`` by the driver while its browser is open: closing a 2025
session's request cancels its call too, so the task's end alone proves no notification).
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable
from typing import Any, Final

from fastapi import FastAPI

from genmcp import (
    AppView,
    Channel,
    Result,
    StaticResource,
    Tool,
    ToolRequest,
    call_tool_result,
    mcp_router,
    resource_link,
)

REPORT_URI: Final = "probe://reports/7"
REPORT_TEXT: Final = "Report 7: 3 orders, 12 items."
_PIXEL: Final = b'<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"/>'


def view_html(remote: str, view: str) -> str:
    """A view whose head links a remote stylesheet and whose script fetches and draws from
    ``remote``; it writes what loaded and each CSP violation it sees into its DOM."""
    query = f"?view={view}"
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<link rel="stylesheet" href="{remote}/style.css{query}">
<meta charset="utf-8">
<title>Probe {view}</title>
</head>
<body>
<h1>Probe {view}</h1>
<p>fetch: <span id="fetch">pending</span>; image: <span id="image">pending</span></p>
<ul id="violations"></ul>
<script>
"use strict";
const put = (id, text) => {{ document.getElementById(id).textContent = text; }};
document.addEventListener("securitypolicyviolation", (event) => {{
  const item = document.createElement("li");
  item.textContent = event.effectiveDirective;
  document.getElementById("violations").append(item);
}});
fetch("{remote}/data{query}").then((r) => r.json())
  .then((data) => put("fetch", data.ok ? "loaded" : "odd"), () => put("fetch", "refused"));
const image = new Image();
image.alt = "remote pixel";
image.onload = () => put("image", "loaded");
image.onerror = () => put("image", "refused");
image.src = "{remote}/pixel.svg{query}";
document.body.append(image);
</script>
</body>
</html>
"""


class Remote:
    """Another origin for the views (a raw ASGI app): records each path and query asked."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        assert scope["type"] == "http"  # served with lifespan="off"
        path = scope["path"]
        self.asked.append(path + "?" + scope["query_string"].decode())
        kinds = {"/data": (b"application/json", b'{"ok": true}'),
                 "/pixel.svg": (b"image/svg+xml", _PIXEL),
                 "/style.css": (b"text/css", b"h1 { color: #0b57d0; }")}  # fmt: skip
        kind, body = kinds.get(path, (b"text/plain", b"?"))
        headers = [(b"content-type", kind), (b"access-control-allow-origin", b"*"),
                   (b"content-length", str(len(body)).encode())]  # fmt: skip
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": body})


class Tee:
    """ASGI middleware: hands each POST body to ``note`` once read whole, passes all on."""

    def __init__(self, app: Any, note: Callable[[bytes], None]) -> None:
        self.app = app
        self.note = note

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        body = bytearray()

        async def tee() -> Any:
            message = await receive()
            if message["type"] == "http.request":
                body.extend(message.get("body", b""))
                if not message.get("more_body", False):
                    self.note(bytes(body))
            return message

        await self.app(scope, tee, send)


class Probe:
    """The app (``self.app``: a FastAPI app behind a ``Tee``) and what its tools and its
    endpoint saw."""

    def __init__(self, remote: str) -> None:
        self.remote = remote
        self.started = threading.Event()
        self.cancelled = threading.Event()
        self.cancels: list[Any] = []
        """The ``requestId`` of each ``notifications/cancelled`` POSTed, in order."""
        inner = FastAPI()
        inner.include_router(self._router(remote), prefix="/mcp")
        inner.add_api_route("/probe/state", self._state)
        self.app = Tee(inner, self._note)

    def _note(self, body: bytes) -> None:
        try:
            message = json.loads(body)
        except ValueError:
            return
        if isinstance(message, dict) and message.get("method") == "notifications/cancelled":
            self.cancels.append((message.get("params") or {}).get("requestId"))

    def _state(self) -> dict[str, Any]:
        return {"started": self.started.is_set(), "cancelled": self.cancelled.is_set(),
                "cancels": list(self.cancels)}  # fmt: skip

    def _router(self, remote: str) -> Any:
        probe = self

        class StrictView(
            AppView,
            uri="ui://probe/strict",
            name="strict_view_html",
            html=view_html(remote, "strict"),
        ):
            """No csp: the host's restrictive default."""

        class DeclaredView(
            AppView,
            uri="ui://probe/declared",
            name="declared_view_html",
            html=view_html(remote, "declared"),
            csp={"connect_domains": [remote], "resource_domains": [remote]},
        ):
            """Declares the remote origin for connections and resources."""

        class Strict(
            Tool, name="strict_view", description="A view that declares no CSP.", view=StrictView
        ):
            async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
                return Result(call_tool_result(text="strict"))

        class Declared(
            Tool, name="declared_view", description="A view that declares a CSP.", view=DeclaredView
        ):
            async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
                return Result(call_tool_result(text="declared"))

        class ReportLink(Tool, name="report_link", description="Links to report 7."):
            async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
                link = resource_link(REPORT_URI, "report-7", mime_type="text/plain")
                return Result(call_tool_result(text="Report 7 is ready.", content=[link]))

        class WaitForCancel(
            Tool,
            name="wait_for_cancel",
            description="Reports progress, then waits until cancelled.",
        ):
            async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
                channel.send_progress(1, total=2, message="started")
                probe.started.set()
                try:
                    await asyncio.Event().wait()  # only a cancel ends it
                except asyncio.CancelledError:
                    probe.cancelled.set()
                    raise
                raise AssertionError("unreachable")

        report = StaticResource(uri=REPORT_URI, name="report-7", text=REPORT_TEXT,
                                mime_type="text/plain")  # fmt: skip
        return mcp_router(server_name="probe", server_version="1.0.0", docs=True,
                          tools=[Strict, Declared, ReportLink, WaitForCancel],
                          resources=[report])  # fmt: skip
