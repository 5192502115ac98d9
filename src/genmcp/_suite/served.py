"""What the catalogs share about one served item: its entry, built once, and its requests.

An entry (``ToolEntry``, ``PromptEntry``, ``RepoEntry``) starts the same way for every
behaviour: :func:`instantiate` checks the provider class and makes the one instance,
:func:`name_of` reads a tool's or prompt's name and :func:`descriptor` writes its list
entry (``name``, ``title``, ``description``, the behaviour's own keys, then its metadata
objects). :func:`arguments_of` reads the ``arguments`` of ``tools/call`` and ``prompts/get``.

Imports genmcp's behaviour and errors; no asyncio, no web framework.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, Protocol, TypeVar

from genmcp.behaviour import Behaviour
from genmcp.errors import MCPError
from genmcp.protocol.icons import checked_icons

__all__ = ["Described", "arguments_of", "descriptor", "instantiate", "name_of"]

B = TypeVar("B", bound=Behaviour)


class Described(Protocol):
    """A behaviour with metadata hooks (``Tool``, ``Prompt``)."""

    kind: ClassVar[str]

    def info(self, key: str, arg: Any) -> Any:
        """The metadata ``key`` (``name``, ``title``, ...), or None."""
        ...


def instantiate(cls: Any, base: type[B], forms: str = "a class or (class, arg)") -> B:
    """The one instance of the provider class ``cls``; ``TypeError`` unless it subclasses
    ``base`` (``forms`` names what a provider may be, for the message)."""
    if not (isinstance(cls, type) and issubclass(cls, base)):
        raise TypeError(f"{cls!r} is not a {base.__name__} subclass (give {forms})")
    return cls()


def name_of(behaviour: Described, owner: str, arg: Any) -> str:
    """The ``name`` a tool or prompt reports (``info("name", arg)``); it must not be blank."""
    name = behaviour.info("name", arg)
    if not isinstance(name, str) or not name.strip():
        raise ValueError(
            f"{owner}: a {behaviour.kind} needs a non-blank name (class option name=...)"
        )
    return name


def descriptor(
    behaviour: Described, arg: Any, name: str, own: Mapping[str, Any], objects: tuple[str, ...]
) -> dict[str, Any]:
    """A list entry: ``name``, then ``title`` and ``description`` when the behaviour's
    ``info`` gives them, the ``own`` keys, then each of ``objects`` it gives (copied: a
    list for ``icons``, validated, a dict otherwise)."""
    described: dict[str, Any] = {"name": name}
    for key in ("title", "description"):
        value = behaviour.info(key, arg)
        if value is not None:
            described[key] = value
    described.update(own)
    for key in objects:
        value = behaviour.info(key, arg)
        if value is not None and key == "icons":
            described[key] = checked_icons(value, type(behaviour).__qualname__)
        elif value is not None:
            described[key] = dict(value)
    return described


def arguments_of(params: Mapping[str, Any], method: str) -> dict[str, Any]:
    """``params.arguments`` (``{}`` when absent); -32602 when it is not an object."""
    arguments = params.get("arguments")
    if arguments is None:
        return {}
    if not isinstance(arguments, dict):
        raise MCPError("invalid_params", f"Invalid params: {method} arguments must be an object")
    return arguments
