"""The built wheel, installed as a user installs it, serves and answers (`make wheel-smoke`).

Installs ``dist/genmcp-*.whl`` (with its dependencies, from the index) into a fresh virtualenv
in a temporary directory, never editable, and works from that directory so the checkout is
not on ``sys.path``. Then: ``genmcp`` is imported from the venv's site-packages, a copy of
``examples/app.py`` is served by the venv's uvicorn on a free loopback port, a 2026-07-28
``tools/list`` and ``tools/call`` go to it over real HTTP (no ``initialize``: the era is
stateless), the ``genmcp`` console script lists and calls the same server, and its
interactive page (``GENMCP_DOCS=1``) is served with the assets the wheel ships. Any failure
exits 1 with the server's log. Standard library only: it runs under any Python 3.11+.

    python scripts/wheel_smoke.py [dist/genmcp-0.1.0-py3-none-any.whl]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
}
# Bounds that only stop a hang from lasting forever; none of them is a speed budget.
INSTALL_TIMEOUT = 300.0
START_TIMEOUT = 30.0
REQUEST_TIMEOUT = 30.0


class SmokeFailed(Exception):
    """A step did not do what a user of the wheel relies on."""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("wheel", nargs="?", help="the wheel (default: the one in dist/)")
    parser.add_argument("--python", default=sys.executable, help="the venv's interpreter")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory")
    args = parser.parse_args()
    wheel = Path(args.wheel).resolve() if args.wheel else only_wheel(ROOT / "dist")
    work = Path(tempfile.mkdtemp(prefix="genmcp-wheel-smoke-"))
    started = time.monotonic()
    try:
        smoke(wheel, work, args.python)
    except SmokeFailed as failure:
        print(f"wheel-smoke: FAILED: {failure}", file=sys.stderr)
        log = work / "server.log"
        if log.exists():
            print(f"---- server log ({log}) ----", file=sys.stderr)
            print(log.read_text(errors="replace"), file=sys.stderr)
        return 1
    finally:
        if args.keep:
            print(f"wheel-smoke: kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    print(f"wheel-smoke: {wheel.name} passed in {time.monotonic() - started:.1f} s")
    return 0


def only_wheel(dist: Path) -> Path:
    found = sorted(dist.glob("genmcp-*.whl"))
    if len(found) != 1:
        sys.exit(f"wheel-smoke: want exactly one dist/genmcp-*.whl (make dist), found {found}")
    return found[0]


def smoke(wheel: Path, work: Path, python: str) -> None:
    venv = work / "venv"
    bin_dir = venv / "bin"
    step("fresh virtualenv", [python, "-m", "venv", str(venv)], work)
    step(f"pip install {wheel.name}", [str(bin_dir / "python"), "-m", "pip", "install",
         "--quiet", "--disable-pip-version-check", str(wheel)], work, INSTALL_TIMEOUT)  # fmt: skip
    where = step("import genmcp", [str(bin_dir / "python"), "-c",
                 "import genmcp, site; print(genmcp.__file__); print(site.getsitepackages()[0])"],
                 work).split()  # fmt: skip
    module, site_packages = Path(where[0]), Path(where[1])
    if not module.is_relative_to(site_packages):
        raise SmokeFailed(f"genmcp was imported from {module}, not from {site_packages}")
    print(f"  genmcp from {module}")
    shutil.copy(ROOT / "examples" / "app.py", work / "app.py")
    port = free_port()
    with (work / "server.log").open("wb") as log:
        # GENMCP_DOCS: the interactive page, whose assets the wheel must ship
        server = subprocess.Popen(
            [str(bin_dir / "uvicorn"), "app:app", "--host", "127.0.0.1", "--port", str(port)],
            cwd=work, env={**clean_env(), "GENMCP_DOCS": "1"}, stdout=log,
            stderr=subprocess.STDOUT,
        )  # fmt: skip
        try:
            url = f"http://127.0.0.1:{port}/mcp"
            wait_until_up(url, server)
            exercise(url, bin_dir / "genmcp", work)
        finally:
            server.terminate()
            try:
                server.wait(10)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()


def exercise(url: str, genmcp: Path, work: Path) -> None:
    listing = rpc(url, "tools/list", {})
    names = sorted(tool["name"] for tool in listing["result"]["tools"])
    if "add" not in names:
        raise SmokeFailed(f"tools/list has no add: {listing}")
    print(f"  tools/list over HTTP: {', '.join(names)}")
    called = rpc(url, "tools/call", {"name": "add", "arguments": {"a": 1, "b": 2}}, name="add")
    if called["result"].get("content") != [{"type": "text", "text": "3"}]:
        raise SmokeFailed(f"tools/call add(1, 2) did not answer 3: {called}")
    print("  tools/call add(1, 2) over HTTP: 3")
    helped = step("genmcp --help", [str(genmcp), "--help"], work)
    if "list" not in helped or "call" not in helped:
        raise SmokeFailed(f"genmcp --help names no list and call commands:\n{helped}")
    listed = step("genmcp list", [str(genmcp), "list", url], work)
    if not any(line.split()[:1] == ["add"] for line in listed.splitlines()):
        raise SmokeFailed(f"genmcp list has no add:\n{listed}")
    answered = step("genmcp call", [str(genmcp), "call", url, "add", "--arg", "a=1",
                    "--arg", "b=2"], work).strip()  # fmt: skip
    if answered != "3":
        raise SmokeFailed(f"genmcp call add a=1 b=2 printed {answered!r}, not 3")
    print("  genmcp --help, genmcp list and genmcp call add: as documented")
    with urllib.request.urlopen(url + "/docs", timeout=REQUEST_TIMEOUT) as response:
        page = response.read().decode("utf-8")
    if "/*docs.js*/" in page or "server/discover" not in page or "</style>" not in page:
        raise SmokeFailed(f"GET {url}/docs is not the page with its assets inlined: {page[:300]!r}")
    print(f"  GET /mcp/docs: the interactive page, its assets inlined ({len(page)} bytes)")


def step(what: str, command: list[str], cwd: Path, timeout: float = REQUEST_TIMEOUT) -> str:
    print(f"==> {what}")
    try:
        done = subprocess.run(command, cwd=cwd, env=clean_env(), capture_output=True,
                              text=True, timeout=timeout)  # fmt: skip
    except subprocess.TimeoutExpired as hung:
        raise SmokeFailed(f"{what}: no exit after {timeout:.0f} s") from hung
    if done.returncode != 0:
        raise SmokeFailed(f"{what}: exit {done.returncode}\n{done.stdout}{done.stderr}")
    return done.stdout


def clean_env() -> dict[str, str]:
    """This process's environment without what would put the checkout or another venv first."""
    dropped = {"PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PYTHONSTARTUP", "PYTHONUSERBASE"}
    env = {key: value for key, value in os.environ.items() if key not in dropped}
    env["PYTHONNOUSERSITE"] = "1"
    return env


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def wait_until_up(url: str, server: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SmokeFailed(f"uvicorn exited with status {server.returncode} before serving")
        try:
            rpc(url, "server/discover", {}, timeout=2.0)
            return
        except (OSError, SmokeFailed):
            time.sleep(0.1)
    raise SmokeFailed(f"nothing answered at {url} within {START_TIMEOUT:.0f} s")


def rpc(url: str, method: str, params: dict[str, Any], *, name: str | None = None,
        timeout: float = REQUEST_TIMEOUT) -> dict[str, Any]:  # fmt: skip
    """One 2026-07-28 request, headers as the README's curl session sends them."""
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": {"_meta": META, **params}}
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": method,
    }
    if name is not None:
        headers["Mcp-Name"] = name
    request = urllib.request.Request(url, json.dumps(body).encode(), headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            status, text = response.status, response.read().decode()
    except urllib.error.HTTPError as refused:
        raise SmokeFailed(f"{method}: HTTP {refused.code}: {refused.read().decode()}") from None
    try:
        answer: dict[str, Any] = json.loads(text)
    except ValueError:
        raise SmokeFailed(f"{method}: HTTP {status}, not JSON: {text[:500]}") from None
    if status != 200 or "result" not in answer:
        raise SmokeFailed(f"{method}: HTTP {status}: {answer}")
    return answer


if __name__ == "__main__":
    sys.exit(main())
