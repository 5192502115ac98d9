"""One client process of the cache tests: lists a server's tools through a Redis-backed cache.

    python cache_process.py URL REDIS_URL PREFIX TOKEN

Prints ``{"tools": [...names], "hits": n, "misses": n}`` as one JSON line.
"""

from __future__ import annotations

import asyncio
import json
import sys

from genmcp.client import Client
from genmcp.storage.redis import RedisCacheStore


async def main(url: str, redis_url: str, prefix: str, token: str) -> None:
    store = RedisCacheStore.from_url(redis_url, prefix=prefix)
    try:
        async with Client(url, token=token, cache=store) as client:
            tools = await client.list_tools()
            assert client.cache is not None
            hits, misses = client.cache.hits, client.cache.misses
    finally:
        await store.aclose()
    print(json.dumps({"tools": [t["name"] for t in tools], "hits": hits, "misses": misses}))


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:5]))
