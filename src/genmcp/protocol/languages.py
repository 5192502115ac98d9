"""SEP-2792 (**Draft**, "Internationalization via Per-Request Language Negotiation").

A client may put its user's language preference in any request's ``_meta`` under
:data:`ACCEPT_LANGUAGE_META`, with the syntax and meaning of HTTP ``Accept-Language``
(RFC 9110 §12.5.4: language ranges with ``q`` weights); a server that chose a language for
its answer names it under :data:`CONTENT_LANGUAGE_META` in ``result._meta`` (or
``error.data._meta``, a notification's ``params._meta``). Over Streamable HTTP the request
value is mirrored in ``Accept-Language`` (both present and different, after trimming
optional whitespace: ``-32020``, HTTP 400) and the answer's in ``Content-Language``, with
``Vary: Accept-Language``. The preference is per request, never session state.

:class:`Languages` is genmcp's switch (``Suite(sep2792=...)``), off by default: the draft may
change. This module holds its pure parts: :func:`accept_language` parses a value (None when
it breaks the grammar: the SEP treats it as absent, never an error), :func:`lookup` picks a
tag by RFC 4647 §3.4 lookup, :func:`mirrors` is the header agreement rule.

Pure: no I/O; imports genmcp's errors only.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from genmcp.errors import MCPError

__all__ = [
    "ACCEPT_LANGUAGE_META",
    "CONTENT_LANGUAGE_META",
    "MAX_RANGES",
    "Languages",
    "accept_language",
    "accepted_languages",
    "as_languages",
    "content_language_of",
    "lookup",
    "mirrors",
    "with_content_language",
]

ACCEPT_LANGUAGE_META: Final = "io.modelcontextprotocol/acceptLanguage"
"""The request ``_meta`` key of the caller's preference (an ``Accept-Language`` value)."""
CONTENT_LANGUAGE_META: Final = "io.modelcontextprotocol/contentLanguage"
"""The result (``error.data``, notification params) ``_meta`` key of the answer's language."""
MAX_RANGES: Final = 32
"""The most language ranges read from one preference (a longer list is malformed)."""
_MAX_CHARS: Final = 1024

_RANGE: Final = re.compile(r"\*|[A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*")
_WEIGHT: Final = re.compile(r"[qQ]=(0(?:\.[0-9]{0,3})?|1(?:\.0{0,3})?)")
_TAG: Final = re.compile(r"[A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*")
_OWS: Final = " \t"


def accept_language(value: object) -> tuple[str, ...] | None:
    """The language ranges of an ``Accept-Language`` value, most wanted first (by ``q``,
    then as listed; ``q=0`` ranges left out); None when ``value`` is not a string of that
    grammar (RFC 9110 §12.5.4), has more than :data:`MAX_RANGES` ranges or 1,024 characters."""
    if not isinstance(value, str) or len(value) > _MAX_CHARS:
        return None
    weighted: list[tuple[float, int, str]] = []
    for position, item in enumerate(value.split(",")):
        text = item.strip(_OWS)
        if not text:
            continue  # RFC 9110 §5.6.1: empty list elements are ignored
        language, _, weight = text.partition(";")
        language = language.strip(_OWS)
        if _RANGE.fullmatch(language) is None:
            return None
        q = 1.0
        if weight:
            found = _WEIGHT.fullmatch(weight.strip(_OWS))
            if found is None:
                return None
            q = float(found[1])
        if q > 0:
            weighted.append((-q, position, language))
        if len(weighted) > MAX_RANGES or position >= 4 * MAX_RANGES:
            return None
    return tuple(language for _, _, language in sorted(weighted)) if weighted else None


def accepted_languages(meta: Mapping[str, Any]) -> tuple[str, ...]:
    """The ranges of a request ``_meta``'s ``acceptLanguage``; empty when it has none or a
    malformed one (the SEP: treated as absent, never an error)."""
    return accept_language(meta.get(ACCEPT_LANGUAGE_META)) or ()


def lookup(ranges: Iterable[str], available: Iterable[str]) -> str | None:
    """The tag of ``available`` RFC 4647 §3.4 lookup picks for ``ranges`` (most wanted
    first), as ``available`` spells it; None when none matches (``*`` matches nothing here:
    the caller falls back to its default). Tags compare case-insensitively."""
    offered = {tag.lower(): tag for tag in available}
    for wanted in ranges:
        candidate = wanted.lower()
        while candidate and candidate != "*":
            if candidate in offered:
                return offered[candidate]
            candidate = candidate.rpartition("-")[0]
            if len(candidate) >= 2 and candidate[-2] == "-":
                candidate = candidate[:-2]  # never end on a single-letter subtag
    return None


def mirrors(header_lines: Iterable[str], meta_value: object) -> None:
    """The Streamable HTTP agreement rule: when the request's ``_meta`` value is a string and
    ``Accept-Language`` lines came too, their combined value (RFC 9110 §5.2) must equal it
    exactly once optional whitespace is trimmed from both ends; else the ``-32020`` error
    (HTTP 400, in both eras). A missing header (a CDN strips it) or a missing ``_meta`` value
    (the bare header is no MCP preference) passes."""
    lines = list(header_lines)
    if not lines or not isinstance(meta_value, str):
        return
    header = ", ".join(line.strip(_OWS) for line in lines)
    if header != meta_value.strip(_OWS):
        raise MCPError(
            "language_mismatch",
            f"Header mismatch: Accept-Language {header!r} differs from "
            f"_meta[{ACCEPT_LANGUAGE_META!r}] {meta_value!r}",
        )


def content_language_of(response: Mapping[str, Any]) -> str | None:
    """The ``contentLanguage`` a JSON-RPC response names (its result's ``_meta``, or its
    error's ``data._meta``), or None."""
    body = response.get("result")
    if body is None:
        error = response.get("error")
        body = error.get("data") if isinstance(error, Mapping) else None
    meta = body.get("_meta") if isinstance(body, Mapping) else None
    found = meta.get(CONTENT_LANGUAGE_META) if isinstance(meta, Mapping) else None
    return found if isinstance(found, str) else None


def with_content_language(response: dict[str, Any], language: str) -> dict[str, Any]:
    """``response`` naming ``language`` as its content language: in ``result._meta``, or in
    ``error.data._meta`` (an error whose ``data`` is not an object is left as it is). New
    dicts: the result may be an object the tool reuses."""
    result = response.get("result")
    if isinstance(result, Mapping):
        meta = {**(result.get("_meta") or {}), CONTENT_LANGUAGE_META: language}
        return {**response, "result": {**result, "_meta": meta}}
    error = response.get("error")
    if not isinstance(error, Mapping):
        return response
    data = error.get("data")
    if data is None:
        data = {}
    if not isinstance(data, Mapping):
        return response
    meta = {**(data.get("_meta") or {}), CONTENT_LANGUAGE_META: language}
    return {**response, "error": {**error, "data": {**data, "_meta": meta}}}


@dataclass(frozen=True, slots=True)
class Languages:
    """SEP-2792 (Draft) language negotiation, switched on: ``Suite(sep2792=Languages(...))``
    (``sep2792=True`` is ``Languages()``).

    With it, each request's ``acceptLanguage`` (a valid one) is ``channel.languages`` and a
    tool's ``channel.content_language`` (or ``channel.choose_language``) goes into its
    answer's ``_meta`` and HTTP ``Content-Language``; the HTTP transport checks the
    ``Accept-Language`` mirror. With ``available`` languages, ``tools/list`` and
    ``prompts/list`` are negotiated too: a request that states a preference gets the titles
    of ``titles`` in the language :func:`lookup` picks (else ``default``), and the page names
    it; each language's pages are built, cached and gzip-compressed once.

    Attributes:
        available: the languages the lists can be given in (BCP 47 tags).
        default: the language of the titles as written, given when no preference matches
            (default: the first of ``available``).
        titles: per language, item name -> its title in that language (tools and prompts;
            a tool's ``annotations.title`` follows its title). Missing: the title as written.
    """

    available: tuple[str, ...] = ()
    default: str | None = None
    titles: Mapping[str, Mapping[str, str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if isinstance(self.available, str):
            raise TypeError("Languages(available=...) takes a list of language tags")
        object.__setattr__(self, "available", tuple(self.available))
        wrong = [tag for tag in self.available if not _TAG.fullmatch(str(tag))]
        if self.default is not None and not _TAG.fullmatch(self.default):
            wrong.append(self.default)
        wrong += [tag for tag in self.titles if tag not in self.available]
        if wrong:
            raise ValueError(
                f"Languages: not a language tag, or titles of a language not available: {wrong}"
            )
        if self.default is None and self.available:
            object.__setattr__(self, "default", self.available[0])

    def negotiate(self, ranges: tuple[str, ...] | None) -> str | None:
        """The language of the lists for a request's ``ranges`` (None: it stated none, or no
        language is ``available``): the lookup's pick, else ``default``."""
        if not ranges or not self.available:
            return None
        return lookup(ranges, self.available) or self.default

    def title(self, language: str | None, name: str) -> str | None:
        """The title of the item ``name`` in ``language`` (None: none given)."""
        if language is None:
            return None
        return self.titles.get(language, {}).get(name)


def as_languages(switch: Languages | bool | None) -> Languages | None:
    """``Suite(sep2792=...)`` as a :class:`Languages` (None: off)."""
    if switch is None or switch is False:
        return None
    if switch is True:
        return Languages()
    if not isinstance(switch, Languages):
        raise TypeError(f"Suite(sep2792=...) takes True or a genmcp.Languages, not {switch!r}")
    return switch
