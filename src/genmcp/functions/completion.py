"""Completers: the functions ``@prompt(complete={...})`` and ``@resource(complete={...})`` call.

A completer suggests values for one prompt argument or template variable. Its parameters are
injected by name and annotation, none comes from the client: ``value`` (the partial value),
``context`` (the arguments the client already filled in), ``argument`` (the name being
completed), a ``Channel`` (``channel.state``, ``channel.assigns``) and FastAPI dependencies.
It returns the values (best first) or a ``complete_result(...)``; a plain ``def`` runs in a
worker thread.

Imports genmcp's signature reader; never a web framework.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from genmcp.behaviour import Completion
from genmcp.channel import Channel
from genmcp.functions.signature import Signature, read_signature

__all__ = ["Completers"]

_NAMED = ("value", "context", "argument")


class Completers:
    """The completers of one prompt or template, by argument; checked when it is made."""

    __slots__ = ("_by_argument",)

    def __init__(
        self, completers: Mapping[str, Callable[..., Any]], owner: str, known: Iterable[str]
    ) -> None:
        known = tuple(known)
        unknown = sorted(set(completers) - set(known))
        if unknown:
            raise TypeError(
                f"{owner}: complete= names {', '.join(unknown)}, which it does not take "
                f"(it takes: {', '.join(known) or 'nothing'})"
            )
        self._by_argument = {
            argument: (fn, _checked(fn, owner, argument)) for argument, fn in completers.items()
        }

    def __bool__(self) -> bool:
        return bool(self._by_argument)

    async def complete(
        self, argument: str, value: str, context: Mapping[str, str], channel: Channel
    ) -> Completion:
        """The values the completer of ``argument`` suggests (none without one)."""
        found = self._by_argument.get(argument)
        if found is None:
            return []
        fn, signature = found
        named = {"value": value, "context": context, "argument": argument}
        values: Completion = await signature.call(
            fn, signature.bind(None, None, channel, **named), channel
        )
        return values

    def hook(self) -> Callable[..., Any]:
        """The ``complete`` hook of the prompt or template class these completers serve."""
        completers = self

        async def complete(
            self: Any,  # the prompt or repository instance
            argument: str,
            value: str,
            context: Mapping[str, str],
            channel: Channel,
            arg: Any,
        ) -> Completion:
            return await completers.complete(argument, value, context, channel)

        return complete


def _checked(fn: Callable[..., Any], owner: str, argument: str) -> Signature:
    signature = read_signature(fn, request_type=type(None), named=_NAMED, flatten=False)
    if signature.arguments:
        raise TypeError(
            f"{owner}: the completer of {argument!r} ({signature.owner}) takes "
            f"{', '.join(signature.arguments)}; a completer takes value, context, argument, "
            "a Channel and Depends(...) parameters"
        )
    return signature
