"""``genmcp.compose``: servers composed from other servers (docs/guides/composition.md).

* ``mount``: ``Mount``, another Suite's catalog served by this one under a namespace, or
  (``Mount(url=...)``) a remote server's;
* ``remote``: the remote side: one pooled ``genmcp.Client`` per upstream, its listing, the
  proxy tools, prompts and resources, a circuit breaker;
* ``subscriptions``: the outer subscribers' resource subscriptions, held upstream.
"""

from __future__ import annotations

from genmcp.compose.mount import Mount

__all__ = ["Mount"]
