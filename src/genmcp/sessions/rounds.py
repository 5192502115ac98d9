"""One flow for both eras: a legacy session's input rounds, and its broker topics.

(Cancellations travel on one process-wide subscription: ``legacy.signals``.)

A tool written for 2026-07-28 answers a request that needs user input, an LLM sample or the
client's roots with ``InputRequired(requests, state)``; the Suite turns that into an
``input_required`` result with a sealed ``requestState``. A modern client retries by itself.
For a legacy (2025) session the Call retries on the client's behalf (``genmcp.call.call``),
asking through :class:`InputRounds`:

1. each nested request goes out as a server-initiated JSON-RPC request, shaped for the
   session's revision, on the request's own response stream;
2. the answers the client POSTs back (to any process) arrive through the ``Broker``;
3. the Call makes its job again with ``inputResponses`` and the ``requestState``.

A client that answers with a JSON-RPC error refuses: an elicitation is then ``cancel``led
(what a modern client sends when the user dismisses the form), any other request ends the
call with a client-fault error (-32600). An answer the server cannot use (not JSON, not a
valid JSON-RPC response) counts as such an error answer (``legacy.answers``): while a round
waits, its request ids are in the session's ``ASKED`` set, so a POST to any process can
find them. No answer within ``answer_timeout_s`` ends the call with -32001.

Imports asyncio and genmcp's errors, storage and protocol; never a web framework.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final, final

from genmcp.errors import MCPError
from genmcp.protocol import legacy
from genmcp.protocol.jsonrpc import RequestId
from genmcp.protocol.methods import ELICITATION_CREATE
from genmcp.sessions.sessions import Session
from genmcp.storage import Broker, SessionRegistry
from genmcp.storage.guard import StorageUnavailable

__all__ = ["ASKED", "Asking", "InputRounds", "end_topic", "outstanding", "reply_topic"]

log = logging.getLogger("genmcp")

_ELICIT = ELICITATION_CREATE
ASKED: Final = "asked"
"""Session set field of the server requests waiting for an answer: ``"<id> <deadline>"``."""


def reply_topic(session: str, request_id: RequestId) -> str:
    """Where a client's answer to the server request ``request_id`` is published."""
    return f"legacy/{session}/reply/{json.dumps(request_id)}"


def end_topic(session: str) -> str:
    """Where the end of a session (``DELETE``) is published."""
    return f"legacy/{session}/end"


def outstanding(members: Iterable[str], now: float) -> list[str]:
    """The ids of the server requests in ``ASKED`` members whose round has not timed out.

    The deadline (wall clock, shared by every process) drops a member that a process which
    died could not remove.
    """
    waiting = []
    for member in members:
        request_id, _, deadline = member.rpartition(" ")
        try:
            if float(deadline) > now:
                waiting.append(request_id)
        except ValueError:
            continue
    return sorted(waiting)


@final
@dataclass(frozen=True, slots=True)
class Asking:
    """What every input round of one legacy server shares (made once, not per call).

    Args:
        broker: where the client's answers are published (``reply_topic``).
        registry: where the requests waiting for an answer are listed (``ASKED``).
        max_rounds: how many input rounds one request may take.
        answer_timeout_s: how long to wait for all the answers of one round.
    """

    broker: Broker
    registry: SessionRegistry
    max_rounds: int
    answer_timeout_s: float


@final
class InputRounds:
    """Asks a legacy session's client the nested requests of one call (a Call's ``Asker``).

    Made for every legacy call (three slots: the hot path), used only by a call that needs
    input. ``session`` gives the key, the revision (the shape of the server requests) and
    the time it has left (the registry's expiry, read when a round lists its requests);
    ``method`` is the request being answered (for messages).
    """

    __slots__ = ("_asking", "_method", "_session", "max_rounds")

    def __init__(self, asking: Asking, session: Session, method: str) -> None:
        self._asking, self._session, self._method = asking, session, method
        self.max_rounds = asking.max_rounds

    async def ask(
        self, requests: Mapping[str, Mapping[str, Any]], send: Callable[[dict[str, Any]], bool]
    ) -> dict[str, Any]:
        """Send every nested request; the client's answers by key."""
        asked = {f"genmcp-{secrets.token_urlsafe(12)}": key for key in requests}
        asking, session = self._asking, self._session
        topics = {reply_topic(session.key, rid): rid for rid in asked}
        subscription = asking.broker.subscribe(*topics)
        deadline = f"{time.time() + asking.answer_timeout_s:.3f}"
        waiting = {rid: f"{rid} {deadline}" for rid in asked}  # ASKED members, until answered
        try:
            await subscription.ready()  # the answers may be POSTed to another process
            await self._list(asking.registry.add, waiting.values())
            for rid, key in asked.items():
                send(legacy.server_request(rid, requests[key], session.version))
            answers: dict[str, Any] = {}
            async with asyncio.timeout(asking.answer_timeout_s):
                while len(answers) < len(asked):
                    topic, message = await subscription.receive()
                    rid = topics[topic]
                    key = asked[rid]
                    if key not in answers:
                        answers[key] = _answer(key, requests[key].get("method"), message)
                        await self._list(asking.registry.discard, [waiting.pop(rid)])
            return answers
        except TimeoutError:
            raise MCPError(
                "input_timeout",
                f"The client did not answer the server requests of {self._method} within "
                f"{asking.answer_timeout_s:g} s",
            ) from None
        finally:
            subscription.close()
            try:
                await self._list(asking.registry.discard, waiting.values())
            except StorageUnavailable:  # left in ASKED until its deadline passes
                log.warning("could not unlist the unanswered server requests of a legacy session")

    async def _list(self, change: Callable[..., Any], members: Iterable[str]) -> None:
        """Add or discard members of ``ASKED`` (all at once: one round trip of time)."""
        key, ttl_s = self._session.key, self._session.ttl_s
        await asyncio.gather(*(change(key, ASKED, m, ttl_s) for m in members))


def _answer(key: str, method: Any, message: Any) -> dict[str, Any]:
    """The input response in a client's answer, as published: ``{"result", "error"}``."""
    if not isinstance(message, Mapping):
        raise MCPError("input_refused", f"Unexpected answer to {method} {key!r}")
    error = message.get("error")
    if isinstance(error, Mapping):
        if method == _ELICIT:  # the user dismissed the form: what a modern client says
            return {"action": "cancel"}
        what = "sent an unusable answer to" if message.get("unusable") else "refused"
        raise MCPError(
            "input_refused",
            f"The client {what} {method} {key!r}: {error.get('message')}",
            {"inputRequest": key, "error": dict(error)},
        )
    return legacy.input_response(method, message.get("result"))
