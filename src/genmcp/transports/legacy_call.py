"""One flow for both eras: a legacy session's request, including its input rounds.

A tool written for 2026-07-28 answers a request that needs user input, an LLM sample or the
client's roots with ``InputRequired(requests, state)``; the Suite turns that into an
``input_required`` result with a sealed ``requestState``. A modern client retries by itself.
For a legacy (2025) session, ``LegacyCall`` does the retrying on the client's behalf:

1. it sends each nested request as a server-initiated JSON-RPC request, shaped for the
   session's revision, on the request's own response stream (the POST's SSE stream);
2. it waits, through the ``Broker``, for the answers the client POSTs back;
3. it calls the Suite again (a fresh Worker, same method, name and arguments) with
   ``inputResponses`` and the ``requestState``, and loops until a final result.

Progress and log notifications of every round are forwarded on the same stream, translated
for the revision. ``notifications/cancelled`` for this request, the end of the session, or
the client going away disconnect the current worker (the same path as a disconnect: cancel,
or ``handle_close`` while streaming) and end the stream without a response.

A ``LegacyCall`` is a ``Pending``: transports drain its ``outbox`` like a Worker's, plus the
``END`` event. Imports asyncio and genmcp's core; never a web framework.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from genmcp.channel import FINAL, MESSAGE, OPEN, Outbox, Pending
from genmcp.errors import MCPError
from genmcp.protocol import legacy
from genmcp.protocol.jsonrpc import Request, RequestId, error_response, result_response

if TYPE_CHECKING:
    from genmcp.storage import Broker
    from genmcp.suite import Suite

__all__ = [
    "END",
    "CallContext",
    "LegacyCall",
    "cancel_topic",
    "end_topic",
    "is_input_required",
    "legacy_reply",
    "reply_topic",
]

log = logging.getLogger("genmcp")

END: Final = "end"
"""Outbox event: the request ended without a response (cancelled); close the stream."""

Reply = tuple[dict[str, Any], int]


def reply_topic(session: str, request_id: RequestId) -> str:
    """Where a client's answer to the server request ``request_id`` is published."""
    return f"legacy/{session}/reply/{json.dumps(request_id)}"


def cancel_topic(session: str, request_id: RequestId) -> str:
    """Where ``notifications/cancelled`` for the client request ``request_id`` is published."""
    return f"legacy/{session}/cancel/{json.dumps(request_id)}"


def end_topic(session: str) -> str:
    """Where the end of a session (``DELETE``) is published."""
    return f"legacy/{session}/end"


def is_input_required(reply: Reply) -> bool:
    """True when a Suite reply is an ``input_required`` result."""
    result = reply[0].get("result")
    return isinstance(result, Mapping) and result.get("resultType") == "input_required"


def legacy_reply(request_id: RequestId, method: str, reply: Reply, version: str) -> Reply:
    """A Suite reply translated for a ``version`` session.

    Errors keep their JSON-RPC code but travel with HTTP 200: a legacy client reads a 404
    as "session gone" and a 400 as a transport failure.
    """
    response = reply[0]
    if "result" in response:
        return result_response(
            request_id, legacy.legacy_result(method, response["result"], version)
        ), 200
    error = legacy.legacy_error(method, response.get("error"))
    return {"jsonrpc": "2.0", "id": request_id, "error": error}, 200


@dataclass(frozen=True, slots=True)
class CallContext:
    """What a legacy call needs to re-run: the session, the modern request and its limits."""

    suite: Suite
    broker: Broker
    session: str
    version: str
    request: Request
    meta: dict[str, Any]
    assigns: Mapping[str, Any]
    max_rounds: int
    answer_timeout_s: float


class LegacyCall:
    """A legacy request in flight: the Suite's reply, input rounds, then the final response."""

    __slots__ = ("_control", "_ctx", "_current", "_finished", "outbox", "task")

    def __init__(self, ctx: CallContext, first: Reply | Pending) -> None:
        loop = asyncio.get_running_loop()
        self._ctx = ctx
        self._current: Pending | None = None
        self._finished = False
        self.outbox = Outbox(loop)
        self._control = ctx.broker.subscribe(
            cancel_topic(ctx.session, ctx.request.id), end_topic(ctx.session)
        )
        self.task = loop.create_task(self._run(first), name="genmcp:legacy-call")

    def disconnect(self) -> None:
        """The client went away: stop the current worker and the rounds; send nothing more."""
        if not self._finished:
            self._finished = True
            self._stop_current()
            self._control.close()  # also when the task is cancelled before it ever ran
            self.task.cancel()

    def _stop_current(self) -> None:
        if self._current is not None:
            self._current.disconnect()
            self._current = None

    async def _run(self, first: Reply | Pending) -> None:
        drive = asyncio.ensure_future(self._drive(first))
        watch = asyncio.ensure_future(self._control.receive())
        try:
            await asyncio.wait((drive, watch), return_when=asyncio.FIRST_COMPLETED)
            if drive.done():
                self.outbox.put(FINAL, self._outcome(drive))
            else:  # notifications/cancelled, or the session ended
                drive.cancel()
                self._stop_current()
                self.outbox.put(END)
        finally:
            self._finished = True
            for task in (drive, watch):
                task.cancel()
            self._control.close()
            self._stop_current()

    def _outcome(self, drive: asyncio.Future[Reply]) -> Reply:
        ctx = self._ctx
        try:
            return legacy_reply(ctx.request.id, ctx.request.method, drive.result(), ctx.version)
        except MCPError as exc:
            return error_response(ctx.request.id, exc), 200
        except Exception:
            log.exception("legacy %s call failed", ctx.request.method)
            failure = MCPError("internal_error", f"Internal error in {ctx.request.method}")
            return error_response(ctx.request.id, failure), 200

    async def _drive(self, reply: Reply | Pending) -> Reply:
        ctx = self._ctx
        rounds = 0
        while True:
            if not isinstance(reply, tuple):
                reply = await self._pump(reply)
            if not is_input_required(reply):
                return reply
            rounds += 1
            if rounds > ctx.max_rounds:
                raise MCPError(
                    "internal_error",
                    f"{ctx.request.method} still needed input after {ctx.max_rounds} rounds",
                )
            result = reply[0]["result"]
            requests = result.get("inputRequests") or {}
            params = {**ctx.request.params, "_meta": ctx.meta}
            if requests:
                params["inputResponses"] = await self._ask(requests)
            else:  # state only: "retry later"
                await asyncio.sleep(min(0.05 * 2**rounds, 2.0))
            if "requestState" in result:
                params["requestState"] = result["requestState"]
            retry = Request(ctx.request.id, ctx.request.method, params)
            reply = await ctx.suite.handle(retry, ctx.assigns, ctx.meta)

    async def _pump(self, pending: Pending) -> Reply:
        """Forward one worker's notifications (translated) until its response."""
        self._current = pending  # disconnected by _stop_current if the call ends early
        while True:
            kind, payload = await pending.outbox.get()
            if kind == FINAL:
                self._current = None
                final: Reply = payload
                return final
            if kind == MESSAGE:
                self.outbox.put(MESSAGE, legacy.legacy_message(payload, self._ctx.version))
            elif kind == OPEN:
                self.outbox.put(OPEN)

    async def _ask(self, requests: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
        """Send every nested request on this stream; wait for all the client's answers."""
        ctx = self._ctx
        asked = {f"genmcp-{secrets.token_urlsafe(12)}": key for key in requests}
        topics = {reply_topic(ctx.session, rid): rid for rid in asked}
        subscription = ctx.broker.subscribe(*topics)
        try:
            await subscription.ready()  # the answers may be POSTed to another process
            for rid, key in asked.items():
                nested = requests[key]
                self.outbox.put(MESSAGE, legacy.server_request(rid, nested, ctx.version))
            answers: dict[str, Any] = {}
            async with asyncio.timeout(ctx.answer_timeout_s):
                while len(answers) < len(asked):
                    topic, message = await subscription.receive()
                    key = asked[topics[topic]]
                    if key not in answers:
                        answers[key] = _answer(key, requests[key].get("method"), message)
            return answers
        except TimeoutError:
            raise MCPError(
                "internal_error",
                f"The client did not answer the server requests of {ctx.request.method} "
                f"within {ctx.answer_timeout_s:g} s",
            ) from None
        finally:
            subscription.close()


def _answer(key: str, method: Any, message: Any) -> dict[str, Any]:
    """The input response in a client's answer, as published: ``{"result", "error"}``."""
    if not isinstance(message, Mapping):
        raise MCPError("internal_error", f"Unexpected answer to {method} {key!r}")
    error = message.get("error")
    if isinstance(error, Mapping):
        raise MCPError(
            "internal_error",
            f"The client answered {method} {key!r} with an error: {error.get('message')}",
            {"inputRequest": key, "error": error},
        )
    return legacy.input_response(method, message.get("result"))
