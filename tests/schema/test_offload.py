"""schema.offload: validation inline when certainly cheap, else on a validation thread.

Which thread validated is seen by a format checker (user code) recording where it ran.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
from pydantic import BaseModel

from genmcp import schema
from genmcp.schema import InvalidArguments, compile_schema, limits, merge_options
from genmcp.schema.offload import validate_off_loop

PLAIN = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}


class Point(BaseModel):
    x: int


def with_format(check: Any) -> schema.ArgumentValidator:
    options = merge_options(None, {"formats": {"mine": check}}, owner="T")
    shaped = {"type": "object", "properties": {"v": {"type": "string", "format": "mine"}}}
    return compile_schema(shaped, owner="T", options=options)


async def test_small_plain_arguments_validate_inline() -> None:
    validator = compile_schema(PLAIN, owner="T")
    arguments = {"n": 1}
    assert await validate_off_loop(validator, arguments) is arguments
    with pytest.raises(InvalidArguments) as caught:
        await validate_off_loop(validator, {"n": "one"})
    assert caught.value.errors[0]["loc"] == ["n"]


async def test_a_model_is_cast_and_its_errors_are_entries() -> None:
    validator = compile_schema(Point, owner="T")
    assert await validate_off_loop(validator, {"x": "3"}) == Point(x=3)
    with pytest.raises(InvalidArguments) as caught:
        await validate_off_loop(validator, {"x": "three"})
    assert caught.value.errors[0]["loc"] == ["x"]


async def test_user_code_runs_on_a_validation_thread_never_the_loop() -> None:
    ran_on: list[str] = []

    def mine(value: object) -> bool:
        ran_on.append(threading.current_thread().name)
        return value == "ok"

    validator = with_format(mine)
    assert await validate_off_loop(validator, {"v": "ok"}) == {"v": "ok"}
    with pytest.raises(InvalidArguments):
        await validate_off_loop(validator, {"v": "no"})
    assert ran_on and all(name.startswith("genmcp-validate") for name in ran_on)


async def test_large_arguments_validate_off_the_loop() -> None:
    validator = compile_schema({"type": "array", "items": {"type": "integer"}}, owner="T")
    numbers = list(range(limits.INLINE_MAX_NODES + 1))
    assert validator.inline(numbers) == (False, None)
    assert await validate_off_loop(validator, numbers) == numbers


@pytest.mark.timeout(30)
async def test_a_stuck_validation_is_answered_at_the_budget(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(limits, "VALIDATION_BUDGET_S", 0.05)
    release = threading.Event()
    returned: list[bool] = []

    def stuck(value: object) -> bool:  # stuck in user code until released (or 30 s)
        returned.append(release.wait(30))
        return True

    validator = with_format(stuck)
    try:
        with pytest.raises(InvalidArguments) as caught:
            await validate_off_loop(validator, {"v": "x"})
        assert returned == []  # answered while the checker was still stuck: not waited for
    finally:
        release.set()
    assert [entry["type"] for entry in caught.value.errors] == ["budget"]


async def test_the_loop_keeps_running_while_a_thread_validates() -> None:
    release = threading.Event()
    validator = with_format(lambda value: release.wait(5))
    validation = asyncio.ensure_future(validate_off_loop(validator, {"v": "x"}))
    await asyncio.sleep(0)  # the loop turns while the checker waits
    assert not validation.done()
    release.set()
    assert await validation == {"v": "x"}
