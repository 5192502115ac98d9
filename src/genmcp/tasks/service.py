"""Tasks: a ``tools/call`` that outlives its request, and the ``tasks/*`` methods.

A task is a :class:`~genmcp.call.Call` like any other, run detached. For a tool that
supports tasks, when the request declares the extension (and the tool's ``wants_task``
agrees), the Suite asks :meth:`TaskService.open` first: it stores the ``working`` record
(durably: a ``tasks/get`` that follows resolves), then the Call is built with a
:class:`TaskAsker` and :meth:`TaskService.run` answers the request at once with the
``CreateTaskResult`` while a runner reads the Call's events through the relay (``call.relay``,
as every transport does) into the store:

- progress, logs and stream starts are dropped (the spec sends none for tasks);
- the ``Answer``: a result becomes ``completed`` (``isError`` results too), a JSON-RPC error
  ``failed``; an ``Ended`` (the call was cancelled) becomes ``cancelled``;
- an ``InputRequired`` outcome is a legacy-style input round through the Call's ``Asker``
  seam: :class:`TaskAsker` stores the requests (``input_required``), waits for ``tasks/update``
  answers (from any process: the store holds them, a poke through the broker wakes the
  waiter, a poll every third of the lease catches the rest) and the same Call runs again.

Every status change is announced on the broker (``task_watch.announce``), for the listen
streams that name the task (``notifications/tasks``, :meth:`TaskService.watch`). The runner
renews the task's lease every third of it (at once again, with backoff, after a failed
renewal); a task found cancelled (or gone) there is cancelled here too.

The end of a task is stored even across a short outage of the store: the terminal transition
is retried with backoff (50 ms doubling to 1 s) while the store is unavailable
(``StorageUnavailable``), and the runner keeps renewing the lease meanwhile, so the task never
reads "the process stopped" while its process lives. The retries are bounded by the task's
TTL (its record expires then anyway). A store that refuses the outcome itself (any other
error), or one unreachable until that bound, ends the task ``failed`` with the storage failure
error (``storage_failure_error``: its own message), when it can still be stored, and logs it.
A store that is unavailable when a task-mode call creates its record is a ``StorageUnavailable``
answer (HTTP 503 with ``Retry-After``), as is every ``tasks/*`` request meanwhile.

``tasks/get|update|cancel`` read and move the record in the store and authorize every call
against the principal that created the task: anyone else is told the task does not exist.
Imports genmcp's protocol, storage and the Call; never a web framework.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Final

from genmcp.call.call import Call
from genmcp.call.job import HookJob, Job
from genmcp.call.relay import Relay
from genmcp.catalogs.request_state import principal_of
from genmcp.catalogs.tools import ToolJob
from genmcp.errors import MCPError
from genmcp.events import Answer, Ended
from genmcp.protocol import tasks as task_wire
from genmcp.protocol.jsonrpc import Request, result_response
from genmcp.protocol.methods import TASKS_CANCEL, TASKS_GET, TASKS_UPDATE
from genmcp.storage import Broker, Lease, TaskEnd, TaskOptions, TaskQuotaExceeded, TaskStore
from genmcp.storage.guard import StorageUnavailable
from genmcp.storage.memory import MemoryTaskStore
from genmcp.tasks.quota import quota_of, quota_refusal
from genmcp.tasks.runner import Running, end_of, keep_lease, store_end
from genmcp.tasks.watch import TaskWatch, announce

__all__ = ["Follower", "Opened", "TaskAsker", "TaskService"]

log = logging.getLogger("genmcp")

_POKE: Final = "genmcp/tasks/"
_Answer = Callable[[Mapping[str, Any], Mapping[str, Any]], Awaitable[dict[str, Any]]]
Handler = Callable[[Request, Any, Mapping[str, Any]], Job]
Follower = Callable[["TaskAsker"], Awaitable[TaskEnd]]
"""The work of a followed task (``TaskService.follow``): asks through the asker, returns
how the task ends."""


class TaskAsker:
    """The ``Asker`` of a task's Call: input requests go to the store, answers come back."""

    __slots__ = ("_running", "_service", "_task_id", "_used", "max_rounds")

    def __init__(self, service: TaskService, task_id: str, running: Running) -> None:
        self._service, self._task_id, self._running = service, task_id, running
        self._used: set[str] = set()  # a key is never reused within one task (SEP-2663)
        self.max_rounds = service.max_rounds

    def _key(self, key: str) -> str:
        unique, n = key, 1
        while unique in self._used:
            n += 1
            unique = f"{key}.{n}"
        self._used.add(unique)
        return unique

    async def ask(
        self, requests: Mapping[str, Mapping[str, Any]], send: Callable[[dict[str, Any]], bool]
    ) -> dict[str, Any]:
        """Park the task in ``input_required`` until every request has its answer."""
        store, task_id = self._service.store, self._task_id
        keys = {self._key(key): key for key in requests}
        asked = {unique: dict(requests[key]) for unique, key in keys.items()}
        moved = await store.ask(task_id, asked, task_wire.iso_now())
        if moved is None:
            raise MCPError("internal_error", "The task ended while asking for input")
        await announce(self._service.broker, moved)
        answers: dict[str, Any] = {}
        while True:
            self._running.poke.clear()
            waiting = [unique for unique, key in keys.items() if key not in answers]
            for unique, answer in (await store.take_answers(task_id, waiting)).items():
                answers[keys[unique]] = answer
            if len(answers) == len(keys):
                return answers
            try:
                async with asyncio.timeout(self._service.renew_s):
                    await self._running.poke.wait()
            except TimeoutError:
                pass  # poll: an answer delivered to another process without a shared broker

    async def note(self, message: str) -> None:
        """Set the task's ``statusMessage`` while it runs (what it does now): stored, and
        announced to its listen streams when it changed."""
        moved = await self._service.store.note(self._task_id, message, task_wire.iso_now())
        if moved is not None:
            await announce(self._service.broker, moved)


class Opened:
    """A task just created: its record and the asker its Call is built with."""

    __slots__ = ("asker", "record")

    def __init__(self, record: dict[str, Any], asker: TaskAsker) -> None:
        self.record, self.asker = record, asker


class TaskService:
    """Creates, runs and answers for the tasks of one Suite (see the module docstring).

    Args:
        store: where records live (``RedisTaskStore``...; None: a ``MemoryTaskStore``).
        options: TTL, lease, poll interval, rounds (None: the ``TaskOptions`` defaults).
        broker: where processes poke each other about answers and cancels.
        result_meta: the ``_meta`` of every result.
    """

    def __init__(
        self,
        store: TaskStore | None,
        options: TaskOptions | None,
        broker: Broker,
        result_meta: Mapping[str, Any],
    ) -> None:
        options = TaskOptions() if options is None else options
        self.store = MemoryTaskStore() if store is None else store
        self.broker, self._result_meta = broker, result_meta
        self.ttl_ms, self.lease_ms = options.ttl_ms, options.lease_ms
        self.poll_interval_ms, self.max_rounds = options.poll_interval_ms, options.max_rounds
        self.quota, self.sep3304 = options.quota, options.sep3304
        self.renew_s = self.lease_ms / 3000
        self.owner = secrets.token_hex(8)  # this process, as the records name it
        self.lease = Lease(self.owner, self.lease_ms)  # every task it creates runs under it
        self._running: dict[str, Running] = {}
        self._listener: asyncio.Task[None] | None = None

    @property
    def running(self) -> int:
        """How many tasks this process runs now."""
        return len(self._running)

    # -- creating and running -----------------------------------------------------------

    async def opened(
        self, request: Request, job: Job | Any, meta: Mapping[str, Any], assigns: Mapping[str, Any]
    ) -> Opened | None:
        """The new task this request's job runs as (its record stored), or None: not a task."""
        if not (isinstance(job, ToolJob) and task_wire.declares_tasks(meta) and job.wants_task()):
            return None
        record, running = await self._create(assigns)
        return Opened(record, TaskAsker(self, record["taskId"], running))

    async def follow(self, assigns: Mapping[str, Any], work: Follower) -> dict[str, Any]:
        """A task whose work runs elsewhere (a remote mount's upstream task): its record is
        stored like any other, ``work(asker)`` runs detached, asks for input through
        ``asker`` and returns how the task ends; cancelling the task cancels ``work``.
        Returns the ``CreateTaskResult`` to answer with."""
        record, running = await self._create(assigns)
        task_id = record["taskId"]
        running.runner = asyncio.get_running_loop().create_task(
            self._followed(task_id, running, work), name=f"genmcp:task:{task_id[:8]}"
        )
        return task_wire.created(record, self._result_meta)

    async def _followed(self, task_id: str, running: Running, work: Follower) -> None:
        running.started = True
        keeper = asyncio.get_running_loop().create_task(self._keep(task_id, running.cancel))
        try:
            if running.stop:
                raise asyncio.CancelledError  # stopped before it began
            end = await work(TaskAsker(self, task_id, running))
        except asyncio.CancelledError:  # cancelled (the record says so already), or shutdown
            end = TaskEnd("cancelled")
            if running.stopping:
                failure = MCPError("shutting_down", "Server shutting down: the task was stopped")
                end = TaskEnd("failed", error=failure.to_error(), message=failure.message)
        except Exception:
            log.exception("task %s: following it failed", task_id)
            message = "Internal error: following the task failed"
            end = TaskEnd("failed", error={"code": -32603, "message": message}, message=message)
        try:
            await self._end(task_id, end)
        finally:
            keeper.cancel()
            self._running.pop(task_id, None)

    async def _create(self, assigns: Mapping[str, Any]) -> tuple[dict[str, Any], Running]:
        """Store a new ``working`` record for this caller; its record and bookkeeping."""
        self._listen()
        task_id = task_wire.new_task_id()
        principal = principal_of(assigns)
        record = task_wire.new_record(task_id, principal, self.ttl_ms, self.poll_interval_ms)
        try:
            quota = quota_of(self.quota, principal)
            await self.store.create(record, self.lease, quota)
        except StorageUnavailable:
            raise  # 503 with Retry-After: the client retries the call
        except TaskQuotaExceeded as exc:
            raise quota_refusal(exc, self.quota, sep3304=self.sep3304) from None
        except Exception:
            log.exception("the task store refused a new task")
            failure = MCPError("internal_error", "Internal error: the task store refused the task")
            raise failure from None
        loop = asyncio.get_running_loop()
        running = Running(loop.time() + self.ttl_ms / 1000)
        self._running[task_id] = running
        return record, running

    def run(self, request: Request, task: Opened, call: Call) -> Call:
        """Drain ``call`` into the task's record; the request's answer, a CreateTaskResult."""
        record = task.record
        task_id = record["taskId"]
        running = self._running[task_id]
        running.call = call
        running.runner = asyncio.get_running_loop().create_task(
            self._drain(task_id, call), name=f"genmcp:task:{task_id[:8]}"
        )
        created = task_wire.created(record, self._result_meta)
        return Call.answered(request, Answer(result_response(request.id, created)))

    async def _drain(self, task_id: str, call: Call) -> None:
        keeper = asyncio.get_running_loop().create_task(self._keep(task_id, call.cancel))
        try:
            async for event in Relay(call):  # the one reader of a Call, as every transport
                if type(event) is Answer:
                    await self._end(task_id, end_of(event.response))
                elif type(event) is Ended:
                    await self._end(task_id, TaskEnd("cancelled"))
                # Interim (progress, logs) and StreamStart: not sent for tasks
        finally:
            keeper.cancel()  # only now: the lease is kept while the end is being stored
            self._running.pop(task_id, None)

    async def _end(self, task_id: str, end: TaskEnd) -> None:
        """Store the task's end: retried while the store is unavailable, until the record
        expires; an outcome the store refuses becomes the storage failure."""
        running = self._running.get(task_id)
        expires = running.expires if running is not None else asyncio.get_running_loop().time()
        await store_end(self.store, self.broker, task_id, end, expires)

    async def _keep(self, task_id: str, cancel: Callable[[], None]) -> None:
        """Renew the lease; cancel the call once the task is cancelled, failed or gone."""
        await keep_lease(self.store, task_id, self.lease_ms, self.renew_s, cancel)

    # -- pokes between processes --------------------------------------------------------

    def _listen(self) -> None:
        if self._listener is None:
            self._listener = asyncio.get_running_loop().create_task(
                self._pokes(), name="genmcp:task-pokes"
            )

    async def _pokes(self) -> None:
        subscription = self.broker.subscribe(_POKE + self.owner)
        try:
            while True:
                _, message = await subscription.receive()
                if isinstance(message, Mapping) and isinstance(message.get("task"), str):
                    self._wake(message["task"], bool(message.get("cancel")))
        finally:
            subscription.close()

    def _wake(self, task_id: str, cancel: bool) -> bool:
        running = self._running.get(task_id)
        if running is None:
            return False
        if cancel:
            running.cancel()
        running.poke.set()
        return True

    async def _poke(self, task_id: str, cancel: bool = False) -> None:
        if self._wake(task_id, cancel):
            return
        try:
            owner = await self.store.owner(task_id)
            if owner is not None and owner != self.owner:
                await self.broker.publish(_POKE + owner, {"task": task_id, "cancel": cancel})
        except Exception:  # the owner polls the store anyway
            log.warning("task %s: could not poke its process", task_id, exc_info=True)

    async def close(self, within_s: float = 3.0) -> None:
        """At shutdown: stop listening for pokes, end the running tasks (their records read
        ``failed``, "Server shutting down") and wait, bounded, until those are stored."""
        if self._listener is not None:
            self._listener.cancel()
            self._listener = None
        runners = [r.runner for r in self._running.values() if r.runner is not None]
        for running in list(self._running.values()):
            running.shutdown()
        if runners:
            await asyncio.wait(runners, timeout=within_s)

    # -- tasks/get, tasks/update, tasks/cancel -------------------------------------------

    def handlers(self, served: Callable[[], bool]) -> dict[str, Handler]:
        """The Suite's handlers of the task methods (-32601 while ``served()`` is False)."""
        answers = {TASKS_GET: self.get, TASKS_UPDATE: self.update, TASKS_CANCEL: self.cancel}
        return {method: self._handler(answer, served) for method, answer in answers.items()}

    def _handler(self, answer: _Answer, served: Callable[[], bool]) -> Handler:
        def handler(request: Request, meta: Mapping[str, Any], assigns: Mapping[str, Any]) -> Job:
            if not served():  # a method of a capability not advertised
                raise MCPError("method_not_found", f"Method not found: {request.method}")
            task_wire.task_id_of(request.params, request.method)  # params before capabilities
            if not task_wire.declares_tasks(meta):
                raise task_wire.tasks_required()
            return HookJob(request.method, lambda channel: answer(request.params, assigns))

        return handler

    def capabilities(self, served: bool) -> dict[str, Any]:
        """The ``extensions`` a Suite advertises: the Tasks extension when ``served``."""
        return {"extensions": {task_wire.EXTENSION: {}}} if served else {}

    def check_listen(self, params: Mapping[str, Any], meta: Mapping[str, Any]) -> None:
        """``subscriptions/listen`` asking for ``taskIds`` needs the extension (-32021)."""
        notifications = params.get("notifications")
        if isinstance(notifications, Mapping) and notifications.get("taskIds") is not None:
            if not task_wire.declares_tasks(meta):
                raise task_wire.tasks_required()

    def watch(self, assigns: Mapping[str, Any]) -> TaskWatch:
        """The tasks a listen stream of this caller follows; re-read every half lease."""
        return TaskWatch(self.store, principal_of(assigns), self.lease_ms / 2000)

    async def _record(self, task_id: str, assigns: Mapping[str, Any]) -> dict[str, Any]:
        record = await self.store.get(task_id, lost=task_wire.lease_lost_error())
        if record is None or record.get("principal") != principal_of(assigns):
            raise task_wire.unknown_task(task_id)
        return record

    async def get(self, params: Mapping[str, Any], assigns: Mapping[str, Any]) -> dict[str, Any]:
        """``tasks/get``: the DetailedTask."""
        record = await self._record(task_wire.task_id_of(params, TASKS_GET), assigns)
        return {"resultType": "complete", **task_wire.detailed(record), "_meta": self._result_meta}

    async def update(self, params: Mapping[str, Any], assigns: Mapping[str, Any]) -> dict[str, Any]:
        """``tasks/update``: answers reach the waiting task; an empty ack."""
        task_id = task_wire.task_id_of(params, TASKS_UPDATE)
        responses = task_wire.update_responses(params)
        record = await self._record(task_id, assigns)
        if record["status"] == "input_required" and responses:
            after = await self.store.answer(task_id, responses, task_wire.iso_now())
            if after is not None and after["status"] != "input_required":
                await announce(self.broker, after)  # before the poke: the worker goes on
            await self._poke(task_id)
        return {"resultType": "complete", "_meta": self._result_meta}

    async def cancel(self, params: Mapping[str, Any], assigns: Mapping[str, Any]) -> dict[str, Any]:
        """``tasks/cancel``: the task is ``cancelled`` unless already terminal; an empty ack."""
        task_id = task_wire.task_id_of(params, TASKS_CANCEL)
        record = await self._record(task_id, assigns)
        if record["status"] in task_wire.TERMINAL:
            return {"resultType": "complete", "_meta": self._result_meta}
        end = TaskEnd("cancelled", message="Cancelled by the client")
        moved = await self.store.finish(task_id, end, task_wire.iso_now())
        if moved is not None:
            await announce(self.broker, moved)
            await self._poke(task_id, cancel=True)
        return {"resultType": "complete", "_meta": self._result_meta}
