"""Answering a server's elicitation on the terminal: a form built from ``requestedSchema``.

``genmcp call`` declares the elicitation capability; when a tool asks (a 2026-07-28
``input_required`` result, or a 2025 server request on the stream), :func:`ask_on_terminal`
prints the message to stderr and reads one line per field from stdin:

* each property of the flat ``requestedSchema`` is asked by its title (or name), with its
  type, its choices (``enum``, or ``oneOf`` of ``const``) and its default in brackets;
* an empty line takes the default, or skips a field that is not required;
* the value is checked against the type (``true``/``yes``/``y`` for a boolean, numbers,
  the choices) and asked again when it does not fit;
* ``decline`` on any field declines the whole request, end of input (Ctrl-D) cancels it.

A ``url`` mode request prints the URL and waits for Enter (accept) or ``decline``.

Imports the standard library only.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from typing import Any, Final, TextIO

__all__ = ["ask_on_terminal", "parse_field"]

_TRUE: Final = frozenset({"true", "yes", "y", "1"})
_FALSE: Final = frozenset({"false", "no", "n", "0"})
_TRIES: Final = 3


class _Declined(Exception):
    pass


def _choices(spec: Mapping[str, Any]) -> list[Any] | None:
    if isinstance(spec.get("enum"), list):
        return list(spec["enum"])
    options = spec.get("oneOf") or spec.get("anyOf")
    if isinstance(options, list) and all(isinstance(o, Mapping) and "const" in o for o in options):
        return [o["const"] for o in options]
    return None


def parse_field(spec: Mapping[str, Any], raw: str) -> Any:
    """The value of one typed line for the property ``spec``; ``ValueError`` when it does
    not fit (the message says what would)."""
    kind = spec.get("type", "string")
    choices = _choices(spec)
    if kind == "boolean":
        if raw.lower() in _TRUE:
            return True
        if raw.lower() in _FALSE:
            return False
        raise ValueError("answer yes or no")
    if kind in ("integer", "number"):
        try:
            value: Any = int(raw) if kind == "integer" else float(raw)
        except ValueError:
            raise ValueError(
                f"expected {'an integer' if kind == 'integer' else 'a number'}"
            ) from None
        for key, fits in (("minimum", value >= spec.get("minimum", value)),
                          ("maximum", value <= spec.get("maximum", value))):  # fmt: skip
            if not fits:
                raise ValueError(f"{key} is {spec[key]}")
        return value
    if kind == "array":  # multi-select: comma-separated choices
        items = spec.get("items") if isinstance(spec.get("items"), Mapping) else {}
        values = [part.strip() for part in raw.split(",") if part.strip()]
        allowed = _choices(items) if items else None
        wrong = [v for v in values if allowed is not None and v not in allowed]
        if wrong:
            raise ValueError(f"choose from {', '.join(map(str, allowed or []))}")
        return values
    if choices is not None and raw not in choices:
        raise ValueError(f"choose one of {', '.join(map(str, choices))}")
    return raw


def _label(name: str, spec: Mapping[str, Any], required: bool) -> str:
    title = spec.get("title") or name
    kind = spec.get("type", "string")
    choices = _choices(spec) or (
        _choices(spec["items"]) if isinstance(spec.get("items"), Mapping) else None
    )
    parts = [str(kind)] + (["required"] if required else [])
    extra = f" {{{', '.join(map(str, choices))}}}" if choices else ""
    default = f" [{spec['default']}]" if "default" in spec else ""
    about = f" - {spec['description']}" if spec.get("description") else ""
    return f"  {title} ({', '.join(parts)}){extra}{about}{default}: "


def _field(name: str, spec: Mapping[str, Any], required: bool, read: Callable[[], str],
           out: TextIO) -> tuple[bool, Any]:  # fmt: skip
    for _ in range(_TRIES):
        out.write(_label(name, spec, required))
        out.flush()
        line = read()
        if not line:
            raise EOFError
        raw = line.rstrip("\n").strip()
        if raw.lower() == "decline":
            raise _Declined
        if not raw:
            if "default" in spec:
                return True, spec["default"]
            if not required:
                return False, None
            out.write("    a value is required\n")
            continue
        try:
            return True, parse_field(spec, raw)
        except ValueError as exc:
            out.write(f"    {exc}\n")
    raise _Declined


def ask_on_terminal(
    request: Mapping[str, Any], *, stdin: TextIO | None = None, out: TextIO | None = None
) -> dict[str, Any]:
    """The ``ElicitResult`` for one ``{"method": "elicitation/create", "params": ...}``."""
    stdin, out = stdin or sys.stdin, out or sys.stderr
    params = request.get("params") or {}
    if request.get("method") != "elicitation/create":
        raise ValueError(f"the command line cannot answer {request.get('method')!r}")
    out.write(f"\n{params.get('message', 'The server asks for input')}\n")
    try:
        if params.get("mode") == "url":
            out.write(f"  open {params.get('url')} then press Enter (or type decline): ")
            out.flush()
            line = stdin.readline()
            if not line:
                raise EOFError
            if line.strip().lower() == "decline":
                raise _Declined
            return {"action": "accept"}
        schema = params.get("requestedSchema") or {}
        required = set(schema.get("required") or ())
        out.write("  (an empty line keeps the default; type decline to refuse; Ctrl-D cancels)\n")
        content: dict[str, Any] = {}
        for name, spec in (schema.get("properties") or {}).items():
            given, value = _field(name, spec, name in required, stdin.readline, out)
            if given:
                content[name] = value
        return {"action": "accept", "content": content}
    except _Declined:
        return {"action": "decline"}
    except EOFError:
        out.write("\n")
        return {"action": "cancel"}
