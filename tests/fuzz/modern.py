"""Generators of hostile 2026-07-28 (stateless) requests.

Owns: `_meta` garbage and `_meta`/header mismatches, `Mcp-Method`/`Mcp-Name`/`Mcp-Param-*`
garbage, every method with wrong params, `tools/call` with hostile argument values for the
tools the server lists, cursor and requestState garbage, and Host/Origin values that must
be refused. Each generator maps a seeded `random.Random` and the server's `Catalog` to a
`Case` judged against the 2026-07-28 schema.
"""

from __future__ import annotations

import base64
import random
from collections.abc import Mapping
from typing import Any, Final

from fuzz import values
from fuzz.cases import (
    LATEST,
    META_CAPABILITIES,
    META_CLIENT_INFO,
    META_LOG_LEVEL,
    META_VERSION,
    Case,
    Catalog,
    Raw,
    encode,
    header_value,
    modern_headers,
    modern_request,
)

MODERN: Final = (LATEST,)
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
    "subscriptions/listen",
    "tasks/get",
    "tasks/update",
    "tasks/cancel",
    "ping",
    "logging/setLevel",
    "resources/subscribe",
    "no/such/method",
    "notifications/cancelled",
)
SLOW_TOOLS: Final[Mapping[str, tuple[str, float]]] = {
    "test_long_running_operation": ("seconds", 0.2),
}
"""Tools that legitimately run long (default 30 s): the argument forced small when valid."""


def _case(category: str, message: Any, headers: dict[str, str | bytes] | None = None) -> Case:
    method = message.get("method") if isinstance(message, dict) else None
    return Case(
        category,
        encode(message),
        modern_headers(message) if headers is None else headers,
        rpc_method=method if isinstance(method, str) else None,
        versions=MODERN,
    )


def _template(rng: random.Random, catalog: Catalog, method: str) -> dict[str, Any]:
    """A mostly correct request for `method`."""
    params: dict[str, Any] = {}
    if method == "tools/call":
        name = rng.choice(sorted(catalog.tools))
        params = {"name": name, "arguments": plausible(rng, catalog.tools[name])}
    elif method == "prompts/get" and catalog.prompts:
        params = {"name": rng.choice(catalog.prompts), "arguments": {}}
    elif method == "resources/read":
        params = {"uri": rng.choice((*catalog.resources, "test://template/7/data", "x:y"))}
    elif method == "completion/complete":
        params = {
            "ref": {"type": "ref/prompt", "name": "p"},
            "argument": {"name": "a", "value": ""},
        }
    elif method.startswith("tasks/"):
        params = {"taskId": values.garbage_token(rng)}
    return modern_request(method, params, request_id=rng.randint(1, 2**31))


def plausible(rng: random.Random, schema: Mapping[str, Any]) -> dict[str, Any]:
    """Arguments of the right types for the top-level properties (not always valid)."""
    out: dict[str, Any] = {}
    for name, prop in (schema.get("properties") or {}).items():
        kind = prop.get("type") if isinstance(prop, dict) else None
        if "enum" in prop:
            out[name] = rng.choice(prop["enum"])
        elif kind == "string":
            out[name] = rng.choice(("a", "phone", "x@y.z", "hello"))
        elif kind in ("number", "integer"):
            out[name] = rng.choice((0, 1, 0.1))
        elif kind == "boolean":
            out[name] = rng.random() < 0.5
        elif kind == "object":
            out[name] = {}
        elif kind == "array":
            out[name] = []
    return out


def tame_slow_tool(params: dict[str, Any]) -> None:
    """Keep a valid duration of a slow tool under a second (hostile ones are kept)."""
    name = params.get("name")
    rule = SLOW_TOOLS.get(name) if isinstance(name, str) else None
    if rule is not None and params.get("arguments", None) is None:
        params["arguments"] = {}  # null or absent arguments mean none: the 30 s default
    arguments = params.get("arguments")
    if rule is None:
        return
    key, small = rule
    if isinstance(arguments, Raw) and arguments.text.startswith("{"):  # an object: it runs
        params["arguments"] = {key: small, "wide": arguments}  # still wide, one level down
        return
    if not isinstance(arguments, dict):
        return
    value = arguments.get(key)
    if value is None or (isinstance(value, int | float) and not isinstance(value, bool)):
        if value is None or value > small:
            arguments[key] = small


def param_headers(schema: Mapping[str, Any], arguments: Any) -> dict[str, str | bytes]:
    """The `Mcp-Param-*` headers a correct client sends for these arguments."""
    out: dict[str, str | bytes] = {}
    if not isinstance(arguments, dict):
        return out
    for name, prop in (schema.get("properties") or {}).items():
        header = prop.get("x-mcp-header") if isinstance(prop, dict) else None
        value = arguments.get(name)
        if header and isinstance(value, str):
            out[f"mcp-param-{header}".lower()] = header_value(value)
        elif header and isinstance(value, bool | int):
            out[f"mcp-param-{header}".lower()] = str(value).lower()
    return out


def meta_mismatch(rng: random.Random, catalog: Catalog) -> Case:
    message = _template(rng, catalog, rng.choice(METHODS[:10]))
    headers = modern_headers(message)
    meta = message["params"]["_meta"]
    key = rng.choice((META_VERSION, META_CAPABILITIES, META_CLIENT_INFO, META_LOG_LEVEL, "all"))
    kind = rng.randrange(4)
    if key == "all":
        message["params"]["_meta"] = rng.choice((None, [], "x", 1, {}))
    elif kind == 0:
        meta.pop(key, None)
    elif kind == 1:
        meta[key] = values.hostile(rng)
    elif kind == 2 and key == META_VERSION:
        meta[key] = rng.choice(("2025-06-18", "2026-07-29", "2026-07-28 ", "latest", "", "2024"))
    else:
        headers["mcp-protocol-version"] = rng.choice(("2025-11-25", "2027-01-01", "x", "", "2.0"))
    if rng.random() < 0.2:
        message["params"]["_meta"] = {**meta, "progressToken": values.hostile(rng)}
    return _case("modern.meta_mismatch", message, headers)


def header_mismatch(rng: random.Random, catalog: Catalog) -> Case:
    message = _template(
        rng,
        catalog,
        rng.choice(("tools/call", "prompts/get", "resources/read", "tools/list", "tasks/get")),
    )
    headers = modern_headers(message)
    if message["method"] == "tools/call":
        params = message["params"]
        tame_slow_tool(params)
        headers.update(param_headers(catalog.tools[params["name"]], params["arguments"]))
    target = rng.choice(("mcp-method", "mcp-name", "mcp-param-region", "mcp-protocol-version"))
    kind = rng.randrange(5)
    if kind == 0:
        headers.pop(target, None)
    elif kind == 1:
        headers[target] = rng.choice(("tools/list", "TOOLS/CALL", "x", "=?base64?%%%?=", ""))
    elif kind == 2:
        raw = bytes(rng.randrange(0x80, 0x100) for _ in range(rng.randint(1, 8)))
        headers[target] = raw
    elif kind == 3:
        text = rng.choice(values.WEIRD_STRINGS).encode("utf-8", "backslashreplace")
        headers[target] = "=?base64?" + base64.b64encode(text).decode() + "?="
    else:
        headers[target] = "=?BASE64?" + base64.b64encode(b"tools/call").decode() + "?="
    return _case("modern.header_mismatch", message, headers)


def wrong_params(rng: random.Random, catalog: Catalog) -> Case:
    message = _template(rng, catalog, rng.choice(METHODS))
    params = message["params"]
    kind = rng.randrange(4)
    if kind == 0:
        message["params"] = {"_meta": params["_meta"]}
    elif kind == 1:
        key = rng.choice([*(k for k in params if k != "_meta"), "name", "uri", "cursor", "ref"])
        params[key] = values.hostile(rng)
    elif kind == 2:
        params[rng.choice(("level", "argument", "ref", "inputResponses", "task", "x"))] = (
            values.hostile(rng)
        )
    else:
        message["params"] = rng.choice(([], "x", 1, None, [params]))
    headers = modern_headers(message)
    if isinstance(message.get("params"), dict) and message["method"] == "tools/call":
        tame_slow_tool(message["params"])
    return _case("modern.wrong_params", message, headers)


def tools_call_hostile(rng: random.Random, catalog: Catalog) -> Case:
    message = _template(rng, catalog, "tools/call")
    params = message["params"]
    arguments = params["arguments"]
    schema = catalog.tools[params["name"]]
    names = [*(schema.get("properties") or {}), "extra", "__proto__", ""]
    for _ in range(rng.randint(1, 3)):
        arguments[rng.choice(names)] = values.hostile(rng)
    if rng.random() < 0.1:
        params["arguments"] = rng.choice((None, [], "x", 1, values.deep(rng)))
    tame_slow_tool(params)
    headers = modern_headers(message)
    headers.update(param_headers(schema, params["arguments"]))
    return _case("modern.tools_call_hostile", message, headers)


def cursors(rng: random.Random, catalog: Catalog) -> Case:
    method = rng.choice(
        ("tools/list", "prompts/list", "resources/list", "resources/templates/list", "tasks/list")
    )
    message = _template(rng, catalog, method)
    message["params"]["cursor"] = rng.choice(
        (values.garbage_token(rng), values.garbage_token(rng), values.hostile(rng))
    )
    return _case("modern.cursors", message, None)


def request_state(rng: random.Random, catalog: Catalog) -> Case:
    asking = [
        n
        for n in catalog.tools
        if "input_required" in n or n in ("test_sampling", "test_elicitation")
    ] or sorted(catalog.tools)
    method = rng.choice(("tools/call", "tools/call", "prompts/get"))
    message = _template(rng, catalog, method)
    params = message["params"]
    if method == "tools/call":
        params["name"] = rng.choice(asking)
        params["arguments"] = plausible(rng, catalog.tools[params["name"]])
    if rng.random() < 0.7:
        params["requestState"] = rng.choice((values.garbage_token(rng), values.hostile(rng)))
    if rng.random() < 0.6:
        params["inputResponses"] = rng.choice(
            (
                values.hostile(rng),
                {"user": values.hostile(rng)},
                {"llm": {"role": "assistant", "content": values.hostile(rng)}},
                {values.garbage_token(rng): {"action": "accept", "content": values.hostile(rng)}},
                {"user": {"action": values.scalar(rng), "content": values.scalar(rng)}},
                {
                    "user": {
                        "action": rng.choice(("accept", "decline", "cancel", "x")),
                        "content": {"username": values.hostile(rng)},
                    }
                },
            )
        )
    tame_slow_tool(params)
    headers = modern_headers(message)
    if method == "tools/call":
        headers.update(param_headers(catalog.tools[params["name"]], params.get("arguments")))
    return _case("modern.request_state", message, headers)


def bad_host_origin(rng: random.Random, catalog: Catalog) -> Case:
    """Host and Origin values that are plainly foreign: always refused today."""
    message = _template(rng, catalog, "tools/list")
    headers = modern_headers(message)
    which = rng.choice(("host", "origin"))
    headers[which] = (
        rng.choice(
            (
                "evil.example",
                "http://evil.example",
                "null",
                "localhost.evil.example",
                "http://127.0.0.2",
                "http://[::2]:1",
                "file://",
            )
        )
        if which == "origin"
        else rng.choice(("evil.example", "127.0.0.2", "localhost.evil"))
    )
    case = _case("modern.bad_host_origin", message, headers)
    case.expect_status = (400, 403, 421)
    return case


def host_origin_confusion(rng: random.Random, catalog: Catalog) -> Case:
    """Host/Origin values `urlsplit` mistakes for loopback (KNOWN: issue 12 item 3)."""
    message = _template(rng, catalog, "tools/list")
    headers = modern_headers(message)
    which = rng.choice(("host", "origin"))
    form = rng.choice(
        (
            "{h}:{p}.evil.example",
            "evil.example@{h}:{p}",
            "{h}:{p}x",
            "{h}:99999",
            "user:pw@{h}:{p}",
            "{h}:-1",
            "{h}:{p}/path",
        )
    )
    value = form.format(h=rng.choice(("localhost", "127.0.0.1")), p="{PORT}")
    headers[which] = ("http://" + value) if which == "origin" else value
    case = _case("modern.host_origin_confusion", message, headers)
    case.expect_status = (400, 403, 421)
    return case


GENERATORS: Final = {
    "modern.meta_mismatch": (meta_mismatch, 6),
    "modern.header_mismatch": (header_mismatch, 6),
    "modern.wrong_params": (wrong_params, 10),
    "modern.tools_call_hostile": (tools_call_hostile, 12),
    "modern.cursors": (cursors, 3),
    "modern.request_state": (request_state, 5),
    "modern.bad_host_origin": (bad_host_origin, 2),
    "modern.host_origin_confusion": (host_origin_confusion, 2),
}
"""Category -> (generator, weight)."""
