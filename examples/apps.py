"""MCP Apps: a tool with an interactive view (a bar chart and a form) that calls a tool back.

Serve it with ``make run APP=apps:app``; MCP is at http://127.0.0.1:8000/mcp.

* ``SalesView`` is the view: a ``ui://`` resource served as ``text/html;profile=mcp-app``.
  Its HTML speaks the host bridge of the extension by hand (JSON-RPC over ``postMessage``:
  ``ui/initialize``, ``ui/notifications/initialized``, then the host's ``tool-input`` and
  ``tool-result`` notifications), draws the sales of a region as SVG bars, and its form
  records a sale (a button) by sending ``tools/call`` for ``record_sale`` to the host.
* ``SalesChart`` (visible to the model and the app) links to the view with ``view=``;
  ``RecordSale`` is app-only (``visibility=["app"]``): hosts keep it from the model.
* Icons on the server, the tools and the view; a host that lacks MCP Apps still gets the
  text content of every result.
"""

from __future__ import annotations

import base64
import threading
from typing import Any, Final

from fastapi import FastAPI

from genmcp import AppView, Channel, Result, Tool, ToolRequest, call_tool_result, mcp_router

_ICON_SVG: Final = (
    b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16">'
    b'<rect x="1" y="8" width="3" height="7" fill="#2563eb"/>'
    b'<rect x="6" y="4" width="3" height="11" fill="#2563eb"/>'
    b'<rect x="11" y="1" width="3" height="14" fill="#2563eb"/></svg>'
)
ICON: Final = {
    "src": "data:image/svg+xml;base64," + base64.b64encode(_ICON_SVG).decode(),
    "mimeType": "image/svg+xml",
    "sizes": ["any"],
}
REGIONS: Final = ("north", "south")
MONTHS: Final = ("jan", "feb", "mar", "apr", "may", "jun")

VIEW_HTML: Final = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Sales</title>
<style>
  body { font: 14px system-ui, sans-serif; margin: 12px; color: #171717; }
  #bars rect { fill: #2563eb; }
  #bars text { font-size: 10px; fill: #525252; }
  #add { display: flex; gap: 6px; margin-top: 8px; }
</style>
</head>
<body>
<h1 id="title">Sales</h1>
<svg id="bars" width="320" height="140" role="img" aria-label="sales per month"></svg>
<p>Total: <span id="total">-</span></p>
<div id="add">
  <select id="month" aria-label="month"></select>
  <input id="amount" type="number" min="1" max="100000" value="10" aria-label="amount">
  <button id="record" type="button" disabled>Record sale</button>
</div>
<p id="status">waiting for the host</p>
<script>
"use strict";
const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun"];
let nextId = 1, region = null;
const pending = new Map();
const $ = (id) => document.getElementById(id);

function send(message) { window.parent.postMessage({ jsonrpc: "2.0", ...message }, "*"); }
function request(method, params) {
  const id = nextId++;
  send({ id, method, params });
  return new Promise((resolve, reject) => pending.set(id, { resolve, reject }));
}

function render(data) {
  if (!data || !Array.isArray(data.sales)) return;
  region = data.region;
  $("title").textContent = "Sales, " + data.region;
  $("total").textContent = String(data.total);
  const svg = $("bars"), ns = "http://www.w3.org/2000/svg";
  svg.replaceChildren();
  const top = Math.max(1, ...data.sales.map((s) => s.amount));
  data.sales.forEach((sale, i) => {
    const height = Math.round((sale.amount / top) * 110);
    const bar = document.createElementNS(ns, "rect");
    bar.setAttribute("x", String(10 + i * 50));
    bar.setAttribute("y", String(120 - height));
    bar.setAttribute("width", "36");
    bar.setAttribute("height", String(height));
    bar.dataset.month = sale.month;
    bar.dataset.amount = String(sale.amount);
    const label = document.createElementNS(ns, "text");
    label.setAttribute("x", String(10 + i * 50));
    label.setAttribute("y", "135");
    label.textContent = sale.month;
    svg.append(bar, label);
  });
  $("record").disabled = false;
}

window.addEventListener("message", (event) => {
  if (event.source !== window.parent) return;
  const message = event.data;
  if (!message || message.jsonrpc !== "2.0") return;
  if (message.id !== undefined && message.method === undefined) {
    const waiter = pending.get(message.id);
    pending.delete(message.id);
    if (waiter && "error" in message) waiter.reject(message.error);
    else if (waiter) waiter.resolve(message.result);
  } else if (message.method === "ui/notifications/tool-input") {
    $("status").textContent = "loading " + message.params.arguments.region;
  } else if (message.method === "ui/notifications/tool-result") {
    render(message.params.structuredContent);
    $("status").textContent = "ready";
  } else if (message.method === "ui/resource-teardown" || message.method === "ping") {
    send({ id: message.id, result: {} });
  }
});

// a button, not a form: hosts sandbox views, often without allow-forms
$("record").addEventListener("click", async () => {
  const args = { region, month: $("month").value, amount: Number($("amount").value) };
  $("record").disabled = true;
  try {
    const result = await request("tools/call", { name: "record_sale", arguments: args });
    render(result.structuredContent);
    $("status").textContent = result.isError ? "refused" : "recorded " + args.amount;
  } catch (error) {
    $("status").textContent = "error " + (error && error.message);
  } finally {
    $("record").disabled = false;
  }
});

for (const month of MONTHS) $("month").append(new Option(month, month));
new ResizeObserver(() => send({ method: "ui/notifications/size-changed", params: {
  width: document.documentElement.scrollWidth, height: document.documentElement.scrollHeight,
} })).observe(document.body);
request("ui/initialize", {
  appInfo: { name: "genmcp-sales-view", version: "0.1.0" },
  appCapabilities: {},
  protocolVersion: "2026-01-26",
}).then(() => {
  send({ method: "ui/notifications/initialized", params: {} });
  $("status").textContent = "initialized";
});
</script>
</body>
</html>
"""

SALES_SCHEMA: Final = {
    "type": "object",
    "properties": {
        "region": {"type": "string"},
        "sales": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"month": {"type": "string"}, "amount": {"type": "integer"}},
                "required": ["month", "amount"],
            },
        },
        "total": {"type": "integer"},
    },
    "required": ["region", "sales", "total"],
}


class SalesBook:
    """The sales of each region per month, shared by the tools (their provider ``arg``)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._sales = {region: dict.fromkeys(MONTHS, 0) for region in REGIONS}
        self._sales["north"].update(jan=40, feb=55, mar=30)
        self._sales["south"].update(jan=20, feb=25, mar=60)

    def record(self, region: str, month: str, amount: int) -> None:
        with self._lock:
            self._sales[region][month] += amount

    def report(self, region: str) -> dict[str, Any]:
        with self._lock:
            months = dict(self._sales[region])
        sales = [{"month": month, "amount": amount} for month, amount in months.items()]
        return {"region": region, "sales": sales, "total": sum(months.values())}


def sales_result(report: dict[str, Any], lead: str) -> Result:
    """The text for the model (and hosts without MCP Apps) plus the data the view draws."""
    per_month = ", ".join(f"{s['month']} {s['amount']}" for s in report["sales"])
    text = f"{lead} Sales in {report['region']}: {per_month}; total {report['total']}."
    return Result(call_tool_result(text=text, structured=report))


class SalesView(
    AppView,
    uri="ui://sales/chart",
    name="sales_chart_view",
    title="Sales chart",
    description="Bar chart of a region's monthly sales, with a form to record a sale.",
    html=VIEW_HTML,
    prefers_border=True,
    icons=[ICON],
):
    """The chart; no external origins, so the host's restrictive CSP default applies."""


class SalesChart(
    Tool,
    name="sales_chart",
    title="Sales chart",
    description="Shows the monthly sales of a region as an interactive bar chart.",
    input_schema={
        "type": "object",
        "properties": {"region": {"type": "string", "enum": list(REGIONS)}},
        "required": ["region"],
        "additionalProperties": False,
    },
    output_schema=SALES_SCHEMA,
    annotations={"readOnlyHint": True},
    icons=[ICON],
    view=SalesView,
):
    async def call(self, request: ToolRequest, channel: Channel, arg: SalesBook) -> Result:
        return sales_result(arg.report(request.arguments["region"]), "Chart shown.")


class RecordSale(
    Tool,
    name="record_sale",
    title="Record a sale",
    description="Adds a sale to a region's month (called by the sales chart view).",
    input_schema={
        "type": "object",
        "properties": {
            "region": {"type": "string", "enum": list(REGIONS)},
            "month": {"type": "string", "enum": list(MONTHS)},
            "amount": {"type": "integer", "minimum": 1, "maximum": 100_000},
        },
        "required": ["region", "month", "amount"],
        "additionalProperties": False,
    },
    output_schema=SALES_SCHEMA,
    annotations={"readOnlyHint": False, "idempotentHint": False},
    view=SalesView,
    visibility=["app"],
):
    async def call(self, request: ToolRequest, channel: Channel, arg: SalesBook) -> Result:
        region, month, amount = (request.arguments[k] for k in ("region", "month", "amount"))
        arg.record(region, month, amount)
        return sales_result(arg.report(region), f"Recorded {amount} for {month}.")


book = SalesBook()
app = FastAPI(title="genmcp MCP Apps example")
app.include_router(
    mcp_router(
        server_name="genmcp-apps-example",
        server_version="0.1.0",
        server_icons=[ICON],
        tools=[(SalesChart, book), (RecordSale, book)],
    ),
    prefix="/mcp",
)
