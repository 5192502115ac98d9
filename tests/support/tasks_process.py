"""One uvicorn process of tests/storage/redis/tasks_app.py on a Redis URL.

The tests that fault a Redis, fail it over or spread tasks over processes run the same app
the same way: ``TasksProcess(url, prefix=, root=, secret=)`` starts it with its settings (the
work markers and its output under ``root``), ``wait_ready()`` returns once it answers HTTP (an
``AssertionError`` with its output when it never does) and ``stop()`` ends it (terminate,
then kill).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Final

import httpx

from support.ports import handing, listening
from support.topology import SERVE_SOCKET

__all__ = ["TasksProcess"]

APP_DIR: Final = Path(__file__).resolve().parents[1] / "storage" / "redis"


class TasksProcess:
    """``tasks_app:app`` under uvicorn on a free loopback port (``url``), on ``redis_url``; the
    port held from the pick (a listening socket handed down, as ``topology.Processes`` do)."""

    def __init__(
        self, redis_url: str, *, prefix: str, root: Path, secret: str, **settings: str
    ) -> None:
        held = listening(0)  # held until the process has it: never free for another server
        self.port: int = held.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        env = {"TASKS_REDIS_URL": redis_url, "TASKS_PREFIX": prefix,
               "TASKS_MARKERS": str(root),  # a cancelled work call leaves its file there
               "GENMCP_SECRET_KEY": secret, **settings}  # fmt: skip
        self.log = root / f"uvicorn-{self.port}.log"
        with handing(held, self.port) as fd, self.log.open("ab") as out:
            self.process = subprocess.Popen(
                [sys.executable, str(SERVE_SOCKET), str(fd), str(APP_DIR), "tasks_app:app", "none"],
                env={**os.environ, **env}, stdout=out, stderr=subprocess.STDOUT, pass_fds=[fd],
            )  # fmt: skip

    def wait_ready(self, within_s: float = 30) -> None:
        """Return once it answers HTTP (a hang guard of ``within_s``)."""
        deadline = time.monotonic() + within_s
        while True:
            try:
                httpx.post(self.url + "/mcp", json={}, timeout=1)
                return
            except httpx.TransportError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    raise AssertionError(f"never served: {self.log.read_text()}") from None
                time.sleep(0.05)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
