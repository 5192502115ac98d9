"""Input rounds (MRTR, 2026-07-28): a request that comes back ``input_required`` is answered by
the call's callbacks and sent again with the answers and the server's ``requestState``.

A round the callbacks cannot answer is the caller's (the ``input_required`` result comes
back as it is); a round that asked nothing (state only) is retried after a short, growing
pause; a request still asking after ``max_rounds`` is a ``ClientError``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeAlias

from genmcp.client.errors import ClientError
from genmcp.client.exchange import Handlers, answer_all
from genmcp.client.inputs import Inputs

__all__ = ["Send", "answered_rounds"]

Send: TypeAlias = Callable[..., Awaitable[Any]]
"""``Client.request``: ``send(method, params, handlers=..., **options)``, one result."""


async def answered_rounds(
    send: Send,
    inputs: Inputs,
    method: str,
    params: dict[str, Any],
    chosen: Handlers,
    input_responses: Mapping[str, Any] | None = None,
    request_state: str | None = None,
    *,
    max_rounds: int,
    **options: Any,
) -> dict[str, Any]:
    """The request, retried with answers while it comes back ``input_required``."""
    body = dict(params)
    for round_ in range(max_rounds):
        if input_responses:
            body["inputResponses"] = dict(input_responses)
        if request_state is not None:
            body["requestState"] = request_state
        result = await send(method, body, handlers=chosen, **options)
        result = dict(result or {})
        if result.get("resultType") != "input_required":
            return result
        asked = result.get("inputRequests") or {}
        input_responses = await answer_all(asked, chosen, inputs) if asked else {}
        if input_responses is None:
            return result  # nothing here can answer: the caller retries, or gives up
        request_state = result.get("requestState")
        body = dict(params)
        if not asked:
            await asyncio.sleep(min(0.05 * (round_ + 1), 1.0))  # state only: retry later
    raise ClientError(f"{method} {params.get('name') or params.get('uri')!r} still asked "
                      f"for input after {max_rounds} rounds")  # fmt: skip
