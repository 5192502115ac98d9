"""The options base of the three behaviours (Tool, Prompt, ResourceRepo).

A behaviour is configured with class keyword options (``class Add(Tool, name="add")``); the
options feed the default hooks. :class:`Behaviour` reads them once per class in
``__init_subclass__``, refuses unknown ones naming the class and the known ones, and merges
them over the parent's, so a subclass may refine a configured tool. :func:`complete_arity`
tells which of the two ``complete`` signatures a prompt or repository wrote.

Imports nothing from genmcp (the ``Caller`` of ``visible`` only for type checking).
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, TypeAlias, TypeVar

if TYPE_CHECKING:
    from genmcp.caller import Caller

__all__ = ["Behaviour", "Completion", "Hooked", "complete_takes_channel"]

T = TypeVar("T")
Hooked: TypeAlias = T | Awaitable[T]
"""What a hook returns: its value from a plain ``def``, or from an ``async def``."""
Completion = Sequence[str] | Mapping[str, Any]
"""What ``complete`` returns: values (best first), or a ``complete_result(...)``."""


class Behaviour:
    """Base of ``Tool``, ``Prompt`` and ``ResourceRepo``: class options and their lookup.

    Subclasses name their ``kind`` (for messages) and their ``option_keys``.
    """

    # No __dict__ here or in Tool: a subclass has one unless it declares __slots__ too, as
    # @tool's classes do (CPython gives a class whose instances have a __dict__ a ~0.8 KB
    # shared-keys table, and each instance a dict: a catalog of 100,000 pays both).
    # __weakref__ is kept so that a subclass adds one descriptor, not two.
    __slots__ = ("__weakref__",)

    kind: ClassVar[str] = "behaviour"
    option_keys: ClassVar[tuple[str, ...]] = ()
    _genmcp_options: ClassVar[dict[str, Any]] = {}

    def __init_subclass__(cls, **options: Any) -> None:
        if options and not options.keys() <= set(cls.option_keys):  # a C check per class
            unknown = sorted(set(options) - set(cls.option_keys))
            base = next(b.__name__ for b in cls.__mro__ if "option_keys" in b.__dict__)
            raise TypeError(
                f"{cls.__qualname__}: unknown {base} option(s) {', '.join(unknown)}; "
                f"known options: {', '.join(cls.option_keys)}"
            )
        super().__init_subclass__()
        if options:  # else the parent's, inherited
            cls._genmcp_options = {**cls._genmcp_options, **options}

    def option(self, key: str, default: Any = None) -> Any:
        """The class option ``key`` (``"_meta"`` reads the ``meta=`` option)."""
        return self._genmcp_options.get("meta" if key == "_meta" else key, default)

    def visible(self, caller: Caller, arg: Any) -> bool:
        """Whether ``caller`` (principal, tenant, assigns) may see this item: hidden, it is
        left out of lists and answered as unknown (``genmcp.visibility``). True by default;
        the decision is cached per caller key, so it must not depend on anything else."""
        return True

    def hidden_parts(self, caller: Caller, arg: Any) -> Iterable[str]:
        """The parts of this item ``caller`` may not see, though it sees the item (a
        versioned tool: the versions it may not run): its lists are then apart from those of
        callers who see them (``genmcp.visibility``). Empty by default (a catalog whose
        entries keep the default never asks); cached per caller key, as :meth:`visible`."""
        return ()


def complete_takes_channel(behaviour: Behaviour) -> bool:
    """True when ``behaviour.complete`` is ``(argument, value, context, channel, arg)``, False
    for the older ``(argument, value, context, arg)``; ``TypeError`` for any other, so a
    wrong signature fails when the Suite is built rather than at the first completion."""
    try:
        complete = behaviour.complete  # type: ignore[attr-defined]
        parameters = list(inspect.signature(complete).parameters.values())
    except (TypeError, ValueError):  # no signature to read (a builtin): assume the current
        return True
    if any(p.kind is p.VAR_POSITIONAL for p in parameters):
        return True
    positional = sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in parameters)
    if positional == 5:
        return True
    if positional == 4:
        return False
    owner = type(behaviour).__qualname__
    raise TypeError(
        f"{owner}.complete takes {positional} argument(s) after self; write "
        "complete(self, argument, value, context, channel, arg) (or the older "
        "complete(self, argument, value, context, arg), without the channel)"
    )
