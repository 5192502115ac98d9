"""``genmcp.compose``: servers composed from other servers (docs/guides/composition.md).

* ``mount``: ``Mount``, another Suite's catalog served by this one under a namespace.
"""

from __future__ import annotations

from genmcp.compose.mount import Mount

__all__ = ["Mount"]
