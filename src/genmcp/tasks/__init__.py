"""Tasks: a ``tools/call`` that outlives its request.

- ``tasks.service``: ``TaskService``, the ``tasks/*`` methods and the runner that records a
  detached Call's answer in the task store;
- ``tasks.runner``: a task this process runs, its lease kept and its end stored (retried
  through a short outage of the store);
- ``tasks.quota``: the quota a creation counts against, and the ``task_quota`` refusal;
- ``tasks.watch``: task status changes, announced on the broker and watched by listen streams.

Builds on the request in flight and the catalogs (a task runs a tool's Call).
"""
