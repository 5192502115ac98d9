"""Redis fails over under real server processes: nothing accepted or acknowledged is lost.

A master, a replica and 3 Sentinels of the test's own (support.redis_topology), two uvicorn
processes of tasks_app.py on the ``redis+sentinel://`` URL, a listen stream and a GET stream
on each subscribed to 400 resources, one client updating one resource after another
(``touch``: answered once the notification is published) and 4 clients creating short tasks,
while the master goes: a planned ``SENTINEL FAILOVER`` (the old master keeps accepting writes
until Sentinel demotes it, then flushes them: issue 47), or a ``kill -9``. What must hold:
every task the server accepted reads back ``completed`` with its result (0 lost, 0 "the
process stopped"; on main 111 of 233 were lost); every acknowledged update reached every
stream, once (on main a ``kill -9`` lost 21 to 23 of 47 on each); every other answer is 503
with ``Retry-After``. The same with the master of the notice stream's slot of a 3+3 Redis
Cluster SIGKILLed, and a cluster write waits for its master's replica. Marked long; run by
make test-cluster (make test-long leaves this module out).
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import httpx
import pytest

from support.client import ModernClient
from support.redis_topology import OwnCluster, OwnSentinel, admins
from support.tasks_process import TasksProcess

TASKS: Final = {"extensions": {"io.modelcontextprotocol/tasks": {}}}
SECRET: Final = "redis-failover-test-secret-0123456789abcdefgh"
TERMINAL: Final = {"completed", "failed", "cancelled"}

pytestmark = [pytest.mark.long, pytest.mark.timeout(240)]  # a Sentinel switch under load


def serving(redis_url: str, root: Path) -> TasksProcess:
    """One uvicorn process of tasks_app.py on ``redis_url``, answering."""
    started = TasksProcess(redis_url, prefix="failover:", root=root, secret=SECRET)
    started.wait_ready()
    return started


@pytest.fixture
def sentinel() -> Iterator[OwnSentinel]:
    started = OwnSentinel(sentinels=3).start()
    try:
        yield started
    finally:
        started.close()


class Load:
    """Clients creating 0.2 s tasks back to back: what was accepted, what was refused."""

    def __init__(self) -> None:
        self.accepted: list[str] = []
        self.refused: list[tuple[int, str | None]] = []
        self.running = True

    async def create(self, on: ModernClient, worker: int) -> None:
        n = 0
        while self.running:
            n += 1
            arguments = {"s": 0.2, "label": f"{worker}-{n}"}
            reply = await on.request(
                "tools/call", {"name": "work", "arguments": arguments}, capabilities=TASKS
            )
            if reply.status == 200 and reply.error is None:
                assert reply.result["resultType"] == "task", reply.body
                self.accepted.append(reply.result["taskId"])
                await asyncio.sleep(0.02)  # a steady load, not thousands of tasks to read back
            else:
                self.refused.append((reply.status, reply.headers.get("retry-after")))
                await asyncio.sleep(0.05)


async def read_back(on: ModernClient, task_id: str) -> dict[str, Any]:
    """The task once terminal (503s retried, as a client would); its record or the error."""
    deadline = time.monotonic() + 30
    while True:
        reply = await on.request("tasks/get", {"taskId": task_id}, capabilities=TASKS)
        if reply.status == 200 and reply.error is not None:
            return {"status": "lost", "error": reply.error}
        if reply.status == 200 and reply.result["status"] in TERMINAL:
            result: dict[str, Any] = reply.result
            return result
        assert reply.status in (200, 503), reply.body
        assert time.monotonic() < deadline, f"{task_id} not terminal: {reply.body!r}"
        await asyncio.sleep(0.1)


def outcome(load: Load, tasks: list[dict[str, Any]]) -> None:
    bad = [task for task in tasks if task["status"] != "completed"]
    print(f"{len(tasks)} accepted, {len(load.refused)} refused, {len(bad)} lost or failed")
    assert bad == [], bad[:3]
    assert all(status == 503 and after == "1" for status, after in load.refused), load.refused


# -- notifications across a failover --------------------------------------------------------

NOTES: Final = 400
"""How many ``note://n/<k>`` resources the streams subscribe to: the most updates one run sends."""
ACCEPT: Final = "application/json, text/event-stream"


def note(k: int) -> str:
    return f"note://n/{k}"


class Stream:
    """One open stream's ``resources/updated`` URIs, in the order they came."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.uris: list[str] = []
        self.done = asyncio.Event()

    def take(self, message: Any) -> None:
        if isinstance(message, dict) and message.get("method") == "notifications/resources/updated":
            uri = message["params"]["uri"]
            self.uris.append(uri)
            if uri == note(NOTES - 1):  # the end mark: published last
                self.done.set()


async def listen(app: TasksProcess, stream: Stream, ready: asyncio.Event) -> None:
    """A 2026-07-28 ``subscriptions/listen`` on ``app`` naming every note."""
    wanted = {"notifications": {"resourceSubscriptions": [note(k) for k in range(NOTES)]}}
    async with ModernClient(app.url, validate=False, timeout=120) as on:
        async with on.stream("subscriptions/listen", wanted, id=stream.name) as exchange:
            assert exchange.status == 200
            async for message in exchange:
                if message.get("method") == "notifications/subscriptions/acknowledged":
                    ready.set()
                stream.take(message)


async def get_stream(app: TasksProcess, stream: Stream, ready: asyncio.Event) -> None:
    """A 2025-11-25 session on ``app`` subscribed to every note, and its GET stream."""
    from support.legacy_http import open_session
    from support.sse import SSEEvent, SSEParser

    url = app.url + "/mcp"
    async with httpx.AsyncClient(timeout=httpx.Timeout(10, read=120)) as http:
        headers = await open_session(http, url, initialized=True)
        for first in range(0, NOTES, 50):
            replies = await asyncio.gather(*(
                http.post(url, headers=headers, json={"jsonrpc": "2.0", "id": k,
                          "method": "resources/subscribe", "params": {"uri": note(k)}})
                for k in range(first, min(first + 50, NOTES))
            ))  # fmt: skip
            assert all(r.status_code == 200 and "error" not in r.json() for r in replies)
        async with http.stream("GET", url, headers=headers) as response:
            assert response.status_code == 200
            parser = SSEParser()
            async for chunk in response.aiter_bytes():
                for event in parser.feed(chunk):
                    if isinstance(event, SSEEvent):
                        ready.set()  # the priming event: the stream follows the log
                        if event.data:
                            stream.take(json.loads(event.data))


class Touches:
    """``touch`` calls in order: which the server acknowledged (200, a result)."""

    def __init__(self) -> None:
        self.acked: list[str] = []
        self.refused: list[tuple[int, str | None]] = []
        self.running = True
        self.sent = 0

    async def run(self, on: ModernClient) -> None:
        while self.running and self.sent < NOTES - 1:
            await self.touch(on, self.sent)
            self.sent += 1
            await asyncio.sleep(0.03)

    async def touch(self, on: ModernClient, k: int) -> None:
        reply = await on.request("tools/call", {"name": "touch", "arguments": {"k": k}})
        if reply.status == 200 and reply.error is None:
            assert reply.result["content"][0]["text"] == "touched", reply.body
            self.acked.append(note(k))
        else:
            self.refused.append((reply.status, reply.headers.get("retry-after")))


@pytest.fixture
def apps(sentinel: OwnSentinel) -> Iterator[list[TasksProcess]]:
    started: list[TasksProcess] = []
    try:
        started += [serving(sentinel.url, sentinel.root) for _ in range(2)]
        yield started
    finally:
        for app in started:
            app.stop()


async def notified_across(
    apps: list[TasksProcess], fault: Any, settle: Any, tasks_on: TasksProcess | None = None
) -> None:
    """Listen and GET streams on both processes, ``touch`` calls to the first (and 0.2 s
    tasks created from 4 clients on ``tasks_on``); ``fault()`` after 1 s of them, ``settle()``
    until the topology is whole, 1 s more, then the end mark. Every acknowledged update
    reached every stream, once; every accepted task completed; every refusal was a 503."""
    streams = [Stream(f"{kind}-{n}") for n in range(len(apps)) for kind in ("listen", "get")]
    readies = [asyncio.Event() for _ in streams]
    openers = [listen, get_stream]
    readers = [
        asyncio.create_task(openers[i % 2](apps[i // 2], stream, ready))
        for i, (stream, ready) in enumerate(zip(streams, readies, strict=True))
    ]
    try:
        async with asyncio.timeout(60):
            await asyncio.gather(*(ready.wait() for ready in readies))
        touches, load = Touches(), Load()
        async with (
            ModernClient(apps[0].url, validate=False, timeout=60) as on,
            ModernClient((tasks_on or apps[0]).url, validate=False, timeout=30) as tasker,
        ):
            publisher = asyncio.create_task(touches.run(on))
            workers = [asyncio.create_task(load.create(tasker, n)) for n in range(4)]
            if tasks_on is None:
                load.running = False
            await asyncio.sleep(1.0)
            before, tasks_before = len(touches.acked), len(load.accepted)
            await asyncio.to_thread(fault)
            await asyncio.to_thread(settle)
            await asyncio.sleep(1.0)
            touches.running = load.running = False
            await asyncio.gather(publisher, *workers)
            assert before > 0 and len(touches.acked) > before, "no updates on both sides"
            if tasks_on is not None:
                assert 0 < tasks_before < len(load.accepted), "no tasks on both sides"
                tasks = await asyncio.gather(*(read_back(tasker, t) for t in load.accepted))
                outcome(load, tasks)
            assert touches.sent < NOTES - 1, "more updates than notes: raise NOTES"
            while note(NOTES - 1) not in touches.acked:  # the end mark, after all the others
                await touches.touch(on, NOTES - 1)
                await asyncio.sleep(0.1)
        try:  # a hang guard: the end mark reaches every stream (what did not is reported)
            async with asyncio.timeout(60):
                await asyncio.gather(*(stream.done.wait() for stream in streams))
        except TimeoutError:
            pass
    finally:
        for reader in readers:
            reader.cancel()
        await asyncio.gather(*readers, return_exceptions=True)
    report = {}
    for stream in streams:
        got = set(stream.uris)
        lost = [uri for uri in touches.acked if uri not in got]
        twice = sorted({uri for uri in stream.uris if stream.uris.count(uri) > 1})
        report[stream.name] = (len(stream.uris), lost, twice)
    counts = {name: (n, len(lost), len(twice)) for name, (n, lost, twice) in report.items()}
    print(f"{len(touches.acked)} acknowledged, {len(touches.refused)} refused;", counts)
    assert all(not lost and not twice for _, lost, twice in report.values()), report
    assert all(status == 503 and after == "1" for status, after in touches.refused), touches.refused


async def test_a_planned_sentinel_failover_loses_no_accepted_task_nor_notification(
    sentinel: OwnSentinel, apps: list[TasksProcess]
) -> None:
    old = sentinel.master_port()
    assert old is not None

    def demoted() -> None:  # Sentinel turned the old master into a replica: it flushed
        sentinel.wait_failover(old)
        deadline = time.monotonic() + 30
        while "role:slave" not in sentinel.info(old) or "master_link_status:up" not in (
            sentinel.info(old)
        ):
            assert time.monotonic() < deadline, "the old master was never demoted"
            time.sleep(0.1)

    await notified_across(apps, sentinel.failover, demoted, tasks_on=apps[1])


async def test_a_sentinel_master_killed_loses_no_accepted_task_nor_notification(
    sentinel: OwnSentinel, apps: list[TasksProcess]
) -> None:
    old = sentinel.master_port()
    assert old is not None
    settle = lambda: sentinel.wait_failover(old)  # noqa: E731
    await notified_across(apps, sentinel.kill_master, settle, tasks_on=apps[1])


def sentinel_flags(on: Any, service: str) -> tuple[str, list[str]]:
    """A Sentinel's flags of ``service``'s master and of each of its replicas."""
    master: Any = on.sentinel_master(service)
    replicas: Any = on.sentinel_slaves(service)
    return str(master["flags"]), [str(replica["flags"]) for replica in replicas]


def promotable(replica: dict[str, Any]) -> bool:
    """Whether Sentinel would promote ``replica``: its own ``INFO`` read, a few s ago."""
    return replica.get("master-link-status") == "ok" and int(replica["info-refresh"]) < 5000


async def test_a_write_to_a_master_being_failed_over_is_not_acknowledged_without_a_replica() -> (
    None
):
    # A planned failover whose chosen replica is starved of CPU (stopped here): Sentinel is
    # promoting it, the master still takes writes and its replica acknowledges none. The
    # master is not "alone" (on main it was, its replica being down: the write was kept
    # without WAIT, to be flushed with the master's demotion): a 503, nothing acknowledged.
    import redis

    from genmcp.storage import Lease
    from genmcp.storage.guard import StorageUnavailable
    from genmcp.storage.redis import RedisTaskStore

    sentinel = OwnSentinel(sentinels=1).start()
    assert sentinel.sentinel is not None and sentinel.replica is not None
    replica = sentinel.replica.process
    assert replica is not None
    on = redis.Redis(port=sentinel.sentinel.port, socket_timeout=2)
    store = RedisTaskStore.from_url(sentinel.url, prefix="moving:")
    record: dict[str, Any] = {"lastUpdatedAt": "2026-12-07T00:00:00Z", "ttlMs": 60_000}
    try:
        await store.create({**record, "taskId": "before"}, Lease("me", 5000))
        on.sentinel_set(sentinel.service, "failover-timeout", 120_000)  # no abort meanwhile
        # until Sentinel has read the replica (the module's pytest timeout ends a hang)
        while True:
            if all(promotable(r) for r in on.sentinel_slaves(sentinel.service)):
                break
            await asyncio.sleep(0.05)
        sentinel.failover()  # its replica chosen (at once), then told to take over (later):
        os.kill(replica.pid, signal.SIGSTOP)  # it never gets to it
        try:
            while True:  # Sentinel marks it down in 0.5 s (the pytest timeout ends a hang)
                flags, replicas = sentinel_flags(on, sentinel.service)
                if "failover_in_progress" in flags and all("s_down" in r for r in replicas):
                    break
                await asyncio.sleep(0.05)
            with pytest.raises(StorageUnavailable):
                await store.create({**record, "taskId": "during"}, Lease("me", 5000))
            assert "failover_in_progress" in sentinel_flags(on, sentinel.service)[0]
        finally:
            os.kill(replica.pid, signal.SIGCONT)
    finally:
        await store.aclose()
        on.close()
        sentinel.close()


# -- a Redis Cluster with replicas: WAIT on the master of each write's key ------------------


def wait_calls(url: str) -> int:
    """``WAIT`` commands every master of ``url`` ran."""
    total = 0
    for node in admins(url):
        try:
            total += int(node.info("commandstats").get("cmdstat_wait", {"calls": 0})["calls"])
        finally:
            node.close()
    return total


async def test_a_cluster_write_is_acknowledged_once_its_masters_replica_has_it() -> None:
    from redis.crc import key_slot

    from genmcp.storage import Lease
    from genmcp.storage.guard import StorageUnavailable
    from genmcp.storage.redis import RedisOptions, RedisTaskStore

    cluster = OwnCluster(masters=3, replicas=1).start()
    # A replica starved of CPU (a loaded CI machine) may ack later than the default 0.3 s:
    # that is a 503 by design, not what this test is about; the stopped replica below never
    # acks, whatever the wait.
    roomy = RedisOptions(replica_timeout_s=5.0, deadline_s=15.0)
    store = RedisTaskStore.from_url(cluster.url, prefix="ack:", options=roomy)
    record: dict[str, Any] = {"lastUpdatedAt": "2026-12-07T00:00:00Z", "ttlMs": 60_000}
    try:
        await store.create({**record, "taskId": "warm"}, Lease("me", 5000))  # loaded
        before = wait_calls(cluster.url)
        for n in range(5):
            await store.create({**record, "taskId": f"t{n}"}, Lease("me", 5000))
        assert wait_calls(cluster.url) - before == 5  # one WAIT per write, on its master
        # The replica of t9's master stops answering: the write is not acknowledged (503).
        master = cluster.master_of(key_slot(store.key("t9").encode()))
        replica = next(
            node
            for node in cluster.nodes
            if f"master_port:{master.port}" in cluster_info(node.port)
        )
        assert replica.process is not None
        os.kill(replica.process.pid, signal.SIGSTOP)
        try:
            with pytest.raises(StorageUnavailable):
                await store.create({**record, "taskId": "t9"}, Lease("me", 5000))
        finally:
            os.kill(replica.process.pid, signal.SIGCONT)
        # The master killed: its replica takes over, alone; writes go there (MOVED followed,
        # 503 meanwhile) and are kept without a replica to wait for.
        cluster.kill_master(key_slot(store.key("t10").encode()))
        await asyncio.to_thread(cluster.wait_failover, key_slot(store.key("t10").encode()))
        deadline = time.monotonic() + 30
        while True:
            try:
                await store.create({**record, "taskId": "t10"}, Lease("me", 5000))
                break
            except StorageUnavailable:
                assert time.monotonic() < deadline, "the new master never took writes"
                await asyncio.sleep(0.2)
        lost = {"message": "lost"}
        assert (await store.get("t10", lost=lost) or {}).get("status") == "working"
    finally:
        await store.aclose()
        cluster.close()


async def test_a_new_session_epoch_is_copied_into_every_bucket_with_a_wait_on_each_master() -> (
    None
):
    # a bucket's copy lost in a failover ends that bucket's sessions (404): the copies are
    # acknowledged like every other session write (they waited for no replica on a cluster)
    from genmcp.storage.redis import RedisOptions, RedisSessionRegistry

    cluster = OwnCluster(masters=3, replicas=1).start()
    roomy = RedisOptions(replica_timeout_s=5.0, deadline_s=15.0)  # a starved replica: no 503
    registry = RedisSessionRegistry.from_url(cluster.url, prefix="copies:", options=roomy)
    warm = RedisSessionRegistry.from_url(cluster.url, prefix="warm:", options=roomy)
    try:
        await warm.epoch(ttl_s=60)  # the scripts loaded (a NOSCRIPT retry is a second WAIT)
        before = wait_calls(cluster.url)
        epoch = await registry.epoch(ttl_s=60)
        waited = wait_calls(cluster.url) - before
        assert waited == 2 + 3  # the epoch, its copies (one WAIT per master), ready
        assert await registry.lookup("s1", epoch, ()) == {}
    finally:
        await registry.aclose()
        await warm.aclose()
        cluster.close()


def cluster_info(port: int) -> str:
    """``INFO replication`` of one node ('' when it does not answer)."""
    import redis

    client = redis.Redis(port=port, socket_timeout=1)
    try:
        return "\n".join(f"{k}:{v}" for k, v in client.info("replication").items())
    except redis.RedisError:
        return ""
    finally:
        client.close()


async def test_a_cluster_master_killed_loses_no_acknowledged_notification() -> None:
    """The master of the notice stream's slot (the pub/sub slot, ``{p}``) SIGKILLed."""
    from redis.crc import key_slot

    cluster = OwnCluster(masters=3, replicas=1).start()
    apps: list[TasksProcess] = []
    try:
        apps += [serving(cluster.url, cluster.root) for _ in range(2)]
        slot = key_slot(b"failover:{p}notices")
        await notified_across(
            apps, lambda: cluster.kill_master(slot), lambda: cluster.wait_failover(slot)
        )
    finally:
        for app in apps:
            app.stop()
        cluster.close()
