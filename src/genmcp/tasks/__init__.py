"""Tasks: a ``tools/call`` that outlives its request.

- ``tasks.service``: ``TaskService``, the ``tasks/*`` methods and the runner that records a
  detached Call's answer in the task store;
- ``tasks.watch``: task status changes, announced on the broker and watched by listen streams.

Builds on the request in flight and the catalogs (a task runs a tool's Call).
"""
