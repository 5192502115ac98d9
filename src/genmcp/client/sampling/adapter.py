"""``SamplingAdapter``: what the model API adapters share.

An adapter is a ``sampling=`` callback of ``Client``: called with a ``sampling/createMessage``
request's params, it returns a ``CreateMessageResult``. It picks the model (``pick_model``:
the first of ``models`` a ``modelPreferences`` hint names, else ``model``), posts one request
with httpx and maps the answer back. A request the API cannot take (content it has no form
for) is ``RPCError`` -32602; an API that fails or answers nonsense is ``RPCError`` -32603
naming its status: the server that asked gets a JSON-RPC error, never a hang.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any, Final

import httpx

from genmcp.client.errors import RPCError

__all__ = [
    "INVALID_PARAMS",
    "MODEL_FAILED",
    "TOOL_MODES",
    "SamplingAdapter",
    "assistant_result",
    "blocks",
    "options_of",
    "pick_model",
    "single_or_list",
    "tool_mode",
]

INVALID_PARAMS: Final = -32602
MODEL_FAILED: Final = -32603
TOOL_MODES: Final = ("auto", "required", "none")
"""The ``toolChoice.mode`` values MCP names (another is left to the API's default)."""


def pick_model(preferences: Any, models: Sequence[str], default: str) -> str:
    """The first of ``models`` containing a hint's ``name`` (hints in order of preference,
    as the spec says: substrings of a model name), else ``default``."""
    hints = preferences.get("hints") if isinstance(preferences, Mapping) else None
    for hint in hints if isinstance(hints, list) else ():
        name = hint.get("name") if isinstance(hint, Mapping) else None
        if not isinstance(name, str) or not name:
            continue
        for model in models:
            if name in model:
                return model
    return default


def blocks(content: Any) -> list[dict[str, Any]]:
    """A sampling message's content as a list of blocks (one block or a list on the wire)."""
    if isinstance(content, Mapping):
        return [dict(content)]
    if isinstance(content, list) and all(isinstance(item, Mapping) for item in content):
        return [dict(item) for item in content]
    raise RPCError(INVALID_PARAMS, "a sampling message's content is a block or a list of blocks")


class SamplingAdapter(ABC):
    """The HTTP client, the model choice and the call of a model API adapter.

    Args:
        base_url: the API's root (``https://api.openai.com/v1``, ``https://api.anthropic.com``).
        api_key: the key the API takes (None: no key header).
        model: the model used when no hint names one of ``models``.
        models: the models a ``modelPreferences`` hint may choose (``model`` is one of them).
        http: an ``httpx.AsyncClient`` to share (the adapter makes its own otherwise).
        timeout: seconds a connect or a read may take.
        headers: more headers on every API request.
    """

    path: str = ""
    """The endpoint under ``base_url`` (set by each adapter)."""
    capabilities: Mapping[str, Any] = {"sampling": {"tools": {}}}
    """What to pass as ``Client(capabilities=...)``: sampling with tools (2025-11-25 on)."""

    def __init__(
        self,
        base_url: str,
        *,
        api_key: str | None = None,
        model: str,
        models: Sequence[str] = (),
        http: httpx.AsyncClient | None = None,
        timeout: float = 120.0,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.model = model
        self.models = [*models, *([] if model in models else [model])]
        self.headers = dict(headers or {})
        self._http = http if http is not None else httpx.AsyncClient(timeout=timeout)
        self._owns_http = http is None
        self.requests = 0
        """API requests sent (for tests and metrics)."""

    async def aclose(self) -> None:
        """Close the HTTP client if the adapter made it."""
        if self._owns_http:
            await self._http.aclose()

    def auth_headers(self) -> dict[str, str]:
        """The key's headers (each adapter says how its API takes it)."""
        return {}

    @abstractmethod
    def request_body(self, params: Mapping[str, Any], model: str) -> dict[str, Any]:
        """The API request for a ``createMessage``'s params."""

    @abstractmethod
    def result(self, answer: Mapping[str, Any], params: Mapping[str, Any]) -> dict[str, Any]:
        """The ``CreateMessageResult`` for the API's answer."""

    async def __call__(self, params: dict[str, Any]) -> dict[str, Any]:
        model = pick_model(params.get("modelPreferences"), self.models, self.model)
        body = self.request_body(params, model)
        url = self.base_url + self.path
        headers = {**self.headers, **self.auth_headers()}
        self.requests += 1
        try:
            response = await self._http.post(url, json=body, headers=headers)
        except httpx.HTTPError as exc:
            raise RPCError(MODEL_FAILED, f"the model API at {url} failed: {exc}") from None
        try:
            answer = response.json()
        except ValueError:
            answer = None
        if response.status_code >= 400 or not isinstance(answer, Mapping):
            detail = answer.get("error") if isinstance(answer, Mapping) else None
            raise RPCError(MODEL_FAILED, f"the model API at {url} answered {response.status_code}",
                           {"status": response.status_code, "error": detail})  # fmt: skip
        try:
            return self.result(answer, params)
        except (KeyError, IndexError, TypeError, ValueError) as exc:
            raise RPCError(MODEL_FAILED, f"the model API at {url} answered an unknown shape "
                           f"({type(exc).__name__}: {exc})") from None  # fmt: skip


def single_or_list(content: list[dict[str, Any]], params: Mapping[str, Any]) -> Any:
    """One block when the request had no tools and one block came back (what revisions
    before 2025-11-25 read), else the list."""
    if len(content) == 1 and not params.get("tools"):
        return content[0]
    return content


def tool_mode(params: Mapping[str, Any]) -> str | None:
    """The request's ``toolChoice.mode`` when it is one of ``TOOL_MODES``, else None."""
    choice = params.get("toolChoice")
    mode = choice.get("mode") if isinstance(choice, Mapping) else None
    return mode if isinstance(mode, str) and mode in TOOL_MODES else None


def assistant_result(
    content: list[dict[str, Any]], params: Mapping[str, Any], model: Any, reason: str | None
) -> dict[str, Any]:
    """The ``CreateMessageResult`` of an answer's blocks (one empty text block when there are
    none), the answering model and the MCP ``stopReason`` (left out when None)."""
    if not content:
        content.append({"type": "text", "text": ""})
    result: dict[str, Any] = {"role": "assistant", "content": single_or_list(content, params),
                              "model": str(model or "")}  # fmt: skip
    if reason is not None:
        result["stopReason"] = reason
    return result


def options_of(params: Mapping[str, Any], stop_field: str) -> dict[str, Any]:
    """The request's ``temperature`` and ``stopSequences`` (under ``stop_field``) as the API
    body's fields, each only when given."""
    found: dict[str, Any] = {}
    if params.get("temperature") is not None:
        found["temperature"] = params["temperature"]
    if params.get("stopSequences"):
        found[stop_field] = list(params["stopSequences"])
    return found
