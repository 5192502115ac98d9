"""The tool header parameters a client learns (``x-mcp-header``, 2026-07-28): each listed
tool's, from ``tools/list``, sent as headers with its ``tools/call``.

A tool whose annotations break the rules is dropped from the listing (a warning says why),
as the specification asks of a client; a call the server refuses for want of its headers
(-32020) is retried once after a fresh listing taught them.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

from genmcp.protocol.client import header_params, header_problem

__all__ = ["ToolHeaders"]

logger = logging.getLogger("genmcp.client")


class ToolHeaders:
    """Each listed tool's header parameters (argument -> header), by tool name."""

    def __init__(self) -> None:
        self.by_tool: dict[str, dict[str, str]] = {}

    def kept(self, tools: Iterable[dict[str, Any]], url: str) -> list[dict[str, Any]]:
        """``tools`` minus those whose annotations break the rules; the rest learned."""
        kept = []
        for tool in tools:
            problem = header_problem(tool.get("inputSchema"))
            if problem is not None:
                logger.warning("%s: dropped tool %r: %s", url, tool.get("name"), problem)
                continue
            self.by_tool[str(tool.get("name"))] = header_params(tool.get("inputSchema"))
            kept.append(tool)
        return kept

    def of(self, name: Any) -> dict[str, str] | None:
        """The header parameters of the tool ``name``, or None before it was listed."""
        return self.by_tool.get(str(name))
