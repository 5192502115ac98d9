"""``validate_request`` for a ``tools/call``, without holding the event loop.

``checked_request(tool, request, arg)`` is what the request lifecycle awaits before ``call``:
the generated ``validate_request`` validates through ``schema.offload`` (inline when
certainly cheap, else in a validation thread under the budget); a tool's own
``validate_request`` runs as written (awaited when it is ``async def``, called when not).

Imports asyncio (through ``schema.offload``) and genmcp's tool and schema modules; never a
web framework.
"""

from __future__ import annotations

import inspect
from typing import Any

from genmcp.schema.offload import validate_off_loop
from genmcp.tool import Tool, ToolRequest, input_validator, with_arguments

__all__ = ["checked_request"]


async def checked_request(tool: Tool, request: ToolRequest, arg: Any) -> ToolRequest:
    """The request ``call`` receives: validated arguments, or ``InvalidArguments`` raised."""
    if type(tool).validate_request is not Tool.validate_request:
        checked = tool.validate_request(request, arg)
        if inspect.isawaitable(checked):
            checked = await checked
        return checked
    validator = input_validator(tool, arg)
    return with_arguments(request, await validate_off_loop(validator, request.arguments))
