"""Issue 45: dependencies run as FastAPI runs them, in both eras (2026-07-28 calls, 2025 sessions).

A ``yield`` dependency (async or sync generator) of a ``@tool``, ``@prompt``, ``@resource``,
completer or of ``channel.resolve`` in a class hook is set up and torn down in the call's task,
after the hook's outcome is decided and before the answer is sent, the hook's exception thrown
into it; a teardown that raises makes the answer an error; each hook invocation has its own
cache (a 2025 input round re-running the hook gets fresh values); ``Security`` scopes and
``app.dependency_overrides`` apply; a cancelled call still tears down.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from typing import Annotated, Any

import pytest
from fastapi import Depends, FastAPI, Security
from fastapi.security import SecurityScopes
from pydantic import BaseModel
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker, create_async_engine

from genmcp import (
    Channel,
    InputRequired,
    Result,
    Tool,
    ToolRequest,
    call_tool_result,
    elicit_request,
    mcp_router,
    prompt,
    resource,
    tool,
)
from genmcp.testing import MCPTestClient, accept

ERAS = pytest.mark.parametrize("version", ["2026-07-28", "2025-11-25"])

LOG: list[tuple[Any, ...]] = []
COUNTS: dict[str, int] = {}
STARTED = asyncio.Event()  # re-made per test by the fixture


@pytest.fixture(autouse=True)
def _clean() -> None:
    global STARTED
    LOG.clear()
    COUNTS.clear()
    STARTED = asyncio.Event()


def _count(name: str) -> None:
    COUNTS[name] = COUNTS.get(name, 0) + 1


async def agen() -> AsyncIterator[str]:
    LOG.append(("setup", "agen", asyncio.current_task()))
    try:
        yield "a"
    except Exception as exc:
        LOG.append(("caught", "agen", type(exc).__name__))
        raise
    except asyncio.CancelledError:
        LOG.append(("caught", "agen", "CancelledError"))
        raise
    finally:
        LOG.append(("teardown", "agen", asyncio.current_task()))


def sgen() -> Iterator[str]:
    LOG.append(("setup", "sgen"))
    try:
        yield "s"
    except Exception as exc:
        LOG.append(("caught", "sgen", type(exc).__name__))
        raise
    finally:
        LOG.append(("teardown", "sgen"))


async def failing_teardown() -> AsyncIterator[str]:
    yield "f"
    raise RuntimeError("the session would not close")


def _hook_ran() -> None:
    LOG.append(("hook", asyncio.current_task()))


def _tasks(kind: str) -> list[Any]:
    return [entry[2] for entry in LOG if entry[:2] == (kind, "agen")]


def _assert_one_task() -> None:
    """agen set up, the hook and agen torn down all in one task."""
    hooks = [entry[1] for entry in LOG if entry[0] == "hook"]
    assert _tasks("setup") and _tasks("setup") == _tasks("teardown") == hooks[:1]


# -- tools ------------------------------------------------------------------------------


@tool
async def both(x: int, a: Annotated[str, Depends(agen)], s: Annotated[str, Depends(sgen)]) -> str:
    _hook_ran()
    if x < 0:
        raise ValueError("negative")
    return a + s


@tool
def both_in_thread(a: Annotated[str, Depends(agen)], s: Annotated[str, Depends(sgen)]) -> str:
    LOG.append(("hook", "thread"))
    return a + s


@tool
async def breaks_on_teardown(f: Annotated[str, Depends(failing_teardown)]) -> str:
    return f


class Fail(BaseModel):
    fail: bool = False


class Resolving(Tool, name="resolving", input_schema=Fail):
    """``channel.resolve`` in a class hook: the Call tears down in its own task."""

    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        value = await channel.resolve(agen) + await channel.resolve(Depends(sgen))
        _hook_ran()
        if request.arguments.fail:
            raise KeyError("fail")
        return Result(call_tool_result(text=value))


def served(*tools: Any, **options: Any) -> FastAPI:
    app = FastAPI()
    router = mcp_router(
        server_name="d", server_version="1", secret_key="s" * 48, tools=list(tools), **options
    )
    app.include_router(router, prefix="/mcp")
    return app


def _answered_after_teardown(names: tuple[str, ...]) -> None:
    """Every dependency in ``names`` was torn down before the client had the answer."""
    for name in names:
        assert any(entry[:2] == ("teardown", name) for entry in LOG), (name, LOG)


@ERAS
async def test_a_tools_generators_run_in_the_calls_task_and_end_before_the_answer(
    version: str,
) -> None:
    async with MCPTestClient(served(both), protocol_version=version) as client:
        assert (await client.call_tool("both", {"x": 1})).text == "as"
        _answered_after_teardown(("agen", "sgen"))  # no wait_idle: done before the answer
    _assert_one_task()
    order = [entry[:2] for entry in LOG]
    assert order == [
        ("setup", "agen"), ("setup", "sgen"), ("hook", _tasks("setup")[0]),
        ("teardown", "sgen"), ("teardown", "agen"),
    ]  # fmt: skip


@ERAS
async def test_the_hooks_exception_reaches_each_generators_except(version: str) -> None:
    async with MCPTestClient(served(both), protocol_version=version) as client:
        with pytest.raises(Exception, match="-32603"):
            await client.call_tool("both", {"x": -1})
        _answered_after_teardown(("agen", "sgen"))
        assert (await client.call_tool("both", {"x": 2})).text == "as"  # still serving
    caught = [entry for entry in LOG if entry[0] == "caught"]
    assert caught == [("caught", "sgen", "ValueError"), ("caught", "agen", "ValueError")]


@ERAS
async def test_a_plain_def_with_generator_dependencies(version: str) -> None:
    async with MCPTestClient(served(both_in_thread), protocol_version=version) as client:
        assert (await client.call_tool("both_in_thread", {})).text == "as"
        _answered_after_teardown(("agen", "sgen"))
    assert _tasks("setup") == _tasks("teardown")
    assert [entry[0] for entry in LOG] == ["setup", "setup", "hook", "teardown", "teardown"]


@ERAS
async def test_a_teardown_that_raises_makes_the_answer_an_error(version: str) -> None:
    app = served(breaks_on_teardown, both)
    async with MCPTestClient(app, protocol_version=version) as client:
        with pytest.raises(Exception, match="-32603"):
            await client.call_tool("breaks_on_teardown", {})
        assert (await client.call_tool("both", {"x": 1})).text == "as"
        await client.wait_idle()
        assert client.live_workers == 0


@ERAS
async def test_a_teardown_that_raises_is_an_is_error_result_with_error_results(
    version: str,
) -> None:
    app = served(tool(breaks_on_teardown.__wrapped__, name="soft", error_results=True))  # type: ignore[attr-defined]
    async with MCPTestClient(app, protocol_version=version) as client:
        answered = await client.call_tool("soft", {})
    assert answered.is_error


@ERAS
async def test_channel_resolve_in_a_class_hook_ends_in_the_calls_task(version: str) -> None:
    async with MCPTestClient(served(Resolving), protocol_version=version) as client:
        assert (await client.call_tool("resolving", {})).text == "as"
        _answered_after_teardown(("agen", "sgen"))
        _assert_one_task()
        LOG.clear()
        with pytest.raises(Exception, match="-32603"):
            await client.call_tool("resolving", {"fail": True})
        _answered_after_teardown(("agen", "sgen"))
    _assert_one_task()
    caught = [entry for entry in LOG if entry[0] == "caught"]
    assert caught == [("caught", "sgen", "KeyError"), ("caught", "agen", "KeyError")]


# -- input rounds: a re-run hook gets fresh dependencies ----------------------------------


@dataclass
class Handle:
    serial: int
    open: bool = field(default=True)


_serials = itertools.count(1)


def handle() -> Iterator[Handle]:
    opened = Handle(next(_serials))
    LOG.append(("setup", "handle", opened.serial))
    yield opened
    opened.open = False
    LOG.append(("teardown", "handle", opened.serial))


class Confirm(BaseModel):
    yes: bool


@tool
async def confirmed(request: ToolRequest, h: Annotated[Handle, Depends(handle)]) -> str | Any:
    if not h.open:
        raise RuntimeError("a torn-down handle")
    if request.input(Confirm) is None:
        return InputRequired({"ok": elicit_request("Sure?", Confirm)})
    return "done"


class ConfirmedClass(Tool, name="confirmed_class"):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Any:
        h = await channel.resolve(handle)
        if not h.open:
            raise RuntimeError("a torn-down handle")
        if request.input(Confirm) is None:
            return InputRequired({"ok": elicit_request("Sure?", Confirm)})
        return Result(call_tool_result(text="done"))


@ERAS
@pytest.mark.parametrize("name", ["confirmed", "confirmed_class"])
async def test_an_input_round_runs_the_hook_with_fresh_dependencies(
    version: str, name: str
) -> None:
    legacy = version.startswith("2025")
    answers = {"elicitation/create" if legacy else "ok": accept({"yes": True})}
    app = served(confirmed, ConfirmedClass)
    async with MCPTestClient(app, protocol_version=version) as client:
        assert (await client.call_tool(name, {}, answers=answers)).text == "done"
    first, second = (entry[2] for entry in LOG if entry[0] == "setup")
    assert LOG == [
        ("setup", "handle", first), ("teardown", "handle", first),
        ("setup", "handle", second), ("teardown", "handle", second),
    ]  # fmt: skip


# -- caching, Security, overrides -------------------------------------------------------


def shared() -> str:
    _count("shared")
    return "shared"


def uses_shared(value: Annotated[str, Depends(shared)]) -> str:
    _count("uses_shared")
    return value + "+"


def fresh() -> str:
    _count("fresh")
    return "fresh"


@tool
async def cached(
    a: Annotated[str, Depends(shared)],
    b: Annotated[str, Depends(shared)],
    c: Annotated[str, Depends(uses_shared)],
    d: Annotated[str, Depends(fresh)],
    e: Annotated[str, Depends(fresh, use_cache=False)],
    channel: Channel,
) -> str:
    again = await channel.resolve(uses_shared)  # the body shares the invocation's cache
    return ",".join((a, b, c, d, e, again))


@ERAS
async def test_a_dependency_runs_once_per_call_unless_use_cache_is_false(version: str) -> None:
    async with MCPTestClient(served(cached), protocol_version=version) as client:
        text = (await client.call_tool("cached", {})).text
        assert text == "shared,shared,shared+,fresh,fresh,shared+"
        assert COUNTS == {"shared": 1, "uses_shared": 1, "fresh": 2}
        await client.call_tool("cached", {})
    assert COUNTS == {"shared": 2, "uses_shared": 2, "fresh": 4}  # calls never share


def granted(security_scopes: SecurityScopes) -> list[str]:
    return security_scopes.scopes


def reader(scopes: Annotated[list[str], Security(granted, scopes=["read"])]) -> list[str]:
    return scopes


@tool
async def scoped(
    direct: Annotated[list[str], Security(granted, scopes=["write"])],
    nested: Annotated[list[str], Security(reader, scopes=["admin"])],
    channel: Channel,
) -> dict[str, Any]:
    resolved = await channel.resolve(Security(granted, scopes=["audit"]))
    return {"direct": direct, "nested": nested, "resolved": resolved}


@ERAS
async def test_security_scopes_reach_the_dependency(version: str) -> None:
    async with MCPTestClient(served(scoped), protocol_version=version) as client:
        answered = (await client.call_tool("scoped", {})).structured
    assert answered == {
        "direct": ["write"], "nested": ["admin", "read"], "resolved": ["audit"]
    }  # fmt: skip


def who() -> str:
    return "real"


@tool
async def whoami(name: Annotated[str, Depends(who)], channel: Channel) -> str:
    return f"{name}/{await channel.resolve(who)}"


@ERAS
async def test_dependency_overrides_apply_at_the_first_call_and_when_changed(
    version: str,
) -> None:
    app = served(whoami)
    app.dependency_overrides[who] = lambda: "first"
    async with MCPTestClient(app, protocol_version=version) as client:
        assert (await client.call_tool("whoami", {})).text == "first/first"
        app.dependency_overrides[who] = lambda: "second"
        assert (await client.call_tool("whoami", {})).text == "second/second"

        async def overriding() -> AsyncIterator[str]:
            LOG.append(("setup", "override"))
            yield "generator"
            LOG.append(("teardown", "override"))

        app.dependency_overrides[who] = overriding
        assert (await client.call_tool("whoami", {})).text == "generator/generator"
        assert LOG == [("setup", "override"), ("teardown", "override")]
        app.dependency_overrides.clear()
        assert (await client.call_tool("whoami", {})).text == "real/real"


# -- prompts, resources, completions ----------------------------------------------------


async def _complete_language(value: str, a: Annotated[str, Depends(agen)]) -> list[str]:
    _hook_ran()
    return [f"{value}-{a}"]


@prompt(complete={"language": _complete_language})
async def review(
    code: str, a: Annotated[str, Depends(agen)], s: Annotated[str, Depends(sgen)],
    language: str = "python",
) -> str:  # fmt: skip
    _hook_ran()
    return f"{code}:{a}{s}"


@resource("notes://{note}")
async def note(note: str, a: Annotated[str, Depends(agen)]) -> str:
    _hook_ran()
    if note == "bad":
        raise LookupError(note)
    return f"{note}:{a}"


@resource("plain://one")
def plain_note(s: Annotated[str, Depends(sgen)]) -> str:
    return f"one:{s}"


def _served_content() -> FastAPI:
    return served(prompts=[review], resources=[note, plain_note])


@ERAS
async def test_a_prompts_generators_end_in_its_task(version: str) -> None:
    async with MCPTestClient(_served_content(), protocol_version=version) as client:
        got = await client.get_prompt("review", {"code": "x"})
        _answered_after_teardown(("agen", "sgen"))
    assert got["messages"][0]["content"]["text"] == "x:as"
    _assert_one_task()


@ERAS
async def test_a_resources_generators_end_in_its_task_and_see_its_error(version: str) -> None:
    async with MCPTestClient(_served_content(), protocol_version=version) as client:
        assert (await client.read_resource("notes://n"))[0]["text"] == "n:a"
        _answered_after_teardown(("agen",))
        _assert_one_task()
        assert (await client.read_resource("plain://one"))[0]["text"] == "one:s"
        LOG.clear()
        with pytest.raises(Exception, match="-32603"):
            await client.read_resource("notes://bad")
    assert ("caught", "agen", "LookupError") in LOG
    _assert_one_task()


@ERAS
async def test_a_completers_generators_end_in_its_task(version: str) -> None:
    async with MCPTestClient(_served_content(), protocol_version=version) as client:
        assert await client.complete("review", "language", "py") == ["py-a"]
        _answered_after_teardown(("agen",))
    _assert_one_task()


# -- cancelled calls --------------------------------------------------------------------


async def waiting() -> AsyncIterator[str]:
    LOG.append(("setup", "agen", asyncio.current_task()))
    try:
        yield "w"
    except BaseException as exc:
        LOG.append(("caught", "agen", type(exc).__name__))
        raise
    finally:
        await asyncio.sleep(0)  # an await in the teardown of a cancelled call still runs
        LOG.append(("teardown", "agen", asyncio.current_task()))


@tool
async def stuck(w: Annotated[str, Depends(waiting)]) -> str:
    _hook_ran()
    STARTED.set()
    await asyncio.Event().wait()
    return w


class StuckClass(Tool, name="stuck_class"):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Any:
        await channel.resolve(waiting)
        _hook_ran()
        STARTED.set()
        await asyncio.Event().wait()


@pytest.mark.parametrize("name", ["stuck", "stuck_class"])
async def test_a_call_the_client_leaves_still_tears_down_in_its_task(name: str) -> None:
    async with MCPTestClient(served(stuck, StuckClass)) as client:
        async with client.open_call(name, {}):
            await asyncio.wait_for(STARTED.wait(), client.timeout)
        await client.wait_idle()
    assert ("caught", "agen", "CancelledError") in LOG
    _assert_one_task()


# -- a real service: an async SQLAlchemy session on aiosqlite ----------------------------


SESSIONS: list[async_sessionmaker[AsyncSession]] = []  # the test's sessionmaker
OPENED: list[AsyncSession] = []


async def get_session() -> AsyncIterator[AsyncSession]:
    async with SESSIONS[0]() as session:
        OPENED.append(session)
        yield session


@tool
async def add_item(name: str, session: Annotated[AsyncSession, Depends(get_session)]) -> str:
    await session.execute(text("insert into items values (:name)"), {"name": name})
    await session.commit()
    counted = await session.execute(text("select count(*) from items"))
    return str(counted.scalar_one())


@ERAS
async def test_an_async_sqlalchemy_session_per_call(version: str, tmp_path: Any) -> None:
    engine = create_async_engine(f"sqlite+aiosqlite:///{tmp_path / 'shop.db'}")
    try:
        async with engine.begin() as connection:
            await connection.execute(text("create table items (name text)"))
        SESSIONS[:], OPENED[:] = [async_sessionmaker(engine, expire_on_commit=False)], []
        async with MCPTestClient(served(add_item), protocol_version=version) as client:
            assert (await client.call_tool("add_item", {"name": "saw"})).text == "1"
            assert (await client.call_tool("add_item", {"name": "axe"})).text == "2"
        assert len(OPENED) == 2 and OPENED[0] is not OPENED[1]
        assert not any(session.in_transaction() for session in OPENED)  # closed
    finally:
        await engine.dispose()


@pytest.mark.parametrize("name", ["stuck", "stuck_class"])
async def test_a_call_cancelled_in_a_2025_session_still_tears_down_in_its_task(name: str) -> None:
    app = served(stuck, StuckClass)
    async with MCPTestClient(app, protocol_version="2025-11-25") as client:
        body = client.build("tools/call", {"name": name, "arguments": {}}, id="stuck-1")
        pending = await client.send(body, wait=False)
        await asyncio.wait_for(STARTED.wait(), client.timeout)
        cancel = {"requestId": "stuck-1", "reason": "user"}
        notification = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": cancel}
        notified = await client.send(notification)
        await notified.aclose()
        await client.wait_idle()
        await pending.aclose()
    assert ("caught", "agen", "CancelledError") in LOG
    _assert_one_task()
