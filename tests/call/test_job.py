"""``call.job``: what a request in flight does, and the defaults a one-hook request gets.

A ``Job`` is driven by a Call (tests/call/test_call.py drives real ones); here its own
contract: the defaults (one hook, no streaming, the result as it is, a shutdown error), a
``HookJob`` answering with its one hook, and ``plain_result`` raising what a hook raised.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from genmcp.call.job import HookJob, Job, plain_result
from genmcp.channel import Channel, Mailbox
from genmcp.errors import MCPError
from genmcp.outbox import Outbox


class Bare(Job):
    __slots__ = ()


async def channel() -> Channel:
    loop = asyncio.get_running_loop()
    return Channel(meta={}, assigns={}, outbox=Outbox(), mailbox=Mailbox(loop, "t-1"))


async def test_a_job_without_a_first_hook_says_which_class_lacks_it() -> None:
    with pytest.raises(TypeError, match="Bare must define start"):
        await Bare().start(await channel())


async def test_the_defaults_suit_a_one_hook_request() -> None:
    job, ch = Bare(), await channel()
    assert (job.label, job.cancellable, job.task_capable) == ("request", True, False)
    with pytest.raises(TypeError, match="request does not stream"):
        await job.message("hello", ch, None)
    await job.close(ch, None)  # nothing to close
    assert job.result({"content": []}) == {"content": []}
    assert job.shutdown_result() is None  # the Call answers with a shutdown error
    job.finish()


async def test_a_hook_job_answers_with_its_hook_under_its_label() -> None:
    seen: list[Channel] = []

    async def answer(ch: Channel) -> dict[str, Any]:
        seen.append(ch)
        return {"messages": []}

    job, ch = HookJob("prompts/get greeting", answer), await channel()
    assert await job.start(ch) == {"messages": []} and seen == [ch]
    assert job.label == "prompts/get greeting"
    with pytest.raises(TypeError, match="prompts/get greeting does not stream"):
        await job.message("x", ch, None)


def test_a_plain_result_is_the_outcome_or_the_exception_raised_again() -> None:
    assert plain_result({"a": 1}) == {"a": 1}
    failure = MCPError("invalid_params", "Invalid params: no")
    with pytest.raises(MCPError) as raised:
        plain_result(failure)
    assert raised.value is failure
