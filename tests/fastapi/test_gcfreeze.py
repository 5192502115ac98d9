"""The router's start-up freezes the start-up objects once per process (``freeze_gc``).

Each case runs in a fresh interpreter: the freeze happens at the first start-up of a
process only, and the test process has started many apps already.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent(
    """
    import asyncio, gc, json, sys
    from fastapi import FastAPI
    from genmcp import mcp_router
    from genmcp.fastapi.lifespan import lifespan

    async def main():
        counts = []
        before = gc.get_freeze_count()  # 3.12 starts with a few of its own (375 on 3.12.1)
        for _ in range(2):  # a second app in the same process freezes nothing more
            app = FastAPI()
            router = mcp_router(server_name="f", server_version="1", freeze_gc=FREEZE)
            app.include_router(router, prefix="/mcp")
            async with lifespan(app):
                counts.append(gc.get_freeze_count() - before)
        print(json.dumps(counts))

    FREEZE = sys.argv[1] == "1"
    asyncio.run(main())
    """
)


def run(freeze: bool) -> list[int]:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, "1" if freeze else "0"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    counts: list[int] = json.loads(done.stdout)
    return counts


@pytest.mark.parametrize("freeze", [True, False])
def test_the_first_start_up_freezes_and_only_it(freeze: bool) -> None:
    first, second = run(freeze)
    if freeze:
        assert first > 10_000  # FastAPI, pydantic and genmcp's start-up objects
        assert second <= first  # nothing more frozen (some frozen objects were freed since)
    else:
        assert first == second == 0
