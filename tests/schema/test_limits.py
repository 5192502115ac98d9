"""schema.limits: the limits on hostile arguments are read at each use, so assigning one counts."""

from __future__ import annotations

import pytest

from genmcp.schema import InvalidArguments, compile_schema, limits

_LIST = {"type": "object", "properties": {"xs": {"type": "array", "items": {"type": "string"}}}}


def test_every_limit_is_a_positive_number() -> None:
    for name in limits.__all__:
        value = getattr(limits, name)
        assert isinstance(value, int | float) and value > 0, name


def test_an_assigned_error_cap_holds_for_a_validator_compiled_before(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    validator = compile_schema(_LIST, owner="T")
    bad = {"xs": list(range(50))}
    with pytest.raises(InvalidArguments) as before:
        validator.validate(bad)
    monkeypatch.setattr(limits, "MAX_REPORTED_ERRORS", 2)
    with pytest.raises(InvalidArguments) as after:
        validator.validate(bad)

    assert len(before.value.errors) == 10 and len(after.value.errors) == 2


def test_an_assigned_message_cap_cuts_messages(monkeypatch: pytest.MonkeyPatch) -> None:
    schema = {"type": "object", "properties": {"s": {"type": "integer"}}}
    validator = compile_schema(schema, owner="T")
    monkeypatch.setattr(limits, "MAX_MESSAGE_CHARS", 40)
    with pytest.raises(InvalidArguments) as caught:
        validator.validate({"s": "x" * 500})

    assert len(caught.value.errors[0]["msg"]) <= 40
