"""genmcp.channel: what a hook sends back during its request, through a real Suite.

Each tool reports what its sends returned (the bool contract: False when a send does not
apply or the call is over, never an exception); the test client shows what reached the
client, in order. The Mailbox's end is checked on the object.
"""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any

import pytest

from genmcp import Channel, Suite, Tool, ToolRequest
from genmcp.channel import MAILBOX_CAPACITY, Mailbox
from genmcp.events import Interim
from genmcp.outbox import Outbox
from genmcp.testing import MCPTestClient, RPCError

SEEN: dict[str, Any] = {}
"""What the tools saw, by tool name (the tests run one at a time)."""


class Report(Tool, name="report", description="sends progress, logs and a notification"):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Any:
        SEEN["report"] = channel
        sent = {
            "progress": channel.send_progress(1, 4, "a quarter"),
            "progress_bare": channel.send_progress(2),
            "debug": channel.send_log("debug", "noise"),
            "warning": channel.send_log("warning", {"disk": "low"}, logger="disk"),
            "custom": channel.send_notification("notifications/custom", {"n": 1}),
        }
        try:
            channel.send_log("loud", "x")
        except ValueError as exc:
            sent["bad_level"] = str(exc)
        facts = {
            "log_level": channel.log_level,
            "protocol_version": channel.protocol_version,
            "capabilities": sorted(channel.client_capabilities),
            "closed": channel.closed,
        }
        return json.dumps({"sent": sent, "facts": facts})


class Threaded(Tool, name="threaded", description="a plain def: runs in a worker thread"):
    def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Any:
        SEEN["thread"] = threading.current_thread() is not threading.main_thread()
        return json.dumps([channel.send_progress(step, 3) for step in (1, 2, 3)])


class Needs(Tool, name="needs", description="requires elicitation"):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Any:
        channel.require_capability({"elicitation": {}})
        return "asked"


def suite() -> Suite:
    return Suite(server_name="channel", server_version="1", tools=[Report, Threaded, Needs])


async def test_sends_reach_the_client_in_order_when_they_apply() -> None:
    async with MCPTestClient(suite()) as client:
        result = await client.call_tool("report", {}, progress=True, log_level="info")
    reported = json.loads(result.text)
    assert reported["sent"] == {
        "progress": True,
        "progress_bare": True,
        "debug": False,  # below the level the client asked for
        "warning": True,
        "custom": True,
        "bad_level": (
            "unknown log level 'loud'; use one of "
            "debug, info, notice, warning, error, critical, alert, emergency"
        ),
    }
    assert reported["facts"]["log_level"] == "info"
    assert reported["facts"]["protocol_version"] == "2026-07-28"
    assert {"elicitation", "sampling", "roots"} <= set(reported["facts"]["capabilities"])
    assert reported["facts"]["closed"] is False
    methods = [note["method"] for note in result.notifications]
    assert methods == [
        "notifications/progress",
        "notifications/progress",
        "notifications/message",
        "notifications/custom",
    ]
    first, second = (note["params"] for note in result.notifications[:2])
    token = first["progressToken"]
    assert first == {"progressToken": token, "progress": 1, "total": 4, "message": "a quarter"}
    assert second == {"progressToken": token, "progress": 2}  # no total, no message
    log = result.notifications[2]["params"]
    assert log == {"level": "warning", "data": {"disk": "low"}, "logger": "disk"}
    assert result.notifications[3]["params"] == {"n": 1}


async def test_without_a_progress_token_or_a_log_level_nothing_is_sent() -> None:
    async with MCPTestClient(suite()) as client:
        result = await client.call_tool("report", {})
    sent = json.loads(result.text)["sent"]
    assert (sent["progress"], sent["progress_bare"], sent["warning"]) == (False, False, False)
    assert json.loads(result.text)["facts"]["log_level"] is None
    assert [note["method"] for note in result.notifications] == ["notifications/custom"]


async def test_a_channel_is_closed_once_its_call_ended() -> None:
    async with MCPTestClient(suite()) as client:
        await client.call_tool("report", {}, progress=True, log_level="debug")
        channel: Channel = SEEN["report"]
        await client.wait_idle()
    assert channel.closed
    assert channel.send_progress(3, 4) is False
    assert channel.send_log("error", "late") is False
    assert channel.send_notification("notifications/custom") is False
    assert channel.start_stream() is False and channel.close_stream() is False


async def test_a_plain_def_tool_reports_progress_from_its_thread() -> None:
    async with MCPTestClient(suite()) as client:
        result = await client.call_tool("threaded", {}, progress=True)
    assert SEEN["thread"] is True
    assert json.loads(result.text) == [True, True, True]
    assert [note["params"]["progress"] for note in result.notifications] == [1, 2, 3]


async def test_require_capability_refuses_a_client_without_it() -> None:
    async with MCPTestClient(suite()) as client:
        assert (await client.call_tool("needs", {})).text == "asked"
        with pytest.raises(RPCError) as caught:
            await client.call_tool("needs", {}, capabilities={"sampling": {}})
    assert caught.value.code == -32021
    assert caught.value.data == {"requiredCapabilities": {"elicitation": {}}}


async def test_a_mailbox_refuses_once_closed_or_full() -> None:
    mailbox = Mailbox(asyncio.get_running_loop(), "call-1")
    assert mailbox.send({"n": 1}) is True
    assert await mailbox.receive() == {"n": 1}
    for n in range(MAILBOX_CAPACITY):
        assert mailbox.send(n)
    assert mailbox.send("one too many") is False
    mailbox.close()
    assert mailbox.closed and mailbox.send("late") is False


async def test_the_answers_language_is_kept_only_with_sep2792_on() -> None:
    """``channel.content_language`` (SEP-2792, Draft): set or chosen with the Suite's switch
    on, it names the language of the logs sent after it; off, it is never kept."""
    loop = asyncio.get_running_loop()

    def channel(languages: tuple[str, ...] | None) -> tuple[Channel, Outbox]:
        outbox = Outbox(loop)
        meta = {"io.modelcontextprotocol/logLevel": "info"}
        made = Channel(meta=meta, assigns={}, outbox=outbox, mailbox=Mailbox(loop, "c"),
                       languages=languages)  # fmt: skip
        return made, outbox

    on, notes = channel(("fr-CA", "en"))
    assert on.languages == ("fr-CA", "en") and on.content_language is None
    assert on.choose_language(["en", "fr"]) == "fr" and on.content_language == "fr"
    on.send_log("info", "bonjour")
    event = notes.get_nowait()
    assert isinstance(event, Interim)
    assert event.message["params"]["_meta"] == {"io.modelcontextprotocol/contentLanguage": "fr"}
    on.content_language = None
    assert on.choose_language(["de"], default="en") == "en"  # no match: the default
    with pytest.raises(TypeError):
        on.content_language = 3  # type: ignore[assignment]
    off, quiet = channel(None)
    assert off.languages == () and off.choose_language(["en", "fr"]) == "en"
    off.content_language = "fr"
    assert off.content_language is None
    off.send_log("info", "hello")
    event = quiet.get_nowait()
    assert isinstance(event, Interim) and "_meta" not in event.message["params"]
