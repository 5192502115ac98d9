"""What ``MCPTestClient`` puts in its requests: params from a helper's arguments, and the
answers a test gives to a tool's input requests.

The client's defaults (``DEFAULT_CAPABILITIES``, ``CLIENT_INFO``), then functions: each
takes what a client helper was given and returns the params of the request it sends
(``tools/call``, ``completion/complete``, ``subscriptions/listen``), or (:func:`answer`)
the response to one 2026-07-28 input request from the test's ``answers``.
Imports nothing from genmcp.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Any, Final, TypedDict

__all__ = [
    "CLIENT_INFO",
    "DEFAULT_CAPABILITIES",
    "Answers",
    "CallOptions",
    "answer",
    "call_options",
    "call_params",
    "complete_params",
    "listen_params",
]

DEFAULT_CAPABILITIES: Final[Mapping[str, Any]] = {
    "elicitation": {"form": {}, "url": {}},
    "roots": {},
    "sampling": {"tools": {}},
}
"""What the test client declares unless told otherwise: a client that can answer every
nested request (pass ``capabilities={}`` to test a bare client)."""
CLIENT_INFO: Final[Mapping[str, str]] = {"name": "genmcp-testing", "version": "0"}
"""The ``clientInfo`` the test client sends unless told otherwise."""

Answers = Mapping[str, Any] | Callable[[str, dict[str, Any]], Any]
"""A test's answers to input requests: key -> response (or a callable(request) per key), or
one callable(key, request)."""


class CallOptions(TypedDict, total=False):
    """The keywords of a tool call that ``call_tool`` and ``open_call`` both take (``**options:
    Unpack[CallOptions]``), and ``call_tool`` hands on to ``open_call`` for each round:

    - ``log_level``: opt in to log notifications at this level (a 2025 session sends
      ``logging/setLevel`` first).
    - ``capabilities``: the client capabilities this request declares (default:
      :data:`DEFAULT_CAPABILITIES`).
    - ``answers``: the test's :data:`Answers` to the tool's input requests.
    - ``input_responses``, ``request_state``: a retry's responses and echoed state.
    - ``meta``: ``_meta`` entries of the request.
    """

    log_level: str | None
    capabilities: Mapping[str, Any] | None
    answers: Answers | None
    input_responses: Mapping[str, Any] | None
    request_state: str | None
    meta: Mapping[str, Any] | None


def call_options(options: CallOptions, where: str) -> CallOptions:
    """``options``, or the ``TypeError`` Python raises for a keyword a signature does not name
    (``where`` is the method given them)."""
    unknown = sorted(options.keys() - CallOptions.__optional_keys__)
    if unknown:
        raise TypeError(f"{where}() got an unexpected keyword argument {unknown[0]!r}")
    return options


def call_params(
    name: str,
    arguments: Any,
    input_responses: Mapping[str, Any] | None,
    request_state: str | None,
) -> dict[str, Any]:
    """The params of a ``tools/call`` (a retry carries the responses and the echoed state)."""
    params: dict[str, Any] = {"name": name}
    if arguments is not None:
        params["arguments"] = arguments
    if input_responses is not None:
        params["inputResponses"] = dict(input_responses)
    if request_state is not None:
        params["requestState"] = request_state
    return params


def complete_params(
    ref: Mapping[str, Any] | str, argument: str, value: str, context: Mapping[str, str] | None
) -> dict[str, Any]:
    """The params of ``completion/complete``; ``ref`` is a prompt name, a template URI
    (``"notes://{id}"``) or the spec's ``{"type": "ref/...", ...}``."""
    if isinstance(ref, str):
        ref = (
            {"type": "ref/resource", "uri": ref}
            if "://" in ref
            else {"type": "ref/prompt", "name": ref}
        )
    params: dict[str, Any] = {"ref": dict(ref), "argument": {"name": argument, "value": value}}
    if context is not None:
        params["context"] = {"arguments": dict(context)}
    return params


def listen_params(
    *, tools: bool, prompts: bool, resources: bool, uris: list[str] | tuple[str, ...]
) -> dict[str, Any]:
    """The params of ``subscriptions/listen``: the ``SubscriptionFilter`` asked for."""
    wanted: dict[str, Any] = {}
    if tools:
        wanted["toolsListChanged"] = True
    if prompts:
        wanted["promptsListChanged"] = True
    if resources:
        wanted["resourcesListChanged"] = True
    if uris:
        wanted["resourceSubscriptions"] = list(uris)
    return {"notifications": wanted}


async def answer(answers: Answers, key: str, request: dict[str, Any]) -> Any:
    """The test's response to the input request ``key`` (AssertionError when it gave none)."""
    if callable(answers):
        value = answers(key, request)
    elif key in answers:
        value = answers[key]
        if callable(value):
            value = value(request)
    else:
        raise AssertionError(f"no answer given for input request {key!r}: {request}")
    return await value if inspect.isawaitable(value) else value
