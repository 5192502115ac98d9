"""JSON decoded in steps: a large body parsed a little at a time, so its reader can pause.

``json.loads`` is one C call that never lets go: a 3.6 MB body of 200,000 keys holds the
event loop for over 100 ms. :func:`decode_in_steps` is a generator that parses the same
text with an explicit stack (no recursion), a run of members at a time: within a window of
``CHUNK`` characters it finds where the container's complete members end (a cheap scan
for strings and brackets, in C), hands that run to the C scanner of the decoder it is
given, and adds the result to the container; a member larger than the window is walked
into. Between runs it yields None so that its driver (``transports``: ``await
asyncio.sleep(0)``) lets the loop run; its return value (``StopIteration.value``) is the
decoded JSON. It accepts what the decoder accepts (its float and constant hooks apply) and
raises ``ValueError`` for the rest, and for nesting deeper than ``max_depth``. Duplicate
keys: the last one wins, as in ``json``.

Pure: no asyncio, no I/O.
"""

from __future__ import annotations

import json
import re
from collections.abc import Generator
from typing import Any, Final

__all__ = ["CHUNK", "decode_in_steps"]

CHUNK: Final = 32 * 1024
"""Characters of members parsed by one C call at most (about a millisecond)."""

_SPACE: Final = re.compile(r"[ \t\n\r]*")
_FLAT: Final = re.compile(r'(?:"(?:[^"\\]|\\.)*"|[^"\[\]{},]|(,))*')
"""Text without brackets (strings skipped whole); group 1: the last comma outside strings."""
_CLOSE: Final = {True: "}", False: "]"}
_OPEN: Final = object()
"""What :func:`_value` returns for a container it opened (its members follow)."""


class _Frame:
    """A container being filled: the container, whether it is an object, its pending key."""

    __slots__ = ("container", "is_object", "key")

    def __init__(self, container: Any, is_object: bool) -> None:
        self.container, self.is_object = container, is_object
        self.key: str | None = None


def _ws(text: str, index: int) -> int:
    return _SPACE.match(text, index).end()  # type: ignore[union-attr]


def decode_in_steps(
    text: str, decoder: json.JSONDecoder, max_depth: int, step: int = 1, chunk: int = CHUNK
) -> Generator[None, None, Any]:
    """Parse ``text`` as ``decoder`` would, yielding None every ``step`` runs or values."""
    stack: list[_Frame] = []
    index = _ws(text, 0)
    at_member = False  # True: at the start of a member of stack[-1]; False: at a value
    count = 0
    while True:
        count += 1
        if count % step == 0:
            yield None
        if at_member:
            ran, index = _member(text, index, stack, decoder, chunk, max_depth)
            at_member = False
            if not ran:
                continue  # one member larger than the window: walked into, value first
            value: Any = _OPEN  # a run was added, nothing to place: to the separator
        else:
            value, index = _value(text, index, decoder, stack, max_depth)
            if value is _OPEN:
                at_member = True
                continue
        while True:  # a value is complete (or a run was added): place it, read what follows
            if value is not _OPEN:
                if not stack:
                    if _ws(text, index) != len(text):
                        raise ValueError(f"Extra data: char {index}")
                    return value
                _put(stack[-1], value)
            index = _ws(text, index)
            sep = text[index : index + 1]
            if sep == ",":
                index, at_member = _ws(text, index + 1), True
                break
            if sep == _CLOSE[stack[-1].is_object]:
                value, index = stack.pop().container, index + 1
                continue
            raise ValueError(f"Expecting ',' delimiter: char {index}")


def _member(
    text: str,
    index: int,
    stack: list[_Frame],
    decoder: json.JSONDecoder,
    chunk: int,
    max_depth: int,
) -> tuple[bool, int]:
    """At a member start: add the run of whole members within ``chunk`` (True, the index
    after it), or, when one member is larger, read its key if any (False, its value's)."""
    frame = stack[-1]
    end = _run_end(text, index, chunk, len(stack), max_depth)
    if end > index:
        _add_run(text[index:end], frame, decoder)
        return True, end
    if frame.is_object:
        frame.key, index = _key(text, index, decoder.strict)
    return False, index


def _put(frame: _Frame, value: Any) -> None:
    if frame.is_object:
        frame.container[frame.key] = value
    else:
        frame.container.append(value)


def _add_run(members: str, frame: _Frame, decoder: json.JSONDecoder) -> None:
    """Parse a run of complete members in one C call and add them to the container."""
    wrapped = ("{" + members + "}") if frame.is_object else ("[" + members + "]")
    try:
        parsed, end = decoder.scan_once(wrapped, 0)  # type: ignore[attr-defined]
    except StopIteration as exc:
        raise ValueError(f"Expecting value: char {exc.value}") from None
    if end != len(wrapped):
        raise ValueError("Expecting ',' delimiter")
    if frame.is_object:
        frame.container.update(parsed)
    else:
        frame.container.extend(parsed)


def _run_end(text: str, start: int, chunk: int, stack_depth: int, max_depth: int) -> int:
    """Where the complete members from ``start`` within ``chunk`` characters end: the index
    of the ``,`` after the last of them or of the container's close; -1 when not one fits.

    One regex (in C) skips everything but brackets, noting the last comma outside strings;
    a ``"`` it stops at is a string the window cut, so nothing from it on counts. Nesting
    past ``max_depth`` is refused."""
    stop = min(start + chunk, len(text))
    depth, found, at = 0, -1, start
    while True:
        flat = _FLAT.match(text, at, stop)
        if flat is None:  # pragma: no cover - the pattern matches the empty string
            return found
        if depth == 0 and flat.start(1) >= 0:
            found = flat.start(1)
        at = flat.end()
        char = text[at : at + 1] if at < stop else ""
        if char == "[" or char == "{":
            depth += 1
            if stack_depth + depth > max_depth:
                raise ValueError(f"JSON nested deeper than {max_depth} levels")
        elif char == "]" or char == "}":
            if depth == 0:  # the container's own close: every member before it is whole
                return at
            depth -= 1
        else:  # the window's end, or a string it cut
            return found if at < len(text) else -1
        at += 1


def _value(
    text: str, index: int, decoder: json.JSONDecoder, stack: list[_Frame], max_depth: int
) -> tuple[Any, int]:
    """The value at ``index`` and the index after it; ``_OPEN`` when it is a non-empty
    container, pushed on ``stack`` (its members come next)."""
    char = text[index : index + 1]
    if char != "{" and char != "[":
        try:
            found: tuple[Any, int] = decoder.scan_once(text, index)  # type: ignore[attr-defined]
        except StopIteration as exc:
            raise ValueError(f"Expecting value: char {exc.value}") from None
        return found
    if len(stack) >= max_depth:
        raise ValueError(f"JSON nested deeper than {max_depth} levels")
    is_object = char == "{"
    index = _ws(text, index + 1)
    if text[index : index + 1] == _CLOSE[is_object]:
        return ({} if is_object else []), index + 1
    stack.append(_Frame({} if is_object else [], is_object))
    return _OPEN, index


def _key(text: str, index: int, strict: bool) -> tuple[str, int]:
    """An object key and the index of its value (after the colon)."""
    if text[index : index + 1] != '"':
        raise ValueError(f"Expecting property name enclosed in double quotes: char {index}")
    key, index = json.decoder.scanstring(text, index + 1, strict)  # type: ignore[attr-defined]
    index = _ws(text, index)
    if text[index : index + 1] != ":":
        raise ValueError(f"Expecting ':' delimiter: char {index}")
    return key, _ws(text, index + 1)
