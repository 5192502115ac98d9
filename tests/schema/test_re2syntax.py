"""schema.re2syntax: the plain patterns RE2 certainly compiles, told without loading RE2.

The soundness property (a pattern said plain compiles on RE2) moved here from
test_lazy_imports.py; then the subset's edges, one construct at a time.
"""

from __future__ import annotations

import random
from typing import Final

import pytest

from genmcp.schema.re2syntax import MAX_COUNT, MAX_DEPTH, MAX_PATTERN_CHARS, plainly_linear
from genmcp.schema.regex import _compile_re2

PIECES: Final = [
    *"ab.^$|()[]{}-*+?,0129\\:", "\\d", "\\s", "\\S", "\\w", "\\-", "\\]", "\\n", "(?:",
    "{2}", "{1,3}", "{999}", "{1000}", "{3,}", "{0}", "[a-z]", "[^0-9]", "\u00e9", "[z-a]",
    "\\u0041", "(?=", "{10}", "{100}", "\\b", "[\\s-]", "(?<n>",
]  # fmt: skip


@pytest.mark.long  # about 7 s: make test-long
def test_a_pattern_said_plainly_linear_compiles_on_re2() -> None:
    rnd = random.Random(19)
    said = 0
    for _ in range(100_000):
        source = "".join(rnd.choice(PIECES) for _ in range(rnd.randint(1, 12)))
        if plainly_linear(source):
            said += 1
            assert _compile_re2(source) is not None, source
    assert said > 5000


@pytest.mark.parametrize(
    "source",
    ["(a{10}){101}", "a{1001}", "[z-a]", "a**", "[]", "x{2,1}", "(?=a)", "\\1", "[\\S]", "{"],
)
def test_what_re2_might_refuse_is_left_to_re2(source: str) -> None:
    assert not plainly_linear(source)


@pytest.mark.parametrize(
    "source",
    [
        "", "^abc$", "a|b|", "(?:ab)+?", "a{3}", "a{0}", "a{2,}", "a{1,1000}", "[-a]", "[a-]",
        "[^a-z0-9_]", "[\\d\\s.]", "\\.\\*\\/\\-", "\\n\\t\\f\\r", "\u00e9+", "\\S+",
        "(a(b(c)))", "[\\]a]", "[\\--\\/]",
    ],
)  # fmt: skip
def test_the_plain_subset(source: str) -> None:
    assert plainly_linear(source)


@pytest.mark.parametrize(
    "source",
    [
        "a)", "(a", "a{", "a{,3}", "a{1,2", "a{00001}", "^*", "$+", "*a", "a|*", "a{2}{3}",
        "[a", "[^]", "[a-\\d]", "[\\d-z]", "[a--]", "[[:alpha:]]", "\\b", "\\B", "\\x41",
        "\\p{L}", "\\cJ", "(?i)a", "(?<n>a)", "(?!a)", "(?<=a)", "\x00", "a\x7f",
        "\ud800",
    ],
)  # fmt: skip
def test_outside_the_subset(source: str) -> None:
    assert not plainly_linear(source)


def test_the_counts_multiply_up_to_the_largest() -> None:
    assert plainly_linear("(a{10}){100}")  # 1000 nested: RE2's limit
    assert not plainly_linear("(a{10}){101}")
    assert plainly_linear(f"a{{{MAX_COUNT}}}")
    assert not plainly_linear(f"a{{1,{MAX_COUNT + 1}}}")


def test_the_unrolled_size_is_bounded() -> None:
    assert plainly_linear("(abcd){500}")  # 2000 atoms
    assert not plainly_linear("(abcde){500}")
    assert not plainly_linear("a" * (MAX_PATTERN_CHARS + 1))


def test_the_group_depth_is_bounded() -> None:
    assert plainly_linear("(" * MAX_DEPTH + "a" + ")" * MAX_DEPTH)
    assert not plainly_linear("(" * (MAX_DEPTH + 1) + "a" + ")" * (MAX_DEPTH + 1))
