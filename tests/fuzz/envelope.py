"""Generators of broken JSON-RPC envelopes, era-less: whatever the server makes of them.

Owns: invalid JSON and encodings, non-object bodies, batches, wrong types for `jsonrpc`,
`id`, `method` and `params`, huge ids, deep nesting, lone surrogates, duplicate keys, and
hostile HTTP framing (methods, Content-Type, Accept). Each generator maps a seeded
`random.Random` to one `Case`.
"""

from __future__ import annotations

import random
from typing import Any, Final

from fuzz import values
from fuzz.cases import (
    ALL_VERSIONS,
    Case,
    Catalog,
    Raw,
    encode,
    initialize_request,
    modern_headers,
    modern_request,
)

METHODS: Final = (
    "server/discover",
    "tools/list",
    "tools/call",
    "prompts/list",
    "prompts/get",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "completion/complete",
    "ping",
    "initialize",
    "logging/setLevel",
)


def _valid(rng: random.Random) -> dict[str, Any]:
    return modern_request(rng.choice(METHODS), request_id=rng.randint(1, 99))


def invalid_json(rng: random.Random, catalog: Catalog) -> Case:
    text = encode(_valid(rng))
    kind = rng.randrange(7)
    if kind == 0:
        body = text[: rng.randrange(len(text))]
    elif kind == 1:
        body = bytes(rng.randrange(256) for _ in range(rng.randint(1, 400)))
    elif kind == 2:
        body = b"\xef\xbb\xbf" + text  # a UTF-8 BOM
    elif kind == 3:
        pos = rng.randrange(len(text))
        body = text[:pos] + bytes([rng.choice((0x80, 0xC0, 0xFF, 0xED))]) + text[pos:]
    elif kind == 4:
        body = text.replace(b'"', b"'")
    elif kind == 5:
        body = text + rng.choice((b",", b"}", b" {}", b"\x00", b"\n{}"))
    else:
        body = text.decode().encode(rng.choice(("utf-16", "utf-32", "utf-16-le")))
    return Case("envelope.invalid_json", body, modern_headers(_valid(rng)))


def not_an_object(rng: random.Random, catalog: Catalog) -> Case:
    body = rng.choice((b"", b" ", b"null", b"1", b'"ping"', b"true", b"[[]]", b"{}", b"[null]"))
    return Case("envelope.not_an_object", body, modern_headers({}))


def batch(rng: random.Random, catalog: Catalog) -> Case:
    items: list[Any] = [_valid(rng) for _ in range(rng.randint(0, 5))]
    if rng.random() < 0.3:
        items.append({"jsonrpc": "2.0", "method": "notifications/initialized"})
    if rng.random() < 0.3:
        items.append({"jsonrpc": "2.0", "id": 7, "result": {}})
    if rng.random() < 0.2:
        items = [items]
    if rng.random() < 0.2:
        items = [initialize_request(rng.choice(ALL_VERSIONS[1:])), *items]
    return Case("envelope.batch", encode(items), modern_headers({"method": "tools/list"}))


def wrong_types(rng: random.Random, catalog: Catalog) -> Case:
    message = _valid(rng)
    field = rng.choice(("jsonrpc", "id", "method", "params", "extra", "drop"))
    if field == "drop":
        del message[rng.choice(("jsonrpc", "id", "method", "params"))]
    elif field == "extra":
        message[rng.choice(("result", "error", "Method", "ID", "__proto__"))] = values.scalar(rng)
    else:
        message[field] = rng.choice((None, 2.0, "1.0", 1.5, True, [], {}, [1], "", -0.0, 1e30))
    return Case("envelope.wrong_types", encode(message), modern_headers(message))


def huge_id(rng: random.Random, catalog: Catalog) -> Case:
    message = _valid(rng)
    message["id"] = rng.choice(
        (
            values.huge_int(rng),
            "i" * rng.choice((1_000, 100_000, 1_000_000)),
            values.lone_surrogate(rng),
            rng.choice(values.WEIRD_STRINGS),
            -1,
            0,
            2**63,
        )
    )
    return Case("envelope.huge_id", encode(message), modern_headers(message))


def deep_nesting(rng: random.Random, catalog: Catalog) -> Case:
    message = _valid(rng)
    where = rng.choice(("params", "arguments", "meta", "id"))
    if where == "params":
        message["params"]["deep"] = values.deep(rng)
    elif where == "arguments":
        message["method"] = "tools/call"
        message["params"].update(name="test_simple_text", arguments={"x": values.deep(rng)})
    elif where == "meta":
        message["params"]["_meta"]["deep"] = values.deep(rng)
    else:
        message["id"] = values.deep(rng)
    return Case("envelope.deep_nesting", encode(message), modern_headers(message))


def lone_surrogates(rng: random.Random, catalog: Catalog) -> Case:
    message = _valid(rng)
    where = rng.choice(("method", "key", "value", "meta", "name"))
    bad = values.lone_surrogate(rng)
    if where == "method":
        message["method"] = bad
    elif where == "key":
        message["params"][Raw(bad.text)] = 1
    elif where == "value":
        message["params"]["cursor"] = bad
    elif where == "meta":
        message["params"]["_meta"][Raw(bad.text)] = bad
    else:
        message["method"] = "tools/call"
        message["params"]["name"] = bad
    return Case("envelope.lone_surrogates", encode(message), modern_headers(message))


def duplicate_keys(rng: random.Random, catalog: Catalog) -> Case:
    message = _valid(rng)
    key = rng.choice(("id", "method", "jsonrpc", "params"))
    text = encode(message).decode()
    twin = f'"{key}":' + rng.choice(('"x"', "2", "null", "{}", '"tools/call"'))
    body = ("{" + twin + "," + text[1:]) if rng.random() < 0.5 else (text[:-1] + "," + twin + "}")
    return Case("envelope.duplicate_keys", body.encode(), modern_headers(message))


def framing(rng: random.Random, catalog: Catalog) -> Case:
    message = _valid(rng)
    headers = modern_headers(message)
    kind = rng.randrange(6)
    http_method = "POST"
    if kind == 0:
        http_method = rng.choice(("PUT", "PATCH", "OPTIONS", "HEAD", "TRACE"))
    elif kind == 1:
        headers["content-type"] = rng.choice(
            ("text/plain", "application/json; charset=latin-1", "application/jsonx", "", "*/*")
        )
    elif kind == 2:
        headers["accept"] = rng.choice(("", "text/html", "application/json", "*/*", "x" * 9000))
    elif kind == 3:
        del headers["content-type"]
    elif kind == 4:
        headers["content-encoding"] = rng.choice(("gzip", "br", "identity", "x"))
    else:
        headers["mcp-protocol-version"] = rng.choice(
            ("2026-07-28, 2025-06-18", "2026-07-28 x", "*")
        )
    return Case("envelope.framing", encode(message), headers, http_method=http_method)


GENERATORS: Final = {
    "envelope.invalid_json": (invalid_json, 6),
    "envelope.not_an_object": (not_an_object, 2),
    "envelope.batch": (batch, 3),
    "envelope.wrong_types": (wrong_types, 6),
    "envelope.huge_id": (huge_id, 3),
    "envelope.deep_nesting": (deep_nesting, 2),
    "envelope.lone_surrogates": (lone_surrogates, 4),
    "envelope.duplicate_keys": (duplicate_keys, 2),
    "envelope.framing": (framing, 3),
}
"""Category -> (generator, weight)."""
