"""Catalog search engines measured (issue 49): SQLite FTS5 (stdlib) against BM25 in Python.

A synthetic catalog of N tools (seeded; names like ``billing_refund_invoice_17``, a 20 to 40
word description, 2 to 6 argument names) is indexed by each engine in a fresh process:

- ``rss``: the process's resident set after the index is built minus before (the catalog's
  own descriptors are built first, so only the index is counted; the build's garbage that
  the allocator keeps is counted too); ``python``: the Python objects the index keeps
  (``tracemalloc``; SQLite's own memory is not seen there);
- ``build``: seconds to build the index from the descriptors;
- ``p50``/``p99``: microseconds of one query (2 or 3 words of the vocabulary, 10 results,
  10% of the catalog hidden from the caller, as a visibility would), over 2,000 queries;
- ``tokens``: what a client reads to find and load 3 tools: a search answer (10 hits) plus
  the 3 full definitions, against every ``tools/list`` page, at 4 bytes per token.

    .venv/bin/python bench/search.py                 # both engines, 1,000 and 10,000 tools
    .venv/bin/python bench/search.py --engine bm25 --tools 1000

The BM25 engine is genmcp's own (``genmcp.search.index.BM25Index``); the FTS5 one is here only.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sqlite3
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Iterable
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "src"))

from genmcp.search.index import BM25Index, tokens  # noqa: E402

VERBS = "get list create update delete refund search export import sync archive restore".split()
NOUNS = ("invoice customer order ticket payment user report file calendar event message "
         "repository issue branch deployment metric alert dashboard").split()  # fmt: skip
DOMAINS = "billing crm support storage calendar git ops analytics mail hr".split()
WORDS = ("the a of to for with by from and or when which returns given optional required "
         "amount currency date range status page limit cursor owner team project region "
         "account balance history summary details record entry stream batch").split()  # fmt: skip


def catalog(n: int, seed: int = 7) -> list[dict[str, Any]]:
    """``n`` tool descriptors, as ``tools/list`` gives them."""
    rng = random.Random(seed)
    tools = []
    for i in range(n):
        domain, verb, noun = rng.choice(DOMAINS), rng.choice(VERBS), rng.choice(NOUNS)
        words = [rng.choice(WORDS + NOUNS + VERBS) for _ in range(rng.randint(20, 40))]
        description = f"{verb.title()} a {noun} in {domain}: " + " ".join(words) + "."
        args = rng.sample(WORDS[10:] + NOUNS, rng.randint(2, 6))
        props = {a: {"type": "string", "description": f"The {a}."} for a in args}
        schema = {"type": "object", "properties": props, "required": args[:1]}
        tools.append({"name": f"{domain}_{verb}_{noun}_{i}", "description": description,
                      "inputSchema": schema})  # fmt: skip
    return tools


def fields(tool: dict[str, Any]) -> tuple[str, str, str]:
    args = " ".join(tool["inputSchema"].get("properties", {}))
    return tool["name"], tool["description"], args


class FTS5Index:
    """The same documents in an in-memory SQLite FTS5 table, ranked by its ``bm25()``."""

    def __init__(self, docs: Iterable[tuple[str, str, str, str]]) -> None:
        self.db = sqlite3.connect(":memory:")
        self.db.execute("CREATE VIRTUAL TABLE d USING fts5(key UNINDEXED, name, text, args)")
        self.db.executemany(
            "INSERT INTO d VALUES (?, ?, ?, ?)",
            ((key, " ".join(tokens(n)), " ".join(tokens(t)), " ".join(tokens(a)))
             for key, n, t, a in docs),
        )  # fmt: skip

    def search(self, query: str, limit: int, hidden: frozenset[str]) -> list[tuple[str, float]]:
        words = tokens(query)
        if not words:
            return []
        match = " OR ".join(f'"{w}"' for w in words)
        rows = self.db.execute(
            "SELECT key, bm25(d, 3.0, 1.0, 2.0) FROM d WHERE d MATCH ? ORDER BY 2 LIMIT ?",
            (match, limit + len(hidden)),
        )
        hits = [(key, -score) for key, score in rows if key not in hidden]
        return hits[:limit]


def rss() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def one(engine: str, n: int, traced: bool = False) -> dict[str, Any]:
    tools = catalog(n)
    docs = [(t["name"], *fields(t)) for t in tools]
    make = BM25Index if engine == "bm25" else FTS5Index
    if traced:  # what the index keeps, alone in its process
        tracemalloc.start()
        kept = make(docs)
        live = tracemalloc.get_traced_memory()[0]
        del kept
        return {"python_mb": round(live / 1e6, 1)}
    before = rss()
    start = time.perf_counter()
    index: Any = make(docs)
    build = time.perf_counter() - start
    memory = rss() - before
    rng = random.Random(11)
    hidden = frozenset(t["name"] for t in rng.sample(tools, n // 10))
    queries = [" ".join(rng.sample(VERBS + NOUNS + DOMAINS, rng.randint(2, 3)))
               for _ in range(2000)]  # fmt: skip
    times = []
    for query in queries:
        start = time.perf_counter()
        index.search(query, 10, hidden)
        times.append(time.perf_counter() - start)
    times.sort()
    by_name = {t["name"]: t for t in tools}
    hits = index.search("refund invoice billing", 10, hidden)
    answer = [{"name": k, "description": by_name[k]["description"][:120]} for k, _ in hits]
    found = len(json.dumps(answer)) + len(json.dumps([by_name[k] for k, _ in hits[:3]]))
    listing = len(json.dumps(tools))
    return {
        "engine": engine,
        "tools": n,
        "rss_mb": round(memory / 1e6, 1),
        "build_s": round(build, 3),
        "p50_us": round(times[len(times) // 2] * 1e6),
        "p99_us": round(times[int(len(times) * 0.99)] * 1e6),
        "tokens_search": found // 4,
        "tokens_list": listing // 4,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--engine", choices=("bm25", "fts5"))
    parser.add_argument("--tools", type=int)
    parser.add_argument("--traced", action="store_true")
    args = parser.parse_args()
    if args.engine and args.tools:
        print(json.dumps(one(args.engine, args.tools, args.traced)))
        return
    for n in (1000, 10_000):
        for engine in ("fts5", "bm25"):  # each in a fresh process: RSS is the index's alone
            row = {}
            for traced in ([], ["--traced"]):
                out = subprocess.run(
                    [sys.executable, __file__, "--engine", engine, "--tools", str(n), *traced],
                    check=True, capture_output=True, text=True,
                ).stdout  # fmt: skip
                row.update(json.loads(out))
            print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
