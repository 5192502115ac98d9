"""The prompts a Suite serves: ``prompts/list``, ``prompts/get`` and argument completions.

A :class:`PromptEntry` is built once per served prompt (its ``prompts/list`` entry, checked
arguments); :class:`PromptCatalog` lists them (built once per change, paginated with sealed
cursors), answers ``prompts/get`` through the shared outcome path (``hooks.py``) and
completes prompt arguments. Its ``handlers`` are the two methods, for the Suite's method
table.

``get`` may return plainly: a ``str`` is one user message, a list holds messages (``str`` or
``user_message(...)``); ``Result`` stays for a description or ``_meta``. ``complete`` gets the
request's channel unless it was written without one (``complete_takes_channel``).

Imports genmcp's core modules; never asyncio directly, never a web framework.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

from genmcp.behaviour import complete_takes_channel
from genmcp.call.job import Handlers, HookJob, Job, require
from genmcp.catalogs.hooks import (
    arguments_of,
    call_hook,
    checked,
    completed,
    descriptor,
    instantiate,
    name_of,
    result_of,
)
from genmcp.catalogs.listing import Catalog
from genmcp.errors import CallbackReturnError, MCPError
from genmcp.outcomes import CacheControl, Error, InputRequired, Result
from genmcp.prompts import Prompt, PromptRequest
from genmcp.protocol.jsonrpc import Request
from genmcp.protocol.methods import PROMPTS_GET, PROMPTS_LIST
from genmcp.protocol.prompts import (
    as_complete_result,
    complete_result,
    get_prompt_result,
    prompt_argument,
)
from genmcp.schema import InvalidArguments

if TYPE_CHECKING:
    from genmcp.channel import Channel

__all__ = ["PromptCatalog", "PromptEntry", "PromptProvider"]

_GET_OUTCOMES: Final = (Result, InputRequired, Error)

PromptProvider = type[Prompt] | tuple[type[Prompt], Any]
"""A prompt class, or ``(PromptClass, arg)``; ``arg`` reaches every hook."""


class PromptEntry:
    """One served prompt: the instance, its ``arg`` and its ``prompts/list`` entry."""

    __slots__ = (
        "arg",
        "argument_names",
        "complete_channel",
        "completes",
        "descriptor",
        "name",
        "owner",
        "prompt",
    )

    def __init__(self, cls: type[Prompt], arg: Any) -> None:
        self.prompt, self.arg = instantiate(cls, Prompt), arg
        self.owner = cls.__qualname__
        self.name = name_of(self.prompt, self.owner, arg)
        arguments = [_argument(self.owner, a) for a in self.prompt.arguments(arg)]
        self.argument_names = tuple(a["name"] for a in arguments)
        if len(set(self.argument_names)) != len(self.argument_names):
            raise ValueError(f"{self.owner}: an argument name appears twice")
        own = {"arguments": arguments} if arguments else {}
        self.descriptor = descriptor(self.prompt, arg, self.name, own, ("icons", "_meta"))
        self.completes = type(self.prompt).complete is not Prompt.complete
        # False for a complete() written before it took the channel (argument, value, context, arg)
        self.complete_channel = complete_takes_channel(self.prompt) if self.completes else True

    @property
    def behaviour(self) -> Prompt:
        """The prompt instance (its ``visible`` hook)."""
        return self.prompt

    def cache_control(self) -> CacheControl:
        """The prompt's cache hint for ``prompts/list``."""
        return self.prompt.cache_control(self.arg)

    def required_scopes(self) -> tuple[str, ...]:
        """The scopes a caller needs to see and get the prompt (auth)."""
        return self.prompt.required_scopes(self.arg)


def plain(outcome: Any) -> Any:
    """The ``Result`` of a prompt's plain return (a ``str``: one user message; a list of
    ``str`` or messages), else ``outcome``."""
    if isinstance(outcome, str | list):
        try:
            return Result(get_prompt_result(outcome))
        except TypeError:  # an item that is no message: ``checked`` names the contract
            pass
    return outcome


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

    def __init__(self, **served: Any) -> None:
        super().__init__(
            kind="prompt", method=PROMPTS_LIST, key="prompts", make=PromptEntry, **served
        )

    def handlers(self) -> Handlers:
        """``prompts/list`` and ``prompts/get`` (-32601 while no prompt is served)."""

        def list_prompts(
            request: Request, meta: dict[str, Any], assigns: Mapping[str, Any]
        ) -> dict[str, Any]:
            require(bool(self), request)
            return self.list_visible(request, meta, assigns)

        def get(request: Request, meta: dict[str, Any], assigns: Mapping[str, Any]) -> Job:
            require(bool(self), request)
            return HookJob(
                request.method, lambda channel: self.get(request.params, meta, assigns, channel)
            )

        return {PROMPTS_LIST: list_prompts, PROMPTS_GET: get}

    @property
    def completes(self) -> bool:
        """True when some prompt completes its arguments."""
        return any(entry.completes for entry in self.entries.values())

    async def get(
        self,
        params: Mapping[str, Any],
        meta: Mapping[str, Any],
        assigns: Mapping[str, Any],
        channel: Channel,
    ) -> dict[str, Any]:
        """The ``prompts/get`` result (or ``input_required`` result) for ``params``."""
        entry = self.requested(params, PROMPTS_GET, assigns, meta)  # hidden: as unknown
        arguments = arguments_of(params, PROMPTS_GET)
        responses, state, binding = self.states.retry(
            params, assigns, PROMPTS_GET, entry.name, arguments
        )
        request = PromptRequest(
            entry.name, arguments, meta=meta, input_responses=responses, request_state=state
        )
        try:
            request = entry.prompt.validate_request(request, entry.arg)
        except InvalidArguments as exc:
            raise MCPError(
                "invalid_params",
                f"Invalid arguments for prompt {entry.name!r}: {exc.describe()}",
                {"name": entry.name, "errors": exc.errors},
            ) from None
        outcome = plain(await call_hook(entry.prompt, "get", request, channel, entry.arg))
        return result_of(
            checked("prompt", entry.name, "get", outcome, _GET_OUTCOMES),
            complete=lambda result: self._complete(entry, result),
            states=self.states,
            meta=meta,
            binding=binding,
        )

    def _complete(self, entry: PromptEntry, result: Any) -> dict[str, Any]:
        if not isinstance(result, dict) or not isinstance(result.get("messages"), list):
            raise CallbackReturnError(
                "prompt", entry.name, "get", result, "Result(get_prompt_result(messages))"
            )
        return completed(result, self._result_meta)

    async def complete(
        self, name: str, argument: str, value: str, context: Mapping[str, str], channel: Channel
    ) -> dict[str, Any]:
        """The ``CompleteResult`` of the prompt ``name`` for ``argument``."""
        entry = self.named(name, channel.assigns)  # a hidden prompt: as an unknown one
        if argument not in entry.argument_names:
            raise MCPError(
                "invalid_params",
                f"Invalid params: prompt {name!r} has no argument {argument!r} "
                f"(it has: {', '.join(entry.argument_names) or 'none'})",
            )
        if not entry.completes:
            return complete_result([])
        given = (channel,) if entry.complete_channel else ()
        values = await call_hook(
            entry.prompt, "complete", argument, value, context, *given, entry.arg
        )
        return as_complete_result(values, kind="prompt", owner=entry.name)
