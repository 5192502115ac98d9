"""The request in flight: a ``Call`` drives its ``Job`` through the phases of one table.

- ``call.call``: ``Call``, one request the Suite answers (at once, or by running its Job),
  emitting typed events; what a middleware receives and returns (``genmcp.middleware``);
- ``call.lifecycle``: its phases, every transition and their effects, as one table;
- ``call.job``: ``Job`` (one request's own work), the handlers a catalog offers, ``Asker``;
- ``call.relay``: ``Relay``, the one reader of a Call's events through its era's codec;
- ``call.in_flight``: ``InFlight``, the calls of one Suite that have not ended (its workers
  take posts), shut down and waited for at its end.

Below the catalogs: nothing here knows a tool, a prompt or a resource.
"""

from genmcp.call.call import Call

__all__ = ["Call"]
