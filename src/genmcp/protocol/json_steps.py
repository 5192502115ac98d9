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


def decode_in_steps(
    text: str, decoder: json.JSONDecoder, max_depth: int, step: int = 256
) -> Generator[None, None, Any]:
    """Parse ``text`` as ``decoder`` would, yielding None every ``step`` values."""
    scan = decoder.scan_once  # type: ignore[attr-defined]
    scanstring = json.decoder.scanstring
    strict = decoder.strict
    space = _SPACE.match
    stack: list[tuple[Any, str | None]] = []  # (container, the pending key of an object)
    root: Any = None
    index = space(text, 0).end()
    count = 0
    while True:
        count += 1
        if count % step == 0:
            yield None
        char = text[index : index + 1]
        # one value starts at index
        if char == "{" or char == "[":
            if len(stack) >= max_depth:
                raise ValueError(f"JSON nested deeper than {max_depth} levels")
            container: Any = {} if char == "{" else []
            index = space(text, index + 1).end()
            if text[index : index + 1] == ("}" if char == "{" else "]"):
                value, index = container, index + 1
            elif char == "{":
                key, index = _key(text, index, scanstring, strict, space)
                stack.append((container, key))
                continue
            else:
                stack.append((container, None))
                continue
        else:
            try:
                value, index = scan(text, index)
            except StopIteration as exc:
                raise ValueError(f"Expecting value: char {exc.value}") from None
        # the value is complete: put it where it belongs, then close what it closes
        while True:
            if not stack:
                root = value
                if space(text, index).end() != len(text):
                    raise ValueError(f"Extra data: char {index}")
                return root
            container, key = stack[-1]
            if key is None:
                container.append(value)
            else:
                container[key] = value
            index = space(text, index).end()
            sep = text[index : index + 1]
            if sep == ",":
                index = space(text, index + 1).end()
                if key is not None:
                    key, index = _key(text, index, scanstring, strict, space)
                    stack[-1] = (container, key)
                break
            if sep == ("]" if key is None else "}"):
                stack.pop()
                value, index = container, index + 1
                continue
            raise ValueError(f"Expecting ',' delimiter: char {index}")


def _key(text: str, index: int, scanstring: Any, strict: bool, space: Any) -> tuple[str, int]:
    """An object key and the index of its value (after the colon)."""
    if text[index : index + 1] != '"':
        raise ValueError(f"Expecting property name enclosed in double quotes: char {index}")
    key, index = scanstring(text, index + 1, strict)
    index = space(text, index).end()
    if text[index : index + 1] != ":":
        raise ValueError(f"Expecting ':' delimiter: char {index}")
    return key, space(text, index + 1).end()
