"""genmcp.context: ``AppState`` reads ``app.state`` through Starlette's public attribute access."""

from __future__ import annotations

from typing import Any

import pytest
from starlette.datastructures import State

from genmcp.context import AppState


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
