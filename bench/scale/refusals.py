"""Refused requests behind nginx: how many end the client's kept-alive connection, and lose
the request sent next on it.

Two uvicorn processes of `bench/scale/app.py` on a redis-server of their own, behind
Debian's nginx (`tests/support/topology.py`: a connection per proxied request,
`proxy_buffering off`). Each of `--rounds` httpx clients sends `--per-round` POSTs in turn on
one connection, each refused from its headers before its body is read (415: a text/plain
body), and counts the refusals after which its next request came on a new connection
(nginx closed the old one) and the requests lost ("Server disconnected without sending a
response"). Prints a JSON report.

    python bench/scale/refusals.py                        # nginx reads each body first
    python bench/scale/refusals.py --no-request-buffering # nginx passes bodies on unbuffered
    python bench/scale/refusals.py --direct               # no nginx: straight to uvicorn
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import sys
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests"))
from support.redis_server import OwnRedis
from support.topology import Nginx, Processes, require_nginx

BODY = b'{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}'


async def rounds(url: str, count: int, per_round: int) -> dict[str, int]:
    """``count`` clients in turn, ``per_round`` refused POSTs each on one connection."""
    ended = lost = refused = 0
    for _ in range(count):
        last: Any = None
        async with httpx.AsyncClient(timeout=30, trust_env=False) as http:
            for _ in range(per_round):
                try:
                    reply = await http.post(url, content=BODY,
                                            headers={"content-type": "text/plain"})  # fmt: skip
                except httpx.RemoteProtocolError:
                    lost, last = lost + 1, None
                    continue
                assert reply.status_code == 415, reply.text
                stream = reply.extensions["network_stream"]
                if last is not None:
                    refused += 1
                    ended += stream is not last
                last = stream
    return {"refusals_followed_by_a_request": refused, "connections_ended": ended,
            "requests": count * per_round, "requests_lost": lost}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--per-round", type=int, default=5)
    parser.add_argument("--no-request-buffering", action="store_true",
                        help="nginx proxy_request_buffering off")  # fmt: skip
    parser.add_argument("--direct", action="store_true", help="no nginx: straight to uvicorn")
    args = parser.parse_args()
    redis = OwnRedis(shutil.which("redis-server") or "/usr/bin/redis-server")
    redis.start()
    processes = Processes(2, {"REDIS_URL": redis.url, "GENMCP_PREFIX": "refusals:"})
    nginx = None
    try:
        processes.start()
        if args.direct:
            url = processes.urls()[0] + "/mcp"
        else:
            nginx = Nginx(require_nginx(), processes.ports,
                          request_buffering=not args.no_request_buffering).start()  # fmt: skip
            url = nginx.url + "/mcp"
        report = asyncio.run(rounds(url, args.rounds, args.per_round))
    finally:
        if nginx is not None:
            nginx.stop()
        processes.stop()
        redis.close()
    settings = {"direct": args.direct, "proxy_request_buffering": not args.no_request_buffering}
    print(json.dumps({**settings, **report}, indent=2))


if __name__ == "__main__":
    main()
