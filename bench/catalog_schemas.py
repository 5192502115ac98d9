"""A catalog of distinct input schemas built eagerly or with ``Suite(lazy_schemas=True)``
(issue 50): N ``(Api, i)`` providers, each with its own small dict schema, so nothing is
shared; prints the Suite's build CPU, the RSS, and (lazy) what ``check_schemas()`` then costs.

    python bench/catalog_schemas.py 10000 eager
    python bench/catalog_schemas.py 10000 lazy
"""

from __future__ import annotations

import sys
import time

from genmcp import Result, Suite, Tool, call_tool_result


class Api(Tool):
    def info(self, key, arg):
        return f"op_{arg}" if key == "name" else None

    def input_schema(self, arg):
        return {"type": "object", "required": ["id"], "properties": {
            "id": {"type": "string"}, "n": {"type": "integer", "minimum": arg}}}

    async def call(self, request, channel, arg):
        return Result(call_tool_result(text="ok"))


def main() -> None:
    n, lazy = int(sys.argv[1]), sys.argv[2] == "lazy"
    started = time.process_time()
    suite = Suite(server_name="b", server_version="1", secret_key="k" * 48,
                  tools=[(Api, i) for i in range(n)], lazy_schemas=lazy)
    built = time.process_time()
    with open("/proc/self/status") as status:
        rss = int(status.read().split("VmRSS:")[1].split()[0]) / 1024
    print(f"{n} distinct schemas, {'lazy' if lazy else 'eager'}: Suite build "
          f"{built - started:.2f} s CPU, RSS {rss:.0f} MB")
    if lazy:
        started = time.process_time()
        count = suite.check_schemas()
        print(f"  check_schemas(): {count} compiled in {time.process_time() - started:.2f} s")


if __name__ == "__main__":
    main()
