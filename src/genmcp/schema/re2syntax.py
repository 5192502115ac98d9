"""Schema patterns RE2 certainly compiles, told apart without loading RE2.

Loading RE2 costs ~2.5 MB of memory, and a schema's patterns are checked when its tool is
built, so a server whose schemas hold a ``pattern`` would pay it at start-up although RE2
only runs at the first call. :func:`plainly_linear` recognizes a plain subset of ECMA-262
pattern syntax whose translation (``schema.regex``) RE2 always accepts: literal characters,
``.``, the escapes ``\\d \\D \\w \\W \\s`` (and ``\\S`` outside a class), escaped
punctuation and ``\\n \\r \\t \\f``, classes of single characters and ordered ranges,
``(...)`` and ``(?:...)`` groups, ``|``, ``^``, ``$`` and the quantifiers ``* + ? {n}
{n,} {n,m}`` (lazy or not) with counts RE2 allows. Such a pattern is compiled on its first
search. Anything else (``\\u`` escapes, lookaround, a stray ``{``, large counts ...) answers
False and is compiled at once, as before, so a pattern RE2 refuses is still refused when the
tool is built. The recognizer may only say False too often, never True wrongly.

Pure: no asyncio, no web framework, nothing from genmcp.
"""

from __future__ import annotations

from typing import Final

__all__ = ["plainly_linear"]

MAX_PATTERN_CHARS: Final = 1000
"""Longer patterns are left to RE2 itself."""
MAX_COUNT: Final = 1000
"""RE2's largest repeat count, also for the product of nested counts."""
MAX_EXPANDED: Final = 2000
"""Atoms after counted repeats are unrolled: RE2's program stays far below its memory limit."""
MAX_DEPTH: Final = 50
"""Deepest group nesting (RE2 refuses ~1000)."""

_SPECIAL: Final = frozenset("\\^$.|?*+()[]{}")
_PUNCTUATION_ESCAPES: Final = frozenset("\\/-^$.|?*+()[]{}")
_CONTROL_ESCAPES: Final = {"n": "\n", "r": "\r", "t": "\t", "f": "\f"}
_CLASS_ESCAPES: Final = frozenset("dDwWs")
_DIGITS: Final = frozenset("0123456789")


class _NotPlain(Exception):
    """Outside the plain subset: RE2 must judge the pattern."""


def plainly_linear(source: str) -> bool:
    """True when ``source`` is in the plain subset, so RE2 certainly compiles its translation."""
    if len(source) > MAX_PATTERN_CHARS:
        return False
    try:
        parser = _Parser(source)
        weight, _ = parser.alternation(depth=0)
        if parser.at < len(source):  # an unmatched ")"
            return False
    except _NotPlain:
        return False
    return weight <= MAX_EXPANDED


def _plain_char(char: str) -> bool:
    """A literal character RE2 reads as itself: printable, not a lone surrogate."""
    code = ord(char)
    return code >= 0x20 and code != 0x7F and not 0xD800 <= code <= 0xDFFF


class _Parser:
    """A recursive-descent recognizer. Each part returns ``(weight, product)``: its atoms
    counted with repeats unrolled, and the largest product of nested repeat counts in it."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.at = 0

    def peek(self, ahead: int = 0) -> str:
        index = self.at + ahead
        return self.source[index] if index < len(self.source) else ""

    def alternation(self, *, depth: int) -> tuple[int, int]:
        weight, product = self.sequence(depth=depth)
        while self.peek() == "|":
            self.at += 1
            more, deeper = self.sequence(depth=depth)
            weight, product = weight + more, max(product, deeper)
        return weight, product

    def sequence(self, *, depth: int) -> tuple[int, int]:
        weight, product = 0, 1
        while self.peek() not in ("", "|", ")"):
            if self.peek() in ("^", "$"):  # assertions: never quantified here
                self.at += 1
                if self.peek() in ("*", "+", "?", "{"):
                    raise _NotPlain
                continue
            inner, nested = self.atom(depth=depth)
            count = self.quantifier()
            if nested * count > MAX_COUNT:
                raise _NotPlain
            weight += inner * count
            product = max(product, nested * count)
        return weight, product

    def atom(self, *, depth: int) -> tuple[int, int]:
        char = self.peek()
        if char == "(":
            if depth >= MAX_DEPTH:
                raise _NotPlain
            self.at += 1
            if self.peek() == "?":
                if self.peek(1) != ":":
                    raise _NotPlain  # lookaround, named groups, flags
                self.at += 2
            found = self.alternation(depth=depth + 1)
            if self.peek() != ")":
                raise _NotPlain
            self.at += 1
            return found
        if char == "[":
            self.char_class()
        elif char == "\\":
            escape = self.peek(1)
            plain = escape in _PUNCTUATION_ESCAPES or escape in _CONTROL_ESCAPES
            if not (plain or escape in _CLASS_ESCAPES or escape == "S"):
                raise _NotPlain
            self.at += 2
        elif char == "." or (char not in _SPECIAL and _plain_char(char)):
            self.at += 1
        else:  # a quantifier with nothing to repeat, a stray brace, a control character
            raise _NotPlain
        return 1, 1

    def quantifier(self) -> int:
        """Skip a quantifier; the count it multiplies the atom by (1 for ``* + ?``)."""
        char = self.peek()
        if char in ("*", "+", "?"):
            self.at += 1
            count = 1
        elif char == "{":
            count = self.counted()
        else:
            return 1
        if self.peek() == "?":  # lazy
            self.at += 1
        if self.peek() in ("*", "+", "?", "{"):
            raise _NotPlain  # a repeated repeat: RE2 refuses it
        return count

    def counted(self) -> int:
        self.at += 1
        low = self.number()
        high = low
        if self.peek() == ",":
            self.at += 1
            high = self.number() if self.peek() in _DIGITS else low
        if self.peek() != "}":
            raise _NotPlain
        self.at += 1
        if high < low or high > MAX_COUNT:
            raise _NotPlain
        return max(high, 1)

    def number(self) -> int:
        start = self.at
        while self.peek() != "" and self.peek() in _DIGITS:
            self.at += 1
        if not 0 < self.at - start <= 4:
            raise _NotPlain
        return int(self.source[start : self.at])

    def char_class(self) -> None:
        self.at += 1
        if self.peek() == "^":
            self.at += 1
        if self.peek() in ("]", ""):
            raise _NotPlain  # ECMA's empty class: RE2 reads "[]" differently
        first = True
        while self.peek() != "]":
            if self.peek() == "":
                raise _NotPlain
            if self.peek() == "-":
                # a literal "-" only last, or first when no range follows
                if not (self.peek(1) == "]" or (first and self.peek(1) != "-")):
                    raise _NotPlain
                self.at += 1
            elif self.peek() == "\\" and self.peek(1) in _CLASS_ESCAPES:
                self.at += 2
                if self.peek() == "-" and self.peek(1) != "]":
                    raise _NotPlain  # a class escape cannot start a range
            else:
                low = self.class_char()
                if self.peek() == "-" and self.peek(1) not in ("]", ""):
                    self.at += 1
                    if ord(self.class_char()) < ord(low):
                        raise _NotPlain
            first = False
        self.at += 1

    def class_char(self) -> str:
        """One character of a class (a range end): a plain one or an escaped one."""
        char = self.peek()
        if char == "\\":
            escape = self.peek(1)
            self.at += 2
            if escape in _PUNCTUATION_ESCAPES:
                return escape
            if escape in _CONTROL_ESCAPES:
                return _CONTROL_ESCAPES[escape]
            raise _NotPlain
        if char in ("[", "]", "-", "") or not _plain_char(char):
            raise _NotPlain  # "[" may open a POSIX class in RE2
        self.at += 1
        return char
