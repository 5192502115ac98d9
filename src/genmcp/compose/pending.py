"""An upstream call to a 2025 session server, held open across the outer client's input rounds.

A 2025 server asks for input in the middle of a call: ``elicitation/create`` (or
``sampling/createMessage``, ``roots/list``) arrives as a request on the call's stream and
the call waits for its answer. The outer client of a proxy answers input in rounds instead
(a 2026-07-28 ``input_required`` result and a retry; a 2025 session's own server requests,
driven by the outer Suite's asker), so :class:`Pending` bridges the two:

* the upstream call runs in its own task, with ``on_input`` = :meth:`Pending.ask`;
* the outer call waits (:meth:`Pending.next`) for whichever comes first: the upstream's
  answer (the call's outcome), or an upstream request, which ends this outer round with
  ``InputRequired({"upstream-N": request}, {"pending": id})``;
* the retry carries the answer and that (sealed) state: :meth:`Pending.resume` hands the
  answer to the waiting upstream request and waits again.

The upstream call lives in this process: the retry must reach it (one proxy process, or
sticky routing); one that does not find it is answered with an error asking to call again.
An outer client that never retries leaves the call waiting ``INPUT_WAIT_S`` at most; it is
then cancelled upstream. Cancelling the outer call cancels the upstream one.
"""

from __future__ import annotations

import asyncio
import itertools
import secrets
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Final

from genmcp.channel import Channel
from genmcp.outcomes import Error, InputRequired

__all__ = ["INPUT_WAIT_S", "Pending", "PendingCalls"]

INPUT_WAIT_S: Final = 300.0
"""How long an upstream call waits for the outer client's answer before it is cancelled."""
STATE_KEY: Final = "pending"
"""The key of a pending call's id in the outer ``requestState``."""


class Pending:
    """One upstream call waiting, or able to wait, for the outer client's input."""

    def __init__(self, calls: PendingCalls, call_id: str) -> None:
        self._calls, self.id = calls, call_id
        self.channel: Channel | None = None  # the outer round's, for progress and logs
        self._events: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()
        self._answers: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._keys = itertools.count(1)
        self._task: asyncio.Task[None] | None = None
        self._expiry: asyncio.TimerHandle | None = None

    def start(self, work: Callable[[Pending], Awaitable[Any]]) -> None:
        """Run the upstream call ``work(self)``; its outcome ends the last round."""

        async def run() -> None:
            try:
                outcome = await work(self)
            except Exception as exc:  # not expected: send() turns failures into outcomes
                outcome = Error(f"the upstream call failed: {exc}")
            self._events.put_nowait(("done", outcome))

        self._task = asyncio.get_running_loop().create_task(run(), name=f"upstream {self.id}")

    async def ask(self, request: Mapping[str, Any]) -> dict[str, Any]:
        """The ``on_input`` of the upstream call: wait for the outer client's answer."""
        key = f"upstream-{next(self._keys)}"
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._answers[key] = future
        self._events.put_nowait(("ask", (key, dict(request))))
        return await future

    async def next(self, channel: Channel) -> Any:
        """Wait for the upstream's outcome, or its next request (then ``InputRequired``)."""
        self.channel = channel
        try:
            kind, value = await self._events.get()
        except asyncio.CancelledError:  # the outer call was cancelled: so is the upstream one
            self.cancel()
            raise
        if kind == "done":
            self._calls.forget(self)
            return value
        key, request = value
        self._calls.hold(self)
        return InputRequired({key: request}, {STATE_KEY: self.id})

    def resume(self, responses: Mapping[str, Any] | None) -> bool:
        """Hand the outer client's answers to the upstream requests waiting; False when
        none of them is answered."""
        answered = False
        for key, answer in (responses or {}).items():
            future = self._answers.pop(key, None)
            if future is not None and not future.done() and isinstance(answer, Mapping):
                future.set_result(dict(answer))
                answered = True
        return answered

    def cancel(self) -> None:
        """Stop the upstream call (cancelling it upstream) and forget it."""
        self._calls.forget(self)
        if self._task is not None:
            self._task.cancel()

    def _expire_in(self, seconds: float) -> None:
        if self._expiry is not None:
            self._expiry.cancel()
        self._expiry = asyncio.get_running_loop().call_later(seconds, self.cancel)

    def _unexpire(self) -> None:
        if self._expiry is not None:
            self._expiry.cancel()
            self._expiry = None


class PendingCalls:
    """The upstream calls of one mount that wait for the outer client's next round."""

    def __init__(self, wait_s: float = INPUT_WAIT_S) -> None:
        self.wait_s = wait_s
        self._held: dict[str, Pending] = {}

    def __len__(self) -> int:
        return len(self._held)

    def new(self) -> Pending:
        """A pending call, not held yet (it is once it asks)."""
        return Pending(self, secrets.token_urlsafe(12))

    def take(self, state: Any) -> Pending | None:
        """The held call a retry's ``requestState`` names (no longer held), or None."""
        call_id = state.get(STATE_KEY) if isinstance(state, Mapping) else None
        found = self._held.pop(call_id, None) if isinstance(call_id, str) else None
        if found is not None:
            found._unexpire()
        return found

    def names_one(self, state: Any) -> bool:
        """Whether a retry's state is a pending call's (held here or not)."""
        return isinstance(state, Mapping) and isinstance(state.get(STATE_KEY), str)

    def hold(self, pending: Pending) -> None:
        self._held[pending.id] = pending
        pending._expire_in(self.wait_s)

    def forget(self, pending: Pending) -> None:
        self._held.pop(pending.id, None)
        pending._unexpire()

    def cancel_all(self) -> None:
        """At close: cancel every held call."""
        for pending in list(self._held.values()):
            pending.cancel()
