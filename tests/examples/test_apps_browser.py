"""examples/apps.py's view in a real headless Chromium, inside a minimal MCP Apps host.

A real uvicorn serves the example and, beside it, the test host page
(`support/apps_host.html`) on the same origin. `support/apps_browser.mjs` (playwright-core,
Debian's `/usr/bin/chromium`) opens the host, which discovers the server, reads the view the
`sales_chart` tool links to, renders it in a sandboxed iframe under the CSP its `_meta.ui`
calls for, and bridges it (JSON-RPC over postMessage). The view must load, draw the tool
result, and record a sale through its form: a `tools/call` of the app-only `record_sale`
that the host relays to the server. Skipped without node, npm or chromium; a failure when
`CI` is set.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Final

import pytest
from starlette.responses import HTMLResponse
from starlette.types import Receive, Scope, Send

from support import examples
from support.browser import HOST_PAGE, check_ext_apps, run_host
from support.server import LiveServers

pytestmark = pytest.mark.long  # a real browser, about 8 s (make test-long)

apps = examples.load("apps")

#: Messages of the app bridge and the ext-apps schema definition each must match.
VIEW_SENDS: Final = {
    "ui/initialize": "McpUiInitializeRequest",
    "ui/notifications/initialized": "McpUiInitializedNotification",
    "ui/notifications/size-changed": "McpUiSizeChangedNotification",
}
HOST_SENDS: Final = {
    "ui/notifications/tool-input": "McpUiToolInputNotification",
    "ui/notifications/tool-result": "McpUiToolResultNotification",
}


async def host_and_example(scope: Scope, receive: Receive, send: Send) -> None:
    """The example app, plus the host page at /host (same origin, so no CORS)."""
    if scope["type"] == "http" and scope["path"] == "/host":
        await HTMLResponse(HOST_PAGE.read_text(encoding="utf-8"))(scope, receive, send)
        return
    await apps.app(scope, receive, send)


@pytest.fixture(scope="module")
def report() -> Iterator[dict[str, Any]]:
    live = LiveServers()
    try:
        base = live(host_and_example)
        yield run_host(f"{base}/host?tool=sales_chart&region=north")
    finally:
        live.stop_all()


def messages(report: dict[str, Any], direction: str) -> list[dict[str, Any]]:
    return [entry["message"] for entry in report["log"] if entry["direction"] == direction]


def test_the_view_loads_without_errors_and_draws_the_tool_result(report: dict[str, Any]) -> None:
    assert report["errors"] == []  # no script error, no CSP violation
    before = report["before"]
    assert (before["title"], before["bars"], before["status"]) == ("Sales, north", 6, "ready")
    served = [result for result in messages(report, "server->host") if "result" in result]
    chart = next(
        m["result"] for m in served if m["result"].get("structuredContent", {}).get("sales")
    )
    drawn = {sale["month"]: sale["amount"] for sale in chart["structuredContent"]["sales"]}
    assert before["amounts"] == drawn
    assert before["total"] == str(chart["structuredContent"]["total"])


def test_the_form_calls_the_app_only_tool_through_the_host(report: dict[str, Any]) -> None:
    before, after = report["before"], report["after"]
    assert after["status"] == "recorded 15"
    assert after["amounts"]["apr"] == before["amounts"]["apr"] + 15
    assert int(after["total"]) == int(before["total"]) + 15
    [asked] = [
        m
        for m in messages(report, "view->host")
        if m.get("method") == "tools/call" and m["params"]["name"] == "record_sale"
    ]
    assert asked["params"]["arguments"] == {"region": "north", "month": "apr", "amount": 15}
    relayed = [m for m in messages(report, "host->server") if m["method"] == "tools/call"]
    assert [m["params"]["name"] for m in relayed] == ["sales_chart", "record_sale"]
    answer = next(m for m in messages(report, "host->view") if m.get("id") == asked["id"])
    assert answer["result"]["structuredContent"]["total"] == int(after["total"])
    # the server really recorded it: its own book says so
    assert {s["month"]: s["amount"] for s in apps.book.report("north")["sales"]}["apr"] == (
        after["amounts"]["apr"]
    )


def test_the_host_refuses_a_tool_the_view_may_not_call(report: dict[str, Any]) -> None:
    [refusal] = [m for m in messages(report, "host->view") if m.get("id") == "probe"]
    assert refusal["error"]["code"] == -32602
    relayed = [
        m["params"]["name"] for m in messages(report, "host->server") if m["method"] == "tools/call"
    ]
    assert "no_such_tool" not in relayed


def test_bridge_messages_match_the_ext_apps_schema(report: dict[str, Any]) -> None:
    seen: set[str] = set()
    for direction, definitions in (("view->host", VIEW_SENDS), ("host->view", HOST_SENDS)):
        for message in messages(report, direction):
            definition = definitions.get(message.get("method", ""))
            if definition is not None:
                check_ext_apps(definition, {k: message[k] for k in ("method", "params")})
                seen.add(message["method"])
    assert seen == {*VIEW_SENDS, *HOST_SENDS}
    initialize = next(
        m for m in messages(report, "view->host") if m.get("method") == "ui/initialize"
    )
    answer = next(m for m in messages(report, "host->view") if m.get("id") == initialize["id"])
    check_ext_apps("McpUiInitializeResult", answer["result"])
