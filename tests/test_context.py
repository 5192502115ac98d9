"""genmcp.context: ``AppState`` reads ``app.state`` through Starlette's public attribute access."""

from __future__ import annotations

from typing import Any

import pytest
from starlette.datastructures import State

from genmcp.context import AppContext, AppState


class _OldState:
    """A State as Starlette 0.46 has it: attribute access only, no iteration, no items."""

    def __init__(self, **values: Any) -> None:
        self.__dict__["_values"] = values

    def __getattr__(self, name: str) -> Any:
        try:
            return self.__dict__["_values"][name]
        except KeyError:
            raise AttributeError(name) from None


@pytest.mark.parametrize("state", [State({"db": "pool"}), _OldState(db="pool")],
                         ids=["starlette", "no-iteration"])  # fmt: skip
def test_app_state_is_read_by_attribute_after_the_lifespan_state(state: Any) -> None:
    view = AppState({"cache": "c", "db": "lifespan pool"}, state)
    assert (view.db, view["cache"], view.get("nope", 7)) == ("lifespan pool", "c", 7)
    assert AppState(None, state).db == "pool"
    assert "db" in AppState(None, state) and "__class__" not in AppState(None, state)
    with pytest.raises(AttributeError) as missing:
        _ = AppState({"cache": "c"}, state).nope
    known = "cache, db" if isinstance(state, State) and hasattr(State, "__iter__") else "cache"
    assert f"(known: {known})" in str(missing.value)


def test_a_request_context_is_the_one_the_keywords_make() -> None:
    # of_request skips __init__ (the hot path): every slot as the constructor sets it
    made: list[Any] = []

    def request_of(scope: Any) -> Any:
        made.append(scope)
        return ("request", scope["path"])

    async def solver(dependency: Any, context: AppContext, dependencies: Any) -> Any:
        return dependency

    app = type("App", (), {"state": State({"b": 2})})()
    scope = {"path": "/mcp", "state": {"a": 1}}
    quick = AppContext.of_request(app, scope, request_of, solver)
    slow = AppContext(app=app, scope=scope, request_of=request_of, solver=solver)
    for context in (quick, slow):
        assert type(context) is AppContext and context.app is app
        assert (context.state.a, context.state.b) == (1, 2)
        assert context.http_request == ("request", "/mcp") and context.http_request is not None
    assert made == [scope, scope]  # one request each, made on first use
    built = {"_state", "_http_request"}  # made on first use above, one object each
    same = [name for name in AppContext.__slots__ if name not in built]
    assert [getattr(quick, name) for name in same] == [getattr(slow, name) for name in same]
