"""A Redis Cluster or a Sentinel-managed pair of the test's own, from Debian's redis-server.

`OwnCluster` starts ``masters`` cluster nodes (and ``replicas`` per master) with
``--cluster-enabled yes`` on free loopback ports and joins them with ``redis-cli --cluster
create``; its ``url`` is ``redis+cluster://host:port,host:port,...``. `OwnSentinel` starts a
master, one replica and one ``redis-server --sentinel`` watching them; its ``url`` is
``redis+sentinel://host:port/<service>/0``. Both use short timeouts (a failover in about a
second), no persistence, ``noeviction``; ``kill_master`` SIGKILLs a master by its pid, and
``close`` stops every process by its pid. Without redis-server (or redis-cli) the test is
skipped; with `CI` set it fails instead.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from support.redis_server import free_port, require_redis_server
from support.required import unavailable
from support.shared_redis import require_redis

__all__ = [
    "TOPOLOGY_ENV",
    "OwnCluster",
    "OwnSentinel",
    "admins",
    "delete_prefix",
    "redis_prefix",
    "redis_topology",
    "redis_url",
    "sync_client",
]

TOPOLOGY_ENV = "GENMCP_TEST_REDIS_TOPOLOGY"
"""``cluster`` or ``sentinel``: tests/storage runs on one started for the session."""

NODE_TIMEOUT_MS = 500
"""Cluster node timeout and Sentinel down-after: how long a dead master goes unnoticed."""


def _ask(port: int, *command: str, timeout: float = 1.0) -> str:
    """One command to 127.0.0.1:``port`` as an inline request; its raw reply ('' on failure)."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as conn:
            conn.sendall((" ".join(command) + "\r\n").encode())
            conn.settimeout(timeout)
            data = b""
            while not data.endswith(b"\r\n") or (data.startswith(b"$") and data.count(b"\r\n") < 2):
                chunk = conn.recv(65536)
                if not chunk:
                    break
                data += chunk
            return data.decode(errors="replace")
    except OSError:
        return ""


def _bindable(port: int) -> bool:
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def cluster_port() -> int:
    """A free port whose cluster bus port (+10000) is free too (both below 65536)."""
    while True:
        port = free_port()
        if port + 10000 < 65536 and _bindable(port + 10000):
            return port
        port = free_port() % 20000 + 20000
        if _bindable(port) and _bindable(port + 10000):
            return port


def _wait(check: object, what: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if callable(check) and check():
            return
        time.sleep(0.05)
    raise RuntimeError(f"timed out waiting for {what}")


class _Node:
    """One redis-server process (a cluster node, a master, a replica or a sentinel)."""

    def __init__(self, binary: str, root: Path, *args: str, sentinel: bool = False) -> None:
        self.port = cluster_port() if "--cluster-enabled" in args else free_port()
        self.dir = root / str(self.port)
        self.dir.mkdir()
        common = ["--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.dir)]
        if sentinel:
            conf = self.dir / "sentinel.conf"
            conf.write_text("\n".join(args) + "\n")
            command = [binary, str(conf), "--sentinel", *common]
        else:
            command = [binary, *common, "--save", "", "--appendonly", "no"]
            command += ["--maxmemory-policy", "noeviction", *args]
        self.process: subprocess.Popen[bytes] | None = subprocess.Popen(
            command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )

    def answers(self) -> bool:
        return _ask(self.port, "PING", timeout=0.2).startswith("+PONG")

    def kill(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait(5)
            self.process = None


class _Topology:
    def __init__(self) -> None:
        self.binary = require_redis_server()
        self.root = Path(tempfile.mkdtemp(prefix="genmcp-redis-topology-"))
        self.nodes: list[_Node] = []

    def _start(self, *args: str, sentinel: bool = False) -> _Node:
        node = _Node(self.binary, self.root, *args, sentinel=sentinel)
        self.nodes.append(node)
        return node

    def close(self) -> None:
        for node in self.nodes:
            node.kill()
        shutil.rmtree(self.root, ignore_errors=True)


class OwnCluster(_Topology):
    """A Redis Cluster of ``masters`` masters, each with ``replicas`` replicas."""

    def __init__(
        self,
        masters: int = 3,
        replicas: int = 0,
        slots: list[list[tuple[int, int]]] | None = None,
    ) -> None:
        """``slots``: each master's ranges of slots, first to last (none: ``redis-cli
        --cluster create`` splits them evenly); only without replicas."""
        super().__init__()
        assert slots is None or (len(slots) == masters and not replicas)
        self.slots = slots
        cli = shutil.which("redis-cli")
        if cli is None:
            unavailable("redis-cli is not installed (apt-get install redis-tools)", "cluster tests")
        self.cli: str = cli or ""
        self.masters, self.replicas = masters, replicas
        self.timeout_ms = NODE_TIMEOUT_MS

    @property
    def url(self) -> str:
        return "redis+cluster://" + ",".join(f"127.0.0.1:{n.port}" for n in self.nodes[:3])

    def start(self) -> OwnCluster:
        for _ in range(self.masters * (1 + self.replicas)):
            self._start(
                "--cluster-enabled",
                "yes",
                "--cluster-config-file",
                "nodes.conf",
                "--cluster-node-timeout",
                str(self.timeout_ms),
                "--cluster-replica-validity-factor",
                "0",
            )
        _wait(lambda: all(n.answers() for n in self.nodes), "the cluster nodes to answer")
        if self.slots is not None:
            return self._assign(self.slots)
        create = [self.cli, "--cluster", "create", *(f"127.0.0.1:{n.port}" for n in self.nodes)]
        create += ["--cluster-replicas", str(self.replicas), "--cluster-yes"]
        subprocess.run(create, check=True, capture_output=True, timeout=30)
        _wait(self.healthy, "the cluster to be ok")
        _wait(self.synced, "every replica to sync")
        return self

    def _assign(self, slots: list[list[tuple[int, int]]]) -> OwnCluster:
        """Give each master its ranges, then join them (CLUSTER ADDSLOTSRANGE, CLUSTER MEET)."""
        for node, ranges in zip(self.nodes, slots, strict=True):
            bounds = [str(bound) for pair in ranges for bound in pair]
            assert _ask(node.port, "CLUSTER", "ADDSLOTSRANGE", *bounds) == "+OK\r\n"
        for node in self.nodes[1:]:
            _ask(node.port, "CLUSTER", "MEET", "127.0.0.1", str(self.nodes[0].port))
        _wait(self.healthy, "the cluster to be ok")
        return self

    def synced(self) -> bool:
        """Every replica's link to its master is up, its first sync done."""
        for node in self.nodes:
            info = _ask(node.port, "INFO", "replication")
            if "role:slave" in info and (
                "master_link_status:up" not in info or "master_sync_in_progress:0" not in info
            ):
                return False
        return True

    def healthy(self) -> bool:
        """Every live node says ``cluster_state:ok`` and knows every slot."""
        live = [n for n in self.nodes if n.process is not None]
        return all(
            "cluster_state:ok" in (info := _ask(n.port, "CLUSTER", "INFO"))
            and "cluster_slots_ok:16384" in info
            for n in live
        )

    def master_ports(self) -> list[int]:
        """The ports of the live masters, as the cluster sees them now."""
        return [
            node.port
            for node in self.nodes
            if node.process is not None and "role:master" in _ask(node.port, "INFO", "replication")
        ]

    def master_of(self, slot: int) -> _Node:
        """The live master node serving ``slot``."""
        reply = ""
        for node in self.nodes:
            if node.process is not None:
                reply = _ask(node.port, "CLUSTER", "NODES")
                if reply:
                    break
        for line in reply.splitlines():
            fields = line.split()
            if len(fields) < 9 or "master" not in fields[2] or "fail" in fields[2]:
                continue
            for span in fields[8:]:
                low, _, high = span.partition("-")
                if low.isdigit() and int(low) <= slot <= int(high or low):
                    port = int(fields[1].split("@")[0].rsplit(":", 1)[1])
                    return next(n for n in self.nodes if n.port == port)
        raise LookupError(f"no master serves slot {slot}")

    def kill_master(self, slot: int = 0) -> int:
        """SIGKILL the master of ``slot``; its port."""
        node = self.master_of(slot)
        node.kill()
        return node.port

    def wait_failover(self, slot: int = 0, timeout: float = 15.0) -> None:
        """Until a live replica took over ``slot`` and every node says ``cluster_state:ok``."""

        def served() -> bool:
            try:
                return self.master_of(slot).process is not None and self.healthy()
            except LookupError:
                return False

        _wait(served, "the cluster to fail over", timeout)


class OwnSentinel(_Topology):
    """A master, one replica, and ``sentinels`` Sentinels (quorum: a majority) watching them
    as ``service``."""

    def __init__(self, service: str = "genmcp", sentinels: int = 1) -> None:
        super().__init__()
        self.service = service
        self.count = sentinels
        self.master: _Node | None = None
        self.replica: _Node | None = None
        self.sentinel: _Node | None = None
        self.sentinels: list[_Node] = []

    @property
    def url(self) -> str:
        assert self.sentinels
        listed = ",".join(f"127.0.0.1:{s.port}" for s in self.sentinels)
        return f"redis+sentinel://{listed}/{self.service}/0"

    def start(self) -> OwnSentinel:
        self.master = self._start()
        _wait(self.master.answers, "the master to answer")
        self.replica = self._start("--replicaof", "127.0.0.1", str(self.master.port))
        _wait(
            lambda: "master_link_status:up" in _ask(self.replica.port, "INFO", "replication"),  # type: ignore[union-attr]
            "the replica to sync",
        )
        quorum = self.count // 2 + 1
        conf = [
            f"sentinel monitor {self.service} 127.0.0.1 {self.master.port} {quorum}",
            f"sentinel down-after-milliseconds {self.service} {NODE_TIMEOUT_MS}",
            f"sentinel failover-timeout {self.service} 5000",
            f"sentinel parallel-syncs {self.service} 1",
        ]
        self.sentinels = [self._start(*conf, sentinel=True) for _ in range(self.count)]
        self.sentinel = self.sentinels[0]
        _wait(lambda: self.master_port() == self.master.port, "the sentinel to see the master")  # type: ignore[union-attr]
        for sentinel in self.sentinels:
            _wait(
                lambda s=sentinel: (  # type: ignore[misc]
                    "slaves=1" in (info := _ask(s.port, "INFO", "sentinel"))
                    and f"sentinels={self.count}" in info
                ),
                "every sentinel to see the replica and the others",
            )
        return self

    def failover(self) -> None:
        """A planned failover: ``SENTINEL FAILOVER`` (the replica promoted, the master demoted
        when Sentinel gets to it)."""
        assert self.sentinel is not None
        reply = _ask(self.sentinel.port, "SENTINEL", "FAILOVER", self.service)
        assert reply.startswith("+OK"), reply

    def master_port(self) -> int | None:
        assert self.sentinel is not None
        reply = _ask(self.sentinel.port, "SENTINEL", "get-master-addr-by-name", self.service)
        lines = [line for line in reply.splitlines() if line and line[0] not in "*$"]
        return int(lines[1]) if len(lines) >= 2 and lines[1].isdigit() else None

    def info(self, port: int) -> str:
        """``INFO replication`` of the node on ``port`` ('' when it does not answer)."""
        return _ask(port, "INFO", "replication")

    def kill_master(self) -> int:
        """SIGKILL the current master; its port."""
        port = self.master_port()
        node = next(n for n in self.nodes if n.port == port)
        node.kill()
        return node.port

    def wait_failover(self, old: int, timeout: float = 15.0) -> None:
        """Until the sentinel names a new master that answers as one."""

        def moved() -> bool:
            port = self.master_port()
            role = _ask(port or 0, "INFO", "replication")
            return port not in (None, old) and "role:master" in role

        _wait(moved, "the sentinel to fail over", timeout)


def admins(url: str) -> list[Any]:
    """Synchronous clients to every master ``url`` names (one for a one-server URL), for
    tests that list or kill connections, or delete keys, node by node."""
    import redis

    from genmcp.storage.redis.topology import CLUSTER, parse_url

    topology = parse_url(url)
    if topology is None:
        return [redis.Redis.from_url(url)]
    if topology.kind == CLUSTER:
        cluster = redis.RedisCluster(host=topology.nodes[0][0], port=topology.nodes[0][1])
        try:
            return [redis.Redis(host=n.host, port=n.port) for n in cluster.get_primaries()]
        finally:
            cluster.close()
    sentinel = redis.Sentinel(topology.nodes, socket_timeout=1.0)
    host, port = sentinel.discover_master(topology.service)
    return [redis.Redis(host=host, port=port, db=topology.connection.get("db", 0))]


def connections_named(url: str, name: str) -> int:
    """How many connections named ``name`` (``client_name``) every master of ``url`` has."""
    count = 0
    for client in admins(url):
        try:
            count += sum(1 for entry in client.client_list() if entry.get("name") == name)
        finally:
            client.close()
    return count


def delete_prefix(url: str, prefix: str) -> None:
    """Delete every key under ``prefix`` on every master of ``url``."""
    for client in admins(url):
        try:
            keys = list(client.scan_iter(match=prefix + "*", count=1000))
            with client.pipeline(transaction=False) as pipe:  # one DEL per key: any slot
                for key in keys:
                    pipe.delete(key)
                pipe.execute()
        finally:
            client.close()


def sync_client(url: str) -> Any:
    """A synchronous client for ``url`` that reaches every key (a ``RedisCluster`` on a
    cluster; the current master under Sentinel)."""
    import redis

    from genmcp.storage.redis.topology import CLUSTER, parse_url

    topology = parse_url(url)
    if topology is not None and topology.kind == CLUSTER:
        host, port = topology.nodes[0]
        return redis.RedisCluster(host=host, port=port)
    return admins(url)[0]


# -- the fixtures tests/storage and tests/scenarios share (their conftests import them) --

TOPOLOGY = os.environ.get(TOPOLOGY_ENV, "")


@pytest.fixture(scope="session")
def redis_topology() -> Iterator[str | None]:
    """The URL of the topology this run asked for (None: the shared single Redis)."""
    if not TOPOLOGY:
        yield None
        return
    if TOPOLOGY not in ("cluster", "sentinel"):
        raise pytest.UsageError(f"{TOPOLOGY_ENV}={TOPOLOGY!r}: say cluster or sentinel")
    started = OwnCluster(3).start() if TOPOLOGY == "cluster" else OwnSentinel().start()
    try:
        yield started.url
    finally:
        started.close()


@pytest.fixture
def redis_url(redis_topology: str | None) -> str:
    return redis_topology or require_redis()


@pytest.fixture
def redis_prefix(redis_url: str) -> Iterator[str]:
    prefix = f"genmcp-test:{uuid.uuid4().hex}:"
    yield prefix
    delete_prefix(redis_url, prefix)
