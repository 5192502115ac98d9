"""One flow for both eras: a legacy session's input rounds, and its broker topics.

(Cancellations travel on one process-wide subscription: ``legacy.signals``.)

A tool written for 2026-07-28 answers a request that needs user input, an LLM sample or the
client's roots with ``InputRequired(requests, state)``; the Suite turns that into an
``input_required`` result with a sealed ``requestState``. A modern client retries by itself.
For a legacy (2025) session the Call retries on the client's behalf (``genmcp._suite.call``),
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
from typing import Any, Final, final

from genmcp.errors import MCPError
from genmcp.protocol import legacy
from genmcp.protocol.jsonrpc import RequestId
from genmcp.protocol.methods import ELICITATION_CREATE
from genmcp.storage import Broker, SessionRegistry
from genmcp.storage.guard import StorageUnavailable

__all__ = ["ASKED", "InputRounds", "end_topic", "outstanding", "reply_topic"]

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
class InputRounds:
    """Asks a legacy session's client the nested requests of one call (a Call's ``Asker``).

    Args:
        broker: where the client's answers are published (``reply_topic``).
        registry: where the requests waiting for an answer are listed (``ASKED``).
        session: the session key.
        ttl_s: seconds the session has left (the registry's expiry).
        version: the session's revision (the shape of the server requests).
        method: the request being answered (for messages).
        max_rounds: how many input rounds the request may take.
        answer_timeout_s: how long to wait for all the answers of one round.
    """

    __slots__ = (
        "_broker",
        "_method",
        "_registry",
        "_session",
        "_ttl_s",
        "_version",
        "answer_timeout_s",
        "max_rounds",
    )

    def __init__(
        self,
        *,
        broker: Broker,
        registry: SessionRegistry,
        session: str,
        ttl_s: float,
        version: str,
        method: str,
        max_rounds: int,
        answer_timeout_s: float,
    ) -> None:
        self._broker, self._session, self._version, self._method = broker, session, version, method
        self._registry, self._ttl_s = registry, ttl_s
        self.max_rounds, self.answer_timeout_s = max_rounds, answer_timeout_s

    async def ask(
        self, requests: Mapping[str, Mapping[str, Any]], send: Callable[[dict[str, Any]], bool]
    ) -> dict[str, Any]:
        """Send every nested request; the client's answers by key."""
        asked = {f"genmcp-{secrets.token_urlsafe(12)}": key for key in requests}
        topics = {reply_topic(self._session, rid): rid for rid in asked}
        subscription = self._broker.subscribe(*topics)
        deadline = f"{time.time() + self.answer_timeout_s:.3f}"
        waiting = {rid: f"{rid} {deadline}" for rid in asked}  # ASKED members, until answered
        try:
            await subscription.ready()  # the answers may be POSTed to another process
            await self._list(self._registry.add, waiting.values())
            for rid, key in asked.items():
                send(legacy.server_request(rid, requests[key], self._version))
            answers: dict[str, Any] = {}
            async with asyncio.timeout(self.answer_timeout_s):
                while len(answers) < len(asked):
                    topic, message = await subscription.receive()
                    rid = topics[topic]
                    key = asked[rid]
                    if key not in answers:
                        answers[key] = _answer(key, requests[key].get("method"), message)
                        await self._list(self._registry.discard, [waiting.pop(rid)])
            return answers
        except TimeoutError:
            raise MCPError(
                "input_timeout",
                f"The client did not answer the server requests of {self._method} within "
                f"{self.answer_timeout_s:g} s",
            ) from None
        finally:
            subscription.close()
            try:
                await self._list(self._registry.discard, waiting.values())
            except StorageUnavailable:  # left in ASKED until its deadline passes
                log.warning("could not unlist the unanswered server requests of a legacy session")

    async def _list(self, change: Callable[..., Any], members: Iterable[str]) -> None:
        """Add or discard members of ``ASKED`` (all at once: one round trip of time)."""
        await asyncio.gather(*(change(self._session, ASKED, m, self._ttl_s) for m in members))


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
