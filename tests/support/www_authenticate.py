"""A strict parser for one RFC 9110 / RFC 6750 `Bearer` challenge, for the auth tests.

`parse_bearer('Bearer error="invalid_token", scope="a b"')` -> `{"error": "invalid_token",
"scope": "a b"}`. Anything that is not exactly one Bearer challenge of `name=token` or
`name="quoted-string"` parameters (each once) raises `ValueError`, so an injected quote
or comma shows up as a failure, not as a silently different parameter.
"""

from __future__ import annotations

import re
from typing import Final

_TOKEN: Final = r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+"
_QUOTED: Final = r'"(?:[^"\\\x00-\x1f\x7f]|\\[\x20-\x7e])*"'
_PARAM: Final = re.compile(rf"({_TOKEN})[ \t]*=[ \t]*({_TOKEN}|{_QUOTED})")
_SEPARATOR: Final = re.compile(r"[ \t]*,[ \t]*")


def parse_bearer(value: str) -> dict[str, str]:
    """The parameters of the single Bearer challenge in `value` (names lowercased)."""
    scheme, _, rest = value.partition(" ")
    if scheme.lower() != "bearer":
        raise ValueError(f"not a Bearer challenge: {value!r}")
    params: dict[str, str] = {}
    position = 0
    rest = rest.strip(" ")
    while position < len(rest):
        match = _PARAM.match(rest, position)
        if match is None:
            raise ValueError(f"bad auth-param at {position} in {value!r}")
        name, raw = match[1].lower(), match[2]
        if name in params:
            raise ValueError(f"parameter {name!r} given twice in {value!r}")
        params[name] = re.sub(r"\\(.)", r"\1", raw[1:-1]) if raw.startswith('"') else raw
        position = match.end()
        if position < len(rest):
            separator = _SEPARATOR.match(rest, position)
            if separator is None:
                raise ValueError(f"expected a comma at {position} in {value!r}")
            position = separator.end()
    return params
