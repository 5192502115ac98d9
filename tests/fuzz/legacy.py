"""Generators of hostile requests in 2025 sessions (2025-03-26, 2025-06-18, 2025-11-25).

Owns: `initialize` garbage, `Mcp-Session-Id` and `MCP-Protocol-Version` garbage, every
session method with wrong params, client notifications (cancels included), client
responses to requests never sent, GET and DELETE, and 2025-03-26 batches. A case names the
revision of the live session it runs in (`Case.session`); the runner puts that session's id
where a header says `SID`.
"""

from __future__ import annotations

import random
from typing import Any, Final

from fuzz import values
from fuzz.cases import (
    ACCEPT,
    LEGACY_VERSIONS,
    MUTATE_SID,
    Case,
    Catalog,
    encode,
    initialize_request,
    legacy_headers,
)
from fuzz.modern import plausible, tame_slow_tool

METHODS: Final = (
    "ping",
    "tools/list",
    "tools/call",
    "prompts/list",
    "prompts/get",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
    "logging/setLevel",
    "completion/complete",
    "tasks/get",
    "tasks/result",
    "tasks/list",
    "tasks/cancel",
    "server/discover",
    "initialize",
    "no/such/method",
)


def _case(category: str, message: Any, version: str, **options: Any) -> Case:
    method = message.get("method") if isinstance(message, dict) else None
    headers = options.pop("headers", None) or legacy_headers(version)
    return Case(
        category,
        encode(message),
        headers,
        rpc_method=method if isinstance(method, str) else None,
        versions=(version,),
        session=version,
        **options,
    )


def _request(rng: random.Random, catalog: Catalog, method: str) -> dict[str, Any]:
    params: dict[str, Any] = {}
    if method == "tools/call":
        name = rng.choice(sorted(catalog.tools))
        params = {"name": name, "arguments": plausible(rng, catalog.tools[name])}
        tame_slow_tool(params)
    elif method in ("resources/read", "resources/subscribe", "resources/unsubscribe"):
        params = {"uri": rng.choice((*catalog.resources, "test://nope"))}
    elif method == "prompts/get" and catalog.prompts:
        params = {"name": rng.choice(catalog.prompts)}
    elif method == "logging/setLevel":
        params = {"level": rng.choice(("debug", "info", "emergency"))}
    elif method.startswith("tasks/") and method != "tasks/list":
        params = {"taskId": values.garbage_token(rng)}
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": rng.randint(1, 2**31), "method": method}
    if params or rng.random() < 0.5:
        message["params"] = params
    return message


def initialize_garbage(rng: random.Random, catalog: Catalog) -> Case:
    version = rng.choice(LEGACY_VERSIONS)
    message = initialize_request(version, request_id=rng.randint(1, 99))
    params = message["params"]
    key = rng.choice(("protocolVersion", "capabilities", "clientInfo", "params", "extra"))
    if key == "params":
        message["params"] = rng.choice((None, [], "x", {}))
    elif key == "extra":
        params["_meta"] = {"io.modelcontextprotocol/protocolVersion": values.hostile(rng)}
    elif key == "protocolVersion" and rng.random() < 0.5:
        params[key] = rng.choice(("2024-11-05", "2026-07-28", "1.0", "", "2025-06-18\x00"))
    else:
        params[key] = values.hostile(rng)
    headers = legacy_headers(version, session=False)
    if rng.random() < 0.3:
        headers["mcp-session-id"] = values.garbage_token(rng) or "x"
    case = _case("legacy.initialize_garbage", message, version, headers=headers)
    case.session = None
    case.versions = (version, *(v for v in LEGACY_VERSIONS if v != version))
    return case


def session_garbage(rng: random.Random, catalog: Catalog) -> Case:
    version = rng.choice(LEGACY_VERSIONS)
    message = _request(rng, catalog, rng.choice(METHODS[:8]))
    headers = legacy_headers(version)
    kind = rng.randrange(5)
    if kind == 0:
        headers["mcp-session-id"] = values.garbage_token(rng) or "-"
    elif kind == 1:
        headers[MUTATE_SID] = str(rng.randrange(2**31))  # the runner mutates the real id
    elif kind == 2:
        headers["mcp-session-id"] = bytes(rng.randrange(0x80, 0x100) for _ in range(8))
    elif kind == 3:
        headers["mcp-protocol-version"] = rng.choice(
            ("2026-07-28", *LEGACY_VERSIONS, "2024-11-05", "", "x")
        )
    else:
        del headers["mcp-session-id"]
    return _case("legacy.session_garbage", message, version, headers=headers)


def wrong_params(rng: random.Random, catalog: Catalog) -> Case:
    version = rng.choice(LEGACY_VERSIONS)
    message = _request(rng, catalog, rng.choice(METHODS))
    kind = rng.randrange(4)
    params = message.setdefault("params", {})
    if kind == 0:
        message["params"] = rng.choice(([], "x", 1, None, [params]))
    elif kind == 1 and message["method"] == "tools/call":
        for _ in range(rng.randint(1, 3)):
            params["arguments"][rng.choice([*params["arguments"], "x"])] = values.hostile(rng)
        tame_slow_tool(params)
    else:
        key = rng.choice([*params, "cursor", "name", "uri", "level", "_meta", "task"])
        params[key] = values.hostile(rng)
        tame_slow_tool(params)
    return _case("legacy.wrong_params", message, version)


def notifications(rng: random.Random, catalog: Catalog) -> Case:
    version = rng.choice(LEGACY_VERSIONS)
    method = rng.choice(
        (
            "notifications/cancelled",
            "notifications/cancelled",
            "notifications/initialized",
            "notifications/progress",
            "notifications/roots/list_changed",
            "notifications/no_such",
        )
    )
    params: Any = {
        "requestId": rng.choice((values.hostile(rng), rng.randint(1, 5), "1")),
        "reason": values.hostile(rng),
    }
    if method == "notifications/progress":
        params = {"progressToken": values.hostile(rng), "progress": values.hostile(rng)}
    if rng.random() < 0.2:
        params = values.hostile(rng)
    message = {"jsonrpc": "2.0", "method": method, "params": params}
    return _case("legacy.notifications", message, version)


def responses_to_nothing(rng: random.Random, catalog: Catalog) -> Case:
    version = rng.choice(LEGACY_VERSIONS)
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": rng.choice((values.hostile(rng), 0, 1))}
    if rng.random() < 0.5:
        message["result"] = rng.choice(({}, {"action": "accept"}, values.hostile(rng)))
    else:
        message["error"] = rng.choice(
            ({"code": -1, "message": "no"}, values.hostile(rng), {"code": values.hostile(rng)})
        )
    if rng.random() < 0.1:
        message["result"], message["error"] = {}, {"code": 1, "message": "both"}
    return _case("legacy.responses_to_nothing", message, version)


def get_delete(rng: random.Random, catalog: Catalog) -> Case:
    version = rng.choice(LEGACY_VERSIONS)
    http_method = rng.choice(("GET", "GET", "DELETE"))
    headers = legacy_headers(version)
    headers["accept"] = rng.choice(("text/event-stream", ACCEPT, "application/json", "", "*/*"))
    kind = rng.randrange(3)
    if kind == 0:
        headers["mcp-session-id"] = values.garbage_token(rng) or "x"
    elif kind == 1:
        headers["last-event-id"] = values.garbage_token(rng) or "0"
    case = _case("legacy.get_delete", {}, version, headers=headers, http_method=http_method)
    case.body = b"" if rng.random() < 0.8 else b'{"jsonrpc":"2.0"}'
    case.fresh_session = http_method == "DELETE"
    return case


def batches(rng: random.Random, catalog: Catalog) -> Case:
    version = rng.choice(LEGACY_VERSIONS)
    items: list[Any] = [_request(rng, catalog, rng.choice(METHODS[:12])) for _ in range(3)]
    if rng.random() < 0.5:
        items.append(
            {
                "jsonrpc": "2.0",
                "method": "notifications/cancelled",
                "params": {"requestId": items[0]["id"]},
            }
        )
    if rng.random() < 0.3:
        items.append({"jsonrpc": "2.0", "id": 1, "result": {}})
    if rng.random() < 0.3:
        items.append(values.hostile(rng))
    if rng.random() < 0.3:
        items[1]["id"] = items[0]["id"]
    rng.shuffle(items)
    return _case("legacy.batches", items, version)


GENERATORS: Final = {
    "legacy.initialize_garbage": (initialize_garbage, 3),
    "legacy.session_garbage": (session_garbage, 5),
    "legacy.wrong_params": (wrong_params, 10),
    "legacy.notifications": (notifications, 4),
    "legacy.responses_to_nothing": (responses_to_nothing, 3),
    "legacy.get_delete": (get_delete, 2),
    "legacy.batches": (batches, 3),
}
"""Category -> (generator, weight)."""
