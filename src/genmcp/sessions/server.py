"""Legacy session mode (2025-11-25, 2025-06-18, 2025-03-26) over Streamable HTTP.

``LegacyServer`` answers what the era rules (``protocol.versions.era_of``) send to the
legacy side, with no web framework and no HTTP: the transport hands it parsed messages with
the session id and version it was sent (HTTP headers, or the stdio process's own session)
and writes back the protocol outcome it returns: a :class:`LegacyAnswer` (a Call to relay
with its codec, or nothing to answer), a :class:`SessionStream`, or an ``MCPError`` raised
for a session fault (the transport picks its status from the error table).

Sessions. ``initialize`` negotiates the version and answers with an ``Mcp-Session-Id`` that
is a sealed token (``suite.sealer``, purpose ``"session"``) holding the version, the
client's capabilities and clientInfo, a random key, and a digest of the principal: any
process with the same secret can serve the session, and no table is needed. What a token
cannot say lives behind ``storage.SessionRegistry`` (ended sessions, the log level) and
``storage.Broker`` (cancellations, answers to server requests, the GET stream). A session id
also holds the registry's epoch when it began: a registry that lost its data since (Redis
restarted empty) refuses it, so an ended session never comes back. A request costs one
registry round trip (``sessions.lookup``); cancellations travel on one subscription per
process (``sessions.signals``); ``ping``, ``logging/setLevel`` and ``resources/(un)subscribe``
are the session's own (``sessions.session_methods``). Shared storage down or hung:
``StorageUnavailable`` (``storage_unavailable``, HTTP 503 with ``Retry-After``) within its
deadline.

Session rules, per the 2025 revisions (the statuses are the HTTP transport's): a request
other than ``initialize`` without a session id is ``session_required`` (400); an unknown,
tampered, expired, ended or other user's session id is ``session_not_found`` (404); a
version that differs from the negotiated one is ``invalid_request`` (400; absent: the
negotiated version is assumed); notifications and responses are accepted (202); ``delete``
ends the session (then 404); ``stream`` opens the session's notification stream (a newer
one replaces an open one). A request id already in flight in the session is refused. A body
that did not parse goes to ``unusable``: an answer in it that cannot be used fails the server
request waiting for it at once (``sessions.answers``), never leaving it to ``answer_timeout_s``.

Imports asyncio and genmcp's core; never a web framework.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from functools import partial
from typing import Any, Final, NamedTuple

from genmcp.call.call import Call
from genmcp.call.relay import MODERN, Codec, LegacyCodec
from genmcp.catalogs.request_state import principal_of
from genmcp.errors import MCPError
from genmcp.events import Answer
from genmcp.middleware.chain import NO_CONTEXT, TransportContext, refusal, session_ended
from genmcp.protocol import legacy
from genmcp.protocol.jsonrpc import (
    EnvelopeError,
    Notification,
    Request,
    RequestId,
    Response,
    error_response,
    result_response,
)
from genmcp.protocol.meta import check_meta
from genmcp.protocol.methods import CANCELLED, INITIALIZE, TOOLS_CALL
from genmcp.protocol.versions import LEGACY_VERSIONS, SSE_POLLING, Era, at_least
from genmcp.sessions.answers import fail_waiters
from genmcp.sessions.get_stream import SessionStream, list_notices
from genmcp.sessions.journal import Journal, JournalTasks
from genmcp.sessions.lookup import SESSION_ENDED, SessionLookup
from genmcp.sessions.resume import ResumedStream, parse_event_id, resumable
from genmcp.sessions.rounds import Asking, InputRounds, end_topic, reply_topic
from genmcp.sessions.session_ids import SessionIds
from genmcp.sessions.session_methods import SessionMethods
from genmcp.sessions.sessions import Session
from genmcp.sessions.signals import CallSignals
from genmcp.storage import Broker, EventLog, Inboxes, SessionRegistry
from genmcp.storage.guard import StorageUnavailable
from genmcp.storage.memory import MemorySessionRegistry
from genmcp.suite import Suite
from genmcp.sync.change_log import ChangeLog
from genmcp.sync.listen import SeenFilter

__all__ = ["LegacyAnswer", "LegacyServer"]


class LegacyAnswer(NamedTuple):  # a tuple: made by tuple's own __new__ on every request
    """What a legacy POST comes to: a Call to relay with ``codec``, or nothing to answer.

    Attributes:
        call: the request's Call; None for an accepted notification or client response.
        codec: how the Call's events are written for the session (its revision).
        session_id: the new session's id, after ``initialize``.
        journal: makes the log of a streamed answer, for ``Last-Event-ID`` resumption
            (called once the answer streams: most calls answer as JSON).
    """

    call: Call | None = None
    codec: Codec = MODERN
    session_id: str | None = None
    journal: Callable[[], Journal] | None = None
    expires_at: float | None = None
    """When the session ends (wall clock): a call still running then is cancelled."""


ACCEPTED: Final = LegacyAnswer()


class LegacyServer:
    """Serves legacy sessions for one Suite.

    Args:
        suite: the Suite behind the endpoint.
        registry: per-session state (default: in this process's memory).
        broker: publish/subscribe between requests (default: the Suite's broker, where it
            publishes change notifications).
        session_max_age_s: how long a session id stays valid after ``initialize``.
        answer_timeout_s: how long a call waits for the client's answers to its server
            requests (a human may be filling in a form); then it ends with -32001.
        max_input_rounds: how many input rounds one request may take.
        event_log: where streamed answers (``sessions.resume``) and the Suite's changes, which
            GET streams resume from (``sessions.get_stream``), are logged (default: the broker,
            when it is an ``EventLog``, as genmcp's are).
        stream_maxlen: events kept per stream, and changes kept (about).
        stream_ttl_s: how long a stream's events (and the changes) are kept after the last.
        stream_retry_ms: the ``retry:`` delay a 2025-11-25 stream is primed with: how long
            its client waits before it resumes a stream the server closed (SSE polling,
            ``channel.close_stream()``).
    """

    def __init__(
        self,
        suite: Suite,
        *,
        registry: SessionRegistry | None = None,
        broker: Broker | None = None,
        session_max_age_s: float = 86_400.0,
        answer_timeout_s: float = 600.0,
        max_input_rounds: int = 16,
        event_log: EventLog | None = None,
        stream_maxlen: int = 1000,
        stream_ttl_s: float = 3600.0,
        stream_retry_ms: int = 1000,
    ) -> None:
        if min(session_max_age_s, answer_timeout_s, max_input_rounds) <= 0 or stream_retry_ms < 0:
            raise ValueError(
                "session_max_age_s, answer_timeout_s and max_input_rounds must be > 0, "
                "stream_retry_ms >= 0"
            )
        self.suite = suite
        self.registry: SessionRegistry = MemorySessionRegistry() if registry is None else registry
        self.broker: Broker = suite.broker if broker is None else broker
        self.session_max_age_s, self.answer_timeout_s = session_max_age_s, answer_timeout_s
        self.max_input_rounds = max_input_rounds
        self.signals = CallSignals(self.broker)  # this process's calls, stoppable from any
        self._asking = Asking(self.broker, self.registry, max_input_rounds, answer_timeout_s)
        logs = self.broker if isinstance(self.broker, EventLog) else None
        self.events = logs if event_log is None else event_log
        self.ids = SessionIds(suite.sealer)  # sealed session ids, verified once each
        self.lookup = SessionLookup(self.ids, self.registry, session_max_age_s)
        self._own = SessionMethods(self.registry, suite.interest, lambda: suite.capabilities)
        self.stream_maxlen, self.stream_ttl_s = stream_maxlen, stream_ttl_s
        self.changes = None  # the Suite's change log: GET streams resume from it
        if self.events is not None:
            self.changes = ChangeLog(self.events, maxlen=stream_maxlen, ttl_s=stream_ttl_s)
            suite.log_changes(self.changes)
        self.stream_retry_ms = stream_retry_ms
        self.journal_tasks = JournalTasks()  # the journals' tasks past their streams
        # a codec is immutable: the tools/call one of each revision is shared (the hot path)
        self._call_codecs = {v: LegacyCodec(TOOLS_CALL, v) for v in LEGACY_VERSIONS}

    def close(self) -> None:
        """Drop the process's signal subscription (at shutdown)."""
        self.signals.close()

    # -- sessions -----------------------------------------------------------------

    async def session(
        self, token: str | None, version: str | None, assigns: Mapping[str, Any]
    ) -> Session:
        """The session ``token`` names, sent with protocol ``version`` (None: not said).

        Raises ``session_required`` without a token, ``session_not_found`` when it is not
        (or no more) ours, ``invalid_request`` for another version than the negotiated one
        (``sessions.lookup``).
        """
        return await self.lookup.find(token, version, assigns)

    # -- what a client sends ---------------------------------------------------------

    async def post(
        self,
        message: Request | Notification | Response,
        token: str | None,
        version: str | None,
        assigns: Mapping[str, Any],
        context: TransportContext = NO_CONTEXT,
    ) -> LegacyAnswer:
        """Answer one legacy message sent with session ``token`` and ``version``.

        Raises ``MCPError`` for a session fault (no, unknown or ended session, wrong version).
        Every request runs through the Suite's middleware chain, with ``context``.
        """
        if isinstance(message, Request) and message.method == INITIALIZE:
            return await self._initialize(message, assigns, context.replace(era=Era.LEGACY))
        session = await self.lookup.find(token, version, assigns)
        if self.suite.middleware:  # only middleware reads it (the hot path skips the copy)
            context = context.in_session(session.key, session.version)
        if isinstance(message, Response):
            answer = {"result": message.result, "error": message.error}  # JSON, for any broker
            await self.broker.publish(reply_topic(session.key, message.id), answer)
            return ACCEPTED
        if isinstance(message, Notification):
            await self._notification(session, message)
            return ACCEPTED
        try:
            return await self._request(session, message, assigns, context)
        except StorageUnavailable:
            raise  # the edge answers 503 with Retry-After
        except MCPError as exc:
            call = await self.suite.handle(message, assigns, context=context, local=refusal(exc))
            return LegacyAnswer(call, MODERN)

    async def ended(
        self,
        message: Request | Notification | Response,
        token: str | None,
        version: str | None,
        assigns: Mapping[str, Any],
    ) -> Answer | None:
        """The answer for a request stopped with no response: ``session_not_found`` (404,
        or the last event of a stream already open) when its session ended meanwhile (a
        DELETE, on any process, or its expiry), so the client never gets an empty stream it
        cannot tell from a network failure; None for a request its client cancelled (no
        response, as the spec says)."""
        if not isinstance(message, Request) or message.method == INITIALIZE:
            return None
        try:
            await self.lookup.find(token, version, assigns)
        except MCPError as exc:
            if exc.reason == "session_not_found":
                exc = MCPError(exc.reason, SESSION_ENDED)
            return Answer(error_response(message.id, exc), exc.reason)
        except StorageUnavailable:
            return None  # cannot tell: the empty stream, as before
        return None

    async def unusable(
        self,
        body: bytes | str,
        failure: EnvelopeError,
        token: str | None,
        version: str | None,
        assigns: Mapping[str, Any],
    ) -> EnvelopeError:
        """The error for a body sent with session ``token`` that did not parse (``failure``).

        An answer in it that a waiting server request cannot use fails that request at once
        (``sessions.answers``). Without a valid session, or with a modern version, ``failure``.
        """
        if token is None or (version is not None and version not in LEGACY_VERSIONS):
            return failure
        try:
            session = await self.lookup.find(token, version, assigns)
            return await fail_waiters(self.registry, self.broker, session.key, body, failure)
        except MCPError:  # a session fault (or storage down) leaves the parse error to answer
            return failure

    async def delete(
        self,
        token: str | None,
        version: str | None,
        assigns: Mapping[str, Any],
        context: TransportContext = NO_CONTEXT,
    ) -> None:
        """End the session: its id is unknown from now on; its streams and calls stop."""
        session = await self.lookup.find(token, version, assigns)
        await self.registry.end(session.key, session.ttl_s)
        self.suite.interest.release(session.key)  # its subscriptions end with it
        await self.signals.end(session.key)
        await self.broker.publish(end_topic(session.key), "ended")
        context = context.replace(
            era=Era.LEGACY, session_id=session.key, protocol_version=session.version
        )
        lived = time.time() - (session.expires_at - self.session_max_age_s)
        session_ended(self.suite.middleware, context, max(lived, 0.0))

    async def stream(
        self,
        token: str | None,
        version: str | None,
        assigns: Mapping[str, Any],
        last_event_id: str | None = None,
    ) -> SessionStream | ResumedStream:
        """Open the session's notification stream; a newer one of the same session replaces it.

        With the ``Last-Event-ID`` of one of this session's POST streams, resume that stream
        instead (``sessions.resume``); with one of its GET stream, resume that from the change
        log (``sessions.get_stream``); an id that is not one of ours, or names a stream this
        session never had (another session's), opens the plain stream, nothing replayed.
        """
        session = await self.lookup.find(token, version, assigns)
        event = parse_event_id(last_event_id)
        if event is not None and self.events is not None:
            if not await resumable(self.events, session.key, event):
                return await self._plain_stream(session, None, assigns)
            liveness = self.broker if isinstance(self.broker, Inboxes) else None
            local = self.suite.mail_address()
            return ResumedStream(self.events, liveness, session.key, event, local)
        return await self._plain_stream(session, last_event_id, assigns)

    async def _plain_stream(
        self, session: Session, last_event_id: str | None, assigns: Mapping[str, Any]
    ) -> SessionStream:
        polled = at_least(session.version, SSE_POLLING)
        return await SessionStream.open(
            self.broker,
            self.registry,
            session.key,
            session.version,
            changes=self.changes,
            last_event_id=last_event_id,
            retry_ms=self.stream_retry_ms if polled else None,
            lists=list_notices(self.suite.capabilities),
            epoch=session.epoch,
            seen=SeenFilter(self.suite.seen_lists, assigns),
        )

    # -- messages -------------------------------------------------------------------

    async def _initialize(
        self, request: Request, assigns: Mapping[str, Any], context: TransportContext
    ) -> LegacyAnswer:
        made: list[str] = []

        async def initialize(sent: Request) -> Answer:
            version, capabilities, client_info = legacy.initialize_params(sent.params)
            epoch = await self.registry.epoch(self.session_max_age_s)
            who = principal_of(assigns)
            made.append(self.ids.new(version, capabilities, client_info, who, epoch))
            suite = self.suite
            result = legacy.initialize_result(
                version, suite.server_info, suite.capabilities, suite.instructions
            )
            return Answer(result_response(sent.id, result))

        call = await self.suite.handle(request, assigns, context=context, local=initialize)
        return LegacyAnswer(call, MODERN, made[0] if made else None)

    async def _notification(self, session: Session, message: Notification) -> None:
        if message.method != CANCELLED:
            return  # initialized, roots/list_changed, progress: nothing to do
        request_id = message.params.get("requestId")
        if isinstance(request_id, str) or (
            isinstance(request_id, int) and not isinstance(request_id, bool)
        ):
            await self.signals.cancel(session.key, request_id)

    async def _request(
        self,
        session: Session,
        request: Request,
        assigns: Mapping[str, Any],
        context: TransportContext,
    ) -> LegacyAnswer:
        method = request.method
        if method != TOOLS_CALL:  # the hot path: a tools/call is none of these
            if self._own.answers(method):

                async def answer(sent: Request) -> Answer:  # the session answers, in the chain
                    return await self._own.answer(session, sent)

                call = await self.suite.handle(request, assigns, context=context, local=answer)
                return LegacyAnswer(call, MODERN)
            if method in legacy.LEGACY_METHODS or legacy.is_modern_only(method):
                raise MCPError("method_not_found", f"Method not found: {method}")
        if self.signals.running(session.key, request.id):
            raise MCPError(
                "duplicate_request_id",
                f"Invalid Request: request id {request.id!r} is already in flight in this "
                "session; use a new id for each request",
            )
        if not self.signals.listening:  # this process's first call: stoppable from its start
            await self.signals.listen()
        params = request.params
        meta = legacy.modern_meta(
            params,
            modern_version=self.suite.supported_versions[0],
            capabilities=session.modern_capabilities,
            client_info=session.client_info,
            level=session.log_level,
        )
        if "_meta" in params or session.log_level is not None:
            check_meta(meta)  # else only the session's own values, right as they were made
        # the request in the modern shape: its params are its own (parsed from its body), so
        # they change in place rather than in a copy and a new Request (the hot path)
        legacy.modernize(params, meta)
        rounds = InputRounds(self._asking, session, method)
        call = await self.suite.handle(request, assigns, meta, asker=rounds, context=context)
        journal = None
        if call.task is not None:  # in flight: cancellable through the session, id reserved
            self.signals.track(session.key, request.id, call)
            # its events are logged if it streams (made then); even one answered in its first
            # step may have opened its stream (SSE polling: the client resumes by event id)
            if self.events is not None and not call.answers_now:
                journal = partial(self._journal, session, request.id)
        codec = self._call_codecs.get(session.version) if method == TOOLS_CALL else None
        if codec is None:
            codec = LegacyCodec(method, session.version)
        # built by tuple's own __new__: no Python frame, it runs on every request
        return tuple.__new__(LegacyAnswer, (call, codec, None, journal, session.expires_at))

    def _journal(self, session: Session, request_id: RequestId) -> Journal:
        """The log of one streamed answer (most calls answer as JSON and never need one)."""
        assert self.events is not None
        polled = at_least(session.version, SSE_POLLING)
        return Journal(
            self.events,
            session.key,
            request_id,
            self.suite.mail_address(),
            maxlen=self.stream_maxlen,
            ttl_s=self.stream_ttl_s,
            tasks=self.journal_tasks,
            retry_ms=self.stream_retry_ms if polled else None,
        )
