"""genmcp: Tool classes mounted with mcp_router into a FastAPI app.

Run: PORT=8105 /tmp/genmcp-bench/venvs/genmcp/bin/python bench/servers/genmcp_server.py
Endpoint POST /mcp. STATEFUL=1 asks mcp_router for its legacy-session mode (by the first of
LEGACY_KWARGS that mcp_router accepts); without such a switch it serves the default router and
the driver's initialize probe decides whether the legacy row can be measured.
JSON_RESPONSE is ignored: genmcp picks JSON or SSE per call itself. PAGE_SIZE sets the
tools/list page size (genmcp pages by 100 by default; the list scenario asks for one page).
MAX_BODY_BYTES raises the request body cap (4 MiB by default; the size curve sends 10 MB).
REDIS_URL keeps the legacy sessions (and the rest of the shared state) in that Redis.
EXTRA_FORM=arg serves the EXTRA_TOOLS as one class with N ``(class, arg)`` providers
(a generated catalog's other form) instead of one class each; EXTRA_FORM=function as N
``@tool`` functions, generated as closures (``tool(fn, name=..., description=...)``);
EXTRA_FORM=function_args the same with one ``key: str`` argument each; EXTRA_FORM=class_slots
a class per tool that declares ``__slots__ = ()``.
"""

from __future__ import annotations

import asyncio
import inspect
import os
import sys
import time
import types

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# a fixed signing key for this benchmark process only (silences the per-process-key warning)
os.environ.setdefault("GENMCP_SECRET_KEY", "genmcp-bench-not-a-secret-0123456789abcdef0123456789")
import _common as C
from fastapi import FastAPI

from genmcp import Result, Tool, call_tool_result, mcp_router, tool

print(f"genmcp from {sys.modules['genmcp'].__file__}", file=sys.stderr, flush=True)

LEGACY_KWARGS = ("legacy", "stateful", "legacy_sessions", "sessions")


class AddTool(Tool, name="add", description="Adds two numbers.", input_schema=C.ADD_SCHEMA):
    async def call(self, request, channel, arg):
        return Result(call_tool_result(text=str(request.arguments["a"] + request.arguments["b"])))


class EchoTool(Tool, name="echo", description="Returns the text.", input_schema=C.ECHO_SCHEMA):
    async def call(self, request, channel, arg):
        return Result(call_tool_result(text=request.arguments["text"]))


class ProgressTool(
    Tool,
    name="progress",
    description="Sends progress notifications, then returns.",
    input_schema=C.PROGRESS_SCHEMA,
):
    async def call(self, request, channel, arg):
        steps = int(request.arguments.get("steps", 10))
        interval = int(request.arguments.get("interval_ms", 100)) / 1000
        for i in range(1, steps + 1):
            await asyncio.sleep(interval)
            channel.send_progress(i, total=steps)
        return Result(call_tool_result(text="done"))


class CreateOrderTool(
    Tool, name="create_order", description=C.ORDER_DESCRIPTION, input_schema=C.ORDER_SCHEMA
):
    async def call(self, request, channel, arg):
        return Result(call_tool_result(text=C.order_summary(request.arguments["items"])))


async def _noop(self, request, channel, arg):
    return Result(call_tool_result(text="ok"))


def _extra_tool(i: int, slots: bool = False) -> type[Tool]:
    options = {
        "name": C.extra_name(i),
        "description": C.extra_description(i),
        "input_schema": C.EXTRA_SCHEMA,
    }
    body = {"call": _noop, "__slots__": ()} if slots else {"call": _noop}
    return types.new_class(f"Extra{i:04d}", (Tool,), options, lambda ns: ns.update(body))


class ExtraTool(Tool, input_schema=C.EXTRA_SCHEMA):
    """EXTRA_FORM=arg: one class serving every extra tool, ``(ExtraTool, i)`` providers."""

    def info(self, key, arg):
        if key == "name":
            return C.extra_name(arg)
        return C.extra_description(arg) if key == "description" else None

    call = _noop


def _extra_function(i: int):
    """EXTRA_FORM=function: one ``@tool`` function per extra tool, generated from data."""

    async def noop() -> str:
        return "ok"

    return tool(noop, name=C.extra_name(i), description=C.extra_description(i))


def _extra_function_args(i: int):
    """EXTRA_FORM=function_args: the same with one argument (an arguments model each)."""

    async def lookup(key: str) -> str:
        return key

    return tool(lookup, name=C.extra_name(i), description=C.extra_description(i))


_classes_from = time.process_time()  # bench/catalog_startup.py splits the build by these
TOOLS: list = [AddTool, EchoTool, ProgressTool, CreateOrderTool]
if os.environ.get("EXTRA_FORM") == "arg":
    TOOLS += [(ExtraTool, i) for i in range(C.EXTRA_TOOLS)]
elif os.environ.get("EXTRA_FORM") == "function":
    TOOLS += [_extra_function(i) for i in range(C.EXTRA_TOOLS)]
elif os.environ.get("EXTRA_FORM") == "function_args":
    TOOLS += [_extra_function_args(i) for i in range(C.EXTRA_TOOLS)]
elif os.environ.get("EXTRA_FORM") == "class_slots":
    TOOLS += [_extra_tool(i, slots=True) for i in range(C.EXTRA_TOOLS)]
else:
    TOOLS += [_extra_tool(i) for i in range(C.EXTRA_TOOLS)]
C.CLASSES_CPU = (_classes_from, time.process_time())


def _router_kwargs() -> dict:
    kwargs: dict = {}
    if os.environ.get("PAGE_SIZE"):  # the list scenario asks for one page, like the baselines
        kwargs["page_size"] = int(os.environ["PAGE_SIZE"])
    if os.environ.get("MAX_BODY_BYTES"):
        kwargs["max_body_bytes"] = int(os.environ["MAX_BODY_BYTES"])
    if os.environ.get("REDIS_URL"):
        kwargs["redis_url"] = os.environ["REDIS_URL"]
    if not C.STATEFUL:
        return kwargs
    accepted = inspect.signature(mcp_router).parameters
    for key in LEGACY_KWARGS:
        if key in accepted:
            return {**kwargs, key: True}
    # no switch: serve the default router; the driver's initialize probe shows whether it works
    print(
        "genmcp_server: mcp_router has no legacy-session switch "
        f"(looked for {', '.join(LEGACY_KWARGS)}); serving the default router",
        file=sys.stderr,
    )
    return kwargs


app = FastAPI()
app.include_router(
    mcp_router(server_name="bench", server_version="1.0", tools=TOOLS, **_router_kwargs()),
    prefix="/mcp",
)

if os.environ.get("GC_FREEZE") == "1":  # experiment: move start-up objects out of the GC's way
    import gc

    gc.collect()
    gc.freeze()

if __name__ == "__main__":
    C.serve(app)
