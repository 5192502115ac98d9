"""``genmcp.compose``: servers composed from other servers (docs/guides/composition.md).

* ``mount``: ``Mount``, another Suite's catalog served by this one under a namespace, or
  (``Mount(url=...)``) a remote server's;
* ``upstream``: the remote side's connection: one pooled ``genmcp.Client`` per upstream, its
  listing, a circuit breaker;
* ``remote``: the proxy tools, prompts and resources that serve an upstream's catalog;
* ``pending``: an upstream call to a 2025 session server, held across input rounds;
* ``tasks``: an upstream task, followed by a task of the outer Suite;
* ``subscriptions``: the outer subscribers' resource subscriptions, held upstream.
"""

from __future__ import annotations

from genmcp.compose.mount import Mount

__all__ = ["Mount"]
