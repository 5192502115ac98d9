"""protocol.json_steps: the stepped decoder gives what json gives, refuses what it refuses.

Compared with ``json.loads`` on fixed and seeded random documents (every step size), then
on malformed text, the decoder's own hooks (NaN, out-of-range floats) and the depth limit;
``jsonrpc.parse_in_steps`` answers like ``jsonrpc.parse``. Its loop lag over real HTTP:
tests/fastapi/test_endpoint_large_bodies.py.
"""

from __future__ import annotations

import json
import random
from collections.abc import Generator
from typing import Any

import pytest

from genmcp.protocol import jsonrpc
from genmcp.protocol.json_steps import decode_in_steps

DECODER = json.JSONDecoder(parse_constant=lambda token: (_ for _ in ()).throw(ValueError(token)))


def run(steps: Generator[None, None, Any]) -> tuple[Any, int]:
    pauses = 0
    while True:
        try:
            next(steps)
        except StopIteration as done:
            return done.value, pauses
        pauses += 1


def value(rng: random.Random, depth: int = 0) -> Any:
    kind = rng.randrange(8 if depth < 6 else 5)
    if kind == 0:
        return rng.randint(-(10**20), 10**20)
    if kind == 1:
        return rng.uniform(-1e9, 1e9)
    if kind == 2:
        return "".join(rng.choice('ab"\\\n é☃\u2028\ud83d\ude00') for _ in range(rng.randrange(6)))
    if kind == 3:
        return rng.choice([True, False, None])
    if kind == 4:
        return ""
    if kind == 5:
        return [value(rng, depth + 1) for _ in range(rng.randrange(5))]
    return {str(rng.randrange(9)): value(rng, depth + 1) for _ in range(rng.randrange(5))}


FIXED = [
    "{}",
    "[]",
    ' \n\t{ "a" : [ 1 , 2.5e-3 , { } , [ ] ] , "a" : "last wins" }\r\n',
    '[[[["deep"]]]]',
    '"\\u00e9\\ud83d\\ude00"',
    "-0",
    "true",
    "null",
]


@pytest.mark.parametrize("text", FIXED)
@pytest.mark.parametrize(("step", "chunk"), [(1, 1), (2, 3), (1, 9), (256, 32768)])
def test_fixed_documents_decode_as_json_does(text: str, step: int, chunk: int) -> None:
    decoded, _ = run(decode_in_steps(text, DECODER, 64, step=step, chunk=chunk))
    assert decoded == json.loads(text)


def test_random_documents_decode_as_json_does() -> None:
    rng = random.Random(30)
    for _ in range(300):
        doc = value(rng)
        text = json.dumps(doc, ensure_ascii=rng.random() < 0.5, indent=rng.choice([None, 1]))
        chunk = rng.choice([1, 2, 5, 17, 64, 1000, 32768])  # windows cut strings, members
        decoded, _ = run(decode_in_steps(text, DECODER, 64, step=rng.randint(1, 9), chunk=chunk))
        assert decoded == json.loads(text), (text, chunk)


@pytest.mark.parametrize(
    "doc",
    [
        {f"k{i}": [i, {"v": i}] for i in range(10_000)},  # many keys
        [1] * 200_000,  # many tiny values: runs, not one value at a time
        {"a": {"b": [{"c": "x" * 50_000, "d": list(range(20_000))}]}},  # huge members, nested
    ],
    ids=["keys", "numbers", "nested"],
)
def test_a_large_document_pauses_between_runs(doc: Any) -> None:
    text = json.dumps(doc)
    decoded, pauses = run(decode_in_steps(text, DECODER, 64, step=1, chunk=4096))
    assert decoded == doc
    assert pauses >= len(text) // 4096 // 2  # about a pause per window


@pytest.mark.parametrize(
    "text",
    ["", " ", "{", "[1,]", "[,1]", '{"a"}', '{"a":1,}', "{1:2}", "[1 2]", '{"a":1} x', "[1]]",
     '{"a":1 "b":2}', "NaN", "[Infinity]", '"\\x"', '"unterminated', "tru", "[01]", "-"],
)  # fmt: skip
@pytest.mark.parametrize("chunk", [1, 4, 32768])
def test_malformed_text_is_refused(text: str, chunk: int) -> None:
    with pytest.raises(ValueError):
        json.loads(text, parse_constant=DECODER.parse_constant)
    with pytest.raises(ValueError):
        run(decode_in_steps(text, DECODER, 64, chunk=chunk))


def test_nesting_past_the_limit_is_refused_without_recursion() -> None:
    ok = "[" * 64 + "]" * 64
    assert run(decode_in_steps(ok, DECODER, 64))[0] == json.loads(ok)
    with pytest.raises(ValueError, match="deeper than 64"):
        run(decode_in_steps("[" * 65 + "]" * 65, DECODER, 64))
    with pytest.raises(ValueError, match="deeper than 64"):
        run(decode_in_steps('{"a":' * 100_000, DECODER, 64))  # no RecursionError
    for chunk in (1, 100, 32768):  # within one run too
        with pytest.raises(ValueError, match="deeper than 64"):
            run(decode_in_steps("[0," + "[" * 64 + "]" * 64 + "]", DECODER, 64, chunk=chunk))


@pytest.mark.parametrize(
    "body",
    [
        b'{"jsonrpc":"2.0","id":1,"method":"ping"}',
        b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"x":[NaN]}}',
        b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"x":1e999}}',
        b"[{}]",
        b"{",
        b'{"jsonrpc":"2.0","id":1,"method":"x","params":' + b"[" * 70 + b"]" * 70 + b"}",
        '{"jsonrpc":"2.0","method":"n","params":{"é":1}}'.encode("utf-16"),
    ],
)
def test_parse_in_steps_answers_as_parse_does(body: bytes) -> None:
    try:
        expected: Any = jsonrpc.parse(body)
    except jsonrpc.EnvelopeError as exc:
        expected = (exc.reason, exc.message.split(":")[0])
    try:
        got: Any = run(jsonrpc.parse_in_steps(body))[0]
    except jsonrpc.EnvelopeError as exc:
        got = (exc.reason, exc.message.split(":")[0])
    assert got == expected
