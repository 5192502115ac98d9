"""``transports/http/auth.py``: the ``Auth`` protocol, ``DependencyAuth`` and ``as_auth``.

What ``mcp_router`` makes of each shape of ``auth=``: no auth calls nothing; an ``Auth``
with a request check runs inside the raw endpoint; a plain dependency (or an ``Auth``
without a request check, or any auth with ``dependencies=``) runs in an API route, with
the message check in the endpoint either way. The real-token behaviour is in
tests/auth/test_protected_resource.py.
"""

from __future__ import annotations

from typing import Any

import pytest
from fastapi import Depends, FastAPI
from fastapi.routing import APIRoute

from genmcp import Channel, Result, Suite, Tool, ToolRequest, call_tool_result, mcp_router
from genmcp.protocol.jsonrpc import Request
from genmcp.transports.http.auth import Auth, DependencyAuth, as_auth
from support.oauth import call
from support.server import LiveServers


def principal() -> dict[str, Any]:
    return {"principal": "p"}


def refuse_all(message: Request, assigns: Any, suite: Suite) -> Any:
    return {"jsonrpc": "2.0", "id": message.id, "error": {"code": -32600, "message": "no"}}, 403, []


class Checked(Auth):
    """An ``Auth`` with every part (``aclose``: the protocol's no-op)."""

    async def _check(self, scope: Any, suite: Suite) -> dict[str, Any]:
        return {"principal": "raw"}

    @property
    def request_check(self) -> Any:
        return self._check

    @property
    def message_check(self) -> Any:
        return refuse_all

    @property
    def dependency(self) -> Any:
        return principal


class Unclosable:
    """Three parts of an ``Auth``, no ``aclose``: the router could not close it."""

    request_check = None
    message_check = None
    dependency = staticmethod(principal)


def suite() -> Suite:
    return Suite(server_name="s", server_version="1")


def test_as_auth_keeps_an_auth_and_wraps_a_dependency() -> None:
    checked = Checked()
    assert isinstance(checked, Auth) and as_auth(checked) is checked
    wrapped = as_auth(principal)
    assert wrapped == DependencyAuth(principal) and isinstance(wrapped, Auth)
    assert (wrapped.request_check, wrapped.message_check) == (None, None)
    assert as_auth(None) is None
    assert not isinstance(principal, Auth)
    for wrong in ("Bearer x", 3, {"principal": "p"}):
        with pytest.raises(TypeError, match="auth= takes a FastAPI dependency or an Auth"):
            as_auth(wrong)  # type: ignore[arg-type]


async def test_an_auth_without_aclose_is_refused_when_built_and_dependency_auth_closes() -> None:
    with pytest.raises(TypeError, match=r"subclass genmcp\.auth\.Auth for its aclose"):
        as_auth(Unclosable())  # type: ignore[arg-type]
    assert await DependencyAuth(principal).aclose() is None
    assert await Checked().aclose() is None


@pytest.mark.parametrize(
    ("auth", "dependencies", "raw", "checks_requests", "checks_messages"),
    [
        (None, False, True, False, False),
        (None, True, False, False, False),
        (principal, False, False, False, False),
        (DependencyAuth(principal, refuse_all), False, False, False, True),
        (Checked(), False, True, True, True),
        (Checked(), True, False, False, True),  # dependencies=: the route runs the dependency
    ],
)
def test_what_the_router_makes_of_each_auth(
    auth: Any, dependencies: bool, raw: bool, checks_requests: bool, checks_messages: bool
) -> None:
    extra = [Depends(principal)] if dependencies else None
    router = mcp_router(suite=suite(), auth=auth, dependencies=extra)
    assert all((not isinstance(route, APIRoute)) is raw for route in router.routes)
    endpoint = router.endpoint
    assert (endpoint.authenticate is not None) is checks_requests
    assert (endpoint.authorize is not None) is checks_messages
    assert router.auth is (None if auth is None else principal)  # what stdio runs
    if checks_messages:
        assert endpoint.authorize is refuse_all


class WhoAmI(Tool, name="whoami", description="The caller's principal."):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        return Result(call_tool_result(text=str(channel.assigns.get("principal"))))


class Secret(Tool, name="secret", description="Refused by the message check."):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        raise AssertionError("the message check refuses this tool before it runs")


class Keyed(Auth):
    """The caller names itself in X-Who; the tool ``secret`` is refused per message."""

    async def _check(self, scope: Any, suite: Suite) -> Any:
        who = dict(scope["headers"]).get(b"x-who")
        if who is None:
            body = {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "who?"}}
            return body, 401, [("www-authenticate", 'Bearer realm="keys"')]
        return {"principal": who.decode()}

    @property
    def request_check(self) -> Any:
        return self._check

    @staticmethod
    def _message(message: Request, assigns: Any, suite: Suite) -> Any:
        if message.params.get("name") != "secret":
            return None
        return refuse_all(message, assigns, suite)

    @property
    def message_check(self) -> Any:
        return self._message

    @property
    def dependency(self) -> Any:
        return principal


async def test_a_custom_auth_checks_requests_and_messages_on_a_real_server(
    live_server: LiveServers,
) -> None:
    app = FastAPI()
    app.include_router(
        mcp_router(server_name="k", server_version="1", tools=[WhoAmI, Secret], auth=Keyed()),
        prefix="/mcp",
    )
    url = live_server(app)
    ok = await call(url, "whoami", headers={"x-who": "carol"})
    assert ok.status_code == 200 and ok.json()["result"]["content"][0]["text"] == "carol"
    nobody = await call(url, "whoami", headers={})
    assert nobody.status_code == 401 and nobody.headers["www-authenticate"] == 'Bearer realm="keys"'
    assert nobody.json()["error"]["message"] == "who?"
    refused = await call(url, "secret", headers={"x-who": "carol"}, request_id=9)
    assert refused.status_code == 403 and refused.json()["id"] == 9
