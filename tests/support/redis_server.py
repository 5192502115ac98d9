"""A redis-server of the test's own, on a free loopback port: stop, start, hang, resume it.

Fault tests must not touch the shared Redis on 6379: each starts its own `redis-server`
(Debian's package) in a temporary directory, and stops it by its pid: with no persistence, or
with ``persist=True`` an append-only file synced on every write, so that a ``stop`` then
``start`` is a restart on its data (``start(empty=True)`` drops it first: a restart empty).
Without `redis-server` the test is skipped; with `CI` set it fails instead.
"""

from __future__ import annotations

import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from support.required import unavailable

__all__ = ["OwnRedis", "free_port", "require_redis_server"]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def require_redis_server() -> str:
    """The redis-server binary, or skip (fail under CI) when there is none."""
    binary = shutil.which("redis-server")
    if binary is None:
        unavailable(
            "redis-server is not installed (apt-get install redis-server)", "the Redis fault tests"
        )
    return binary


class OwnRedis:
    """One redis-server process on `port`; `start` again after `stop` reuses the port."""

    def __init__(self, binary: str, *, persist: bool = False) -> None:
        self.binary, self.persist = binary, persist
        self.port = free_port()
        self.dir = Path(tempfile.mkdtemp(prefix="genmcp-redis-"))
        self.process: subprocess.Popen[bytes] | None = None
        self.served = False
        """Whether it has answered once (its port is then kept: clients know it)."""

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self, *, empty: bool = False) -> None:
        """Start it and return once it answers. redis-server cannot be handed a socket held
        since the pick: a port picked free can be taken by another server before it binds
        (it then exits: address in use). So what answers must be this process (``INFO``'s
        ``process_id``), never another test's Redis; and a first start takes another free
        port then (a restart keeps its port, which clients know)."""
        assert self.process is None
        if empty:
            for old in self.dir.iterdir():
                shutil.rmtree(old) if old.is_dir() else old.unlink()
        for _ in range(5):
            if self._run():
                self.served = True
                return
            if self.served:
                break
            self.port = free_port()
        raise RuntimeError(f"redis-server did not answer on port {self.port}")

    def _run(self) -> bool:
        """Start redis-server on ``port``; True once it answers, False when it exited (the
        port taken) or did not answer in 5 s."""
        aof = ["yes", "--appendfsync", "always"] if self.persist else ["no"]
        process = self.process = subprocess.Popen(
            [
                self.binary,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                *aof,
                "--dir",
                str(self.dir),
                "--maxmemory-policy",
                "noeviction",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and process.poll() is None:
            if self.answers() and self._pid() == process.pid:
                return True
            time.sleep(0.02)
        self.stop()
        return False

    def answers(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.2) as conn:
                conn.sendall(b"PING\r\n")
                return conn.recv(7).startswith(b"+PONG")
        except OSError:
            return False

    def _pid(self) -> int | None:
        """The ``process_id`` of the Redis answering on ``port`` (None: no answer)."""
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=1) as conn:
                conn.sendall(b"INFO server\r\n")
                found = re.search(rb"process_id:(\d+)", conn.recv(65536))
        except OSError:
            return None
        return None if found is None else int(found[1])

    def stop(self) -> None:
        """Kill it (SIGKILL: without ``persist`` its data is gone; with it, every write
        acknowledged is in the append-only file)."""
        if self.process is not None:
            self.process.kill()
            self.process.wait(5)
            self.process = None

    def hang(self) -> None:
        """SIGSTOP: connections stay open, nothing answers."""
        assert self.process is not None
        self.process.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGCONT)

    def close(self) -> None:
        if self.process is not None:
            self.resume()
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)

    def admin(self) -> Any:
        """A plain (synchronous) ``redis.Redis`` client of it, to configure it (close it)."""
        import redis

        return redis.Redis(port=self.port, socket_timeout=2)

    def command_counts(self) -> dict[str, int]:
        """`INFO commandstats`: calls per command since the server started."""
        client = self.admin()
        try:
            stats = client.info("commandstats")
        finally:
            client.close()
        return {name.removeprefix("cmdstat_"): entry["calls"] for name, entry in stats.items()}
