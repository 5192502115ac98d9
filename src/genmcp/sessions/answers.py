"""Client answers a legacy session cannot use: which waiting server request they fail.

A call that asked its client something (``rounds.InputRounds``) waits for the answer, POSTed
to any process. An answer the server cannot use must not leave it waiting
``answer_timeout_s``; the transport hands every body that does not parse, in a session, to
:func:`fail_waiters`, which applies one rule:

* **the id can be read**: a JSON object without ``method`` whose ``id`` is a string or an
  integer (or such objects in a JSON array), but it is no valid JSON-RPC response (both or
  neither of ``result`` and ``error``, an ``error`` without an integer ``code`` and a string
  ``message``, a ``result`` that is not an object, ``jsonrpc`` missing): the server request
  with that id, if it waits, fails at once;
* **no id can be read** (not JSON, or JSON with neither a ``method`` nor a valid ``id``): when
  the session has exactly one server request waiting, that one fails; with none or several,
  none does (guessing could fail another call's request), and they keep waiting up to
  ``answer_timeout_s``;
* a body with a ``method`` is a request or a notification, never an answer: nothing fails.

A failed request gets the POST's own parse or envelope error as the client's JSON-RPC error
answer (an elicitation is then cancelled, any other request ends its call with -32600, never
-32603). The POST is answered with that error (400), its message naming the request it failed,
or saying why none was.

Imports genmcp's protocol and storage, and the topics of ``legacy.rounds``; no web framework.
"""

from __future__ import annotations

import json
import time

from genmcp.protocol.jsonrpc import EnvelopeError, RequestId, decode_json, is_request_id
from genmcp.sessions.rounds import ASKED, outstanding, reply_topic
from genmcp.storage import Broker, SessionRegistry

__all__ = ["answer_ids", "fail_waiters"]


def answer_ids(body: bytes | str) -> tuple[RequestId, ...] | None:
    """The ids of the client answers in ``body``: ``()`` when it holds no answer (only
    requests and notifications), None when it may be one but no id can be read."""
    try:
        value = decode_json(body)
    except EnvelopeError:
        return None
    if isinstance(value, list):
        answers = [item for item in value if isinstance(item, dict) and "method" not in item]
        if not answers:
            return ()
    elif isinstance(value, dict):
        if "method" in value:
            return ()
        answers = [value]
    else:
        return None
    ids = tuple(item["id"] for item in answers if is_request_id(item.get("id")))
    return ids or None


async def fail_waiters(
    registry: SessionRegistry,
    broker: Broker,
    session: str,
    body: bytes | str,
    failure: EnvelopeError,
) -> EnvelopeError:
    """Fail the server request of ``session`` that the unusable ``body`` answers, if any.

    ``failure`` is why the body did not parse; the error to answer the POST with is returned.
    """
    ids = answer_ids(body)
    if ids == ():
        return failure
    waiting = outstanding(await registry.members(session, ASKED), time.time())
    if ids is None:
        if len(waiting) != 1:
            if not waiting:
                return failure
            return _noted(
                failure,
                f"no answer id can be read and {len(waiting)} server requests of this session "
                "are waiting, so none is failed",
            )
        targets: list[RequestId] = list(waiting)
    else:
        targets = [i for i in ids if i in waiting]
        if not targets:
            return failure
    error = {"result": None, "error": failure.to_error(), "unusable": True}
    for request_id in targets:
        await broker.publish(reply_topic(session, request_id), error)
    named = ", ".join(json.dumps(i) for i in targets)
    plural = "s" if len(targets) > 1 else ""
    return _noted(failure, f"the waiting server request{plural} {named} failed with this error")


def _noted(failure: EnvelopeError, note: str) -> EnvelopeError:
    """``failure`` with ``note`` added to its message, without an id (it answers an answer)."""
    return EnvelopeError(failure.reason, f"{failure.message} ({note})")
