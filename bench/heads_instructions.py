"""What ``BoundedHeads`` adds to uvicorn's httptools protocol, in instructions per request.

uvicorn's ``HttpToolsProtocol`` and genmcp's ``BoundedHeads``
(``genmcp.transports.http.heads``) are each fed the same keep-alive requests (a
``tools/call``'s seven headers and body) through an in-memory transport, answered by a
minimal ASGI app, under valgrind's callgrind: start-up uninstrumented, a warm-up, then a window
of n and one of 2n requests (callgrind dumps at each window's edge, as ``bench/gate.py``
does), each protocol in a valgrind process of its own (measured one after the other in one
process, the second read 20k cheaper); one request is (cost(2n) - cost(n)) / n. The difference between the
two protocols is the bound's cost; the whole server's request is about 500k instructions
(``bench/RESULTS.md``).

    PYTHONPATH=src .venv/bin/python bench/heads_instructions.py [runs]
"""

from __future__ import annotations

import asyncio
import gc
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
WINDOW = 300
WARMUP = 200
BODY = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                   "params": {"name": "add", "arguments": {"a": 1, "b": 2}}}).encode()
REQUEST = (
    b"POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:8000\r\ncontent-type: application/json\r\n"
    b"accept: application/json, text/event-stream\r\nmcp-protocol-version: 2026-07-28\r\n"
    b"mcp-method: tools/call\r\nmcp-name: add\r\ncontent-length: %d\r\n\r\n" % len(BODY)
) + BODY


class Transport(asyncio.Transport):
    """In memory: counts finished responses, wakes the feeder on each."""

    def __init__(self) -> None:
        super().__init__()
        self.answered = asyncio.Event()
        self.closing = False

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"sockname": ("127.0.0.1", 8000), "peername": ("127.0.0.1", 50000)}.get(name, default)

    def write(self, data: bytes | bytearray | memoryview) -> None:
        if bytes(data).endswith(b"}"):  # the body, the response's last write
            self.answered.set()

    def is_closing(self) -> bool:
        return self.closing

    def close(self) -> None:
        self.closing = True

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass


async def app(scope: Any, receive: Any, send: Any) -> None:
    await receive()
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"application/json"), (b"content-length", b"11")]})
    await send({"type": "http.response.body", "body": b'{"ok":true}'})


def protocol(cls: Any) -> tuple[Any, Transport]:
    import uvicorn
    from uvicorn.server import ServerState

    config = uvicorn.Config(app, http=cls, lifespan="off", access_log=False, log_level="warning")
    config.load()
    made = cls(config=config, server_state=ServerState(), app_state={},
               _loop=asyncio.get_running_loop())
    transport = Transport()
    made.connection_made(transport)
    return made, transport


async def feed(made: Any, transport: Transport, count: int) -> None:
    for _ in range(count):
        transport.answered.clear()
        made.data_received(REQUEST)
        await transport.answered.wait()


async def measure(name: str) -> None:
    """In the valgrind process: warm-up, then a window of n and one of 2n requests."""
    sys.path.insert(0, str(HERE))
    from gate import instrumentation, marker
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    from genmcp.transports.http.heads import BoundedHeads

    made, transport = protocol({"httptools": HttpToolsProtocol, "BoundedHeads": BoundedHeads}[name])
    await feed(made, transport, WARMUP)
    instrumentation("on")
    for count in (WINDOW, 2 * WINDOW):
        gc.collect()
        marker()
        await feed(made, transport, count)
    marker()


def count(name: str) -> float:
    """One valgrind process for the protocol ``name``: its instructions per request."""
    sys.path.insert(0, str(HERE))
    from gate import totals

    with tempfile.TemporaryDirectory(prefix="genmcp-heads-") as out:
        env = {**os.environ, "PYTHONHASHSEED": "0"}
        subprocess.run(["valgrind", "--tool=callgrind", "--instr-atstart=no",
                        "--dump-before=getppid", f"--callgrind-out-file={out}/cg",
                        sys.executable, __file__, "--inner", name],
                       env=env, check=True, capture_output=True)
        dumps = sorted((p for p in Path(out).glob("cg.*") if p.suffix[1:].isdigit()),
                       key=lambda p: int(p.suffix[1:]))
        low, high = [totals(p) for p in dumps][1:3]
    return (high - low) / WINDOW


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--inner":
        asyncio.run(measure(sys.argv[2]))
        return
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    figures: dict[str, list[float]] = {"httptools": [], "BoundedHeads": []}
    for _ in range(runs):  # alternating, each in its own process
        for name, values in figures.items():
            values.append(count(name))
    plain = min(figures["httptools"])
    for name, values in figures.items():
        print(f"{name:<13} {min(values):>9,.0f} instructions per request (min of {runs}; "
              f"max {max(values):,.0f})  {min(values) - plain:+,.0f}")


if __name__ == "__main__":
    main()
