"""Multi round-trip requests (MRTR): the sealed ``requestState`` shared by every method.

``tools/call``, ``prompts/get`` and ``resources/read`` may answer ``InputRequired(requests,
state)``. :meth:`RequestStates.input_required` checks the nested requests against the
capabilities the client declared on this request (-32021 otherwise), seals ``state`` with a
*binding* (a digest of what the request was: method, name or URI, arguments, principal) and
builds the ``input_required`` result. The token is encrypted (AES-256-GCM, ``sealing``):
the client can neither read what the tool kept nor change it. On the retry
:meth:`RequestStates.open` verifies the token and the binding and hands the state back; a
tampered, expired or re-bound token is a precise -32602. The binding is chosen by the
caller, so one token never serves another method, tool, prompt, resource, argument set or
user.

Imports genmcp's errors, sealing, protocol and outcome types; no asyncio, no web
framework.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any, Final

from genmcp.errors import MCPError, missing_capability
from genmcp.outcomes import InputRequired
from genmcp.protocol import v2607
from genmcp.protocol.methods import ELICITATION_CREATE, ROOTS_LIST, SAMPLING_CREATE_MESSAGE
from genmcp.protocol.versions import META_CLIENT_CAPABILITIES
from genmcp.sealing import Sealer, SealError, digest
from genmcp.storage.owner import owner_of

__all__ = ["REQUEST_STATE", "RequestStates", "input_responses", "principal_of"]

REQUEST_STATE: Final = "request_state"
"""The sealing purpose of every ``requestState``."""


def principal_of(assigns: Mapping[str, Any]) -> str | None:
    """Who is calling, as the owner of what it leaves behind (``storage.owner.owner_of``)."""
    return owner_of(assigns)


def input_responses(value: Any) -> dict[str, Any] | None:
    """The request's ``inputResponses`` (None when absent); -32602 when malformed."""
    if value is None:
        return None
    if not isinstance(value, dict) or not all(isinstance(v, dict) for v in value.values()):
        raise MCPError(
            "bad_input_responses",
            "Invalid params: inputResponses must be an object whose values are result objects",
        )
    return value


class RequestStates:
    """Seals and opens ``requestState`` tokens bound to their request.

    Args:
        sealer: the Suite's sealer (its keys and max age apply).
        result_meta: the ``_meta`` every result carries (server info).
    """

    __slots__ = ("_result_meta", "_sealer")

    def __init__(self, sealer: Sealer, result_meta: Mapping[str, Any]) -> None:
        self._sealer = sealer
        self._result_meta = result_meta

    def retry(
        self, params: Mapping[str, Any], assigns: Mapping[str, Any], *request: Any
    ) -> tuple[dict[str, Any] | None, Any, Callable[[], str]]:
        """``(inputResponses, state, binding)`` for one request; -32602 when one is bad.

        ``inputResponses`` and ``state`` are None on a first try. ``binding`` is the digest
        of ``request`` (what it names: method, name or URI, arguments) and the caller's
        principal, computed only when needed: to verify a ``requestState`` or seal a new one.
        """
        binding = functools.partial(binding_of, request, assigns)  # the principal: when needed
        if "inputResponses" not in params and "requestState" not in params:
            return None, None, binding  # a first try: the common case
        responses = input_responses(params.get("inputResponses"))
        state = self.open(params, binding()) if "requestState" in params else None
        return responses, state, binding

    def open(self, params: Mapping[str, Any], binding: str) -> Any:
        """The state sealed in ``params.requestState``; None when the request has none."""
        if "requestState" not in params:
            return None
        try:
            payload = self._sealer.unseal(REQUEST_STATE, params["requestState"], encrypted=True)
        except SealError as exc:
            raise MCPError(
                "bad_request_state", _refusal(exc, self._sealer), {"reason": exc.reason}
            ) from None
        if not isinstance(payload, dict) or payload.get("b") != binding:
            raise MCPError(
                "bad_request_state",
                "Invalid requestState (rebound): it was issued for another request, other "
                "arguments or another user",
                {"reason": "rebound"},
            )
        asked = payload.get("k")
        if isinstance(asked, dict):
            _check_answers(asked, params.get("inputResponses") or {})
        return payload.get("s")

    def input_required(
        self, meta: Mapping[str, Any], binding: str, outcome: InputRequired
    ) -> dict[str, Any]:
        """The ``input_required`` result for ``outcome``; -32021 if the client can't answer."""
        declared = meta.get(META_CLIENT_CAPABILITIES) or {}
        missing = (
            v2607.missing_capabilities(outcome.requests, declared) if outcome.requests else None
        )
        if missing:
            raise missing_capability(missing)
        asked = {key: request.get("method") for key, request in (outcome.requests or {}).items()}
        payload = {"b": binding, "s": outcome.state, "k": asked}
        token = self._sealer.seal(REQUEST_STATE, payload, encrypt=True)  # opaque to the client
        result = v2607.input_required_result(outcome.requests or None, token)
        result["_meta"] = self._result_meta
        return result


def binding_of(request: tuple[Any, ...], assigns: Mapping[str, Any]) -> str:
    """The digest a request state is bound to: what ``request`` names and the principal."""
    return digest(*request, principal_of(assigns))


# Tuples, not sets: the value tested comes from the client and may be unhashable ({}, []).
_ELICIT_ACTIONS: Final = ("accept", "decline", "cancel")
_ROLES: Final = ("user", "assistant")


def _answer_problem(method: Any, answer: Mapping[str, Any]) -> str | None:
    """What is wrong with one answer to the nested request ``method`` (None: nothing)."""
    if method == ELICITATION_CREATE:
        action = answer.get("action")
        if not isinstance(action, str) or action not in _ELICIT_ACTIONS:
            return 'an elicitation answer needs "action": "accept", "decline" or "cancel"'
        if "content" in answer and not isinstance(answer["content"], dict):
            return 'an elicitation answer\'s "content" must be an object'
    elif method == SAMPLING_CREATE_MESSAGE:
        role = answer.get("role")
        if (
            not isinstance(role, str)
            or role not in _ROLES
            or not isinstance(answer.get("model"), str)
        ):
            return 'a sampling answer needs "role" ("user" or "assistant") and "model"'
        if not isinstance(answer.get("content"), dict | list):
            return 'a sampling answer needs "content" (a content block or a list of them)'
    elif method == ROOTS_LIST:
        roots = answer.get("roots")
        if not isinstance(roots, list) or not all(
            isinstance(root, dict) and isinstance(root.get("uri"), str) for root in roots
        ):
            return 'a roots answer needs "roots": a list of objects with a "uri"'
    return None


def _check_answers(asked: Mapping[str, Any], answers: Mapping[str, Any]) -> None:
    """Check each answer against the request it answers; keys not asked are ignored."""
    for key, answer in answers.items():
        if key not in asked or not isinstance(answer, Mapping):
            continue
        problem = _answer_problem(asked[key], answer)
        if problem is not None:
            raise MCPError(
                "bad_input_responses",
                f"Invalid params: inputResponses[{key!r}]: {problem}",
                {"key": key},
            )


def _refusal(exc: SealError, sealer: Sealer) -> str:
    """The message for a refused requestState: "signed with an unknown key" and the fix
    when this process signs with a random key (another worker's token cannot verify)."""
    if exc.reason == "tampered" and sealer.ephemeral:
        # signed before this process's key existed: certainly another key; else it may
        # also have been altered (the two cannot be told apart)
        definite = "unknown key:" in str(exc)
        cause = "(signed with an unknown key)" if definite else "(tampered): altered, or signed "
        cause += "" if definite else "with an unknown key"
        return (
            f"Invalid requestState {cause}: this server signs with a random key of its own "
            "process, so a token from another worker or an earlier run cannot verify; the "
            "server must set GENMCP_SECRET_KEY, shared by every process"
        )
    return f"Invalid requestState ({exc.reason}): {exc}"
