"""One client process of the cache tests: lists servers' tools through a Redis-backed cache.

    python cache_process.py REDIS_URL PREFIX TOKEN URL [URL...]

Prints, for each URL in order, ``{"tools": [...names], "hits": n, "misses": n}``: one JSON
list on one line.
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

from genmcp.client import Client
from genmcp.storage.redis import RedisCacheStore


async def main(redis_url: str, prefix: str, token: str, *urls: str) -> None:
    store = RedisCacheStore.from_url(redis_url, prefix=prefix)
    found: list[dict[str, Any]] = []
    try:
        for url in urls:
            async with Client(url, token=token, cache=store) as client:
                tools = await client.list_tools()
                assert client.cache is not None
                hits, misses = client.cache.hits, client.cache.misses
            found.append({"tools": [t["name"] for t in tools], "hits": hits, "misses": misses})
    finally:
        await store.aclose()
    print(json.dumps(found))


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:]))
