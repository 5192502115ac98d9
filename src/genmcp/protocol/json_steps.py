"""JSON decoded in steps: a large body parsed a little at a time, so its reader can pause.

``json.loads`` is one C call that never lets go: a 3.6 MB body of 200,000 keys holds the
event loop for over 100 ms. :func:`decode_in_steps` is a generator that parses the same
text with an explicit stack (no recursion): strings and numbers are scanned by the C
scanner of the decoder it is given, containers are walked here, and every ``step`` values
it yields None so that its driver (``transports``: ``await asyncio.sleep(0)``) lets the
loop run; its return value (``StopIteration.value``) is the decoded JSON. It accepts what
the decoder accepts (its float and constant hooks apply) and raises ``ValueError`` for the
rest, and for nesting deeper than ``max_depth``. Duplicate keys: the last one wins, as in
``json``.

Pure: no asyncio, no I/O.
"""

from __future__ import annotations

import json
import re
from collections.abc import Generator
from typing import Any, Final

__all__ = ["decode_in_steps"]

_SPACE: Final = re.compile(r"[ \t\n\r]*")


_OPEN: Final = object()
"""What :func:`_value` returns for a container it opened (its members follow)."""


def decode_in_steps(
    text: str, decoder: json.JSONDecoder, max_depth: int, step: int = 256
) -> Generator[None, None, Any]:
    """Parse ``text`` as ``decoder`` would, yielding None every ``step`` values."""
    stack: list[tuple[Any, str | None]] = []  # (container, the pending key of an object)
    index = _SPACE.match(text, 0).end()  # type: ignore[union-attr]
    count = 0
    while True:
        count += 1
        if count % step == 0:
            yield None
        value, index = _value(text, index, decoder, stack, max_depth)
        if value is _OPEN:
            continue
        while True:  # the value is complete: put it in place, close what it closes
            if not stack:
                if _SPACE.match(text, index).end() != len(text):  # type: ignore[union-attr]
                    raise ValueError(f"Extra data: char {index}")
                return value
            closed, index = _place(text, index, value, stack, decoder.strict)
            if closed is None:
                break
            value = closed


def _value(
    text: str,
    index: int,
    decoder: json.JSONDecoder,
    stack: list[tuple[Any, str | None]],
    max_depth: int,
) -> tuple[Any, int]:
    """The value starting at ``index`` and the index after it; ``_OPEN`` when it is a
    non-empty container, pushed on ``stack`` (its members come next)."""
    char = text[index : index + 1]
    if char != "{" and char != "[":
        try:
            found: tuple[Any, int] = decoder.scan_once(text, index)  # type: ignore[attr-defined]
        except StopIteration as exc:
            raise ValueError(f"Expecting value: char {exc.value}") from None
        return found
    if len(stack) >= max_depth:
        raise ValueError(f"JSON nested deeper than {max_depth} levels")
    container: Any = {} if char == "{" else []
    index = _SPACE.match(text, index + 1).end()  # type: ignore[union-attr]
    if text[index : index + 1] == ("}" if char == "{" else "]"):
        return container, index + 1
    key = None
    if char == "{":
        key, index = _key(text, index, decoder.strict)
    stack.append((container, key))
    return _OPEN, index


def _place(
    text: str, index: int, value: Any, stack: list[tuple[Any, str | None]], strict: bool
) -> tuple[Any, int]:
    """Put ``value`` in the innermost container; that container when it closes after it
    (None: more members follow), and the index to go on from."""
    container, key = stack[-1]
    if key is None:
        container.append(value)
    else:
        container[key] = value
    index = _SPACE.match(text, index).end()  # type: ignore[union-attr]
    sep = text[index : index + 1]
    if sep == ",":
        index = _SPACE.match(text, index + 1).end()  # type: ignore[union-attr]
        if key is not None:
            key, index = _key(text, index, strict)
            stack[-1] = (container, key)
        return None, index
    if sep == ("]" if key is None else "}"):
        stack.pop()
        return container, index + 1
    raise ValueError(f"Expecting ',' delimiter: char {index}")


def _key(text: str, index: int, strict: bool) -> tuple[str, int]:
    """An object key and the index of its value (after the colon)."""
    if text[index : index + 1] != '"':
        raise ValueError(f"Expecting property name enclosed in double quotes: char {index}")
    key, index = json.decoder.scanstring(text, index + 1, strict)  # type: ignore[attr-defined]
    index = _SPACE.match(text, index).end()  # type: ignore[union-attr]
    if text[index : index + 1] != ":":
        raise ValueError(f"Expecting ':' delimiter: char {index}")
    return key, _SPACE.match(text, index + 1).end()  # type: ignore[union-attr]
