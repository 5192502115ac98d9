"""The one request in flight: a :class:`Call` drives a :class:`Job` and emits typed events.

Every request the Suite answers is a Call. Most are answered at once (``tools/list``, an
unknown tool): :meth:`Call.answered` holds the ``Answer`` event and nothing else. The others
run their :class:`Job` in their own asyncio task with a Channel (meta, assigns, mailbox,
outbox): ``start`` runs the first hook (``call``, ``get``, ``read`` ...); a ``Stream`` outcome
hands each mailbox message to ``message`` until a final outcome; the client leaving while
streaming runs ``close`` (``handle_close``) once. A legacy request may take input rounds: an
``input_required`` result is not the answer, the :class:`Asker` sends its nested requests as
server requests, and the Job is made again from the retried request.

Phases, transitions and every decision that depends on them are ``lifecycle.py``'s (its
functions move the Call's ``phase``); this module performs what they decide on the Call's
task and channel.
``response_headers`` are HTTP headers the middleware adds to the answer (the quota fields of
``middleware.ratelimit``): the HTTP transport writes them, the others have none to write.
The events (``genmcp.events``) go on the Outbox the transport drains through the relay; the
``Answer`` is emitted after the Call left the Suite's live set, so a client that read the
response sees ``live_workers`` without it.

Imports asyncio and genmcp's core modules; never a web framework.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import secrets
import sys
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, final
from typing import Final as Constant

from genmcp.call import lifecycle
from genmcp.call.eager import eager_task
from genmcp.call.job import Asker, CallObserver, Handler, Job, plain_result
from genmcp.call.lifecycle import Leaving, Phase, Trigger
from genmcp.channel import Channel, Mailbox
from genmcp.errors import MCPError, internal_error
from genmcp.events import ENDED, Answer
from genmcp.outbox import Outbox
from genmcp.outcomes import Stream
from genmcp.protocol.jsonrpc import Request, error_response, result_response
from genmcp.protocol.languages import with_content_language
from genmcp.storage import Subscription

__all__ = ["Call", "final_of"]

log = logging.getLogger("genmcp")

_ID_PREFIX: Constant = secrets.token_hex(4)
_ids = itertools.count(1)  # the process's: every Suite shares _ID_PREFIX (tests/layout)


# Members read on every call, bound once: on Python 3.11 a read such as ``Phase.DONE`` goes
# through EnumType's ``__getattr__`` hook (about 1k instructions); a module name does not.
_RUNNING: Constant = Phase.RUNNING
_DONE: Constant = Phase.DONE


def _next_id(prefix: str | None = None) -> str:
    """A call id unique across processes (random prefix) and cheap (a counter)."""
    return f"{prefix or _ID_PREFIX}-{next(_ids):x}"


class _Answered(Job):
    """The job of a Call answered at once: it never runs."""

    label = "answered"

    async def start(self, channel: Channel) -> Any:
        raise AssertionError("an answered call never starts")


def final_of(
    request_id: Any, label: str, produce: Callable[..., dict[str, Any]], *args: Any
) -> Answer:
    """The ``Answer`` of the result ``produce(*args)`` makes: the one place failures become
    error responses (``MCPError`` as it is; anything else logged and answered -32603)."""
    try:
        return Answer(result_response(request_id, produce(*args)))
    except MCPError as exc:
        return Answer(error_response(request_id, exc), exc.reason)
    except Exception:
        log.exception("%s failed", label)
        failure = internal_error(label)
        return Answer(error_response(request_id, failure), failure.reason)


@final
class Call:
    """One request in flight (see the module docstring); built by the Suite only."""

    __slots__ = (
        "_asker",
        "_assigns",
        "_factory",
        "_job",
        "_meta",
        "_observers",
        "_on_end",
        "_watched",
        "_watcher",
        "_when_done",
        "channel",
        "mailbox",
        "outbox",
        "phase",
        "request",
        "response_headers",
        "started",
        "task",
    )

    def __init__(
        self,
        request: Request,
        job: Job,
        meta: dict[str, Any],
        assigns: Mapping[str, Any],
        on_end: Callable[[Call], None],
        factory: Handler | None = None,  # a legacy input round's retry: (request, meta, assigns)
        asker: Asker | None = None,
        id_prefix: str | None = None,  # scale-out: names the Suite's mail address (mail.py)
        languages: tuple[str, ...] | None = None,  # SEP-2792 on: the caller's (None: off)
    ) -> None:
        loop = asyncio.get_running_loop()
        self.request = request
        self.outbox = Outbox(loop)
        self.mailbox = Mailbox(loop, f"{id_prefix or _ID_PREFIX}-{next(_ids):x}")  # _next_id
        # positional: a class called with keywords builds (and unpacks) a kwargs dict
        self.channel = Channel(meta, assigns, self.outbox, self.mailbox, languages)
        self.phase = _RUNNING  # moved by the lifecycle's functions only
        self.started = False
        self.response_headers: tuple[tuple[str, str], ...] = ()  # HTTP: what middleware adds
        self._job, self._meta, self._on_end = job, meta, on_end
        self._factory, self._asker, self._assigns = factory, asker, assigns
        self._observers: tuple[CallObserver, ...] = ()
        self._when_done: tuple[Callable[[], None], ...] = ()
        self.task: asyncio.Task[None] | None = None  # made by start()
        self._watcher: asyncio.Task[None] | None = None
        self._watched: Subscription | None = None

    def start(self) -> None:
        """Begin the work in the Call's own task (the Suite calls it once it holds the Call).

        The task starts eagerly: its first step runs now, as that task, so a call that
        answers in it (most do) is done when the Suite returns it, and its reader writes the
        answer with no loop turn (3 % of a call's instructions on uvloop, 7 % on asyncio's
        loop). On 3.11, ``call.eager`` does what 3.12's ``eager_start`` does; the task, made
        first, then ends on the next turn with nothing left to run.
        """
        loop, name = asyncio.get_running_loop(), f"genmcp:{self._job.label}"
        if sys.version_info >= (3, 12):
            self.task = asyncio.Task(self._run(), loop=loop, name=name, eager_start=True)
        else:  # the same, done by hand (call.eager)
            self.task = eager_task(loop, self._run(), name)

    @classmethod
    def answered(cls, request: Request, final: Answer) -> Call:
        """A request answered at once: its ``Answer`` waits on the outbox, nothing runs."""
        call = cls.__new__(cls)
        loop = asyncio.get_running_loop()
        call.request, call.outbox = request, Outbox(loop)
        call.mailbox = Mailbox(loop, _next_id())
        call.mailbox.close()
        call.channel = Channel({}, {}, call.outbox, call.mailbox)  # (positional: no kwargs dict)
        call.channel._close()
        call.phase, call.started, call.task = Phase.DONE, True, None
        call.response_headers = ()
        call._watcher, call._watched = None, None
        call._job, call._meta, call._factory, call._asker = _ANSWERED, {}, None, None
        call._assigns = {}
        call._on_end, call._observers, call._when_done = _ignore, (), ()
        call.outbox.put(final)
        return call

    @property
    def id(self) -> str:
        """The call id, also ``channel.mailbox.id``."""
        return self.mailbox.id

    @property
    def answers_now(self) -> bool:
        """True when the next event its reader takes is its ``Answer``, waiting: the reader
        writes it as JSON, no stream (most calls: answered in their eager first step)."""
        events = self.outbox._events
        return bool(events) and type(events[0]) is Answer

    @property
    def drains(self) -> bool:
        """Whether, at server shutdown, this Call may run on to its own answer (its job's)."""
        return self._job.drains

    def observe(self, observer: CallObserver) -> None:
        """Show ``observer`` every event of this Call, then tell it the Call is done.

        A Call done already (answered at once, or in its eager first step) has its last event
        waiting: it is shown, then ``done`` comes at once. Otherwise ``done`` comes on the loop
        turn after the Call reaches DONE, so the ``Answer`` emitted right after is shown first.
        """
        self.outbox.tap(observer.event)
        if self.phase is Phase.DONE:
            observer.done()
        else:
            self._observers = (*self._observers, observer)

    def when_done(self, callback: Callable[[], None]) -> None:
        """Run ``callback`` the moment the Call is done, or at once if it is already.

        Synchronous, in the step that ends the Call (before its task's done callbacks, a
        loop turn later): for bookkeeping that must not outlive the Call by a turn.
        """
        if self.phase is Phase.DONE:
            callback()
        else:
            self._when_done = (*self._when_done, callback)

    # -- what happens from outside ------------------------------------------------------

    def disconnect(self) -> None:
        """The client went away: stop the work; nothing more is sent."""
        leaving = lifecycle.leave(self, Trigger.DISCONNECT, self._job)
        if leaving is not Leaving.STAYS:  # (the relay closing after the answer: the hot path)
            self._left(Trigger.DISCONNECT, leaving)

    def cancel(self) -> None:
        """The client cancelled the request: stop the work; the stream ends with no response."""
        self._leave(Trigger.CANCEL)

    def shutdown(self) -> None:
        """The server stops: answer now (an error, or the job's own end), then stop the work."""
        self._leave(Trigger.SHUTDOWN)

    async def wait(self) -> None:
        """Return once the Call is done (``handle_close`` ran, a thread hook returned)."""
        if self.task is not None and not self.task.done():
            await asyncio.wait([self.task])

    def _leave(self, trigger: Trigger) -> None:
        leaving = lifecycle.leave(self, trigger, self._job)
        if leaving is not Leaving.STAYS:
            self._left(trigger, leaving)

    def _left(self, trigger: Trigger, leaving: Leaving) -> None:
        """Perform what leaving decided: close, emit what ``trigger`` emits, cancel."""
        self.channel._close()
        if trigger is Trigger.CANCEL:
            self.outbox.put(ENDED)
        elif trigger is Trigger.SHUTDOWN:
            self.outbox.put(self._shutdown_final())
        self.mailbox.close()  # wakes a stream waiting for its next message
        if leaving is Leaving.CANCELS:
            # no task yet: left from inside its own eager first step, which runs as that task
            task = self.task if self.task is not None else asyncio.current_task()
            assert task is not None
            task.cancel()

    def _shutdown_final(self) -> Answer:
        result = self._job.shutdown_result()
        if result is not None:
            return Answer(result_response(self.request.id, result))
        failure = MCPError(
            "shutting_down", "Server shutting down: the request was stopped before it answered"
        )
        return Answer(error_response(self.request.id, failure), failure.reason)

    def watch(self, subscription: Subscription) -> None:
        """Cancel the call when a message arrives on ``subscription`` (closed with the call)."""
        if self.phase is Phase.DONE or self._watcher is not None:
            subscription.close()
            return
        self._watched = subscription
        self._watcher = asyncio.get_running_loop().create_task(
            self._watch(subscription), name="genmcp:cancel-watch"
        )

    async def _watch(self, subscription: Subscription) -> None:
        await subscription.receive()
        self.cancel()

    # -- the work -----------------------------------------------------------------------

    def _move(self, trigger: Trigger) -> None:
        if lifecycle.move(self, trigger):
            self._release()

    def _release(self) -> None:
        self.channel._closed = True  # Channel._close inline: no frame (the hot path)
        self.mailbox.close()
        if self._watcher is not None:
            self._watcher.cancel()
        if self._watched is not None:  # closed here: a watcher cancelled early never runs
            self._watched.close()
        try:
            self._job.finish()
        finally:
            self._on_end(self)
            callbacks, self._when_done = self._when_done, ()  # no cycle keeps the Call alive
            for callback in callbacks:
                callback()
            if self._observers:  # (no task yet: ended in its eager first step, on the loop)
                task = self.task
                loop = task.get_loop() if task is not None else asyncio.get_running_loop()
                for observer in self._observers:
                    loop.call_soon(observer.done)

    def _wound_down(self) -> None:
        # the task ends without an answer: abandoned, closed, or cancelled from outside
        if lifecycle.live(self):
            self._leave(Trigger.DISCONNECT)
        if self.phase is not Phase.DONE:
            self._move(Trigger.CLOSED)

    async def _run(self) -> None:
        self.started = True
        try:
            if self.phase is not _RUNNING:
                return  # left before the first step: nothing ran, nothing to undo
            final = await self._drive()
            if final is not None:
                self._answer(final)
        except asyncio.CancelledError as exc:
            # abandoned: what it had to say was said when it was left
            if self.channel._dependencies is not None:
                await self._teardown_after(exc)
        except Exception as exc:
            log.exception("%s: the call itself failed", self._job.label)
            if self.channel._dependencies is not None:
                await self._teardown_after(exc)
        finally:
            if self.phase is not _DONE:
                self._wound_down()

    def _answer(self, final: Answer) -> None:
        emit, ended = lifecycle.answer(self)
        if ended:
            self._release()
        if emit:
            self.outbox.put(final)

    async def _drive(self) -> Answer | None:
        try:
            outcome = await self._job.start(self.channel)
        except Exception as exc:  # the Job turns it into the answer
            outcome = exc
        rounds = 0
        while True:
            state: Any = None
            while isinstance(outcome, Stream):
                state = outcome.state
                if not lifecycle.stream(self):
                    break  # the client left during the hook: close at once
                message = await self.mailbox.receive()
                if not lifecycle.streaming(self):
                    break
                outcome = await _step(self._job.message, message, self.channel, state)
                message = None  # not held while waiting for the next (a listen stream's)
            if isinstance(outcome, Stream):
                await self._close_stream(state)
                return None
            if self.channel._dependencies is not None:  # channel.resolve in a class hook
                outcome = await self._teardown(outcome)
            final = self._final(self._job, outcome)
            if self._asker is None or not _needs_input(final) or not lifecycle.live(self):
                return final
            rounds += 1
            retried = await self._round(final, rounds, self._asker)
            if isinstance(retried, Answer):
                return retried
            outcome = await _step(self._job.start, self.channel)

    def _final(self, job: Job, outcome: Any) -> Answer:
        final = final_of(self.request.id, job.label, job.result, outcome)
        language = self.channel._content_language  # SEP-2792: what the tool said it speaks
        if language is None:
            return final
        return Answer(with_content_language(final.response, language), final.reason)

    async def _close_stream(self, state: Any) -> None:
        try:
            await self._job.close(self.channel, state)
        except Exception:
            log.exception("%s: handle_close() raised", self._job.label)
        if self.channel._dependencies is not None:
            await self._teardown_after(None)
        self._move(Trigger.CLOSED)

    async def _teardown(self, outcome: Any) -> Any:
        """Tear down the dependencies the Call's hooks resolved with ``channel.resolve``, in
        the Call's task, the hook's exception (when ``outcome`` is one) thrown in; the
        outcome, or what a teardown raised instead (the answer becomes an error)."""
        try:
            await self.channel._close_dependencies(
                outcome if isinstance(outcome, BaseException) else None
            )
        except Exception as exc:
            return exc
        return outcome

    async def _teardown_after(self, error: BaseException | None) -> None:
        """Tear down with no answer to change: a teardown failure is logged."""
        failed = await self._teardown(error)
        if failed is not error:
            log.error("%s: a dependency's teardown raised", self._job.label, exc_info=failed)

    async def _round(self, final: Answer, rounds: int, asker: Asker) -> Answer | None:
        """One legacy input round; the Answer that ends the call, or None to run again."""
        request = self.request
        if rounds > asker.max_rounds:
            failure = internal_error(
                f"{request.method}: still needed input after {asker.max_rounds} rounds"
            )
            return Answer(error_response(request.id, failure), failure.reason)
        result = final.response["result"]
        params = {**request.params, "_meta": self._meta}
        requests = result.get("inputRequests") or {}
        try:
            if requests:
                self._move(Trigger.ASK)
                params["inputResponses"] = await asker.ask(requests, self.channel._send)
                self._move(Trigger.ANSWERED)
            else:  # state only: "retry later"
                await asyncio.sleep(min(0.05 * 2**rounds, 2.0))
        except MCPError as exc:
            return Answer(error_response(request.id, exc), exc.reason)
        if "requestState" in result:
            params["requestState"] = result["requestState"]
        retry = Request(request.id, request.method, params)
        assert self._factory is not None
        try:
            made: Any = self._factory(retry, self._meta, self._assigns)
        except Exception as exc:
            made = exc
        if isinstance(made, Job):
            self._job = made
            return None
        return final_of(request.id, request.method, plain_result, made)


_ANSWERED: Constant = _Answered()


def _ignore(call: Call) -> None:
    return None


def _needs_input(final: Answer) -> bool:
    result = final.response.get("result")
    if type(result) is not dict and not isinstance(result, Mapping):  # dict: no ABC check
        return False
    return result.get("resultType") == "input_required"


async def _step(hook: Callable[..., Awaitable[Any]], *args: Any) -> Any:
    """Run one hook; an exception it raises is its outcome (the Job turns it into an answer)."""
    try:
        return await hook(*args)
    except asyncio.CancelledError:
        raise
    except Exception as exc:
        return exc
