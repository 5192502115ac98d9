"""`genmcp.protocol.methods`: every method name, checked against the official schemas.

The schemas are the copies in `tests/support/spec/` (see its SOURCES.md): every request and
notification name they declare is a constant of the module, every constant is named by the
module's rule, and no module outside `protocol/` spells a method name as a string literal.
Each method's record (`METHODS`) is checked against the schemas (its target key is a param
of the method) and against what the four tables read from it do, through their public
functions: the middleware chain (`MCPRequest.target`, the hooks), the HTTP header checks
(`modern_preflight`), the client's headers (`request_headers`) and the OAuth resource
(`authorize_message`, `asgi_check`).
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import pytest

from genmcp.protocol import methods

ROOT: Final = Path(__file__).resolve().parents[2]
SPEC: Final = ROOT / "tests" / "support" / "spec" / "schema"
SCHEMAS: Final = ("2026-07-28", "2025-11-25")

CONSTANTS: Final = {
    name: value
    for name, value in vars(methods).items()
    if name.isupper() and isinstance(value, str) and name != "TASKS_PREFIX"
}
EXTENSION_ONLY: Final = frozenset(
    {
        methods.TASKS_UPDATE,
        methods.TASKS,
        methods.SKILLS_LIST,
        methods.SKILLS_GET,
        methods.RESOURCES_DIRECTORY_READ,
    }
)
"""Names only the Tasks and Skills (SEP-2640) extensions declare (their schemas are not among
the copies)."""


def _method_consts(node: Any) -> Iterator[str]:
    """Every ``"method": {"const": ...}`` in a schema document, at any depth."""
    if isinstance(node, dict):
        method = node.get("properties", {}).get("method") if "properties" in node else None
        if isinstance(method, dict) and isinstance(method.get("const"), str):
            yield method["const"]
        for value in node.values():
            yield from _method_consts(value)
    elif isinstance(node, list):
        for value in node:
            yield from _method_consts(value)


def declared(version: str) -> frozenset[str]:
    schema = json.loads((SPEC / version / "schema.json").read_text(encoding="utf-8"))
    return frozenset(_method_consts(schema))


def constant_name(method: str) -> str:
    """The module's naming rule: upper snake case, ``notifications/`` dropped."""
    path = method.removeprefix("notifications/")
    return re.sub(r"(?<=[a-z])(?=[A-Z])", "_", path).replace("/", "_").upper()


@pytest.mark.parametrize("version", SCHEMAS)
def test_every_method_the_schema_declares_is_a_constant(version: str) -> None:
    names = declared(version)
    assert len(names) > 20  # the walk found the schema's methods, not nothing
    missing = names - set(CONSTANTS.values())
    assert not missing, f"{version} declares methods protocol.methods lacks: {sorted(missing)}"


def test_every_constant_is_declared_by_a_schema_or_an_extension() -> None:
    known = frozenset().union(*(declared(version) for version in SCHEMAS)) | EXTENSION_ONLY
    assert set(CONSTANTS.values()) <= known
    assert not EXTENSION_ONLY & declared("2026-07-28")  # still extension-only


@pytest.mark.parametrize("name", sorted(CONSTANTS))
def test_a_constant_is_named_by_the_rule(name: str) -> None:
    assert constant_name(CONSTANTS[name]) == name


def test_the_rule_reads_camel_case_and_drops_the_notifications_prefix() -> None:
    assert constant_name("sampling/createMessage") == "SAMPLING_CREATE_MESSAGE"
    assert constant_name("notifications/tools/list_changed") == "TOOLS_LIST_CHANGED"
    assert constant_name("logging/setLevel") == "LOGGING_SET_LEVEL"


def test_the_sets_split_requests_from_notifications_and_hold_every_constant() -> None:
    values = set(CONSTANTS.values())
    assert methods.REQUESTS | methods.NOTIFICATIONS == values
    assert not methods.REQUESTS & methods.NOTIFICATIONS
    assert all(name.startswith("notifications/") for name in methods.NOTIFICATIONS)
    assert not any(name.startswith("notifications/") for name in methods.REQUESTS)
    assert methods.SERVER_REQUESTS <= methods.REQUESTS
    assert methods.LEGACY_ONLY <= methods.REQUESTS
    assert len(values) == len(CONSTANTS)  # no name spelled twice


def test_the_server_requests_are_the_nested_input_requests() -> None:
    assert methods.SERVER_REQUESTS == {"elicitation/create", "sampling/createMessage", "roots/list"}


def test_the_legacy_only_requests_are_those_2026_07_28_dropped() -> None:
    dropped = declared("2025-11-25") - declared("2026-07-28") - {methods.TASKS_RESULT}
    requests = {name for name in dropped if not name.startswith("notifications/")}
    assert requests - {methods.TASKS_GET, methods.TASKS_CANCEL, methods.TASKS_LIST} == set(
        methods.LEGACY_ONLY
    )


def test_every_task_request_has_the_tasks_prefix() -> None:
    tasks = {v for k, v in CONSTANTS.items() if k.startswith("TASKS_")} & methods.REQUESTS
    assert tasks == {"tasks/get", "tasks/update", "tasks/cancel", "tasks/result", "tasks/list"}
    assert all(name.startswith(methods.TASKS_PREFIX) for name in tasks)


def test_all_lists_every_constant_and_the_record_and_is_sorted() -> None:
    public = {n for n in vars(methods) if n.isupper() and n[0] != "_"} | {"Hook", "Method"}
    assert set(methods.__all__) == public
    constants = [name for name in methods.__all__ if name.isupper()]
    assert list(methods.__all__) == sorted(constants) + sorted(public - set(constants))


def _literals(path: Path) -> list[int]:
    """Lines of ``path`` holding a string constant that is exactly a method name."""
    names = methods.REQUESTS | methods.NOTIFICATIONS
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return sorted(
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in names
    )


def test_no_method_name_literal_outside_protocol() -> None:
    src = ROOT / "src" / "genmcp"
    found = {
        path.relative_to(src).as_posix(): lines
        for path in sorted(src.rglob("*.py"))
        if "protocol" not in path.relative_to(src).parts and (lines := _literals(path))
    }
    assert not found, f"method names as literals (use genmcp.protocol.methods): {found}"


# -- the records ------------------------------------------------------------------------

TASKS_SCHEMA: Final = SPEC / "ext-tasks" / "draft" / "schema.json"
NO_SCHEMA_COPY: Final = frozenset({methods.SKILLS_GET, methods.RESOURCES_DIRECTORY_READ})
"""Methods with a target and no schema copy here (the Skills extension, SEP-2640)."""


def _resolve(node: Any, defs: dict[str, Any]) -> Any:
    while isinstance(node, dict) and "$ref" in node:
        node = defs[node["$ref"].rsplit("/", 1)[-1]]
    return node


def _param_keys(node: Any, defs: dict[str, Any]) -> set[str]:
    """The property names a params schema declares (through ``$ref`` and ``allOf``)."""
    node = _resolve(node, defs)
    if not isinstance(node, dict):
        return set()
    keys = set(node.get("properties", {}))
    for part in node.get("allOf", ()):
        keys |= _param_keys(part, defs)
    return keys


def _requests_of(node: Any, defs: dict[str, Any], found: dict[str, set[str]]) -> None:
    """Every method const in a schema, with the keys of its params, at any depth."""
    if isinstance(node, dict):
        properties = node.get("properties")
        method = properties.get("method") if isinstance(properties, dict) else None
        if isinstance(method, dict) and isinstance(method.get("const"), str):
            keys = _param_keys(properties.get("params"), defs)
            found.setdefault(method["const"], set()).update(keys)
        for value in node.values():
            _requests_of(value, defs, found)
    elif isinstance(node, list):
        for value in node:
            _requests_of(value, defs, found)


def params_keys() -> dict[str, set[str]]:
    """Method -> the params keys any of the schema copies (core and Tasks) declares for it."""
    found: dict[str, set[str]] = {}
    for path in [SPEC / version / "schema.json" for version in SCHEMAS] + [TASKS_SCHEMA]:
        schema = json.loads(path.read_text(encoding="utf-8"))
        _requests_of(schema, schema["$defs"], found)
    return found


def test_every_method_of_the_schemas_and_every_constant_has_one_record() -> None:
    declared_anywhere = set(params_keys())
    assert {methods.TASKS_UPDATE, methods.TOOLS_CALL} <= declared_anywhere  # both walks found
    assert declared_anywhere <= set(methods.METHODS)
    assert set(methods.METHODS) == set(CONSTANTS.values())
    assert all(name == record.name for name, record in methods.METHODS.items())


def test_each_record_s_keys_are_params_of_its_method_in_the_schemas() -> None:
    keys = params_keys()
    checked = 0
    for name, record in methods.METHODS.items():
        for key in (record.target, record.mcp_name):
            if key is None:
                continue
            if name in NO_SCHEMA_COPY:
                assert key == "uri"  # SEP-2640: skills/get and directory reads name a URI
                continue
            assert key in keys[name], f"{name}: params.{key} is not in its schema"
            checked += 1
    assert checked == 11  # 5 targets, 6 Mcp-Name keys (the two skills methods have no copy)


def test_the_records_facts_hang_together() -> None:
    for record in methods.METHODS.values():
        if record.notification:
            assert record == methods.Method(record.name, notification=True)
        if record.scoped:  # the scopes of a target: the request must have one
            assert record.target is not None, record
        if record.scoped_by_header:  # the header's value is looked up as the target
            assert record.scoped and record.mcp_name == record.target, record


def test_the_mcp_name_rule_is_the_spec_digest_s() -> None:
    # spec digest §5.1: tools/call, prompts/get (name); resources/read (uri); tasks (taskId)
    from support.client import NAME_PARAMS

    rule = {name: r.mcp_name for name, r in methods.METHODS.items() if r.mcp_name is not None}
    assert rule == NAME_PARAMS


# -- the four tables read the records: their behaviour, through their own functions -----

SCOPE: Final = "x:need"
SKILL_URI: Final = "skill://mem/gen/SKILL.md"
PARAMS_URI: Final = {methods.SKILLS_GET: SKILL_URI, methods.RESOURCES_DIRECTORY_READ: SKILL_URI}


def params_for(method: str) -> dict[str, Any]:
    """Params holding every key a record may name, each naming a served, scoped target."""
    uri = PARAMS_URI.get(method, "mem://a")
    return {"name": "t", "uri": uri, "taskId": "task-1", "_meta": dict(META)}


META: Final = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
}
REQUEST_NAMES: Final = sorted(name for name, r in methods.METHODS.items() if not r.notification)


def expected_target(method: str) -> str | None:
    key = methods.METHODS[method].target
    return None if key is None else params_for(method)[key]


@pytest.mark.parametrize("method", sorted(methods.METHODS))
def test_the_middleware_target_is_the_record_s(method: str) -> None:
    from genmcp.middleware import MCPRequest
    from genmcp.protocol.jsonrpc import Request

    request = MCPRequest(Request(1, method, params_for(method)), {})
    assert request.target == expected_target(method)


async def test_the_middleware_hooks_are_the_records() -> None:
    from genmcp.middleware import Call, MCPRequest, Middleware, Next
    from genmcp.protocol.jsonrpc import Request

    class Hooks(Middleware):
        def __init__(self) -> None:
            self.seen: dict[str, str] = {}

        async def _note(self, hook: str, request: MCPRequest) -> Call:
            self.seen[request.method] = hook
            return request.respond({})

        async def on_request(self, request: MCPRequest, call_next: Next) -> Call:
            return await self._note("on_request", request)

        async def on_call_tool(self, request: MCPRequest, call_next: Next) -> Call:
            return await self._note("on_call_tool", request)

        async def on_list(self, request: MCPRequest, call_next: Next) -> Call:
            return await self._note("on_list", request)

        async def on_read_resource(self, request: MCPRequest, call_next: Next) -> Call:
            return await self._note("on_read_resource", request)

        async def on_get_prompt(self, request: MCPRequest, call_next: Next) -> Call:
            return await self._note("on_get_prompt", request)

    async def never(request: MCPRequest) -> Call:
        raise AssertionError("a hook here answers itself")

    hooks = Hooks()
    for method in REQUEST_NAMES:
        await hooks(MCPRequest(Request(1, method, params_for(method)), {}), never)
    wanted = {m: methods.METHODS[m].hook or "on_request" for m in REQUEST_NAMES}
    assert hooks.seen == wanted
    assert sum(hook != "on_request" for hook in wanted.values()) == 7


def _preflight_error(method: str, headers: dict[str, str]) -> str | None:
    from genmcp.errors import MCPError
    from genmcp.protocol.jsonrpc import Request
    from genmcp.transports.http.rules import modern_preflight

    base = {"mcp-protocol-version": "2026-07-28", "mcp-method": method}
    try:
        modern_preflight(
            {**base, **headers},
            Request(1, method, params_for(method)),
            ("2026-07-28",),
            lambda name: {},
        )
    except MCPError as exc:
        return str(exc)
    return None


@pytest.mark.parametrize("method", REQUEST_NAMES)
def test_the_server_asks_mcp_name_of_the_records_methods_only(method: str) -> None:
    key = methods.METHODS[method].mcp_name
    missing = _preflight_error(method, {})
    if key is None:
        assert missing is None
        assert _preflight_error(method, {"mcp-name": "anything"}) is None  # not read
        return
    assert missing is not None and "Mcp-Name header is required" in missing
    assert _preflight_error(method, {"mcp-name": str(params_for(method)[key])}) is None
    wrong = _preflight_error(method, {"mcp-name": "other"})
    assert wrong is not None and f"params.{key}" in wrong


@pytest.mark.parametrize("method", REQUEST_NAMES)
def test_the_client_sends_mcp_name_for_the_records_methods_only(method: str) -> None:
    from genmcp.protocol.client import request_headers

    message = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params_for(method)}
    key = methods.METHODS[method].mcp_name
    sent = request_headers(message).get("mcp-name")
    assert sent == (None if key is None else params_for(method)[key])


def scoped_suite() -> Any:
    """A Suite whose tool, prompt, resource and skill each need ``SCOPE``."""
    from collections.abc import Mapping

    from genmcp import Skill, Suite, prompt, resource, tool

    @tool(name="t", scopes=[SCOPE])
    def t() -> str:
        return "t"

    @prompt(name="t", scopes=[SCOPE])
    def p() -> str:
        return "p"

    @resource("mem://a", name="a", scopes=[SCOPE])
    def a() -> str:
        return "a"

    class Gen(Skill, prefix="mem", scheme="skill", scopes=[SCOPE]):
        def files(self, arg: Any) -> Mapping[str, bytes]:
            return {"SKILL.md": b"---\nname: gen\ndescription: A skill.\n---\n# Gen\n"}

    return Suite(
        server_name="s", server_version="1", tools=[t], prompts=[p], resources=[a], skills=[Gen]
    )


def oauth_resource() -> Any:
    from genmcp.auth import JWTVerifier, OAuthResource

    issuer = "https://as.invalid"
    return OAuthResource(
        resource="https://mcp.invalid/mcp", authorization_servers=[issuer],
        verifier=JWTVerifier(issuer),
    )  # fmt: skip


def test_the_oauth_resource_checks_the_scopes_of_the_records_scoped_methods() -> None:
    from genmcp.protocol.jsonrpc import Request

    suite, auth = scoped_suite(), oauth_resource()
    for method, wanted in (
        (methods.TOOLS_CALL, (SCOPE,)),
        (methods.SKILLS_GET, (SCOPE,)),
        (methods.RESOURCES_READ, (SCOPE,)),
    ):  # the suite's targets do need the scope
        assert suite.required_scopes(method, expected_target(method)) == wanted
    refused = set()
    for method in REQUEST_NAMES:
        refusal = auth.authorize_message(Request(1, method, params_for(method)), {}, suite)
        if refusal is not None:
            assert refusal[1] == 403, method
            refused.add(method)
    assert refused == {name for name, r in methods.METHODS.items() if r.scoped}


async def test_the_oauth_challenge_names_the_header_scoped_methods_scopes() -> None:
    suite, auth = scoped_suite(), oauth_resource()
    named = set()
    for method in REQUEST_NAMES:
        name = params_for(method)[methods.METHODS[method].mcp_name or "name"]
        headers = [(b"mcp-method", method.encode()), (b"mcp-name", name.encode())]
        scope = {"type": "http", "method": "POST", "path": "/mcp", "headers": headers}
        refusal = await auth.asgi_check(scope, suite)
        assert isinstance(refusal, tuple) and refusal[1] == 401, method
        if SCOPE in dict(refusal[2])["www-authenticate"]:
            named.add(method)
    assert named == {name for name, r in methods.METHODS.items() if r.scoped_by_header}


def test_the_middleware_target_and_the_oauth_target_agree() -> None:
    """The drift issue 46 found: auth checked the scopes of a skills/get or a directory read
    by its URI, while middleware saw no target for either (telemetry, logs, limits)."""
    from genmcp.middleware import MCPRequest
    from genmcp.protocol.jsonrpc import Request

    for method in (methods.SKILLS_GET, methods.RESOURCES_DIRECTORY_READ):
        request = MCPRequest(Request(1, method, {"uri": SKILL_URI}), {})
        assert request.target == SKILL_URI
