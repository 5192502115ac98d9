"""A request's way to its Call, below the middleware: the Suite's dispatch.

The method table (``wiring`` builds it) picks the handler; the shared catalog is read first
(``strict_catalog``) or again on a miss (another process's change: read after write); a
task-capable job asked as a task opens one; the Call is made and counted in flight. Protocol
errors come back as error responses in the Call, never as exceptions. ``Suite.handle`` runs
the middleware chain around :meth:`Dispatch.route`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any, Final

from genmcp.call.call import Call
from genmcp.call.in_flight import InFlight
from genmcp.call.job import Asker, Handlers, Job
from genmcp.errors import MCPError
from genmcp.events import Answer
from genmcp.protocol.jsonrpc import Request, error_response, result_response
from genmcp.protocol.languages import accepted_languages
from genmcp.protocol.meta import check_meta, meta_of, request_version
from genmcp.protocol.methods import PROMPTS_GET, PROMPTS_LIST, TOOLS_CALL, TOOLS_LIST
from genmcp.readiness import Readiness
from genmcp.sync.catalog import SharedCatalog
from genmcp.sync.listen import ChangeFeed
from genmcp.sync.mail import MailRelay
from genmcp.tasks.service import TaskService

__all__ = ["Dispatch"]

_MISSES: Final = frozenset({"unknown_tool", "unknown_prompt"})
"""Refusals a shared catalog re-reads its log before answering (another process's change)."""
_STRICT: Final = frozenset({TOOLS_LIST, TOOLS_CALL, PROMPTS_LIST, PROMPTS_GET})
"""The methods that read the shared catalog's log first with ``strict_catalog=True``."""


class Dispatch:
    """Routes one Suite's requests to their handlers (see the module docstring).

    ``methods`` is the method table; the rest are the Suite's parts (``wiring``).
    ``versions`` are the protocol versions a request's ``_meta`` may name; ``strict`` reads
    the shared catalog first for the listing and calling methods; ``languages`` gives each
    Call the languages its request accepts (SEP-2792).
    """

    def __init__(
        self,
        methods: Handlers,
        *,
        readiness: Readiness,
        catalog: SharedCatalog,
        changes: ChangeFeed,
        tasks: TaskService,
        in_flight: InFlight,
        mail: MailRelay,
        versions: tuple[str, ...],
        strict: bool,
        languages: bool,
    ) -> None:
        self.methods = methods
        self._readiness, self._catalog, self._changes = readiness, catalog, changes
        self._tasks, self._in_flight, self._mail = tasks, in_flight, mail
        self._versions, self._strict, self._languages = versions, strict, languages

    def check(self, request: Request) -> dict[str, Any]:
        """Check a modern request's ``_meta``; return it (errors per the spec digest §5.5)."""
        meta = meta_of(request.params)
        request_version(meta, self._versions)
        check_meta(meta)
        return meta

    async def route(
        self,
        request: Request,
        assigns: Mapping[str, Any],
        meta: Any,
        asker: Asker | None,
        reread: bool = False,
    ) -> Call:
        """The Call of ``request``: answered at once or running. ``meta`` is its checked
        ``_meta`` (None: checked here); ``asker`` runs legacy input rounds."""
        loop = asyncio.get_running_loop()
        if self._changes.loop is not loop:  # else bound already: no call (the hot path)
            self._changes.bind(loop)
        if not self._readiness.ready:  # scale-out: other processes' runtime changes, mounts
            await self._readiness.wait()
        if self._strict and not reread and request.method in _STRICT:
            reread = await self._catalog.refresh()  # read after write, whatever the change
        try:
            if meta is None:
                meta = self.check(request)
            handler = self.methods.get(request.method)
            if handler is None:
                raise MCPError("method_not_found", f"Method not found: {request.method}")
            made = handler(request, meta, assigns)
            task = None
            if isinstance(made, Job) and made.task_capable:  # else no coroutine at all
                task = await self._tasks.opened(request, made, meta, assigns)  # a task, or None
        except MCPError as exc:
            if exc.reason in _MISSES and not reread and await self._catalog.refresh():
                return await self.route(request, assigns, meta, asker, True)  # read after write
            return Call.answered(request, Answer(error_response(request.id, exc), exc.reason))
        if not isinstance(made, Job):
            return Call.answered(request, Answer(result_response(request.id, made)))
        tool_call, in_flight = request.method == TOOLS_CALL, self._in_flight
        if task is not None:
            asker = task.asker  # a task asks through tasks/update
        again = None if asker is None else handler  # a legacy input round's retry
        call = Call(  # positional: a class called with keywords builds a kwargs dict
            request,
            made,
            meta,
            assigns,
            in_flight.forget_worker if tool_call else in_flight.forget_call,  # on_end
            again,  # factory
            asker,
            self._mail.address,  # id_prefix
            accepted_languages(meta) if self._languages else None,  # languages
        )
        (in_flight.workers if tool_call else in_flight.calls)[call.mailbox.id] = call
        if task is None:
            call.start()
            return call
        created = self._tasks.run(request, task, call)  # the CreateTaskResult, answered now
        call.start()  # the work runs on as the task, drained into its record
        return created
