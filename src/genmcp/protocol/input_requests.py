"""Nested input requests of 2026-07-28 multi round-trip calls, and the capabilities they need.

``elicit_request``, ``create_message_request`` and ``list_roots_request`` build the requests
an ``input_required`` result (``input_required_result``) carries; ``required_capabilities``
and ``missing_capabilities`` say which client capabilities they need (the -32021 error's
``requiredCapabilities``). Conventions in :mod:`genmcp.protocol.shapes`; re-exported by
:mod:`genmcp.protocol.v2607`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import StrEnum
from typing import Any, Final

from pydantic import BaseModel

from genmcp.protocol.methods import ELICITATION_CREATE, ROOTS_LIST, SAMPLING_CREATE_MESSAGE
from genmcp.protocol.shapes import JSONObject, copy_mapping, put

__all__ = [
    "create_message_request",
    "elicit_request",
    "input_required_result",
    "list_roots_request",
    "missing_capabilities",
    "required_capabilities",
]


class _Feature(StrEnum):
    """A client capability an input request can need: its path in ``ClientCapabilities``."""

    FORM = "elicitation.form"
    URL = "elicitation.url"
    SAMPLING = "sampling"
    SAMPLING_CONTEXT = "sampling.context"
    SAMPLING_TOOLS = "sampling.tools"
    ROOTS = "roots"


# includeContext values that need ``sampling.context`` (deprecated by SEP-2596).
_CONTEXT_VALUES_NEEDING_CAP: Final = frozenset({"thisServer", "allServers"})

# --------------------------------------------------------------------------- input requests


def elicit_request(
    message: str,
    requested_schema: Mapping[str, Any] | type[BaseModel] | None = None,
    *,
    url: str | None = None,
) -> JSONObject:
    """Build a nested ``elicitation/create`` request.

    Form mode (``requested_schema``) sends ``message`` and ``requestedSchema`` without a
    ``mode`` key (form is the default); URL mode (``url``) sends ``mode: "url"``, ``message``
    and ``url``. Never ask for secrets in form mode.

    Args:
        message: What the user is asked and why.
        requested_schema: A flat object schema of primitive properties (form mode), or a
            pydantic model class of primitive fields: read the answer back typed with
            ``request.input(Model)``.
        url: The page the user should visit (URL mode).

    Returns:
        ``{"method": "elicitation/create", "params": {...}}``.

    Raises:
        ValueError: Both or neither of ``requested_schema`` and ``url`` were given, or
            the model nests another model (a form holds primitive fields only).
    """
    if (requested_schema is None) == (url is None):
        raise ValueError("elicit_request needs exactly one of requested_schema or url=")
    params: JSONObject
    if url is not None:
        params = {"mode": "url", "message": message, "url": url}
    elif isinstance(requested_schema, type) and issubclass(requested_schema, BaseModel):
        params = {"message": message, "requestedSchema": _form_schema(requested_schema)}
    else:
        params = {"message": message, "requestedSchema": dict(requested_schema or {})}
    return {"method": ELICITATION_CREATE, "params": params}


def _form_schema(model: type[BaseModel]) -> JSONObject:
    """The flat form schema of ``model`` (``type``, ``properties``, ``required``)."""
    schema = model.model_json_schema()
    if "$defs" in schema:
        raise ValueError(
            f"elicit_request: {model.__name__} nests {', '.join(sorted(schema['$defs']))}; "
            "an elicitation form holds primitive fields only (str, int, float, bool, enums)"
        )
    form: JSONObject = {"type": "object", "properties": schema.get("properties", {})}
    if schema.get("required"):
        form["required"] = schema["required"]
    return form


def _sampling_message(message: str | Mapping[str, Any]) -> JSONObject:
    """Turn a str into a user text message; copy a mapping as given."""
    if isinstance(message, str):
        return {"role": "user", "content": {"type": "text", "text": message}}
    return dict(message)


def create_message_request(
    messages: str | Sequence[str | Mapping[str, Any]],
    max_tokens: int,
    *,
    system_prompt: str | None = None,
    model_preferences: Mapping[str, Any] | None = None,
    temperature: float | None = None,
    stop_sequences: Sequence[str] | None = None,
    metadata: Mapping[str, Any] | None = None,
    include_context: str | None = None,
    tools: Sequence[Mapping[str, Any]] | None = None,
    tool_choice: str | Mapping[str, Any] | None = None,
) -> JSONObject:
    """Build a nested ``sampling/createMessage`` request.

    Args:
        messages: ``SamplingMessage`` objects; a str item becomes a user text message, and a
            bare str stands for a single such message.
        max_tokens: Upper bound of tokens to sample (a positive int); sent as ``maxTokens``.
        system_prompt: Optional system prompt.
        model_preferences: Optional ``ModelPreferences``.
        temperature: Optional sampling temperature.
        stop_sequences: Optional stop sequences.
        metadata: Optional provider-specific metadata object.
        include_context: Optional ``"none"``, ``"thisServer"`` or ``"allServers"`` (the last
            two are deprecated and need the client's ``sampling.context``).
        tools: Optional tools the model may use (needs the client's ``sampling.tools``).
        tool_choice: Optional ``ToolChoice``; a str is shorthand for ``{"mode": str}``.

    Returns:
        ``{"method": "sampling/createMessage", "params": {...}}``.

    Raises:
        ValueError: ``max_tokens`` is not a positive int.
    """
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
        raise ValueError(f"max_tokens must be a positive int, not {max_tokens!r}")
    items = [messages] if isinstance(messages, str) else messages
    params: JSONObject = {
        "messages": [_sampling_message(item) for item in items],
        "maxTokens": max_tokens,
    }
    put(params, "systemPrompt", system_prompt)
    put(params, "modelPreferences", copy_mapping(model_preferences))
    put(params, "temperature", temperature)
    put(params, "stopSequences", None if stop_sequences is None else list(stop_sequences))
    put(params, "metadata", copy_mapping(metadata))
    put(params, "includeContext", include_context)
    put(params, "tools", None if tools is None else [dict(tool) for tool in tools])
    if isinstance(tool_choice, str):
        params["toolChoice"] = {"mode": tool_choice}
    else:
        put(params, "toolChoice", copy_mapping(tool_choice))
    return {"method": SAMPLING_CREATE_MESSAGE, "params": params}


def list_roots_request() -> JSONObject:
    """Build a nested ``roots/list`` request.

    Returns:
        ``{"method": "roots/list"}``.
    """
    return {"method": ROOTS_LIST}


def input_required_result(
    input_requests: Mapping[str, Mapping[str, Any]] | None = None,
    request_state: str | None = None,
) -> JSONObject:
    """Build an ``InputRequiredResult`` (``resultType: "input_required"``).

    Args:
        input_requests: Keys mapped to nested requests (built with :func:`elicit_request`,
            :func:`create_message_request`, :func:`list_roots_request`, or given raw as
            ``{"method": ..., "params": ...}``). An empty mapping counts as unset.
        request_state: The (already sealed) state string the client echoes on the retry.

    Returns:
        ``{"resultType": "input_required", "inputRequests"?: ..., "requestState"?: ...}``.

    Raises:
        ValueError: Neither argument was given, or a request names an unknown method.
        TypeError: ``request_state`` is not a str.
    """
    if not input_requests and request_state is None:
        raise ValueError("input_required_result needs input_requests, request_state, or both")
    if request_state is not None and not isinstance(request_state, str):
        raise TypeError(f"request_state must be a str, not {type(request_state).__name__}")
    result: JSONObject = {"resultType": "input_required"}
    if input_requests:
        _needed_features(input_requests)  # rejects unknown methods and malformed requests
        result["inputRequests"] = {key: dict(request) for key, request in input_requests.items()}
    put(result, "requestState", request_state)
    return result


# --------------------------------------------------------------------------- capabilities


def _request_features(key: str, request: Any) -> set[_Feature]:
    """Return the capability features one nested request needs."""
    if not isinstance(request, Mapping):
        raise ValueError(f"input request {key!r} must be an object, not {type(request).__name__}")
    method = request.get("method")
    params = request.get("params")
    if params is None:
        params = {}
    if not isinstance(params, Mapping):
        raise ValueError(f"input request {key!r}: params must be an object")
    if method == ELICITATION_CREATE:
        mode = params.get("mode", "form")
        if mode == "form":
            return {_Feature.FORM}
        if mode == "url":
            return {_Feature.URL}
        raise ValueError(f"input request {key!r}: unknown elicitation mode {mode!r}")
    if method == SAMPLING_CREATE_MESSAGE:
        features = {_Feature.SAMPLING}
        if params.get("tools") is not None or params.get("toolChoice") is not None:
            features.add(_Feature.SAMPLING_TOOLS)
        if params.get("includeContext") in _CONTEXT_VALUES_NEEDING_CAP:
            features.add(_Feature.SAMPLING_CONTEXT)
        return features
    if method == ROOTS_LIST:
        return {_Feature.ROOTS}
    raise ValueError(
        f"input request {key!r}: unknown method {method!r} "
        f"(expected {ELICITATION_CREATE!r}, {SAMPLING_CREATE_MESSAGE!r} or {ROOTS_LIST!r})"
    )


def _needed_features(input_requests: Mapping[str, Any]) -> set[_Feature]:
    """Return the union of the capability features the nested requests need."""
    if not isinstance(input_requests, Mapping):
        raise ValueError("input requests must be an object mapping keys to requests")
    features: set[_Feature] = set()
    for key, request in input_requests.items():
        features |= _request_features(str(key), request)
    return features


def _render(features: set[_Feature], *, explicit_form: bool) -> JSONObject:
    """Render capability features as a ``ClientCapabilities`` object.

    Form elicitation is written as ``elicitation: {}`` (which means form only) unless
    ``explicit_form`` asks for ``elicitation: {"form": {}}``.
    """
    caps: JSONObject = {}
    for feature in _Feature:
        if feature in features:
            capability, _, mode = feature.partition(".")
            section = caps.setdefault(capability, {})
            if mode and (feature is not _Feature.FORM or explicit_form):
                section[mode] = {}
    return caps


def required_capabilities(input_requests: Mapping[str, Mapping[str, Any]]) -> JSONObject:
    """Return the ``ClientCapabilities`` object that the nested requests need, merged.

    Form elicitation needs ``{"elicitation": {}}``, URL mode ``{"elicitation": {"url": {}}}``
    (both: ``{"elicitation": {"form": {}, "url": {}}}``, since ``url`` alone does not declare
    form); sampling needs ``{"sampling": {}}``, plus ``tools`` when ``tools`` or ``toolChoice``
    is set and ``context`` for the deprecated ``includeContext`` values; ``roots/list`` needs
    ``{"roots": {}}``.

    Args:
        input_requests: Keys mapped to nested requests ``{"method": ..., "params"?: ...}``.

    Returns:
        A ``ClientCapabilities`` object (``{}`` when there are no requests).

    Raises:
        ValueError: A request is not an object, or names an unknown method or elicitation mode.
    """
    features = _needed_features(input_requests)
    return _render(features, explicit_form=_Feature.URL in features)


def _sub(caps: Any, key: str) -> Mapping[str, Any] | None:
    """Return ``caps[key]`` when both are objects, else ``None`` (not declared)."""
    if not isinstance(caps, Mapping):
        return None
    value = caps.get(key)
    return value if isinstance(value, Mapping) else None


def _declared(feature: _Feature, client_capabilities: Mapping[str, Any]) -> bool:
    """Tell whether the client declared one capability feature."""
    if feature is _Feature.FORM:
        # ``elicitation: {}`` (no mode listed) means form only, for older clients.
        elicitation = _sub(client_capabilities, "elicitation")
        return elicitation is not None and (
            _sub(elicitation, "form") is not None or "url" not in elicitation
        )
    declared: Any = client_capabilities
    for key in feature.split("."):
        declared = _sub(declared, key)
    return declared is not None


def missing_capabilities(
    input_requests: Mapping[str, Mapping[str, Any]], client_capabilities: Mapping[str, Any]
) -> JSONObject | None:
    """Return the capabilities the nested requests need but the client did not declare.

    Not a plain difference of two ClientCapabilities objects (that is
    ``meta.absent_capabilities``): it reads the requests and applies the rules below.
    ``elicitation: {}`` and ``elicitation: {"form": {}}`` declare form mode; URL mode needs
    ``elicitation.url``; sampling with tools needs ``sampling.tools``. A capability value that
    is not an object counts as not declared. When the client declared ``elicitation`` but not
    form mode, the missing form mode is written as ``{"elicitation": {"form": {}}}``.

    Args:
        input_requests: Keys mapped to nested requests.
        client_capabilities: The request's ``io.modelcontextprotocol/clientCapabilities``.

    Returns:
        A ``ClientCapabilities`` object fit for the -32021 error's ``requiredCapabilities``,
        or ``None`` when everything needed was declared.

    Raises:
        ValueError: As for :func:`required_capabilities`.
    """
    missing = {f for f in _needed_features(input_requests) if not _declared(f, client_capabilities)}
    if not missing:
        return None
    explicit_form = _Feature.URL in missing or _sub(client_capabilities, "elicitation") is not None
    return _render(missing, explicit_form=explicit_form)
