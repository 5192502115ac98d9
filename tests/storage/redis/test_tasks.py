"""Tasks shared through Redis, between real processes.

First the ``TaskStore`` contract, the same checks on ``MemoryTaskStore`` and
``RedisTaskStore``. Then separate uvicorn processes (tests/storage/redis/tasks_app.py) on one
Redis, one key prefix per test: a task created through process A is polled, answered and
cancelled through process B; a task running in A notifies a listen stream held by B
(``notifications/tasks`` over the Redis bus); A killed (SIGKILL) mid-task leaves its tasks
``failed`` within the lease; 1,000 concurrent tasks all complete (none lost, none stuck);
every key has a TTL and expiry removes them all.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any, Final

import pytest

from genmcp.protocol.tasks import iso_now, lease_lost_error, new_record
from genmcp.storage import Lease, TaskEnd, TaskStore
from genmcp.storage.memory import MemoryTaskStore
from support.client import Exchange, ModernClient
from support.tasks_process import TasksProcess

pytestmark = pytest.mark.long  # processes killed within a lease, about 10 s (make test-long)

HERE: Final = Path(__file__).resolve().parent
TASKS: Final = {"extensions": {"io.modelcontextprotocol/tasks": {}}, "elicitation": {}}
SECRET: Final = "redis-tasks-test-secret-0123456789abcdefghij"
LOST: Final = lease_lost_error()


# -- the store contract ------------------------------------------------------------------------


@pytest.fixture(params=["memory", "redis"])
async def store(request: pytest.FixtureRequest) -> AsyncIterator[TaskStore]:
    if request.param == "memory":
        yield MemoryTaskStore()
        return
    from genmcp.storage.redis.tasks import RedisTaskStore

    url, prefix = request.getfixturevalue("redis_url"), request.getfixturevalue("redis_prefix")
    redis_store = RedisTaskStore.from_url(url, prefix=prefix)
    try:
        yield redis_store
    finally:
        await redis_store.aclose()


async def test_the_store_moves_a_task_through_input_to_one_terminal_status(
    store: TaskStore,
) -> None:
    record = new_record("t1", "alice", 60_000, 500)
    await store.create(record, Lease("me", 10_000))
    assert await store.owner("t1") == "me"
    got = await store.get("t1", lost=LOST)
    assert got is not None and got["status"] == "working" and got["principal"] == "alice"
    assert got["inputRequests"] == {} and got["pollIntervalMs"] == 500
    assert got["version"] == 1
    asked = {"a": {"method": "elicitation/create", "params": {"x": []}}, "b": {"method": "m"}}
    moved = await store.ask("t1", asked, iso_now())  # a transition returns the record it left
    assert moved is not None and moved["status"] == "input_required" and moved["version"] == 2
    got = await store.get("t1", lost=LOST)
    assert got == moved and got["inputRequests"] == asked  # an empty list stays a list
    moved = await store.answer("t1", {"a": {"action": "accept"}, "zz": {}}, iso_now())
    assert moved is not None and moved["status"] == "input_required" and moved["version"] == 3
    got = await store.get("t1", lost=LOST)
    assert got == moved and list(got["inputRequests"]) == ["b"]
    late = await store.answer("t1", {"a": {"action": "late"}}, iso_now())  # answered: ignored
    assert late is not None and late["version"] == 3
    assert await store.take_answers("t1", ["a", "b"]) == {"a": {"action": "accept"}}
    moved = await store.answer("t1", {"b": {"n": 1}}, iso_now())
    assert moved is not None and moved["status"] == "working" and moved["version"] == 4
    got = await store.get("t1", lost=LOST)
    assert got == moved and got["inputRequests"] == {}
    assert await store.take_answers("t1", ["b"]) == {"b": {"n": 1}}
    assert await store.take_answers("t1", ["b"]) == {}
    assert await store.renew("t1", 10_000) == "working"
    result = {"content": [], "isError": False, "structuredContent": {"l": []}}
    moved = await store.finish("t1", TaskEnd("completed", result=result), iso_now())
    assert moved is not None and moved["result"] == result and moved["version"] == 5
    assert await store.finish("t1", TaskEnd("cancelled"), iso_now()) is None  # the first one wins
    assert await store.ask("t1", asked, iso_now()) is None
    got = await store.get("t1", lost=LOST)
    assert got == moved and got["status"] == "completed"
    assert await store.renew("t1", 10_000) == "completed"
    assert await store.get("nope", lost=LOST) is None
    assert await store.renew("nope", 10) is None
    assert await store.answer("nope", {"a": {}}, iso_now()) is None


async def test_a_lapsed_lease_fails_the_task_and_the_ttl_removes_it(store: TaskStore) -> None:
    await store.create(new_record("t2", None, 400, None), Lease("dead", 50))
    await asyncio.sleep(0.1)
    got = await store.get("t2", lost=LOST)
    assert got is not None and got["status"] == "failed" and got["error"] == LOST
    assert got["version"] == 2 and await store.get("t2", lost=LOST) == got
    assert "stopped" in got["statusMessage"]
    assert await store.renew("t2", 1000) == "failed"
    await asyncio.sleep(0.4)
    assert await store.get("t2", lost=LOST) is None


async def test_a_lease_run_out_on_another_server_than_its_last_gets_a_grace(
    redis_url: str, redis_prefix: str
) -> None:
    """A lease judged by a server that did not create the task (a replica promoted, a
    restart: another ``run_id``) is kept ``FAILOVER_GRACE_MS`` more for its owner to renew
    it there; judged again by the same server, it is lost."""
    from genmcp.storage.redis.tasks import FAILOVER_GRACE_MS, RedisTaskStore
    from support.redis_topology import sync_client

    store = RedisTaskStore.from_url(redis_url, prefix=redis_prefix)
    raw = sync_client(redis_url)
    try:
        for task_id in ("moved", "here"):
            await store.create(new_record(task_id, None, 60_000, None), Lease("o", 50))
        raw.hset(store.key("moved"), "run", "a-server-that-failed-over")
        await asyncio.sleep(0.1)  # both leases ran out
        kept = await store.get("moved", lost=LOST)
        assert kept is not None and kept["status"] == "working"
        lease, now = int(raw.hget(store.key("moved"), "lease")), int(raw.time()[0]) * 1000
        assert now + FAILOVER_GRACE_MS - 5_000 < lease <= now + FAILOVER_GRACE_MS + 1_000
        assert await store.renew("moved", 50) == "working"  # its owner renews it here
        lost = await store.get("here", lost=LOST)  # same server: no grace
        assert lost is not None and lost["status"] == "failed"
        await asyncio.sleep(0.1)
        again = await store.get("moved", lost=LOST)  # judged here before: lost now
        assert again is not None and again["status"] == "failed"
    finally:
        raw.close()
        await store.aclose()


async def test_a_working_tasks_status_message_changes_until_it_ends(store: TaskStore) -> None:
    await store.create(new_record("t3", None, 60_000, None), Lease("me", 10_000))
    moved = await store.note("t3", "step 1 of 2", iso_now())
    assert moved is not None and moved["statusMessage"] == "step 1 of 2"
    assert moved["version"] == 2 and moved["status"] == "working"
    assert await store.note("t3", "step 1 of 2", iso_now()) is None  # the same: no change
    got = await store.get("t3", lost=LOST)
    assert got == moved
    await store.finish("t3", TaskEnd("completed", result={"content": []}), iso_now())
    assert await store.note("t3", "late", iso_now()) is None  # terminal: never again
    got = await store.get("t3", lost=LOST)
    assert got is not None and got["statusMessage"] == "step 1 of 2"
    assert await store.note("nope", "x", iso_now()) is None


def test_a_task_ends_only_in_a_terminal_status() -> None:
    with pytest.raises(ValueError, match="not 'working'"):
        TaskEnd("working")
    assert TaskEnd("failed", error=LOST).error == LOST


# -- real processes --------------------------------------------------------------------------


@pytest.fixture
def nodes(
    redis_url: str, redis_prefix: str, tmp_path: Path
) -> Iterator[Callable[..., list[TasksProcess]]]:
    started: list[TasksProcess] = []

    def start(count: int = 2, **settings: str) -> list[TasksProcess]:
        made = [
            TasksProcess(redis_url, prefix=redis_prefix, root=tmp_path, secret=SECRET, **settings)
            for _ in range(count)
        ]
        started.extend(made)
        for node in made:
            node.wait_ready()
        return made

    try:
        yield start
    finally:
        for node in started:
            node.stop()


def client(node: TasksProcess) -> ModernClient:
    return ModernClient(node.url, validate=False, timeout=30)


async def call(on: ModernClient, name: str, **arguments: Any) -> str:
    reply = await on.request(
        "tools/call", {"name": name, "arguments": arguments}, capabilities=TASKS
    )
    assert reply.result["resultType"] == "task", reply.body
    task_id: str = reply.result["taskId"]
    return task_id


async def get(on: ModernClient, task_id: str) -> dict[str, Any]:
    reply = await on.request("tasks/get", {"taskId": task_id}, capabilities=TASKS)
    assert reply.error is None, reply.body
    result: dict[str, Any] = reply.result
    return result


async def until(on: ModernClient, task_id: str, *wanted: str, within: float = 10) -> Any:
    deadline = time.monotonic() + within
    while (task := await get(on, task_id))["status"] not in wanted:
        assert time.monotonic() < deadline, f"still {task['status']}, wanted {wanted}"
        await asyncio.sleep(0.02)
    return task


async def test_a_task_made_on_a_is_polled_answered_and_cancelled_on_b(
    nodes: Callable[..., list[TasksProcess]], tmp_path: Path
) -> None:
    a_node, b_node = nodes(2)
    async with client(a_node) as a, client(b_node) as b:
        task_id = await call(a, "ask")
        asked = await until(b, task_id, "input_required")
        assert list(asked["inputRequests"]) == ["confirm"]
        accept = {"action": "accept", "content": {"ok": True}}
        ack = await b.request(
            "tasks/update", {"taskId": task_id, "inputResponses": {"confirm": accept}},
            capabilities=TASKS,
        )  # fmt: skip
        assert ack.result["resultType"] == "complete"
        done = await until(b, task_id, "completed", within=5)
        # the same call went on in A, the process that runs it
        text = done["result"]["content"][0]["text"]
        assert text == f"confirmed=True pid={a_node.process.pid}"

        task_id = await call(a, "work", s=60, label="x")
        assert (await get(b, task_id))["status"] == "working"
        await b.request("tasks/cancel", {"taskId": task_id}, capabilities=TASKS)
        assert (await get(a, task_id))["status"] == "cancelled"
        deadline = time.monotonic() + 5  # A's worker itself was cancelled
        while not (tmp_path / "cancelled-x").exists():
            assert time.monotonic() < deadline, "the worker in A was not cancelled"
            await asyncio.sleep(0.02)


async def note(listen: Exchange) -> dict[str, Any]:
    """The next message of a listen stream (tagged with its subscription id); 30 s is a hang
    guard, far below the watch's re-read period in the test that uses it."""
    message: dict[str, Any] = await asyncio.wait_for(anext(aiter(listen)), 30)
    assert message["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"] in {"L1", "L2"}
    return message


async def test_a_task_running_in_a_notifies_listeners_in_b(
    nodes: Callable[..., list[TasksProcess]], redis_url: str, redis_prefix: str
) -> None:
    import redis.asyncio as aioredis

    # A 10 min lease: listeners re-read every 5 min, so whatever B's streams carry within
    # note()'s hang guard was published by the process that made the change, over Redis
    # the notice stream (storage.redis.notices): the path is proved, no duration judged.
    a_node, b_node = nodes(2, TASKS_LEASE_MS="600000")
    async with client(a_node) as a, client(b_node) as b, contextlib.AsyncExitStack() as streams:
        task_id = await call(a, "ask")
        wanted = {"notifications": {"taskIds": [task_id, "unknown"]}}
        listens = [
            await streams.enter_async_context(
                b.stream("subscriptions/listen", wanted, id=sid, capabilities=TASKS, validate=True)
            )  # every message checked against the schemas (TaskStatusNotification)
            for sid in ("L1", "L2")
        ]
        for listen in listens:
            ack = await note(listen)
            assert ack["params"]["notifications"] == {"taskIds": [task_id]}
            while (task := (await note(listen))["params"])["status"] != "input_required":
                assert task["status"] == "working"  # the state when B subscribed, then A asks
            assert list(task["inputRequests"]) == ["confirm"]
        redis = aioredis.Redis.from_url(redis_url)
        try:  # a durable topic: logged in the notice stream that B reads, not pub/sub
            channel = f"{redis_prefix}genmcp.task/{task_id}"
            assert await redis.pubsub_numsub(channel) == [(channel.encode(), 0)]
            logged = await redis.xrange(f"{redis_prefix}notices")
            assert [f for _, f in logged if f[b"t"] == f"genmcp.task/{task_id}".encode()]
        finally:
            await redis.aclose()
        accept = {"action": "accept", "content": {"ok": True}}
        await a.request(
            "tasks/update", {"taskId": task_id, "inputResponses": {"confirm": accept}},
            capabilities=TASKS,
        )  # fmt: skip  # answered through A too: all B hears comes from A
        for listen in listens:
            working, done = (await note(listen))["params"], (await note(listen))["params"]
            assert working["status"] == "working" and done["status"] == "completed"
        assert done["result"]["content"][0]["text"] == f"confirmed=True pid={a_node.process.pid}"
        shown = {k: v for k, v in (await get(b, task_id)).items() if k not in ("resultType",)}
        assert {**done, "_meta": None} == {**shown, "_meta": None}  # what tasks/get shows


async def test_a_killed_process_leaves_its_tasks_failed_within_the_lease(
    nodes: Callable[..., list[TasksProcess]],
) -> None:
    lease_ms = 1500
    a_node, b_node = nodes(2, TASKS_LEASE_MS=str(lease_ms))
    async with client(a_node) as a, client(b_node) as b:
        ids = [await call(a, "work", s=60) for _ in range(5)]
        ids.append(await call(a, "ask"))
        await until(b, ids[-1], "input_required")
        a_node.process.send_signal(signal.SIGKILL)
        a_node.process.wait()
        await asyncio.sleep(lease_ms / 1000 + 0.5)  # at least the lease since A's last renewal
        for task_id in ids:  # the first read after the lease ran out: failed, not polled for
            failed = await get(b, task_id)
            assert failed["status"] == "failed", failed
            assert failed["error"]["code"] == -32603
            assert "stopped" in failed["error"]["message"]


@pytest.mark.long
@pytest.mark.timeout(180)  # a hang guard: 37 s alone on a loaded 2-core machine, 61 s in parallel
async def test_a_thousand_concurrent_tasks_none_lost_none_stuck_every_key_with_a_ttl(
    nodes: Callable[..., list[TasksProcess]], redis_url: str, redis_prefix: str
) -> None:
    import redis.asyncio as aioredis

    ttl_ms = 120_000  # longer than the test under any load: none may expire while it runs
    a_node, b_node = nodes(2, TASKS_TTL_MS=str(ttl_ms))
    limits = asyncio.Semaphore(64)
    async with client(a_node) as a, client(b_node) as b:

        async def one(i: int) -> str:
            async with limits:
                return await call(a if i % 2 else b, "work", s=1, label=str(i))

        started = time.monotonic()
        ids = await asyncio.gather(*(one(i) for i in range(1000)))
        assert len(set(ids)) == 1000
        created = time.monotonic() - started

        async def final(i: int, task_id: str) -> str:
            other = b if i % 2 else a  # polled through the process that did not create it
            while True:
                async with limits:
                    status: str = (await get(other, task_id))["status"]
                if status in {"completed", "failed", "cancelled"}:
                    return status
                await asyncio.sleep(0.2)

        statuses = await asyncio.wait_for(
            asyncio.gather(*(final(i, t) for i, t in enumerate(ids))), 120
        )
        took = time.monotonic() - started
        assert statuses.count("completed") == 1000, {s: statuses.count(s) for s in statuses}

    redis = aioredis.Redis.from_url(redis_url)
    try:
        every = [key async for key in redis.scan_iter(match=redis_prefix + "*", count=1000)]
        keys = [key for key in every if b":task:" in key]  # the broker keeps keys of its own
        assert len(keys) == 1000  # one record a task, none expired before its TTL
        async with redis.pipeline(transaction=False) as pipe:
            for key in every:
                pipe.pttl(key)
            ttls = await pipe.execute()
        assert min(ttls) > 0, "a key without a TTL"  # -1: none, -2: gone
        task_ttls = [ttl for key, ttl in zip(every, ttls, strict=True) if b":task:" in key]
        assert max(task_ttls) <= ttl_ms  # each expires within the configured TTL (Redis's job)
        print(f"1000 tasks created in {created:.1f} s, all completed in {took:.1f} s")
    finally:
        await redis.aclose()
