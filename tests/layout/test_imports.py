"""Imports follow the layers (DESIGN.md §1): purity, the web framework, cycles, no private package.

Each check is one test that lists every offender. An exception to a rule is listed below with
its reason, and fails once it is no longer needed.
"""

from __future__ import annotations

from typing import Final

from tests.layout.sources import (
    SRC,
    Module,
    from_genmcp,
    imports_of,
    names,
    top_levels,
    under,
)

WEB: Final = frozenset({"fastapi", "starlette", "sse_starlette"})
"""The web framework; only the FastAPI adapter may import it."""

WEB_MODULES: Final = frozenset(
    {
        "genmcp.fastapi.router",
        "genmcp.fastapi.compat",
        "genmcp.fastapi.endpoint",
        "genmcp.fastapi.depends",
        "genmcp.fastapi.tenants",
        "genmcp.fastapi.wrong_paths",
        "genmcp.fastapi",
    }
)
"""The FastAPI adapter (``genmcp.fastapi``): the modules of it that import the web framework."""

WEB_EXCEPTIONS: Final[dict[str, str]] = {
    "genmcp.auth.protected_resource": (
        "OAuthResource is a FastAPI dependency and serves the metadata routes"
    ),
    "genmcp.auth.front.front": "AuthorizationFront serves the authorization server's routes",
    "genmcp.auth.front.registration_endpoint": "the front's /register route",
    "genmcp.auth.front.token_endpoint": "the front's /token and /revoke routes",
    "genmcp.auth.front.wire": "the front's bounded request bodies, forms and error answers",
    "genmcp.routes_as_tools": "routes_router builds an MCPRouter around a FastAPI app's routes",
    "genmcp.routes_as_tools.build": "route_tools reads a FastAPI app's routes and OpenAPI document",
    "genmcp.routes_as_tools.table": (
        "route_tools reads the routes an app serves through its includes, and its mounts"
    ),
    "genmcp.routes_as_tools.credentials": (
        "forward_credentials and mcp_caller are FastAPI dependencies"
    ),
}
"""Modules outside ``WEB_MODULES`` that still import the web framework, and why."""

IO_AND_WEB: Final = frozenset(
    {"asyncio", "fastapi", "starlette", "sse_starlette", "uvicorn", "httpx"}
)
"""What pure modules never import: an event loop, a web framework, an HTTP client."""

PROTOCOL_MAY_USE: Final = ("genmcp.protocol", "genmcp.errors")
"""The only genmcp modules ``protocol/`` may import."""

PURE_OUTSIDE_PROTOCOL: Final = frozenset(
    {
        "genmcp.errors",
        "genmcp.schema",
        "genmcp.schema.engine",
        "genmcp.schema.fastcheck",
        "genmcp.schema.keywords",
        "genmcp.schema.re2syntax",
        "genmcp.schema.refs",
        "genmcp.schema.regex",
        "genmcp.schema.wellformed",
        *under("genmcp.sealing"),
    }
)
"""Modules outside ``protocol/`` whose docstrings promise no asyncio and no web framework."""

SELF_CONTAINED: Final = frozenset({"genmcp.errors", "genmcp.sealing"})
"""Modules and packages that import nothing from the rest of genmcp (everything else may build
on them): a module of such a package imports only within its package."""

REDIS_MODULES: Final = frozenset(
    {
        "genmcp.storage.redis",
        "genmcp.storage.redis.batch",
        "genmcp.storage.redis.broker",
        "genmcp.storage.redis.buckets",
        "genmcp.storage.redis.failover",
        "genmcp.storage.redis.eviction",
        "genmcp.storage.redis.inbox",
        "genmcp.storage.redis.notices",
        "genmcp.storage.redis.options",
        "genmcp.storage.redis.records",
        "genmcp.storage.redis.refusals",
        "genmcp.storage.redis.registry",
        "genmcp.storage.redis.tasks",
        "genmcp.storage.redis.topology",
    }
)


# -- import contracts -----------------------------------------------------------------------


def test_protocol_is_pure() -> None:
    impure = {name: sorted(top_levels(name) & IO_AND_WEB) for name in under("genmcp.protocol")}
    outside = {
        name: sorted(
            each
            for each in from_genmcp(name)
            if not any(each == ok or each.startswith(ok + ".") for ok in PROTOCOL_MAY_USE)
        )
        for name in under("genmcp.protocol")
    }
    assert {name: found for name, found in impure.items() if found} == {}, (
        "protocol/ imports an event loop, a web framework or an HTTP client"
    )
    assert {name: found for name, found in outside.items() if found} == {}, (
        "protocol/ imports genmcp outside protocol/ and errors"
    )


def test_pure_modules_stay_pure() -> None:
    impure = {name: sorted(top_levels(name) & IO_AND_WEB) for name in sorted(PURE_OUTSIDE_PROTOCOL)}
    assert {name: found for name, found in impure.items() if found} == {}


def outside(root: str, name: str) -> list[str]:
    """What module ``name`` imports from genmcp outside ``root`` (a module or a package)."""
    return sorted(
        each for each in from_genmcp(name) if each != root and not each.startswith(root + ".")
    )


def test_errors_and_sealing_import_nothing_from_genmcp() -> None:
    users = {name: outside(root, name) for root in sorted(SELF_CONTAINED) for name in under(root)}
    assert {name: found for name, found in users.items() if found} == {}
    assert {"genmcp.sealing.sealer", "genmcp.sealing.tokens"} <= set(users)  # the package's own
    assert PURE_OUTSIDE_PROTOCOL >= set(under("genmcp.sealing"))


def test_a_self_contained_package_may_import_only_itself() -> None:
    assert outside("genmcp.sealing", "genmcp.sealing.sealer") == []  # it imports its own modules
    assert from_genmcp("genmcp.sealing.sealer")
    assert outside("genmcp.seal", "genmcp.sealing.sealer")  # a mere prefix is another module
    assert outside("genmcp.sealing.tokens", "genmcp.sealing.sealer")  # and a sibling is outside


def test_only_the_fastapi_adapter_imports_the_web_framework() -> None:
    users = {name for name in names() if top_levels(name) & WEB}
    assert users - WEB_MODULES == set(WEB_EXCEPTIONS), (
        "a module outside the adapter (fastapi/) imports FastAPI, Starlette or sse-starlette "
        "(or an exception in WEB_EXCEPTIONS is no longer needed)"
    )


def test_only_the_redis_store_imports_redis() -> None:
    users = {name for name in names() if "redis" in top_levels(name)}
    assert sorted(users - REDIS_MODULES) == []


def test_the_reader_sees_every_kind_of_import() -> None:
    text = (
        '"""Example."""\n'
        "from typing import TYPE_CHECKING\n"
        "from . import shapes\n"
        "from .. import errors\n"
        "from genmcp.protocol.meta import LOG_LEVELS\n"
        "if TYPE_CHECKING:\n"
        "    from fastapi import FastAPI\n"
        "def later() -> None:\n"
        "    import asyncio.queues\n"
    )
    module = Module("genmcp.protocol.example", SRC / "genmcp/protocol/example.py", text)
    assert imports_of(module) == {
        "typing",
        "genmcp.protocol.shapes",
        "genmcp.errors",
        "genmcp.protocol.meta",
        "fastapi",
        "asyncio.queues",
    }


# -- the architecture: layers, cycles, no private package -----------------------------------

LAYERS: Final[tuple[tuple[str, ...], ...]] = (
    ("genmcp.errors", "genmcp.events", "genmcp.sealing"),
    ("genmcp.protocol",),
    ("genmcp.schema",),
    ("genmcp.client",),
    ("genmcp.context",),
    ("genmcp.outcomes", "genmcp.behaviour", "genmcp.outbox", "genmcp.channel", "genmcp.caller"),
    ("genmcp.tools", "genmcp.prompts", "genmcp.resources", "genmcp.apps", "genmcp.skills",
     "genmcp.functions"),
    ("genmcp.storage", "genmcp.visibility"),
    ("genmcp.call",),
    ("genmcp.catalogs", "genmcp.transforms"),
    ("genmcp.tasks",),
    ("genmcp.sync",),
    ("genmcp.middleware", "genmcp.user_state"),
    ("genmcp.readiness",),
    ("genmcp.dispatch",),
    ("genmcp.suite", "genmcp.wiring"),
    ("genmcp.compose", "genmcp.search"),
    ("genmcp.sessions",),
    ("genmcp.transports", "genmcp.auth", "genmcp.docsui"),
    ("genmcp.fastapi",),
    (
        "genmcp.testing",
        "genmcp.cli",
        "genmcp.__main__",
        "genmcp.scaleout",
        "genmcp.routes_as_tools",
        "genmcp.openapi",
    ),
)
"""DESIGN.md §1, lowest first: a module imports only from its own layer or below."""


def layer_or_none(name: str) -> int | None:
    for rank, prefixes in enumerate(LAYERS):
        if any(name == prefix or name.startswith(prefix + ".") for prefix in prefixes):
            return rank
    return None


def layer_of(name: str) -> int:
    rank = layer_or_none(name)
    if rank is None:
        raise AssertionError(f"{name} is in no layer of LAYERS: place it")
    return rank


def test_every_module_has_a_layer() -> None:
    unplaced = [name for name in names() if name != "genmcp" and layer_or_none(name) is None]
    assert unplaced == [], "modules in no layer of LAYERS: place them"


def _rank(name: str) -> int:
    """A module's layer; the package ``genmcp`` (it re-exports everything) is above them all."""
    return len(LAYERS) if name == "genmcp" else layer_of(name)


def test_no_module_imports_a_higher_layer() -> None:
    upward = sorted(
        f"{name} -> {target}"
        for name in names()
        if name != "genmcp"
        for target in from_genmcp(name)
        if _rank(target) > _rank(name)
    )
    assert upward == [], "imports from a lower layer to a higher one (the genmcp package too)"


def import_graph() -> dict[str, set[str]]:
    known = set(names())
    return {
        name: {target for target in from_genmcp(name) if target in known and target != name}
        for name in known
        if name != "genmcp"  # the package only re-exports; it imports everything by design
    }


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected component with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_there_are_no_import_cycles() -> None:
    assert cycles(import_graph()) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_module_or_package_is_private() -> None:
    """The interior is split by concept into public packages (``call``, ``catalogs``,
    ``tasks``, ``sync``: issue 46), never hidden in one private package the rest imports."""
    private = sorted(
        name
        for name in names()
        if any(part.startswith("_") and not part.startswith("__") for part in name.split("."))
    )
    assert private == []


def test_the_public_behaviours_sit_on_top_of_the_package() -> None:
    tops = {path.stem for path in (SRC / "genmcp").glob("*.py")}
    assert {"tools", "prompts", "resources", "channel", "suite", "errors"} <= tops
    assert not {"worker", "oneshot", "subscriptions", "tool_catalog", "mail"} & tops
