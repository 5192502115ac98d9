"""uvicorn (httptools, uvloop) against Granian (ASGI interface, uvloop) serving
bench/servers/genmcp_server.py (issue 50): whether Granian serves genmcp (a 2026-07-28 call, a
2025-11-25 session's call, an SSE progress stream, a graceful SIGTERM), then the server
process's CPU per tools/call (from /proc, children included) over 16 keep-alive connections
of an asyncio client, 3 rounds of 4,000 calls after 2,000 of warm-up; the two alternate, twice.

Granian is not a genmcp dependency: install it apart and name the directory, e.g.

    python -m pip install --target /tmp/granian-pkgs granian
    GRANIAN_PATH=/tmp/granian-pkgs .venv/bin/python bench/granian_compare.py
"""
# ruff: noqa
import asyncio, json, os, signal, subprocess, sys, time
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PY = sys.executable
ENV = {**os.environ, "PYTHONPATH": f"{ROOT}/src:{os.environ.get('GRANIAN_PATH', '')}", "GENMCP_SECRET_KEY": "x" * 48}
SERVERS = {
    "uvicorn": [PY, "-m", "uvicorn", "--app-dir", f"{ROOT}/bench/servers", "genmcp_server:app",
                "--port", "{port}", "--http", "httptools", "--loop", "uvloop", "--no-access-log", "--log-level", "warning"],
    "granian": [PY, "-m", "granian", "--interface", "asgi", "--loop", "uvloop", "--port", "{port}",
                "--no-ws", "--log-level", "warning", "--working-dir", f"{ROOT}/bench/servers", "genmcp_server:app"],
}
META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "c", "version": "1"}}

async def http(port, body, headers, reader_writer=None):
    r, w = reader_writer or await asyncio.open_connection("127.0.0.1", port)
    data = json.dumps(body).encode()
    head = f"POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\ncontent-length: {len(data)}\r\n"
    head += "".join(f"{k}: {v}\r\n" for k, v in headers.items()) + "\r\n"
    w.write(head.encode() + data)
    status_line = await r.readline()
    hdrs = {}
    while True:
        line = await r.readline()
        if line in (b"\r\n", b""): break
        k, v = line.decode().split(":", 1); hdrs[k.strip().lower()] = v.strip()
    if "content-length" in hdrs:
        payload = await r.readexactly(int(hdrs["content-length"]))
    elif hdrs.get("transfer-encoding") == "chunked":
        payload = b""
        while True:
            size = int((await r.readline()).strip(), 16)
            if size == 0: await r.readline(); break
            payload += await r.readexactly(size); await r.readline()
    else:
        payload = b""
    if reader_writer is None: w.close()
    return status_line, hdrs, payload

def modern(method, params, id_=1):
    extra = {"mcp-protocol-version": "2026-07-28", "mcp-method": method}
    if method == "tools/call": extra["mcp-name"] = params["name"]
    return {"jsonrpc": "2.0", "id": id_, "method": method, "params": {**params, "_meta": {**META, **params.get("_meta", {})}}}, extra

async def checks(port):
    out = {}
    s, h, p = await http(port, *modern("tools/call", {"name": "add", "arguments": {"a": 1, "b": 2}}))
    out["2026 call"] = b'"3"' in p
    s, h, p = await http(port, {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}}, {})
    sid = h.get("mcp-session-id")
    s, h, p = await http(port, {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "add", "arguments": {"a": 1, "b": 2}}}, {"mcp-session-id": sid, "mcp-protocol-version": "2025-11-25"})
    out["2025 session call"] = b'"3"' in p
    s, h, p = await http(port, *modern("tools/call", {"name": "progress", "arguments": {"steps": 3, "interval_ms": 20}, "_meta": {"progressToken": "t"}}))
    out["SSE progress stream"] = h.get("content-type", "").startswith("text/event-stream") and p.count(b"notifications/progress") == 3 and b'"done"' in p
    if not out["SSE progress stream"]: print(h, p[:400])
    return out

async def load(port, n, conc=16):
    body, extra = modern("tools/call", {"name": "add", "arguments": {"a": 1, "b": 2}})
    async def worker(k):
        rw = await asyncio.open_connection("127.0.0.1", port)
        for _ in range(k):
            s, h, p = await http(port, body, extra, rw)
            assert b'"3"' in p, p
        rw[1].close()
    await asyncio.gather(*(worker(n // conc) for _ in range(conc)))

def cpu(pid):
    total = 0
    for p in [pid] + children(pid):
        f = open(f"/proc/{p}/stat").read().rsplit(")", 1)[1].split()
        total += int(f[11]) + int(f[12])
    return total / os.sysconf("SC_CLK_TCK")

def children(pid):
    try:
        return [int(c) for c in open(f"/proc/{pid}/task/{pid}/children").read().split()]
    except OSError:
        return []

def run(name, port, rounds):
    cmd = [a.format(port=port) for a in SERVERS[name]]
    proc = subprocess.Popen(cmd, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    try:
        for _ in range(100):
            try:
                asyncio.run(http(port, *modern("ping", {}))); break
            except OSError:
                time.sleep(0.1)
        result = asyncio.run(checks(port))
        asyncio.run(load(port, 2000))  # warm-up
        per = []
        for _ in range(rounds):
            c0 = cpu(proc.pid); asyncio.run(load(port, 4000)); c1 = cpu(proc.pid)
            per.append((c1 - c0) / 4000 * 1e6)
        proc.send_signal(signal.SIGTERM)
        t0 = time.monotonic(); code = proc.wait(timeout=15)
        result["graceful SIGTERM exit"] = f"code {code} in {time.monotonic() - t0:.2f} s"
        return result, per
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL); proc.wait()

for name, port in (("uvicorn", 18431), ("granian", 18432), ("uvicorn", 18431), ("granian", 18432)):
    result, per = run(name, port, 3)
    print(name, result, "server CPU us/call:", [round(x) for x in per], flush=True)
