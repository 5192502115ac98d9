"""How a Suite serves MCP Apps views: which views it has, and the extension it advertises.

A tool's ``view=`` brings its ``AppView`` along (the Suite adds it once, and skips the same
class listed again in ``resources=``); a Suite serving at least one view advertises
``io.modelcontextprotocol/ui`` in ``capabilities.extensions`` with the MIME types it serves.

Imports genmcp's apps behaviour and protocol vocabulary; no asyncio, no web framework.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from genmcp.apps import AppView
from genmcp.protocol.apps import UI_EXTENSION, server_settings

if TYPE_CHECKING:
    from genmcp.catalogs.resources import ResourceCatalog

__all__ = ["is_view", "served_extensions", "serves_view"]


def is_view(provider: Any) -> bool:
    """True for an ``AppView`` class (not a ``(class, arg)`` pair: that one is explicit)."""
    return isinstance(provider, type) and issubclass(provider, AppView)


def serves_view(catalog: ResourceCatalog, view: Any) -> bool:
    """True when ``catalog`` already serves this very view class under its URI."""
    entry = catalog.repos.get(view.view_uri())
    return entry is not None and type(entry.repo) is view


def served_extensions(catalog: ResourceCatalog) -> dict[str, Any]:
    """``{"extensions": ...}`` for what the served resources call for, or ``{}``."""
    if any(isinstance(entry.repo, AppView) for entry in catalog.repos.values()):
        return {"extensions": {UI_EXTENSION: server_settings()}}
    return {}
