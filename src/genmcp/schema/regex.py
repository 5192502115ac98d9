"""Schema regular expressions: ECMA-262 patterns on RE2 (linear time), guarded ``re`` elsewhere.

JSON Schema patterns are ECMA-262 regexes. RE2 runs in time linear in the input; its syntax
and classes are close to ECMA-262 (ASCII ``\\d``, ``\\w``, ``\\b``; ``$`` only at the end), and
the few gaps are translated: ``\\uXXXX`` and ``\\cX`` escapes, and ECMA's Unicode ``\\s``. What
RE2 cannot express (backreferences, lookaround, Python-only syntax) needs Python's
backtracking ``re``: ``compile_schema`` refuses it unless the tool opts in; opted in, it is
refused at build when a repeat nests another repeat, an alternation or a backreference
(exponential), limited in length at validation (the caller's limit) and searched in a helper
process killed at the deadline (``schema.sandbox``: ``re`` holds the GIL).

Owns the translation, the compiled-pattern cache and the search of a schema's patterns.
A pattern ``schema.re2syntax`` calls plain is compiled on its first search, so RE2 loads
only when a pattern is first used. Pure: imports no asyncio, no web framework; from genmcp
only ``schema.sandbox`` and ``schema.re2syntax``.
"""

from __future__ import annotations

import functools
import importlib
import math
import re
from collections.abc import Iterator
from typing import Any, Final

from genmcp.schema import sandbox
from genmcp.schema.re2syntax import plainly_linear

__all__ = ["Regex", "Unchecked", "compiles", "regex", "schema_patterns"]

_ECMA_SPACE: Final = (
    r"\t\n\v\f\r \x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}"
)
_HEX4: Final = re.compile(r"[0-9A-Fa-f]{4}")
_NO_MATCH: Final = (-1, -1)


@functools.cache
def _re2() -> tuple[Any, Any, Any]:
    """RE2's compiler, options and unanchored mode, imported on the first pattern.

    Loaded lazily: it costs ~2.5 MB of memory, and most tool schemas have no pattern.
    """
    import re2  # type: ignore[import-untyped]

    options = re2.Options()
    options.log_errors = False
    options.never_capture = True
    return re2._re2.RE2, options, re2._re2.RE2.Anchor.UNANCHORED


class Unchecked(Exception):
    """A string that a limit kept from being checked; its text ends the error message."""


class Regex:
    """A compiled schema pattern: ``search(text)`` says whether it matches anywhere."""

    __slots__ = ("_re2", "linear", "source")

    def __init__(self, source: str) -> None:
        self.source = source
        self._re2: Any = None
        self.linear = plainly_linear(source)  # RE2 certainly takes it: compiled when first used
        if self.linear:
            return
        self._re2 = _compile_re2(source)
        self.linear = self._re2 is not None
        if self._re2 is None:
            re.compile(source)  # raises re.error when Python cannot run it either
            if _backtracks_badly(source):
                raise ValueError(
                    f"pattern {source!r} needs Python's backtracking regex engine (RE2 cannot "
                    "run it) and nests a repeat inside a repeat, which takes exponential time on "
                    "hostile input: rewrite it without the nesting, or validate in "
                    "validate_request()"
                )

    def search(self, text: str, *, backtracking_max_chars: int, deadline: float = math.inf) -> bool:
        """True when the pattern matches somewhere in ``text``.

        Raises:
            Unchecked: the pattern needs backtracking and ``text`` is longer than
                ``backtracking_max_chars``.
            sandbox.TimedOut: a backtracking search was not done by ``deadline``.
        """
        if self.linear:
            compiled = self._re2
            if compiled is None:
                compiled = self._re2 = _compile_re2(self.source)
                if compiled is None:  # re2syntax's promise broken: a bug, never client input
                    raise RuntimeError(f"RE2 refused the plain pattern {self.source!r}")
            data = text.encode("utf-8", "surrogatepass")
            unanchored = _re2()[2]
            return bool(compiled.Match(unanchored, data, 0, len(data))[0] != _NO_MATCH)
        if len(text) > backtracking_max_chars:
            raise Unchecked(
                f"{len(text)} characters is over the {backtracking_max_chars} a pattern with "
                "lookaround or backreferences is checked against"
            )
        return sandbox.search(self.source, text, deadline=deadline)


_REGEXES: dict[str, Regex] = {}  # a memo of server code's patterns: bounded (tests/layout)


def regex(source: str) -> Regex:
    """The compiled ``source`` (schema patterns are server code: the cache stays small)."""
    found = _REGEXES.get(source)
    if found is None:
        found = _REGEXES[source] = Regex(source)
    return found


def compiles(instance: object) -> bool:
    """RE2 or Python's ``re`` compiles it: ECMA's ``\\p{L}`` and ``(?<name>...)`` pass,
    and so do Python's lookbehinds."""
    if not isinstance(instance, str) or plainly_linear(instance):
        return True
    if _compile_re2(instance) is not None:
        return True
    try:
        re.compile(instance)
    except RecursionError:
        raise Unchecked("nested too deeply to check") from None
    return True


def _compile_re2(source: str) -> Any:
    translated = _ecma_to_re2(source)
    if translated is None:
        return None
    try:
        compiler, options, _ = _re2()
        compiled = compiler(translated.encode("utf-8"), options)
    except UnicodeEncodeError:  # a lone surrogate in the pattern
        return None
    return compiled if compiled.ok() else None


def _ecma_to_re2(source: str) -> str | None:  # noqa: C901 - one tokenizer, kept whole
    """ECMA-262 pattern syntax to RE2's; None when it has no RE2 equivalent."""
    out: list[str] = []
    in_class = False
    i, n = 0, len(source)
    while i < n:
        char = source[i]
        if char != "\\":
            if char == "[" and not in_class:
                in_class = True
            elif char == "]" and in_class:
                in_class = False
            out.append(char)
            i += 1
            continue
        escape = source[i + 1 : i + 2]
        if escape == "u" and _HEX4.fullmatch(source, i + 2, i + 6):
            code, i = int(source[i + 2 : i + 6], 16), i + 6
            if 0xD800 <= code <= 0xDBFF and source[i : i + 2] == "\\u":
                low = source[i + 2 : i + 6]
                if _HEX4.fullmatch(low) and 0xDC00 <= int(low, 16) <= 0xDFFF:
                    code = 0x10000 + ((code - 0xD800) << 10) + int(low, 16) - 0xDC00
                    i += 6
            if 0xD800 <= code <= 0xDFFF:
                return None  # a lone surrogate: UTF-8 RE2 has no such character
            out.append(f"\\x{{{code:X}}}")
            continue
        if escape == "c" and source[i + 2 : i + 3].isascii() and source[i + 2 : i + 3].isalpha():
            out.append(f"\\x{{{ord(source[i + 2]) % 32:X}}}")
            i += 3
            continue
        if escape == "s":
            out.append(_ECMA_SPACE if in_class else f"[{_ECMA_SPACE}]")
        elif escape == "S":
            if in_class:
                return None
            out.append(f"[^{_ECMA_SPACE}]")
        else:
            out.append(source[i : i + 2])
        i += 2
    return "".join(out)


_sre_parser: Any = importlib.import_module("re._parser")
_sre: Any = importlib.import_module("re._constants")
_REPEATS: Final = frozenset(
    getattr(_sre, name) for name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT")
)


def _backtracks_badly(source: str) -> bool:
    """True when a repeat contains a repeat, an alternation or a backreference."""
    return _nested_repeat(_sre_parser.parse(source), inside=False)


def _nested_repeat(pattern: Any, *, inside: bool) -> bool:
    for op, arg in pattern:
        if op in _REPEATS:
            _low, high, body = arg
            if high > 1 and inside:
                return True
            if _nested_repeat(body, inside=inside or high > 1):
                return True
        elif inside and op in (_sre.BRANCH, _sre.GROUPREF, _sre.GROUPREF_EXISTS):
            return True
        elif any(_nested_repeat(sub, inside=inside) for sub in _subpatterns(arg)):
            return True
    return False


def _subpatterns(arg: Any) -> Iterator[Any]:
    if isinstance(arg, _sre_parser.SubPattern):
        yield arg
    elif isinstance(arg, tuple | list):
        for item in arg:
            yield from _subpatterns(item)


_PATTERN_MAPS: Final = frozenset(
    {"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}
)
_DATA_KEYWORDS: Final = frozenset({"const", "default", "enum", "examples"})


def schema_patterns(node: Any, path: str = "") -> Iterator[tuple[str, str]]:
    """``(JSON pointer, regex)`` for each ``pattern``/``patternProperties`` of a schema."""
    if isinstance(node, list):
        for index, item in enumerate(node):
            yield from schema_patterns(item, f"{path}/{index}")
        return
    if not isinstance(node, dict):
        return
    for key, value in node.items():
        if key in _DATA_KEYWORDS:
            continue
        here = f"{path}/{_escape(key)}"
        if key == "pattern" and isinstance(value, str):
            yield here, value
        elif key in _PATTERN_MAPS and isinstance(value, dict):
            for name, sub in value.items():
                if key == "patternProperties" and isinstance(name, str):
                    yield f"{here}/{_escape(name)}", name
                yield from schema_patterns(sub, f"{here}/{_escape(name)}")
        else:
            yield from schema_patterns(value, here)


def _escape(key: object) -> str:
    return str(key).replace("~", "~0").replace("/", "~1")
