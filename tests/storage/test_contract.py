"""One contract for every `genmcp.storage` implementation: memory, and Redis (a real one).

Each test takes `backend`, parametrized over the bundles (`genmcp.storage.Stores`:
`MemoryStores`, `RedisStores`), and takes each store from a bundle: `backend.stores()` gives
a bundle on one shared store (for memory always the same one, for Redis a new one on its own
client each time, as two processes of one app would have); `backend.broker()`,
`backend.registry()` and `backend.tasks()` are the store of a new bundle. The Redis
params skip when no Redis answers, and fail instead when `CI` is set (see tests/conftest.py).
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import uuid
from collections.abc import AsyncIterator
from typing import Any, Final

import pytest

from genmcp.storage import Broker, SessionRegistry, Stores, Subscription, TaskStore
from genmcp.storage.buckets import Buckets
from genmcp.storage.memory import MemoryStores

WAIT: Final = 5.0
QUIET: Final = 0.1
"""How long a test waits to be sure that nothing arrives."""
JSON_VALUES: Final[list[Any]] = [
    None,
    True,
    0,
    -7,
    2.5,
    "",
    "café ✓ \u2028",
    "lone \ud800 surrogate",
    [],
    [1, "two", None, [3]],
    {},
    {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"},
    {"nested": {"list": [{"a": 1}], "text": "x"}},
]


class Backend:
    """Makes bundles on one shared store, closes them all at teardown."""

    def __init__(self, name: str, url: str | None = None, prefix: str | None = None) -> None:
        self.name, self.url, self.prefix = name, url, prefix
        self.bundles: list[Stores] = []
        self.client_names: list[str] = []
        self._memory = MemoryStores()

    def stores(self) -> Any:
        """A bundle: the memory one, or new Redis stores on their own (named) client."""
        if self.name == "memory":
            return self._memory
        from genmcp.storage.redis import RedisStores

        name = f"genmcp-test-{uuid.uuid4().hex[:12]}"
        self.client_names.append(name)
        made = RedisStores.from_url(self.url or "", prefix=self.prefix or "", client_name=name)
        self.bundles.append(made)
        return made

    def broker(self) -> Any:
        return self.stores().broker

    def registry(self) -> Any:
        return self.stores().registry

    def tasks(self) -> Any:
        return self.stores().tasks

    async def aclose(self) -> None:
        for bundle in [self._memory, *self.bundles]:
            await bundle.aclose()


@pytest.fixture(params=["memory", "redis"])
async def backend(request: pytest.FixtureRequest) -> AsyncIterator[Backend]:
    if request.param == "memory":
        made = Backend("memory")
    else:
        made = Backend(
            "redis", request.getfixturevalue("redis_url"), request.getfixturevalue("redis_prefix")
        )
    try:
        yield made
    finally:
        await made.aclose()


def session() -> str:
    return uuid.uuid4().hex


async def receive(subscription: Subscription) -> tuple[str, Any]:
    return await asyncio.wait_for(subscription.receive(), WAIT)


async def nothing_arrives(subscription: Subscription) -> None:
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(subscription.receive(), QUIET)


async def subscribed(broker: Broker, *topics: str) -> Subscription:
    subscription = broker.subscribe(*topics)
    await asyncio.wait_for(subscription.ready(), WAIT)
    return subscription


# -- SessionRegistry ---------------------------------------------------------------------


async def test_implementations_satisfy_the_protocols(backend: Backend) -> None:
    stores = backend.stores()
    assert isinstance(stores, Stores)
    assert isinstance(stores.registry, SessionRegistry)
    assert isinstance(stores.tasks, TaskStore)
    assert isinstance(stores.buckets, Buckets)
    assert isinstance(stores.broker, Broker)
    assert isinstance(await subscribed(stores.broker, "t"), Subscription)


async def test_the_buckets_of_every_bundle_are_one_budget(backend: Backend) -> None:
    handles, key = [backend.stores().buckets for _ in range(3)], f"rl-{session()}"
    taken = [await handles[n % 3].take(key, 0.001, 4) for n in range(6)]
    assert [each.ok for each in taken] == [True] * 4 + [False] * 2
    assert (await handles[0].take(f"rl-{session()}", 0.001, 4)).ok  # another key: full


@pytest.mark.parametrize("value", JSON_VALUES, ids=repr)
async def test_a_put_value_is_read_back_equal(backend: Backend, value: Any) -> None:
    writer, reader, key = backend.registry(), backend.registry(), session()
    await writer.put(key, "field", value, 10)
    assert await reader.get(key, "field") == value


async def test_fields_are_per_session_and_name_and_a_put_overwrites(backend: Backend) -> None:
    registry, one, two = backend.registry(), session(), session()
    assert await registry.get(one, "log_level") is None
    await registry.put(one, "log_level", "debug", 10)
    await registry.put(one, "other", 1, 10)
    await registry.put(two, "log_level", "error", 10)
    await registry.put(one, "log_level", "info", 10)
    assert await registry.get(one, "log_level") == "info"
    assert await registry.get(one, "other") == 1
    assert await registry.get(two, "log_level") == "error"
    assert await registry.get(one, "missing") is None


async def test_ending_a_session_marks_it_and_drops_its_fields(backend: Backend) -> None:
    registry, other, key = backend.registry(), backend.registry(), session()
    bystander = session()
    await registry.put(key, "log_level", "info", 10)
    await registry.add(key, "resources", "test://a", 10)
    await registry.put(bystander, "log_level", "info", 10)
    assert not await other.is_ended(key)
    await registry.end(key, 10)
    assert await other.is_ended(key)
    assert await other.get(key, "log_level") is None
    assert await other.members(key, "resources") == frozenset()
    assert not await other.is_ended(bystander)
    assert await other.get(bystander, "log_level") == "info"


async def test_an_end_mark_expires_after_its_ttl(backend: Backend) -> None:
    registry, key = backend.registry(), session()
    await registry.end(key, 0.2)
    assert await registry.is_ended(key)
    await asyncio.sleep(0.35)
    assert not await registry.is_ended(key)


async def test_fields_expire_together_after_the_last_writes_ttl(backend: Backend) -> None:
    registry, key = backend.registry(), session()
    await registry.put(key, "a", 1, 0.2)
    await registry.add(key, "set", "m", 0.2)
    await registry.put(key, "b", 2, 0.6)  # every write sets the expiry of all the fields
    await asyncio.sleep(0.35)
    assert (await registry.get(key, "a"), await registry.get(key, "b")) == (1, 2)
    assert await registry.members(key, "set") == {"m"}
    await asyncio.sleep(0.45)
    assert (await registry.get(key, "a"), await registry.get(key, "b")) == (None, None)
    assert await registry.members(key, "set") == frozenset()


async def test_a_ttl_of_zero_is_already_expired(backend: Backend) -> None:
    registry, key = backend.registry(), session()
    await registry.put(key, "a", 1, 10)
    await registry.put(key, "b", 2, 0)
    assert (await registry.get(key, "a"), await registry.get(key, "b")) == (None, None)
    await registry.add(key, "set", "m", 0)
    assert await registry.members(key, "set") == frozenset()
    await registry.end(key, 0)
    assert not await registry.is_ended(key)


async def test_set_fields_add_and_discard_members(backend: Backend) -> None:
    registry, key = backend.registry(), session()
    assert await registry.members(key, "resources") == frozenset()
    uris = ["test://a", "file:///tmp/b c.txt", 'weird:"quoted":[1]', "ünï://€", "x:\udfff"]
    for uri in [*uris, uris[0]]:
        await registry.add(key, "resources", uri, 10)
    await registry.add(key, "res", "test://other-set", 10)
    await registry.add(key, "resources:x", "test://colon-name", 10)
    assert await registry.members(key, "resources") == frozenset(uris)
    await registry.discard(key, "resources", uris[1], 10)
    await registry.discard(key, "resources", "test://never-added", 10)
    await registry.discard(session(), "resources", "test://no-session", 10)
    assert await registry.members(key, "resources") == frozenset(uris) - {uris[1]}
    assert await registry.members(key, "res") == {"test://other-set"}
    assert await registry.members(key, "resources:x") == {"test://colon-name"}


async def test_value_and_set_fields_of_one_name_live_apart(backend: Backend) -> None:
    registry, key = backend.registry(), session()
    await registry.put(key, "resources", ["test://value"], 10)
    await registry.add(key, "resources", "test://member", 10)
    assert await registry.get(key, "resources") == ["test://value"]
    assert await registry.members(key, "resources") == {"test://member"}


async def test_concurrent_set_updates_from_several_handles_lose_nothing(
    backend: Backend,
) -> None:
    handles, key = [backend.registry() for _ in range(4)], session()
    for n in range(0, 40, 2):
        await handles[0].add(key, "resources", f"test://{n}", 10)
    adds = [handles[n % 4].add(key, "resources", f"test://{n}", 10) for n in range(1, 40, 2)]
    drops = [handles[n % 4].discard(key, "resources", f"test://{n}", 10) for n in range(0, 40, 4)]
    await asyncio.gather(*adds, *drops)
    expected = {f"test://{n}" for n in range(40) if n % 4 != 0}
    assert await handles[3].members(key, "resources") == expected


# -- Broker ------------------------------------------------------------------------------


@pytest.mark.parametrize("message", JSON_VALUES, ids=repr)
async def test_a_published_message_reaches_a_subscriber_equal(
    backend: Backend, message: Any
) -> None:
    subscription = await subscribed(backend.broker(), "topic")
    await backend.broker().publish("topic", message)
    assert await receive(subscription) == ("topic", message)


async def test_a_subscription_receives_its_topics_in_publish_order(backend: Backend) -> None:
    broker, publisher = backend.broker(), backend.broker()
    subscription = await subscribed(broker, "a", "b")
    for n in range(50):
        await publisher.publish("ab"[n % 2], n)
    await publisher.publish("c", "not subscribed")
    assert [await receive(subscription) for _ in range(50)] == [("ab"[n % 2], n) for n in range(50)]
    await nothing_arrives(subscription)


async def test_every_subscriber_of_a_topic_receives_each_message(backend: Backend) -> None:
    subscriptions = [await subscribed(backend.broker(), "t") for _ in range(3)]
    subscriptions.append(await subscribed(backend.broker(), "t", "u"))
    await backend.broker().publish("t", {"n": 1})
    for subscription in subscriptions:
        assert await receive(subscription) == ("t", {"n": 1})


async def test_a_message_without_subscribers_is_dropped(backend: Backend) -> None:
    broker = backend.broker()
    await broker.publish("early", "nobody listens")
    subscription = await subscribed(broker, "early")
    await broker.publish("early", "late")
    assert await receive(subscription) == ("early", "late")
    await nothing_arrives(subscription)


async def test_a_closed_subscription_receives_nothing_more(backend: Backend) -> None:
    broker = backend.broker()
    closing = await subscribed(broker, "t")
    staying = await subscribed(broker, "t")
    closing.close()
    closing.close()  # idempotent
    await backend.broker().publish("t", "after close")
    assert await receive(staying) == ("t", "after close")  # dispatched...
    await nothing_arrives(closing)  # ...but not to the closed one
    staying.close()
    assert broker.topics == 0
    again = await subscribed(broker, "t")  # the topic can be subscribed again
    await backend.broker().publish("t", "again")
    assert await receive(again) == ("t", "again")
    again.close()
    assert broker.topics == 0


async def test_unsubscribing_and_resubscribing_at_once_loses_no_later_message(
    backend: Backend,
) -> None:
    broker = backend.broker()
    for n in range(5):
        broker.subscribe("flap").close()  # never awaited: SUBSCRIBE and UNSUBSCRIBE queue up
        subscription = await subscribed(broker, "flap")
        await backend.broker().publish("flap", n)
        assert await receive(subscription) == ("flap", n)
        subscription.close()


async def test_concurrent_publishers_reach_concurrent_subscribers(backend: Backend) -> None:
    publishers = [backend.broker() for _ in range(4)]
    subscriptions = await asyncio.gather(
        *(asyncio.wait_for(subscribed(backend.broker(), "load"), WAIT) for _ in range(4))
    )

    async def publish(who: int) -> None:
        for n in range(25):
            await publishers[who].publish("load", [who, n])

    async def collect(subscription: Subscription) -> list[Any]:
        return [(await receive(subscription))[1] for _ in range(100)]

    collected, _ = await asyncio.gather(
        asyncio.gather(*(collect(s) for s in subscriptions)),
        asyncio.gather(*(publish(who) for who in range(4))),
    )
    for messages in collected:
        assert sorted(map(tuple, messages)) == [(w, n) for w in range(4) for n in range(25)]
        for who in range(4):  # each publisher's messages arrive in its order
            assert [n for w, n in messages if w == who] == list(range(25))


async def test_aclose_closes_subscriptions_ends_tasks_and_connections(backend: Backend) -> None:
    stores = backend.stores()
    broker = stores.broker
    subscriptions = [await subscribed(broker, "t", f"u{n}") for n in range(3)]
    await broker.publish("t", 1)
    assert all([await receive(s) == ("t", 1) for s in subscriptions])
    await broker.aclose()
    await broker.aclose()  # idempotent
    assert broker.topics == 0
    left = [t.get_name() for t in asyncio.all_tasks() if t.get_name().startswith("genmcp:")]
    assert left in ([], ["genmcp:sentinel-switch"])  # the shared client's, under Sentinel
    if backend.name == "redis":
        with pytest.raises(RuntimeError, match="closed"):
            broker.subscribe("t")
    await stores.aclose()  # the bundle: its parts, then the client they share
    assert [t for t in asyncio.all_tasks() if t.get_name().startswith("genmcp:")] == []
    if backend.name == "redis":
        assert connected_clients(backend, backend.client_names[0]) == 0


def connected_clients(backend: Backend, name: str) -> int:
    from support.redis_topology import connections_named

    return connections_named(backend.url or "", name)  # on every master of a cluster


# -- Redis only ----------------------------------------------------------------------------


async def test_redis_prefixes_keep_apps_apart(redis_url: str, redis_prefix: str) -> None:
    from genmcp.storage.redis import RedisBroker, RedisSessionRegistry

    mine, theirs = redis_prefix, f"{redis_prefix}other:"
    brokers = [RedisBroker.from_url(redis_url, prefix=p) for p in (mine, theirs)]
    registries = [RedisSessionRegistry.from_url(redis_url, prefix=p) for p in (mine, theirs)]
    try:
        listening = [await subscribed(broker, "t") for broker in brokers]
        await brokers[0].publish("t", "mine")
        assert await receive(listening[0]) == ("t", "mine")
        await nothing_arrives(listening[1])
        key = session()
        await registries[0].put(key, "log_level", "info", 10)
        await registries[0].add(key, "resources", "test://a", 10)
        await registries[0].end(session(), 10)
        assert await registries[1].get(key, "log_level") is None
        assert await registries[1].members(key, "resources") == frozenset()
        await registries[0].end(key, 10)
        assert not await registries[1].is_ended(key)
    finally:
        for handle in [*brokers, *registries]:
            await handle.aclose()


async def test_a_redis_broker_resubscribes_after_losing_its_connection(
    redis_url: str, redis_prefix: str
) -> None:
    from genmcp.storage.redis import RedisBroker
    from support.redis_topology import admins

    name = f"genmcp-test-{uuid.uuid4().hex[:12]}"
    broker = RedisBroker.from_url(redis_url, prefix=redis_prefix, client_name=name)
    try:
        subscription = await subscribed(broker, "t")
        killed = []
        for admin in admins(redis_url):  # the node the pub/sub connection is on
            try:
                mine = [c["id"] for c in admin.client_list() if c.get("name") == name]
                for client_id in mine:
                    admin.client_kill_filter(_id=client_id)
                killed += mine
            finally:
                admin.close()
        assert killed
        for n in range(50):  # what is published during the outage is lost; then it flows
            await broker.publish("t", n)
            try:
                topic, _ = await asyncio.wait_for(subscription.receive(), QUIET)
            except TimeoutError:
                continue
            assert topic == "t"
            break
        else:
            pytest.fail("the subscription never received again after the connection was lost")
    finally:
        await broker.aclose()
    assert [t for t in asyncio.all_tasks() if t.get_name().startswith("genmcp:")] == []


async def test_ready_fails_fast_with_storage_unavailable_when_redis_is_unreachable() -> None:
    pytest.importorskip("redis")
    from genmcp.storage.guard import StorageUnavailable
    from genmcp.storage.redis import RedisBroker

    broker = RedisBroker.from_url(
        "redis://127.0.0.1:1/0", ready_timeout_s=60, socket_connect_timeout=0.1
    )  # the 60 s confirmation wait is not what bounds it (WAIT would fail first): the breaker is
    try:
        with pytest.raises(StorageUnavailable, match="redis is unreachable"):
            await asyncio.wait_for(broker.subscribe("t").ready(), WAIT)
        with pytest.raises(StorageUnavailable, match="failing"):  # the breaker is open
            await broker.subscribe("u").ready()
    finally:
        await asyncio.wait_for(broker.aclose(), WAIT)
    assert [t for t in asyncio.all_tasks() if t.get_name().startswith("genmcp:")] == []


def test_importing_the_redis_module_without_redis_says_what_to_install() -> None:
    code = "import sys; sys.modules['redis'] = None; import genmcp.storage.redis"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode != 0
    assert "ImportError: genmcp.storage.redis needs the redis package: " in run.stderr
    assert "pip install 'genmcp[redis]'" in run.stderr


# -- the scale-out seams: lookup and epoch, inboxes, event logs (both backends) ------------


async def test_lookup_answers_the_fields_of_a_live_session_of_this_epoch(backend: Backend) -> None:
    registry, key = backend.registry(), session()
    epoch = await registry.epoch(60)
    assert await backend.registry().epoch(60) == epoch  # one epoch for every process
    await registry.put(key, "log_level", "info", 10)
    assert await registry.lookup(key, epoch, ("log_level", "other")) == {
        "log_level": "info",
        "other": None,
    }
    assert await registry.lookup(key, epoch, ()) == {}
    assert await registry.lookup(key, "another-epoch", ("log_level",)) is None
    await registry.end(key, 10)
    assert await registry.lookup(key, epoch, ("log_level",)) is None


async def test_an_inbox_receives_what_is_delivered_to_its_address_only(backend: Backend) -> None:
    from genmcp.storage import Inboxes

    broker = backend.broker()
    assert isinstance(broker, Inboxes)
    address = uuid.uuid4().hex[:12]
    assert await broker.deliver(address, {"n": 0}) is False  # nobody has it open
    assert await broker.is_alive(address) is False
    inbox = broker.open_inbox(address)
    try:
        for _ in range(50):  # Redis: the first heartbeat is a round trip away
            if await broker.is_alive(address):
                break
            await asyncio.sleep(0.02)
        sent = [{"n": n, "text": "é"} for n in range(20)]
        assert [await broker.deliver(address, message) for message in sent] == [True] * 20
        assert [await asyncio.wait_for(inbox.receive(), WAIT) for _ in sent] == sent
    finally:
        inbox.close()
    for _ in range(50):
        if not await broker.is_alive(address):
            break
        await asyncio.sleep(0.02)
    assert await broker.deliver(address, {"n": 99}) is False  # closed: refused at once


async def test_an_event_log_keeps_order_and_its_bound(backend: Backend) -> None:
    from genmcp.storage import EventLog

    broker = backend.broker()
    assert isinstance(broker, EventLog)
    key = f"events:{session()}"
    assert await broker.last(key) is None
    ids = [await broker.append(key, {"m": str(n)}, 5, 10) for n in range(3)]
    assert await broker.last(key) == ids[-1]
    assert [entry["m"] for _, entry in await broker.read_after(key, "0")] == ["0", "1", "2"]
    assert [entry["m"] for _, entry in await broker.read_after(key, ids[0])] == ["1", "2"]
    assert await broker.read_after(key, ids[-1]) == []
    for n in range(3, 200):
        await broker.append(key, {"m": str(n)}, 5, 10)
    kept = await broker.read_after(key, "0")
    assert kept[-1][1] == {"m": "199"} and len(kept) <= 200 - 100  # MAXLEN ~: about 5
    assert await broker.read_after(f"events:{session()}", "0") == []


# -- task quotas: every TaskStore counts them the same way, atomically -----------------------

LOST: Final = {"code": -32603, "message": "lease lost"}


@pytest.fixture
def task_store(backend: Backend) -> Any:
    return backend.tasks()


async def new_task(store: Any, principal: str | None, quota: Any = None) -> str:
    from genmcp.protocol.tasks import new_record, new_task_id

    record = new_record(new_task_id(), principal, 60_000, 1000)
    await store.create(record, lease_ms=6_000, owner="p", quota=quota)
    return str(record["taskId"])


async def refused(store: Any, principal: str | None, quota: Any) -> Any:
    from genmcp.storage import TaskQuotaExceeded

    with pytest.raises(TaskQuotaExceeded) as caught:
        await new_task(store, principal, quota)
    return caught.value


async def test_live_tasks_per_owner_are_capped_and_an_ended_one_frees_its_place(
    task_store: Any,
) -> None:
    from genmcp.storage import TaskEnd, TaskQuota

    quota = TaskQuota(live_per_owner=3, created_per_window=0, max_live=0)
    alice = [await new_task(task_store, "alice", quota) for _ in range(3)]
    assert (await refused(task_store, "alice", quota)).limit == "live_per_owner"
    await new_task(task_store, "bob", quota)  # another owner's count
    await new_task(task_store, None, quota)  # the open server's one owner
    await task_store.finish(alice[0], TaskEnd("completed", result={}), "now")
    await new_task(task_store, "alice", quota)
    for task_id in alice[1:]:  # refusals touched no live task
        assert (await task_store.get(task_id, lost=LOST))["status"] == "working"


async def test_creations_per_window_are_capped_until_the_window_ends(task_store: Any) -> None:
    from genmcp.storage import TaskQuota

    quota = TaskQuota(live_per_owner=0, created_per_window=2, window_s=0.4, max_live=0)
    for _ in range(2):
        await new_task(task_store, "alice", quota)
    refusal = await refused(task_store, "alice", quota)
    assert refusal.limit == "created_per_window" and 0 < refusal.retry_after_s <= 0.4
    await new_task(task_store, "bob", quota)
    await asyncio.sleep(refusal.retry_after_s + 0.05)
    await new_task(task_store, "alice", quota)


async def test_all_owners_live_tasks_are_capped(task_store: Any) -> None:
    from genmcp.storage import TaskEnd, TaskQuota

    quota = TaskQuota(live_per_owner=0, created_per_window=0, max_live=2)
    first = await new_task(task_store, "a", quota)
    await new_task(task_store, "b", quota)
    assert (await refused(task_store, "c", quota)).limit == "max_live"
    await task_store.finish(first, TaskEnd("cancelled"), "now")
    await new_task(task_store, "c", quota)


async def test_filling_max_live_takes_a_thousand_owners_not_63(task_store: Any) -> None:
    """Issue 48, finding 14: owners that each take all they can fill the lower half of
    ``max_live`` at ``live_per_owner`` apiece, then the upper half one apiece
    (``crowded_per_owner``). With the defaults (32 per owner, 2,000 live) filling the cap takes
    31 + 1 + 1,000 owners (before: 63); here the same arithmetic on a tenth of the tasks (8 per
    owner, 200 live: 12 + 1 + 100 owners, before: 25), and until then a newcomer is served."""
    from genmcp.storage import TaskQuota, TaskQuotaExceeded

    quota = TaskQuota(live_per_owner=8, max_live=200)
    held: list[int] = []
    while True:
        owner, count = f"owner-{len(held)}", 0
        try:
            while count < quota.live_per_owner:
                await new_task(task_store, owner, quota)
                count += 1
        except TaskQuotaExceeded as exc:
            assert exc.limit in ("fair_share", "max_live")
            if exc.limit == "max_live":
                held.append(count)
                break
        held.append(count)
    assert sum(held) == quota.max_live
    assert held[:12] == [8] * 12 and held[12] == 100 - 12 * 8
    assert held[13:] == [1] * 100 and len(held) == 113


async def test_a_lost_lease_frees_the_owners_place(task_store: Any) -> None:
    from genmcp.protocol.tasks import new_record, new_task_id
    from genmcp.storage import TaskQuota

    quota = TaskQuota(live_per_owner=1, created_per_window=0, max_live=0)
    record = new_record(new_task_id(), "alice", 60_000, 1000)
    await task_store.create(record, lease_ms=30, owner="dead", quota=quota)
    assert (await refused(task_store, "alice", quota)).limit == "live_per_owner"
    await asyncio.sleep(0.06)
    assert (await task_store.get(record["taskId"], lost=LOST))["status"] == "failed"
    await new_task(task_store, "alice", quota)


async def test_a_full_memory_store_evicts_ended_records_never_a_live_task() -> None:
    from genmcp.storage import TaskEnd
    from genmcp.storage.memory import MemoryTaskStore

    store = MemoryTaskStore(max_tasks=200)
    bob = await new_task(store, "bob")  # running, the oldest record of all
    alice = [await new_task(store, "alice") for _ in range(199)]
    assert (await refused(store, "alice", None)).limit == "max_tasks"  # all 200 are live
    assert (await store.get(bob, lost=LOST))["status"] == "working"
    for task_id in alice[:50]:
        await store.finish(task_id, TaskEnd("completed", result={}), "now")
    for _ in range(50):  # room made from ended records, first ended first
        await new_task(store, "alice")
    assert (await store.get(bob, lost=LOST))["status"] == "working"
    assert [await store.get(t, lost=LOST) for t in alice[:50]] == [None] * 50
    assert None not in [await store.get(t, lost=LOST) for t in alice[50:]]
    assert len(store) == 200
