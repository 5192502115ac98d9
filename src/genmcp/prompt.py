"""The Prompt behaviour: a prompt template as a class with hooks, and the Suite's prompt set.

A prompt is a subclass of ``Prompt`` configured with class keyword options (``name=``,
``title=``, ``description=``, ``arguments=[{"name", "description", "required"}]``), the
twin of ``Tool``: ``get(request, channel, arg)`` returns ``Result(get_prompt_result(...))``,
``InputRequired(requests, state)`` or ``Error``; the optional ``complete(argument, value,
context, arg)`` suggests argument values. Every hook receives the provider argument ``arg``
last: ``prompts=[(Review, "strict")]``; a bare class means ``arg=None``.

Arguments are checked before ``get`` (``validate_request``): strings only, every required
one present, no unknown ones; a failure is -32602 with the failing arguments in ``data``.

:class:`PromptCatalog` is the Suite's side: ``prompts/list`` (built once per change,
paginated with sealed cursors), ``prompts/get`` and prompt-argument completions.

Imports genmcp's core modules; never asyncio directly, never a web framework.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Final

from genmcp.errors import CallbackReturnError, MCPError
from genmcp.listing import Catalog
from genmcp.oneshot import call_hook
from genmcp.protocol.prompts import as_complete_result, complete_result, prompt_argument
from genmcp.request_state import RequestStates, input_responses, principal_of
from genmcp.resource import Completion, Hooked
from genmcp.schema import InvalidArguments
from genmcp.sealing import Sealer, digest
from genmcp.tool import CacheControl, Error, InputRequired, Result

if TYPE_CHECKING:
    from genmcp.channel import Channel

__all__ = [
    "GetOutcome",
    "Prompt",
    "PromptCatalog",
    "PromptEntry",
    "PromptProvider",
    "PromptRequest",
]

_OPTION_KEYS = (
    "name",
    "title",
    "description",
    "arguments",
    "icons",
    "meta",
    "cache_control",
    "scopes",
)
INFO_KEYS: Final = ("name", "title", "description", "icons", "_meta")
GET: Final = "prompts/get"
_GET_EXPECTED: Final = "Result, InputRequired or Error"


@dataclass(frozen=True, slots=True)
class PromptRequest:
    """What ``get`` receives for one ``prompts/get``.

    Attributes:
        name: the prompt name.
        arguments: the checked arguments (name -> string).
        meta: the request's ``_meta``.
        input_responses: the client's answers on a multi round-trip retry, else None.
        request_state: the verified state from ``InputRequired(..., state)``, else None.
    """

    name: str
    arguments: Mapping[str, str]
    meta: Mapping[str, Any] = field(default_factory=dict)
    input_responses: dict[str, Any] | None = None
    request_state: Any = None


GetOutcome = Result | InputRequired | Error


class Prompt:
    """Base class of every prompt; subclass it with keyword options.

    Example::

        class Review(Prompt, name="review", description="Review some code.",
                     arguments=[{"name": "code", "description": "The code", "required": True}]):
            async def get(self, request, channel, arg):
                code = request.arguments["code"]
                return Result(get_prompt_result([user_message(f"Review this:\\n{code}")]))

    Hooks may be ``async def`` or plain ``def`` (run in a worker thread).
    """

    _genmcp_options: ClassVar[dict[str, Any]] = {}

    def __init_subclass__(cls, **options: Any) -> None:
        unknown = sorted(set(options) - set(_OPTION_KEYS))
        if unknown:
            raise TypeError(
                f"{cls.__qualname__}: unknown Prompt option(s) {', '.join(unknown)}; "
                f"known options: {', '.join(_OPTION_KEYS)}"
            )
        super().__init_subclass__()
        cls._genmcp_options = {**cls._genmcp_options, **options}

    def info(self, key: str, arg: Any) -> Any:
        """Return the metadata ``key`` (name, title, description, icons, _meta).

        Called once per provider when the Suite is built.
        """
        return self._genmcp_options.get("meta" if key == "_meta" else key)

    def arguments(self, arg: Any) -> list[dict[str, Any]]:
        """The ``PromptArgument`` list (``name``, ``title``, ``description``, ``required``).

        Called once per provider when the Suite is built. Defaults to the ``arguments=``
        option.
        """
        return [dict(argument) for argument in self._genmcp_options.get("arguments") or ()]

    def cache_control(self, arg: Any) -> CacheControl:
        """How long ``prompts/list`` may be cached: ``("public"|"private", ttl_ms)``."""
        option: CacheControl | None = self._genmcp_options.get("cache_control")
        return ("private", 0) if option is None else option

    def required_scopes(self, arg: Any) -> tuple[str, ...]:
        """The OAuth scopes a caller needs for ``prompts/get`` (``scopes=`` option)."""
        return tuple(self._genmcp_options.get("scopes") or ())

    def validate_request(self, request: PromptRequest, arg: Any) -> PromptRequest:
        """Check the arguments before ``get``; return the request to get with.

        The default accepts only the declared arguments, as strings, with every required
        one present, and raises ``InvalidArguments`` otherwise (the client gets -32602 with
        the entries in ``data.errors``). Define your own to replace it.
        """
        declared = {a["name"]: a for a in self.arguments(arg)}
        errors: list[dict[str, Any]] = []
        for name, value in request.arguments.items():
            if name not in declared:
                errors.append(_error("unknown_argument", name, "not an argument of this prompt"))
            elif not isinstance(value, str):
                errors.append(_error("string_type", name, "must be a string"))
        for name, argument in declared.items():
            if argument.get("required") and name not in request.arguments:
                errors.append(_error("missing", name, "required argument missing"))
        if errors:
            raise InvalidArguments(errors)
        return request

    def get(self, request: PromptRequest, channel: Channel, arg: Any) -> Hooked[GetOutcome]:
        """Build the prompt. Must be overridden.

        Return ``Result(get_prompt_result(messages))``, ``InputRequired(requests, state)``
        to ask the client first, or ``Error`` for a protocol error. Raising answers -32603
        and logs the traceback.
        """
        raise TypeError(f"{type(self).__qualname__} must implement get()")

    def complete(
        self, argument: str, value: str, context: Mapping[str, str], arg: Any
    ) -> Hooked[Completion]:
        """Suggest values for ``argument`` from its partial ``value``.

        ``context`` holds the arguments the client already filled in. Return the matching
        values (best first; genmcp sends at most 100, with ``total`` and ``hasMore``), or a
        ``complete_result(...)``. Prompts that do not override it offer no completions.
        """
        return []


def _error(kind: str, name: str, message: str) -> dict[str, Any]:
    return {"type": kind, "loc": [name], "msg": message}


PromptProvider = type[Prompt] | tuple[type[Prompt], Any]
"""A prompt class, or ``(PromptClass, arg)``; ``arg`` reaches every hook."""


class PromptEntry:
    """One served prompt: the instance, its ``arg`` and its ``prompts/list`` entry."""

    __slots__ = ("arg", "argument_names", "completes", "descriptor", "name", "owner", "prompt")

    def __init__(self, cls: type[Prompt], arg: Any) -> None:
        if not (isinstance(cls, type) and issubclass(cls, Prompt)):
            raise TypeError(f"{cls!r} is not a Prompt subclass (give a class or (class, arg))")
        self.owner = cls.__qualname__
        self.prompt, self.arg = cls(), arg
        name = self.prompt.info("name", arg)
        if not isinstance(name, str) or not name.strip():
            raise ValueError(f"{self.owner}: a prompt needs a non-blank name (option name=...)")
        self.name = name
        arguments = [_argument(self.owner, a) for a in self.prompt.arguments(arg)]
        self.argument_names = tuple(a["name"] for a in arguments)
        if len(set(self.argument_names)) != len(self.argument_names):
            raise ValueError(f"{self.owner}: an argument name appears twice")
        descriptor: dict[str, Any] = {"name": name}
        for key in ("title", "description"):
            value = self.prompt.info(key, arg)
            if value is not None:
                descriptor[key] = value
        if arguments:
            descriptor["arguments"] = arguments
        for key in ("icons", "_meta"):
            value = self.prompt.info(key, arg)
            if value is not None:
                descriptor[key] = list(value) if key == "icons" else dict(value)
        self.descriptor = descriptor
        self.completes = type(self.prompt).complete is not Prompt.complete

    def cache_control(self) -> CacheControl:
        """The prompt's cache hint for ``prompts/list``."""
        return self.prompt.cache_control(self.arg)


def _argument(owner: str, argument: Any) -> dict[str, Any]:
    if not isinstance(argument, Mapping) or not isinstance(argument.get("name"), str):
        raise ValueError(f"{owner}: a prompt argument is a mapping with a name, not {argument!r}")
    unknown = set(argument) - {"name", "title", "description", "required"}
    if unknown:
        raise ValueError(f"{owner}: unknown prompt argument key(s) {', '.join(sorted(unknown))}")
    return prompt_argument(
        argument["name"],
        title=argument.get("title"),
        description=argument.get("description"),
        required=argument.get("required"),
    )


class PromptCatalog(Catalog[PromptEntry]):
    """The prompts a Suite serves, and ``prompts/list``, ``prompts/get`` over them."""

    kind, method, key = "prompt", "prompts/list", "prompts"

    def __init__(
        self,
        *,
        sealer: Sealer,
        states: RequestStates,
        page_size: int,
        result_meta: Mapping[str, Any],
    ) -> None:
        super().__init__(sealer=sealer, page_size=page_size, result_meta=result_meta)
        self._states = states

    def make(self, cls: Any, arg: Any) -> PromptEntry:
        return PromptEntry(cls, arg)

    @property
    def completes(self) -> bool:
        """True when some prompt completes its arguments."""
        return any(entry.completes for entry in self.entries.values())

    def entry(self, params: Mapping[str, Any]) -> PromptEntry:
        """The prompt ``params.name`` names; -32602 when there is none."""
        name = params.get("name")
        if not isinstance(name, str):
            raise MCPError("invalid_params", "Invalid params: prompts/get needs params.name")
        entry = self.entries.get(name)
        if entry is None:
            raise MCPError("unknown_prompt", f"Unknown prompt: {name!r}", {"name": name})
        return entry

    async def get(
        self,
        params: Mapping[str, Any],
        meta: Mapping[str, Any],
        assigns: Mapping[str, Any],
        channel: Channel,
    ) -> dict[str, Any]:
        """The ``prompts/get`` result (or ``input_required`` result) for ``params``."""
        entry = self.entry(params)
        arguments = params.get("arguments")
        if arguments is None:
            arguments = {}
        elif not isinstance(arguments, dict):
            raise MCPError(
                "invalid_params", "Invalid params: prompts/get arguments must be an object"
            )
        responses = input_responses(params.get("inputResponses"))
        binding = digest(GET, entry.name, arguments, principal_of(assigns))
        state = self._states.open(params, binding)
        request = PromptRequest(entry.name, arguments, meta, responses, state)
        try:
            request = entry.prompt.validate_request(request, entry.arg)
        except InvalidArguments as exc:
            raise MCPError(
                "invalid_params",
                f"Invalid arguments for prompt {entry.name!r}: {exc.describe()}",
                {"name": entry.name, "errors": exc.errors},
            ) from None
        outcome = await call_hook(entry.prompt.get, request, channel, entry.arg)
        if isinstance(outcome, Result):
            return self._complete(entry, outcome.result)
        if isinstance(outcome, InputRequired):
            return self._states.input_required(meta, binding, outcome)
        if isinstance(outcome, Error):
            raise MCPError("internal_error", outcome.message, outcome.data, code=outcome.code)
        raise CallbackReturnError(entry.owner, "get", outcome, _GET_EXPECTED)

    def _complete(self, entry: PromptEntry, result: Any) -> dict[str, Any]:
        if not isinstance(result, dict) or not isinstance(result.get("messages"), list):
            raise CallbackReturnError(
                entry.owner, "get", result, "Result(get_prompt_result(messages))"
            )
        meta = result.get("_meta")
        merged = self._result_meta if meta is None else {**self._result_meta, **meta}
        return {**result, "resultType": "complete", "_meta": merged}

    async def complete(
        self, name: str, argument: str, value: str, context: Mapping[str, str]
    ) -> dict[str, Any]:
        """The ``CompleteResult`` of the prompt ``name`` for ``argument``."""
        entry = self.entries.get(name)
        if entry is None:
            raise MCPError("unknown_prompt", f"Unknown prompt: {name!r}", {"name": name})
        if argument not in entry.argument_names:
            raise MCPError(
                "invalid_params",
                f"Invalid params: prompt {name!r} has no argument {argument!r} "
                f"(it has: {', '.join(entry.argument_names) or 'none'})",
            )
        if not entry.completes:
            return complete_result([])
        values = await call_hook(entry.prompt.complete, argument, value, context, entry.arg)
        return as_complete_result(values, owner=entry.owner)
