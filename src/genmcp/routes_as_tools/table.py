"""An app's route table as ``route_tools`` reads it: its operations, the served routes
behind them, its mounts, and the refusal of a selection that finds nothing.

The operations are those of the app's OpenAPI document, which FastAPI builds through
included routers on every release; the served route behind each one (its path convertors,
response model and class) comes from ``compat.served_routes``, lazy includes entered.
Mounted apps (``app.mount``) are listed, never entered: their routes have their own
document, and a tool of theirs calls that app, so ``route_tools`` is called on it.

Imports FastAPI and Starlette.
"""

from __future__ import annotations

import difflib
import fnmatch
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Final

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from fastapi.routing import APIRoute
from starlette.routing import Mount

from genmcp.fastapi.compat import served_routes
from genmcp.routes_as_tools.arguments import BuildError

__all__ = ["check_found", "operations", "served"]

_LISTED: Final = 20
"""How many of the app's operation ids an unknown-id error lists."""
_MOUNT_DEPTH: Final = 3
"""How deep mounts within mounted apps are searched for an operation id."""


def served(app: FastAPI) -> tuple[dict[tuple[str, str], Any], list[tuple[str, Any]]]:
    """The API routes the app serves by ``(path template, method)``, and its mounts.

    Through included routers, lazy or copied (``compat.served_routes``), each with its
    include's prefix and defaults; mounted sub-applications are listed, not entered.
    """
    routes: dict[tuple[str, str], Any] = {}
    mounts: list[tuple[str, Any]] = []
    for defined, route in served_routes(app.routes):
        if isinstance(defined, APIRoute):
            for method in route.methods or ():
                routes.setdefault((route.path_format, method), route)
        elif isinstance(defined, Mount):
            mounts.append((str(route.path), defined.app))
    return routes, mounts


def operations(document: Mapping[str, Any]) -> Iterator[tuple[str, str, Mapping[str, Any]]]:
    """``(path template, METHOD, operation)`` of each operation in the OpenAPI document.

    A HEAD that only mirrors the GET of the same route (one operation id) is left out.
    """
    for path, item in document.get("paths", {}).items():
        for method, operation in item.items():
            if not isinstance(operation, Mapping) or "operationId" not in operation:
                continue
            twin = item.get("get")
            mirror = (
                isinstance(twin, Mapping) and twin.get("operationId") == operation["operationId"]
            )
            if method == "head" and mirror:
                continue
            yield path, method.upper(), operation


def check_found(
    wanted_ids: frozenset[str] | None,
    patterns: tuple[str, ...] | None,
    found: Mapping[str, str],
    mounts: list[tuple[str, Any]],
) -> None:
    """Refuse operation ids, and path patterns, that select nothing here: name the mounted
    app holding one, else the closest operation id, and list the ids the app has."""
    missing = sorted((wanted_ids or frozenset()) - found.keys())
    mounted = _mounted(mounts) if missing or patterns else []
    reasons: list[str] = []
    for wanted in missing:
        where = next((m for m in mounted if m.operation_id == wanted), None)
        close = difflib.get_close_matches(wanted, list(found), n=1)
        if where is not None:
            reasons.append(where.why(repr(wanted)))
        elif close:
            reasons.append(f"{wanted!r}: did you mean {close[0]!r}?")
        else:
            reasons.append(f"{wanted!r}: none is close")
    for pattern in patterns or ():
        if any(fnmatch.fnmatchcase(path, pattern) for path in found.values()):
            continue
        where = next((m for m in mounted if fnmatch.fnmatchcase(m.path, pattern)), None)
        if where is not None:
            reasons.append(where.why(f"the path pattern {pattern!r} selects nothing here: it"))
    if not reasons:
        return
    ids = list(found)
    listed = ", ".join(ids[:_LISTED]) or "none"
    if len(ids) > _LISTED:
        listed += f" and {len(ids) - _LISTED} more"
    head = f"no selected route has the operation id(s) {missing}; " if missing else ""
    raise BuildError(f"{head}{'; '.join(reasons)}; the app's operation ids: {listed}")


@dataclass(frozen=True, slots=True)
class _Mounted:
    """One operation of an app mounted in the app (``app.mount``): route_tools does not
    enter it, since its routes answer below the mount and keep their own OpenAPI document."""

    mount: str
    method: str
    path: str
    operation_id: str

    def why(self, what: str) -> str:
        return (
            f"{what} is {self.method} {self.path} ({self.operation_id}) in the app mounted at "
            f"{self.mount}, which route_tools does not enter: call route_tools(sub_app, ...) "
            "on that mounted app itself (its tools then call it directly)"
        )


def _mounted(mounts: list[tuple[str, Any]], depth: int = 0) -> list[_Mounted]:
    """The operations of the mounted apps (mounts within them too, a few levels deep)."""
    found: list[_Mounted] = []
    for prefix, mounted in mounts:
        routes = getattr(mounted, "routes", None)
        if not isinstance(routes, list) or depth > _MOUNT_DEPTH:
            continue
        try:
            document = get_openapi(title="mounted", version="0", routes=routes)
        except Exception:  # an app FastAPI cannot describe has no operation ids to offer
            document = {}
        for path, method, operation in operations(document):
            found.append(_Mounted(prefix, method, prefix + path, str(operation["operationId"])))
        inner = [
            (prefix + str(s.path), d.app) for d, s in served_routes(routes) if isinstance(d, Mount)
        ]
        found.extend(_mounted(inner, depth + 1))
    return found
