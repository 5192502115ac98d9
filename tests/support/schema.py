"""Wire checks against the official MCP JSON schemas kept in `tests/support/spec/schema/`.

Owns: finding the schema files, one compiled validator per (version, definition), and the
choice of definition for each message a server sends (`DEFINITIONS`, `ERROR_DEFINITIONS`).
Imports neither genmcp nor any web framework: the spec's own files judge our output.

The five files (2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28 and the Tasks extension's
draft) are byte-for-byte copies in the repository, with their licences and sources
(`spec/SOURCES.md`), so a fresh clone runs every check; a file missing there fails the
calling test through `require_schema()` (it is a defect of the checkout, never a skip).

Each file is read in its own dialect (draft-07 for 2025-03-26 and 2025-06-18, 2020-12
after that) and `$ref`s resolve inside the file; nothing is fetched. `format` stays an
annotation, as both dialects define it by default.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import pytest
from jsonschema import ValidationError
from jsonschema.exceptions import best_match
from jsonschema.protocols import Validator
from jsonschema.validators import validator_for
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

LATEST: Final = "2026-07-28"
TASKS: Final = "ext-tasks/draft"
SCHEMA_DIR: Final = Path(__file__).resolve().parent / "spec" / "schema"
"""The official schemas, kept in the repository (see spec/SOURCES.md)."""

#: Extension bundles searched, after the core file, for a definition a version lacks.
EXTENSIONS: Final[Mapping[str, tuple[str, ...]]] = {LATEST: (TASKS,)}

#: What a server sends for a method: the *result* definition for a request method, the
#: *message* definition for a notification method. A method missing here is checked
#: against the generic `Result` / `JSONRPCNotification`; a method listed here whose
#: definition the version (and its extensions) lacks is a violation, because that version
#: has no such message.
DEFINITIONS: Final[Mapping[str, str]] = {
    # 2026-07-28 requests (and their legacy namesakes)
    "server/discover": "DiscoverResult",
    "tools/list": "ListToolsResult",
    "tools/call": "CallToolResult",
    "prompts/list": "ListPromptsResult",
    "prompts/get": "GetPromptResult",
    "resources/list": "ListResourcesResult",
    "resources/templates/list": "ListResourceTemplatesResult",
    "resources/read": "ReadResourceResult",
    "completion/complete": "CompleteResult",
    "subscriptions/listen": "SubscriptionsListenResult",
    # Tasks: the 2026 extension (get/update/cancel) and the 2025-11-25 core (get/result/list/cancel)
    "tasks/get": "GetTaskResult",
    "tasks/update": "UpdateTaskResult",
    "tasks/cancel": "CancelTaskResult",
    "tasks/result": "GetTaskPayloadResult",
    "tasks/list": "ListTasksResult",
    # legacy-only requests
    "initialize": "InitializeResult",
    "ping": "EmptyResult",
    "logging/setLevel": "EmptyResult",
    "resources/subscribe": "EmptyResult",
    "resources/unsubscribe": "EmptyResult",
    # notifications
    "notifications/progress": "ProgressNotification",
    "notifications/message": "LoggingMessageNotification",
    "notifications/cancelled": "CancelledNotification",
    "notifications/tools/list_changed": "ToolListChangedNotification",
    "notifications/prompts/list_changed": "PromptListChangedNotification",
    "notifications/resources/list_changed": "ResourceListChangedNotification",
    "notifications/resources/updated": "ResourceUpdatedNotification",
    "notifications/subscriptions/acknowledged": "SubscriptionsAcknowledgedNotification",
    "notifications/tasks": "TaskStatusNotification",
    "notifications/tasks/status": "TaskStatusNotification",
    "notifications/elicitation/complete": "ElicitationCompleteNotification",
}

#: Error codes with a definition of their own. Some name the error object (`ParseError`),
#: some the whole response (`HeaderMismatchError`); `_check_error` tells them apart.
ERROR_DEFINITIONS: Final[Mapping[int, str]] = {
    -32700: "ParseError",
    -32600: "InvalidRequestError",
    -32601: "MethodNotFoundError",
    -32602: "InvalidParamsError",
    -32603: "InternalError",
    -32020: "HeaderMismatchError",
    -32021: "MissingRequiredClientCapabilityError",
    -32022: "UnsupportedProtocolVersionError",
    -32042: "URLElicitationRequiredError",
}

# Rules of 2026-07-28 that its schema cannot express (spec digest §2, §9).
_RESULT_TYPES: Final = frozenset({"complete", "input_required", "task"})
_RETIRED_CODES: Final = frozenset({-32002, -32042})
_VERSION_SHAPE: Final = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*(/[A-Za-z0-9][A-Za-z0-9._-]*)?$")


class WireViolation(AssertionError):
    """Raised when a message breaks the wire rules of its protocol version."""


class SchemaViolation(WireViolation):
    """Raised when an instance does not match a schema definition."""

    def __init__(
        self, definition: str, version: str, instance: object, errors: list[ValidationError]
    ) -> None:
        self.definition = definition
        self.version = version
        self.instance = instance
        self.errors = errors
        super().__init__(self._describe())

    def _describe(self) -> str:
        lines = [f"does not match {self.version} {self.definition}:"]
        best = best_match(self.errors)
        shown = [best, *(e for e in self.errors if e is not best)][:5]
        lines += [f"  at {e.json_path}: {e.message[:300]}" for e in shown]
        if len(self.errors) > len(shown):
            lines.append(f"  ... and {len(self.errors) - len(shown)} more")
        lines.append(f"  instance: {_preview(self.instance)}")
        return "\n".join(lines)


def schema_dir() -> Path:
    return SCHEMA_DIR


def schema_path(version: str = LATEST) -> Path:
    if not _VERSION_SHAPE.fullmatch(version):
        raise ValueError(f"not a schema version: {version!r}")
    return schema_dir() / version / "schema.json"


def schema_available(version: str = LATEST) -> bool:
    return schema_path(version).is_file()


def require_schema(version: str = LATEST) -> Path:
    """Return the schema file of `version`; fail the calling test when it is missing (the
    files are in the repository: a missing one is a broken checkout, never a skip).

    A version no file has is a typo: ValueError naming the versions found.
    """
    path = schema_path(version)
    if path.is_file():
        return path
    if not schema_dir().is_dir():
        pytest.fail(f"{schema_dir()} is missing: the official schemas are part of the repository")
    found = sorted(str(p.parent.relative_to(schema_dir())) for p in schema_dir().rglob("*.json"))
    raise ValueError(f"no schema for {version!r} under {schema_dir()}; found {found}")


def definitions(version: str = LATEST) -> frozenset[str]:
    """The definition names of one schema file."""
    return frozenset(_load(version).names)


def validate(instance: Any, definition: str, version: str = LATEST) -> None:
    """Check `instance` against one named definition of a schema file.

    Raises SchemaViolation listing the most relevant errors; KeyError for an unknown name.
    """
    require_schema(version)
    errors = list(_validator(version, definition).iter_errors(instance))
    if errors:
        raise SchemaViolation(definition, version, instance, errors)


def validate_server_message(message: Any, *, method: str | None, version: str = LATEST) -> str:
    """Check one message a server sent, in reply to a request for `method` (None: unknown).

    Picks the definition from the message's shape: a notification by its own `method`, an
    error response by its code, a result by `method` and `resultType`. Also checks the
    JSON-RPC envelope. Returns the name of the most specific definition checked.
    """
    require_schema(version)
    if not isinstance(message, dict):
        raise WireViolation(f"a JSON-RPC message is an object, got {_preview(message)}")
    if "method" in message:
        if "id" in message:
            return _check_server_request(message, version)
        return _check_notification(message, version)
    if "error" in message:
        return _check_error(message, version)
    if "result" in message:
        return _check_result(message, method, version)
    validate(message, "JSONRPCMessage", version)
    raise WireViolation(f"neither request, notification nor response: {_preview(message)}")


def _check_notification(message: dict[str, Any], version: str) -> str:
    validate(message, "JSONRPCNotification", version)
    name = DEFINITIONS.get(message["method"])
    if name is None:
        return "JSONRPCNotification"
    _validate_listed(message, name, version, f"notification {message['method']!r}")
    return name


def _check_server_request(message: dict[str, Any], version: str) -> str:
    if "ServerRequest" not in definitions(version):
        raise WireViolation(
            f"a {version} server never sends JSON-RPC requests, got {_preview(message)}"
        )
    validate(message, "JSONRPCRequest", version)
    validate(message, "ServerRequest", version)
    return "ServerRequest"


def _check_error(message: dict[str, Any], version: str) -> str:
    names = definitions(version)
    envelope = "JSONRPCErrorResponse" if "JSONRPCErrorResponse" in names else "JSONRPCError"
    validate(message, envelope, version)
    code = message["error"]["code"]
    if version == LATEST and code in _RETIRED_CODES:
        raise WireViolation(f"error code {code} does not exist in {version}: {_preview(message)}")
    name = ERROR_DEFINITIONS.get(code)
    if name is None or name not in names:
        return envelope
    whole_response = "error" in _load(version).defs[name].get("properties", {})
    validate(message if whole_response else message["error"], name, version)
    return name


def _check_result(message: dict[str, Any], method: str | None, version: str) -> str:
    result = message["result"]
    names = definitions(version)
    for_method = DEFINITIONS.get(method or "", "Result")
    envelope = f"{for_method}Response"
    if envelope not in names:  # the generic envelope: its 2025-06-18 and older name first
        envelope = (
            "JSONRPCResponse" if "JSONRPCResultResponse" not in names else "JSONRPCResultResponse"
        )
    validate(message, envelope, version)
    name = _result_definition(method, result, version) or for_method
    _validate_listed(result, name, version, f"result of {method!r}")
    if version == LATEST:
        _check_result_type(result)
    return name


def _result_definition(method: str | None, result: object, version: str) -> str | None:
    """The definition a result's own shape asks for, over the one its method implies."""
    if not isinstance(result, dict):
        return None
    kind = result.get("resultType")
    if kind == "input_required":
        return "InputRequiredResult"
    if kind == "task":
        return "CreateTaskResult"
    if version == "2025-11-25" and method == "tools/call" and "task" in result:
        return "CreateTaskResult"
    return None


def _check_result_type(result: object) -> None:
    if not isinstance(result, dict):
        return
    kind = result.get("resultType")
    if kind not in _RESULT_TYPES:
        raise WireViolation(f"resultType must be one of {sorted(_RESULT_TYPES)}, got {kind!r}")
    if kind == "input_required" and not ({"inputRequests", "requestState"} & result.keys()):
        raise WireViolation("an input_required result needs inputRequests or requestState")


def _validate_listed(instance: object, name: str, version: str, what: str) -> None:
    for candidate in (version, *EXTENSIONS.get(version, ())):
        if schema_available(candidate) and name in definitions(candidate):
            validate(instance, name, candidate)
            return
    raise WireViolation(f"{what}: {version} defines no {name}: {_preview(instance)}")


@dataclass(frozen=True)
class _Schema:
    registry: Registry[Any]
    uri: str
    defs_key: str
    defs: Mapping[str, Any]
    names: frozenset[str]
    validator_class: type[Validator]


@functools.cache
def _load(version: str) -> _Schema:
    document = json.loads(require_schema(version).read_text(encoding="utf-8"))
    defs_key = "$defs" if "$defs" in document else "definitions"
    uri = document.get("$id") or f"urn:genmcp-test:mcp-schema:{version}"
    resource = Resource.from_contents(document, default_specification=DRAFT202012)
    defs = document[defs_key]
    return _Schema(
        registry=Registry().with_resource(uri, resource),
        uri=uri,
        defs_key=defs_key,
        defs=defs,
        names=frozenset(defs),
        validator_class=validator_for(document),
    )


@functools.cache
def _validator(version: str, definition: str) -> Validator:
    schema = _load(version)
    if definition not in schema.names:
        raise KeyError(f"{version} schema has no definition {definition!r}")
    ref = {"$ref": f"{schema.uri}#/{schema.defs_key}/{definition}"}
    return schema.validator_class(ref, registry=schema.registry)


def _preview(value: object, limit: int = 400) -> str:
    text = json.dumps(value, default=repr, sort_keys=True)
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} chars)"
