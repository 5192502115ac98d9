"""The lifecycle of a request in flight: its phases and every transition, as one table.

Theory. A request that can outlive a direct answer (``tools/call``, ``prompts/get``,
``resources/read``, ``resources/list``, ``completion/complete``, ``subscriptions/listen``,
and a legacy request's input rounds) is one :class:`~genmcp.call.Call`. What can
happen to it is either its own work moving on (a hook returned ``Stream``, a final outcome,
an input round) or something from outside: the client went away (``DISCONNECT``), the
client or its session cancelled it (``CANCEL``), the server is stopping (``SHUTDOWN``).
Everything that moves a Call from one phase to another is a :class:`Trigger`, and
:data:`TRANSITIONS` says where each one leads from each phase. A pair missing from the
table is a bug in genmcp (``LifecycleError``), never silently ignored; a trigger that
changes nothing (a second disconnect) is in the table as a self-loop.

Everything that affects the phases lives here, beside the table (h11's rule): the Call
holds its ``phase`` (:class:`Held`), and only the functions below move it and answer what
the Call asks (:func:`answer`: is the answer emitted, did it end the Call; :func:`leave`:
what leaving entails, :class:`Leaving`; :func:`stream`: does the stream go on;
:func:`live`: is the client still owed an answer). ``call.py`` performs those decisions on
the Call's task and channel, reading ``phase`` only to know whether the Call is done or has
begun. (Functions over the Call's own slot rather than an object per Call: a ``tools/call``
allocates nothing for its phase.)

What each transition emits (the Call does it, the lifecycle only decides):

- ``ANSWER`` emits the ``Answer`` response; ``CANCEL`` emits ``Ended`` (the stream closes
  with no response, as a cancelled request gets none); ``SHUTDOWN`` emits an ``Answer``
  error (the listen stream: its ``complete`` result) so no client waits for an answer that
  cannot come; ``DISCONNECT`` emits nothing (nobody is listening).
- Leaving ``RUNNING`` for ``ABANDONED`` cancels an ``async`` hook at once
  (:attr:`Leaving.CANCELS`), once the task has started; a plain ``def`` hook runs to its end
  in its thread and its outcome is discarded. An input round (``ASKING``) is always
  cancelled. Leaving ``STREAMING`` for ``CLOSING`` wakes the mailbox and runs
  ``handle_close`` once.
- ``DONE`` is reached exactly once, and then the Call leaves the Suite's live set.

Pure: no asyncio, nothing from genmcp.
"""

from __future__ import annotations

from enum import Enum
from typing import Final, Protocol

__all__ = [
    "GONE",
    "LIVE",
    "TRANSITIONS",
    "Held",
    "Leaving",
    "LifecycleError",
    "Phase",
    "Trigger",
    "Work",
    "answer",
    "leave",
    "live",
    "move",
    "next_phase",
    "stream",
    "streaming",
]


class Phase(Enum):
    """Where a Call is."""

    __hash__ = object.__hash__  # members are singletons: identity hashing, in C (hot path)

    RUNNING = "running"
    """A first hook (``call``, ``get``, ``read`` ...) runs, or the request is being set up."""
    STREAMING = "streaming"
    """The hook returned ``Stream``: mailbox messages go to ``handle_message`` one by one."""
    ASKING = "asking"
    """A legacy input round: the client answers server-initiated requests."""
    CLOSING = "closing"
    """The client left (or the server stops) while streaming: ``handle_close`` runs."""
    ABANDONED = "abandoned"
    """The client left during a hook or a round: the work winds down, its outcome dropped."""
    DONE = "done"
    """Finished: the response (or nothing) was emitted; the Call holds nothing any more."""


class Trigger(Enum):
    """What moves a Call."""

    __hash__ = object.__hash__  # as Phase

    STREAM = "stream"
    """A hook returned ``Stream(state)``."""
    ANSWER = "answer"
    """A final outcome: a result, an error, a crash (answered -32603)."""
    ASK = "ask"
    """A legacy request needs input: the server asks the client."""
    ANSWERED = "answered"
    """The client answered every server request: the hook runs again."""
    DISCONNECT = "disconnect"
    """The client went away."""
    CANCEL = "cancel"
    """``notifications/cancelled`` for this request, or its legacy session ended."""
    SHUTDOWN = "shutdown"
    """The server is stopping."""
    CLOSED = "closed"
    """``handle_close`` returned, or the abandoned work ended."""


class LifecycleError(RuntimeError):
    """Raised when a Call is moved by a trigger its phase does not allow (a genmcp bug)."""


_P, _T = Phase, Trigger
GONE: Final = (_T.DISCONNECT, _T.CANCEL, _T.SHUTDOWN)
"""The triggers from outside: the client left or cancelled, the server stops."""

TRANSITIONS: Final[dict[tuple[Phase, Trigger], Phase]] = {
    # the work moves on
    (_P.RUNNING, _T.STREAM): _P.STREAMING,
    (_P.RUNNING, _T.ANSWER): _P.DONE,
    (_P.RUNNING, _T.ASK): _P.ASKING,
    (_P.STREAMING, _T.STREAM): _P.STREAMING,
    (_P.STREAMING, _T.ANSWER): _P.DONE,
    (_P.STREAMING, _T.ASK): _P.ASKING,
    (_P.ASKING, _T.ANSWERED): _P.RUNNING,
    (_P.ASKING, _T.ANSWER): _P.DONE,  # no answer in time, the client refused, too many rounds
    # the client leaves, cancels, or the server stops
    **{(_P.RUNNING, gone): _P.ABANDONED for gone in GONE},
    **{(_P.ASKING, gone): _P.ABANDONED for gone in GONE},
    **{(_P.STREAMING, gone): _P.CLOSING for gone in GONE},
    # winding down: what the abandoned work still does is dropped
    (_P.ABANDONED, _T.STREAM): _P.CLOSING,  # a thread hook returned Stream: close it at once
    (_P.ABANDONED, _T.ANSWER): _P.ABANDONED,
    (_P.ABANDONED, _T.ASK): _P.ABANDONED,
    (_P.ABANDONED, _T.CLOSED): _P.DONE,
    (_P.CLOSING, _T.CLOSED): _P.DONE,
    (_P.CLOSING, _T.ANSWER): _P.DONE,  # the message being handled ended the call: no close
    # late news changes nothing
    **{(_P.ABANDONED, gone): _P.ABANDONED for gone in GONE},
    **{(_P.CLOSING, gone): _P.CLOSING for gone in GONE},
    **{(_P.DONE, gone): _P.DONE for gone in GONE},
}
"""(phase, trigger) -> next phase. Every pair not listed is a ``LifecycleError``."""


def next_phase(phase: Phase, trigger: Trigger) -> Phase:
    """Where ``trigger`` moves a Call in ``phase``."""
    try:
        return TRANSITIONS[phase, trigger]
    except KeyError:
        raise LifecycleError(f"a call in phase {phase.value} cannot take {trigger.value}") from None


LIVE: Final = frozenset((_P.RUNNING, _P.STREAMING, _P.ASKING))
"""The phases in which the Call still owes its client an answer."""

# Members read on every call, bound once: on Python 3.11 a read such as ``Phase.DONE`` goes
# through EnumType's ``__getattr__`` hook (about 1k instructions); a module name does not.
_DONE: Final = _P.DONE
_ANSWER: Final = _T.ANSWER


class Leaving(Enum):
    """What an outside trigger (``GONE``) asks of the Call, besides its emission."""

    STAYS = "stays"
    """Nothing: the Call is done, or already winding down."""
    CLOSES = "closes"
    """Close the channel and the mailbox (a stream waiting for a message wakes)."""
    CANCELS = "cancels"
    """As ``CLOSES``, and cancel the task: its ``async`` hook, or its input round, stops now."""


class Work(Protocol):
    """What leaving asks of the Call's work: may its first hook be cancelled?"""

    @property
    def cancellable(self) -> bool:
        """True for an ``async def`` hook; a thread hook runs to its end."""
        ...


class Held(Protocol):
    """What holds one request's phase: a Call. Only the functions below write ``phase``.

    ``started`` is set when the Call's task takes its first step (a task cancelled before
    it never runs its ``finally``, so it is not cancelled: it ends before doing anything).
    """

    phase: Phase
    started: bool


def live(held: Held) -> bool:
    """True while the client is owed an answer (:data:`LIVE`)."""
    return held.phase in LIVE


def streaming(held: Held) -> bool:
    """True while mailbox messages go to ``handle_message``."""
    return held.phase is Phase.STREAMING


def move(held: Held, trigger: Trigger) -> bool:
    """Take ``trigger``; True when this move ended the Call (it reached ``DONE`` now)."""
    before = held.phase
    after = TRANSITIONS.get((before, trigger))
    held.phase = after = next_phase(before, trigger) if after is None else after
    return after is _DONE and before is not _DONE


def answer(held: Held) -> tuple[bool, bool]:
    """Take ``ANSWER`` (a final outcome): whether the answer is emitted (the client is still
    owed it), and whether this ended the Call."""
    before = held.phase
    after = TRANSITIONS.get((before, _ANSWER))
    held.phase = after = next_phase(before, _ANSWER) if after is None else after
    return before in LIVE, after is _DONE and before is not _DONE


def leave(held: Held, trigger: Trigger, work: Work) -> Leaving:
    """Take the outside ``trigger``; what the Call must do (``work``: may its first hook be
    cancelled?). Leaving never ends a Call by itself: the work winds down, then ``CLOSED``
    ends it."""
    before = held.phase
    if before is Phase.DONE:
        return Leaving.STAYS  # late news (the relay closing after the answer): the hot path
    move(held, trigger)
    after = held.phase
    if after is before:
        return Leaving.STAYS  # already winding down
    if after is Phase.ABANDONED and held.started:
        if before is Phase.ASKING or work.cancellable:
            return Leaving.CANCELS
    return Leaving.CLOSES


def stream(held: Held) -> bool:
    """A hook returned ``Stream``: True when the stream goes on, False when it must close now
    (the client left during the hook: ``handle_close`` runs at once)."""
    if held.phase is Phase.CLOSING:
        return False
    move(held, Trigger.STREAM)
    return held.phase is Phase.STREAMING
