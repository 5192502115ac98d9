"""A scaled-out deployment on loopback: N real uvicorn processes behind a real nginx.

`Processes` starts `bench/scale/app.py` (or any app) in N uvicorn processes, each on a port
it holds from the moment it picks it (a listening socket handed down: `serve_socket.py`; a
port picked free and given to uvicorn later could be taken meanwhile), sharing one Redis;
`Nginx` starts Debian's nginx with a config of its own (a temporary prefix, no daemon, no
access log), on a port held the same way (the socket inherited through nginx's ``NGINX``
environment variable, which its binary upgrade uses), that spreads requests round-robin
over them: a fresh upstream connection per request (no keepalive, so no stickiness),
responses unbuffered (SSE flows as it is written), request bodies read whole before a
process is picked (as docs/guides/deployment.md shows: unbuffered, nginx often closed a
client's kept-alive connection after a refusal genmcp sent before the body), the next
process tried when one refuses the connection. Both stop their processes by pid. Without
nginx the test is skipped; with `CI` set it fails instead.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from support.ports import handing, listening
from support.required import unavailable

__all__ = ["SCALE_APP_DIR", "SERVE_SOCKET", "Nginx", "Processes", "require_nginx"]

SCALE_APP_DIR = Path(__file__).resolve().parents[2] / "bench" / "scale"


SERVE_SOCKET = Path(__file__).with_name("serve_socket.py")


def wait_port(port: int, process: subprocess.Popen[bytes], within: float = 60.0) -> None:
    """Wait until ``process`` answers HTTP on ``port`` (any status: a socket handed down by
    ``Processes`` accepts connections before its app serves); ``within`` is a hang guard (a
    start takes about a second alone; several at once on a loaded 2-core machine took over
    15 s)."""
    deadline = time.monotonic() + within
    asked = f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"process on port {port} exited with {process.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2) as probe:
                probe.sendall(asked.encode())
                probe.settimeout(1.0)
                if probe.recv(1):
                    return
        except OSError:  # refused, or no answer yet (a timeout is an OSError)
            pass
        time.sleep(0.05)
    raise RuntimeError(f"nothing answers on port {port} after {within} s")


def require_nginx() -> str:
    binary = shutil.which("nginx") or shutil.which("nginx", path="/usr/sbin")
    if binary is None:
        unavailable("nginx is not installed (apt-get install -y nginx)", "the nginx tests")
    return binary


class Processes:
    """N uvicorn processes of `app` (in `app_dir`), with `env` added to the environment."""

    def __init__(
        self,
        n: int,
        env: Mapping[str, str],
        *,
        app: str = "app:app",
        app_dir: Path = SCALE_APP_DIR,
        graceful_s: float = 3,
    ) -> None:
        """``graceful_s``: uvicorn's ``--timeout-graceful-shutdown`` (how long a SIGTERMed
        process may finish its requests; ``terminate`` waits that plus 5 s)."""
        self.graceful_s = graceful_s
        # each port held (listening) from now until its process has the socket: never free
        # for another server to take meanwhile (support/serve_socket.py says why)
        held = [listening(0) for _ in range(n)]
        self.ports: list[int] = [sock.getsockname()[1] for sock in held]
        self._held: list[socket.socket | None] = list(held)
        self.env = {**os.environ, **env}
        self.app, self.app_dir = app, app_dir
        self.processes: list[subprocess.Popen[bytes] | None] = [None] * n
        self.logs = Path(tempfile.mkdtemp(prefix="genmcp-procs-"))

    def urls(self) -> list[str]:
        return [f"http://127.0.0.1:{port}" for port in self.ports]

    def start(self) -> Processes:
        for index in range(len(self.ports)):
            self.start_one(index)
        for index, port in enumerate(self.ports):
            process = self.processes[index]
            assert process is not None
            wait_port(port, process)
        return self

    def start_one(self, index: int) -> None:
        """Start process ``index`` on the socket held for its port (bound again for a
        restart, or when the caller changed ``ports[index]``: an ``OSError`` if another
        listener took the port meanwhile); the process has it, this one lets it go."""
        held, self._held[index] = self._held[index], None
        with handing(held, self.ports[index]) as fd:
            command = [sys.executable, str(SERVE_SOCKET), str(fd), str(self.app_dir), self.app,
                       f"{self.graceful_s:g}"]  # fmt: skip
            with (self.logs / f"uvicorn-{index}.log").open("ab") as log:  # the child keeps it
                self.processes[index] = subprocess.Popen(
                    command, env=self.env, stdout=log, stderr=subprocess.STDOUT, pass_fds=[fd]
                )

    def log(self, index: int) -> str:
        """What process ``index`` wrote (warnings and tracebacks)."""
        return (self.logs / f"uvicorn-{index}.log").read_text(errors="replace")

    def pid(self, index: int) -> int:
        process = self.processes[index]
        assert process is not None
        return process.pid

    def kill(self, index: int) -> None:
        """SIGKILL one process (a crash: nothing it holds is cleaned up)."""
        process = self.processes[index]
        if process is not None:
            process.kill()
            process.wait(5)
            self.processes[index] = None

    def terminate(self, index: int) -> None:
        """SIGTERM one process (a graceful stop) and wait for it (SIGKILL once its grace
        and 5 s more have passed)."""
        process = self.processes[index]
        if process is not None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(self.graceful_s + 5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(5)
            self.processes[index] = None

    def stop(self) -> None:
        for index in range(len(self.processes)):
            self.terminate(index)
            held, self._held[index] = self._held[index], None
            if held is not None:  # never started
                held.close()
        shutil.rmtree(self.logs, ignore_errors=True)


NGINX_MAIN = """daemon off;
worker_processes 1;
pid {dir}/nginx.pid;
error_log {dir}/error.log warn;
events {{ worker_connections {connections}; }}
http {{
    access_log off;
    client_body_temp_path {dir}/body;
    proxy_temp_path {dir}/proxy;
    fastcgi_temp_path {dir}/fastcgi;
    uwsgi_temp_path {dir}/uwsgi;
    scgi_temp_path {dir}/scgi;
{http}
}}
"""
"""An nginx.conf that keeps everything under `dir` (no root, no system paths) around an
`http` block body; `.format(dir=, connections=, http=)`."""

_HTTP = """    upstream genmcp {{
{servers}
    }}
    server {{
        listen 127.0.0.1:{port};
        location / {{
            proxy_pass http://genmcp;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host $http_host;
            proxy_buffering off;
            proxy_request_buffering {request_buffering};
            proxy_read_timeout 300s;
            proxy_next_upstream {next_upstream};
        }}
    }}"""


class Nginx:
    """nginx on a free loopback port, round-robin over `upstreams` (host:port); the port is
    held (listening) from the pick until nginx has it, as `Processes` holds theirs."""

    def __init__(
        self,
        binary: str,
        upstreams: Sequence[int],
        *,
        keepalive: int | None = None,
        keepalive_timeout_s: float | None = None,
        next_upstream: str = "error",
        request_buffering: bool = True,
    ) -> None:
        """``keepalive``: idle upstream connections each worker keeps (None: a new one per
        request, as the tests run it); ``keepalive_timeout_s``: how long nginx keeps an idle
        one (its default is 60 s; under uvicorn's 5 s it never reuses one uvicorn closed);
        ``next_upstream``: when nginx tries the next process (``proxy_next_upstream``);
        ``request_buffering``: nginx reads a request's body before it picks a process (a
        request it has sent can then be sent again to the next one; off, a refusal that
        genmcp sends before the body often ends the client's connection to nginx)."""
        self.binary = binary
        self._held: socket.socket | None = listening(0)
        self.port: int = self._held.getsockname()[1]
        self.dir = Path(tempfile.mkdtemp(prefix="genmcp-nginx-"))
        self.upstreams = list(upstreams)
        self.keepalive, self.keepalive_timeout_s = keepalive, keepalive_timeout_s
        self.next_upstream, self.request_buffering = next_upstream, request_buffering
        self._write()
        self.process: subprocess.Popen[bytes] | None = None

    def _write(self, down: frozenset[int] = frozenset()) -> None:
        servers = "\n".join(
            f"        server 127.0.0.1:{port} max_fails=0{' down' if port in down else ''};"
            for port in self.upstreams
        )
        if self.keepalive is not None:
            servers += f"\n        keepalive {self.keepalive};"
        if self.keepalive_timeout_s is not None:
            servers += f"\n        keepalive_timeout {self.keepalive_timeout_s:g}s;"
        (self.dir / "nginx.conf").write_text(
            NGINX_MAIN.format(
                dir=self.dir,
                connections=4096,
                http=_HTTP.format(
                    servers=servers,
                    port=self.port,
                    next_upstream=self.next_upstream,
                    request_buffering="on" if self.request_buffering else "off",
                ),
            )
        )

    def take_out(self, *down: int) -> None:
        """Mark the upstreams on ports ``down`` ``down`` (none: all back) and reload: new
        requests go elsewhere, those in flight finish in nginx's old workers."""
        self._write(frozenset(down))
        assert self.process is not None
        self.process.send_signal(signal.SIGHUP)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> Nginx:
        """Start nginx on the held socket (``NGINX=fd;``: it listens there, binds nothing, as
        the config's ``listen`` is that address; bound again for a restart)."""
        held, self._held = self._held, None
        with handing(held, self.port) as fd:
            self.process = subprocess.Popen(
                [
                    self.binary,
                    "-p",
                    str(self.dir),
                    "-c",
                    str(self.dir / "nginx.conf"),
                    "-e",
                    str(self.dir / "error.log"),
                ],
                env={**os.environ, "NGINX": f"{fd};"},
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                pass_fds=[fd],
            )
        wait_port(self.port, self.process)
        return self

    def stop(self) -> None:
        held, self._held = self._held, None
        if held is not None:  # never started
            held.close()
        if self.process is not None:
            self.process.send_signal(signal.SIGTERM)  # fast shutdown
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)
            self.process = None
        shutil.rmtree(self.dir, ignore_errors=True)
