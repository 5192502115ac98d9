"""The options base of the three behaviours (Tool, Prompt, ResourceRepo).

A behaviour is configured with class keyword options (``class Add(Tool, name="add")``); the
options feed the default hooks. :class:`Behaviour` reads them once per class in
``__init_subclass__``, refuses unknown ones naming the class and the known ones, and merges
them over the parent's, so a subclass may refine a configured tool.

Imports nothing from genmcp.
"""

from __future__ import annotations

from collections.abc import Awaitable, Mapping, Sequence
from typing import Any, ClassVar, TypeAlias, TypeVar

__all__ = ["Behaviour", "Completion", "Hooked"]

T = TypeVar("T")
Hooked: TypeAlias = T | Awaitable[T]
"""What a hook returns: its value from a plain ``def``, or from an ``async def``."""
Completion = Sequence[str] | Mapping[str, Any]
"""What ``complete`` returns: values (best first), or a ``complete_result(...)``."""


class Behaviour:
    """Base of ``Tool``, ``Prompt`` and ``ResourceRepo``: class options and their lookup.

    Subclasses name their ``kind`` (for messages) and their ``option_keys``.
    """

    kind: ClassVar[str] = "behaviour"
    option_keys: ClassVar[tuple[str, ...]] = ()
    _genmcp_options: ClassVar[dict[str, Any]] = {}

    def __init_subclass__(cls, **options: Any) -> None:
        unknown = sorted(set(options) - set(cls.option_keys))
        if unknown:
            base = next(b.__name__ for b in cls.__mro__ if "option_keys" in b.__dict__)
            raise TypeError(
                f"{cls.__qualname__}: unknown {base} option(s) {', '.join(unknown)}; "
                f"known options: {', '.join(cls.option_keys)}"
            )
        super().__init_subclass__()
        cls._genmcp_options = {**cls._genmcp_options, **options}

    def option(self, key: str, default: Any = None) -> Any:
        """The class option ``key`` (``"_meta"`` reads the ``meta=`` option)."""
        return self._genmcp_options.get("meta" if key == "_meta" else key, default)
