"""RFC 6570 level-1 URI templates: ``test://template/{id}/data``, parsed, matched, expanded.

Resource repositories route ``resources/read`` with a template, so the template must be read
in reverse: :meth:`UriTemplate.match` turns a concrete URI back into its variables. Level 1
(simple string expansion, ``{var}``) is the level that can be reversed without ambiguity: an
expanded value never contains ``/``, ``?`` or ``#`` (they are percent-encoded), so a variable
matches one non-empty run of other characters, and its value is percent-decoded.

Operators (``{+x}``, ``{#x}``, ``{?x}`` ...), value modifiers (``{x*}``, ``{x:3}``) and lists
(``{a,b}``) are refused with ``ValueError`` when the template is parsed, never half-supported.

Pure: imports only the standard library.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final
from urllib.parse import quote, unquote

__all__ = ["UriTemplate"]

_EXPRESSION: Final = re.compile(r"\{([^{}]*)\}")
_VARCHAR: Final = r"(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})"
_VARNAME: Final = re.compile(rf"{_VARCHAR}(?:\.?{_VARCHAR})*")
_VALUE: Final = r"([^/?#]+)"
MAX_URI_CHARS: Final = 8192
"""Longest URI :meth:`UriTemplate.match` looks at (longer ones never match)."""


@dataclass(frozen=True, slots=True)
class UriTemplate:
    """A parsed level-1 URI template.

    Attributes:
        template: the template as written.
        variables: the variable names, in order of appearance.
    """

    template: str
    variables: tuple[str, ...]
    _pattern: re.Pattern[str] = field(repr=False, compare=False)

    @classmethod
    def parse(cls, template: str) -> UriTemplate:
        """Parse ``template``.

        Raises:
            ValueError: the template is not level 1, repeats a variable, or has an unbalanced
                brace.
        """
        if not isinstance(template, str) or not template:
            raise ValueError(f"a URI template is a non-empty string, not {template!r}")
        names: list[str] = []
        pattern = ["^"]
        position = 0
        for match in _EXPRESSION.finditer(template):
            pattern.append(_literal(template, template[position : match.start()]))
            name = match.group(1)
            if _VARNAME.fullmatch(name) is None:
                raise ValueError(
                    f"URI template {template!r}: {{{name}}} is not a level-1 expression "
                    "(only {name} is supported: no operators, modifiers or lists)"
                )
            if name in names:
                raise ValueError(f"URI template {template!r}: variable {name!r} appears twice")
            names.append(name)
            pattern.append(_VALUE)
            position = match.end()
        pattern.append(_literal(template, template[position:]))
        pattern.append("$")
        return cls(template, tuple(names), re.compile("".join(pattern)))

    def match(self, uri: str) -> dict[str, str] | None:
        """The variables of ``uri`` (percent-decoded), or None when it does not match."""
        if not isinstance(uri, str) or len(uri) > MAX_URI_CHARS:
            return None
        found = self._pattern.match(uri)
        if found is None:
            return None
        return {
            name: unquote(value) for name, value in zip(self.variables, found.groups(), strict=True)
        }

    def expand(self, values: Mapping[str, str]) -> str:
        """Fill the template in; every variable must be given (unreserved chars kept as is).

        Raises:
            KeyError: a variable has no value.
        """

        def fill(match: re.Match[str]) -> str:
            return quote(str(values[match.group(1)]), safe="-._~")

        return _EXPRESSION.sub(fill, self.template)


def _literal(template: str, text: str) -> str:
    if "{" in text or "}" in text:
        raise ValueError(f"URI template {template!r} has an unbalanced brace")
    return re.escape(text)
