"""Hostile JSON values: what a peer may put where a string, number, id or object belongs.

Owns: `hostile(rng)` and its parts (huge numbers, huge strings, lone surrogates, deep
nesting, wrong types), sized so one body stays well under the server's 4 MiB limit. Every
function takes the case's own `random.Random`, so a seed replays the same values.
"""

from __future__ import annotations

import json
import random
import string
from typing import Any, Final

from fuzz.cases import Raw

SURROGATES: Final = ("\\ud800", "\\udfff", "\\udbff", "\\ud83d")
"""Lone UTF-16 surrogate escapes: legal JSON text, no UTF-8 encoding."""

WEIRD_STRINGS: Final = (
    "",
    " ",
    "\x00",
    "\u2028\u2029",
    "\ufeff",
    "=?base64?",
    "=?base64?!!!?=",
    "../../etc/passwd",
    "%00%ff",
    "\U0001f600" * 3,
    "a\r\nInjected: header",
    "test://nope",
    "null",
    "NaN",
    "-0",
    "' OR 1=1 --",
    "{{7*7}}",
)


def huge_int(rng: random.Random) -> int | Raw:
    """Integers past float, past int64, past Python's 4,300-digit str limit."""
    choice = rng.randrange(6)
    if choice == 0:
        return rng.choice((2**53 + 1, -(2**63) - 1, 2**64, 10**308, -(10**309)))
    if choice == 1:
        return Raw("9" * rng.choice((400, 4300, 4301, 5000, 20000)))
    if choice == 2:
        return Raw("-" + "1" * rng.randint(20, 5000))
    if choice == 3:
        return Raw("1" + "0" * rng.randint(309, 1000) + ".5")
    if choice == 4:
        return Raw(rng.choice(("1e400", "-1e400", "1e-400", "4.9e-324", "1E+99999", "-0.0")))
    return Raw(rng.choice(("NaN", "Infinity", "-Infinity", "0x10", "01", "+1", ".5", "1.")))


def lone_surrogate(rng: random.Random) -> Raw:
    text = "".join(rng.choice(("x", rng.choice(SURROGATES))) for _ in range(rng.randint(1, 6)))
    return Raw('"' + text + '"')


def huge_string(rng: random.Random) -> str:
    size = rng.choice((1_000, 65_536, 300_000, 1_000_000))
    return rng.choice(string.printable[:94]) * size


def deep(rng: random.Random) -> Raw:
    depth = rng.choice((64, 100, 1_000, 10_000, 100_000))
    opener, closer = rng.choice((("[", "]"), ('{"a":', "}")))
    return Raw(opener * depth + "1" + closer * depth)


def wide(rng: random.Random) -> Raw:
    """A long array or an object with many keys (written once, as text)."""
    count = rng.choice((1_000, 10_000, 100_000))
    if rng.random() < 0.5:
        return Raw(json.dumps(list(range(count))))
    return Raw(json.dumps({f"k{i}": i for i in range(count)}))


def scalar(rng: random.Random) -> Any:
    """A plain value of a random JSON type."""
    return rng.choice(
        (
            None,
            True,
            False,
            0,
            -1,
            rng.randint(-(2**40), 2**40),
            rng.random() * 1e6,
            "x",
            rng.choice(WEIRD_STRINGS),
            [],
            {},
            [1, "a", None],
            {"a": {"b": []}},
        )
    )


def hostile(rng: random.Random) -> Any:
    """One value of any hostile kind; mostly cheap, sometimes big."""
    roll = rng.random()
    if roll < 0.35:
        return scalar(rng)
    if roll < 0.50:
        return huge_int(rng)
    if roll < 0.62:
        return lone_surrogate(rng)
    if roll < 0.70:
        return huge_string(rng)
    if roll < 0.78:
        return deep(rng)
    if roll < 0.84:
        return wide(rng)
    return rng.choice(WEIRD_STRINGS)


def garbage_token(rng: random.Random) -> str:
    """Something shaped like a cursor, requestState or session id, but not one."""
    alphabet = string.ascii_letters + string.digits + "-_.~+/="
    kind = rng.randrange(6)
    if kind == 0:
        return ""
    if kind == 1:
        return "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 200)))
    if kind == 2:
        return "v1.." + "".join(rng.choice(alphabet) for _ in range(rng.randint(10, 300)))
    if kind == 3:
        return "A" * rng.choice((4096, 8000))
    if kind == 4:
        return rng.choice(WEIRD_STRINGS)
    return "".join(chr(rng.randint(0x21, 0x7E)) for _ in range(rng.randint(1, 64)))


def mutate_token(rng: random.Random, token: str) -> str:
    """A real token changed a little: one char flipped, cut, extended, re-padded."""
    if not token:
        return "x"
    kind = rng.randrange(5)
    pos = rng.randrange(len(token))
    if kind == 0:
        flipped = "A" if token[pos] != "A" else "B"
        return token[:pos] + flipped + token[pos + 1 :]
    if kind == 1:
        return token[:pos]
    if kind == 2:
        return token + rng.choice(("=", "==", "x", ".", "\t"))
    if kind == 3:
        return token.swapcase()
    return token[::-1]
