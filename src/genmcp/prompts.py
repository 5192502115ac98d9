"""The Prompt behaviour: a prompt template as a class with hooks.

A prompt is a subclass of ``Prompt`` configured with class keyword options (``name=``, ``title=``,
``description=``, ``arguments=[{"name", "description", "required"}]``), the twin of ``Tool``:
``get(request, channel, arg)`` returns a ``str`` (one user message), a list of messages,
``Result(get_prompt_result(...))``, ``InputRequired(requests, state)`` or ``Error``; the optional
``complete(argument, value, context, channel, arg)`` suggests argument values. ``@prompt``
(``genmcp.functions``) writes the class from a function. Every hook receives the provider argument
``arg`` last: ``prompts=[(Review, "strict")]``; a bare class means ``arg=None``.

Arguments are checked before ``get`` (``validate_request``): strings only, every required
one present, no unknown ones; a failure is -32602 with the failing arguments in ``data``.

Imports genmcp's behaviour, outcomes and schema modules; no asyncio, never a web framework.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from genmcp.behaviour import Behaviour, Completion, Hooked
from genmcp.outcomes import CacheControl, Error, HookRequest, InputRequired, Result
from genmcp.schema import InvalidArguments

if TYPE_CHECKING:
    from genmcp.channel import Channel

__all__ = ["GetOutcome", "Prompt", "PromptRequest"]

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


@dataclass(frozen=True, slots=True)
class PromptRequest(HookRequest):
    """What ``get`` receives for one ``prompts/get``.

    Attributes:
        name: the prompt name.
        arguments: the checked arguments (name -> string).
        meta, input_responses, request_state: ``HookRequest``'s (keyword-only).
    """

    name: str
    arguments: Mapping[str, str]


GetOutcome = Result | InputRequired | Error


class Prompt(Behaviour):
    """Base class of every prompt; subclass it with keyword options.

    Example::

        class Review(Prompt, name="review", description="Review some code.",
                     arguments=[{"name": "code", "description": "The code", "required": True}]):
            async def get(self, request, channel, arg):
                code = request.arguments["code"]
                return Result(get_prompt_result([user_message(f"Review this:\\n{code}")]))

    Hooks may be ``async def`` or plain ``def`` (run in a worker thread).
    """

    kind: ClassVar[str] = "prompt"
    option_keys: ClassVar[tuple[str, ...]] = _OPTION_KEYS

    def info(self, key: str, arg: Any) -> Any:
        """Return the metadata ``key`` (name, title, description, icons, _meta).

        Called once per provider when the Suite is built.
        """
        return self.option(key)

    def arguments(self, arg: Any) -> list[dict[str, Any]]:
        """The ``PromptArgument`` list (``name``, ``title``, ``description``, ``required``).

        Called once per provider when the Suite is built. Defaults to the ``arguments=``
        option.
        """
        return [dict(argument) for argument in self.option("arguments") or ()]

    def cache_control(self, arg: Any) -> CacheControl:
        """How long ``prompts/list`` may be cached: ``("public"|"private", ttl_ms)``."""
        option: CacheControl | None = self.option("cache_control")
        return ("private", 0) if option is None else option

    def required_scopes(self, arg: Any) -> tuple[str, ...]:
        """The OAuth scopes a caller needs for ``prompts/get`` (``scopes=`` option)."""
        return tuple(self.option("scopes") or ())

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

        Return a ``str`` (one user message), a list of messages (``str`` or
        ``user_message(...)``), ``Result(get_prompt_result(messages))`` when you need a
        description or ``_meta``, ``InputRequired(requests, state)``
        to ask the client first, or ``Error`` for a protocol error. Raising answers -32603
        and logs the traceback.
        """
        raise TypeError(f"{type(self).__qualname__} must implement get()")

    def complete(
        self, argument: str, value: str, context: Mapping[str, str], channel: Channel, arg: Any
    ) -> Hooked[Completion]:
        """Suggest values for ``argument`` from its partial ``value``.

        ``context`` holds the arguments the client already filled in; ``channel`` is the request's
        (``channel.state``, ``channel.assigns``). The older ``complete(self, argument, value,
        context, arg)``, without the channel, still works. Return the matching
        values (best first; genmcp sends at most 100, with ``total`` and ``hasMore``), or a
        ``complete_result(...)``. Prompts that do not override it offer no completions.
        """
        return []


def _error(kind: str, name: str, message: str) -> dict[str, Any]:
    return {"type": kind, "loc": [name], "msg": message}
