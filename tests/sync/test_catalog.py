"""What a runtime catalog change carries to other processes, and what cannot travel."""

from __future__ import annotations

from typing import Any

import pytest

from genmcp import Channel, Result, StaticResource, Tool, ToolRequest, call_tool_result
from genmcp.sync.catalog import provider_of, provider_spec


class Traveller(Tool, name="traveller", description="Importable by name."):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        return Result(call_tool_result(text=str(arg)))


def test_a_class_travels_by_import_path_with_a_json_arg() -> None:
    spec = provider_spec((Traveller, {"greeting": "hi", "n": [1, 2]}))
    assert spec == {"path": f"{__name__}:Traveller", "arg": {"greeting": "hi", "n": [1, 2]}}
    assert provider_of(spec) == (Traveller, {"greeting": "hi", "n": [1, 2]})


def test_a_static_resource_travels_by_its_fields() -> None:
    resource = StaticResource(uri="test://a", name="a", text="A", mime_type="text/plain")
    assert provider_of(provider_spec(resource)) == resource


def test_what_cannot_travel_is_refused_with_the_reason() -> None:
    class Local(Tool, name="local"):
        pass

    with pytest.raises(ValueError, match="cannot import it by name"):
        provider_spec(Local)
    with pytest.raises(ValueError, match="arg cannot travel: it is not a JSON value"):
        provider_spec((Traveller, {"when": object()}))
    with pytest.raises(ValueError, match="not a JSON value"):
        provider_spec(StaticResource(uri="test://b", name="b", blob=b"\x00"))
    with pytest.raises(ValueError, match="cannot import"):
        provider_of({"path": "no.such.module:Thing", "arg": None})
