"""The runner: generate cases from a seed, send them to a live server, judge, report.

Owns: reading the server's catalog and opening the legacy sessions (black-box, over HTTP),
`generate()` (case i comes from `random.Random(f"{seed}:{i}")`, so one case replays alone),
sending with bounded concurrency, the per-category counts, and the failure report with the
exact request bytes (also written in full under `Report.out_dir`).
"""

from __future__ import annotations

import asyncio
import collections
import json
import random
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import httpx

from fuzz import auth, envelope, legacy, modern, scenarios, tasks, values
from fuzz.cases import (
    LEGACY_VERSIONS,
    MUTATE_SID,
    PORT,
    SID,
    Case,
    Catalog,
    encode,
    initialize_request,
    legacy_headers,
    modern_headers,
    modern_request,
)
from fuzz.known import known_tag
from fuzz.oracle import Answer, judge
from support.sse import SSEEvent, SSEParser

Generator = Callable[[random.Random, Catalog], Case]
OnMessage = Callable[[Any], Awaitable[None]]
GENERATORS: Final[Mapping[str, tuple[Generator, int]]] = {
    **envelope.GENERATORS,
    **modern.GENERATORS,
    **legacy.GENERATORS,
    **scenarios.GENERATORS,
    **tasks.GENERATORS,
    **auth.GENERATORS,
    **{
        name: (lambda rng, catalog, name=name: Case(name), weight)
        for name, (_, weight) in {**scenarios.SCENARIOS, **tasks.SCENARIOS}.items()
    },
}
AUTH_ONLY: Final = frozenset(auth.GENERATORS)
"""Categories that make sense only against a server behind OAuth (`run(..., headers=...)`)."""
SCENARIOS: Final = {**scenarios.SCENARIOS, **tasks.SCENARIOS}
STREAM_WINDOW_S: Final = 0.3
"""How long a long-lived stream (GET, subscriptions/listen) is read before the runner hangs up."""
READ_LIMIT_S: Final = 30.0
"""A hang guard: an answer not complete by then is a failure. Not a budget: the slowest answer
seen with two CPU hogs beside the run was 5.1 s (two 1.5 s calls on one id, 8 at once)."""
MAX_HEADER_BYTES: Final = 8192
"""uvicorn (h11) refuses a header block over 16 KiB itself, in text/plain: not ours to judge."""
SHOWN_BODY: Final = 3000
KNOWN_CAP: Final = 10
"""KNOWN cases run one at a time and may each wait `READ_LIMIT_S`: this many per category."""


FAILS_BY_DESIGN: Final = frozenset({"protocol_error_job"})
"""Conformance fixtures that answer a protocol error (-32603) on purpose: not client faults."""


@dataclass
class Outcome:
    case: Case
    answer: Answer
    problems: list[str]
    request: bytes = b""


@dataclass
class Report:
    seed: str
    out_dir: Path
    outcomes: list[Outcome] = field(default_factory=list)
    seconds: float = 0.0
    setup_requests: int = 0
    elapsed: collections.Counter[str] = field(default_factory=collections.Counter)

    @property
    def failures(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.problems and o.case.known is None]

    @property
    def known_failures(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.problems and o.case.known is not None]

    def summary(self) -> str:
        """Counts per category and status, the rate, the slowest answer."""
        by_category: dict[str, collections.Counter[str]] = collections.defaultdict(
            collections.Counter
        )
        for outcome in self.outcomes:
            status = str(outcome.answer.status) if outcome.answer.error is None else "none"
            by_category[outcome.case.category][status] += 1
            by_category[outcome.case.category]["failed"] += bool(outcome.problems)
        total = len(self.outcomes)
        slowest = max((o.answer.seconds for o in self.outcomes), default=0.0)
        lines = [
            f"fuzz: seed {self.seed}: {total} requests (+{self.setup_requests} setup) in "
            f"{self.seconds:.1f} s = {total / max(self.seconds, 1e-9):.0f} req/s; slowest "
            f"answer {slowest * 1000:.0f} ms; {len(self.failures)} failed, "
            f"{len(self.known_failures)} known (issue 12)",
        ]
        for category in sorted(by_category):
            counts = by_category[category]
            failed = counts.pop("failed")
            statuses = " ".join(f"{k}:{v}" for k, v in sorted(counts.items()))
            spent = self.elapsed[category]
            lines.append(
                f"  {category:30} {sum(counts.values()):6}  failed {failed:4}  "
                f"{spent:6.1f} s  {statuses}"
            )
        return "\n".join(lines)

    def describe(self, outcomes: Iterable[Outcome], limit: int = 10) -> str:
        """The failures with their exact request bytes (full copies in `out_dir`)."""
        chunks = []
        for number, outcome in enumerate(outcomes):
            path = self.out_dir / f"case-{outcome.case.index}.http"
            path.write_bytes(outcome.request)
            if number >= limit:
                continue
            shown = outcome.request[:SHOWN_BODY]
            more = len(outcome.request) - len(shown)
            chunks.append(
                f"--- case {outcome.case.index} ({outcome.case.category}"
                f"{', known: ' + outcome.case.known if outcome.case.known else ''}); replay: "
                f"FUZZ_SEED={self.seed} FUZZ_CASES={outcome.case.index}\n"
                + "\n".join(f"  problem: {p}" for p in outcome.problems)
                + f"\n  request ({len(outcome.request)} bytes, all in {path}):\n"
                + repr(shown)
                + (f" ... +{more} bytes" if more > 0 else "")
                + f"\n  answer: HTTP {outcome.answer.status} {outcome.answer.content_type} "
                + repr(outcome.answer.body[:SHOWN_BODY])
            )
        return "\n".join(chunks)


def generate(
    seed: str, count: int, catalog: Catalog, categories: Iterable[str], only: set[int] | None = None
) -> list[Case]:
    """Cases 0..count-1 of `seed`, drawn by weight from `categories`."""
    names = sorted(categories)
    weights = [GENERATORS[name][1] for name in names]
    cases = []
    for index in range(count):
        if only is not None and index not in only:
            continue
        rng = random.Random(f"{seed}:{index}")
        name = rng.choices(names, weights)[0]
        case = GENERATORS[name][0](rng, catalog)
        case.index, case.seed, case.known = index, seed, known_tag(name)
        cases.append(case)
    return cases


class Target:
    """One server under test: its URL, the HTTP client, the legacy sessions."""

    def __init__(
        self,
        base_url: str,
        client: httpx.AsyncClient,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        self.base_url = base_url
        self.headers = dict(headers or {})  # sent with every request (a case's own win)
        self.catalog_tools: frozenset[str] = frozenset()
        self.port = httpx.URL(base_url).port or 80
        self.client = client
        self.sessions: dict[str, str] = {}
        self.setup_requests = 0
        self.elapsed: collections.Counter[str] = collections.Counter()

    async def rpc(self, message: dict[str, Any], headers: Mapping[str, Any]) -> httpx.Response:
        self.setup_requests += 1
        return await self.client.post(
            self.base_url + "/mcp", content=encode(message), headers={**self.headers, **headers}
        )

    async def catalog(self) -> Catalog:
        """What the server serves, less the fixtures whose job is to fail (FAILS_BY_DESIGN)."""
        found: dict[str, list[Any]] = {}
        for method, key in (
            ("tools/list", "tools"),
            ("prompts/list", "prompts"),
            ("resources/list", "resources"),
            ("resources/templates/list", "resourceTemplates"),
        ):
            cursor: str | None = None
            while True:
                message = modern_request(method, {"cursor": cursor} if cursor else {})
                reply = (await self.rpc(message, modern_headers(message))).json()
                found.setdefault(key, []).extend(reply["result"][key])
                cursor = reply["result"].get("nextCursor")
                if not cursor:
                    break
        return Catalog(
            tools={
                t["name"]: t.get("inputSchema", {})
                for t in found["tools"]
                if t["name"] not in FAILS_BY_DESIGN
            },
            prompts=tuple(p["name"] for p in found["prompts"]),
            resources=tuple(r["uri"] for r in found["resources"]),
            templates=tuple(t["uriTemplate"] for t in found["resourceTemplates"]),
        )

    async def open_session(self, version: str, capabilities: dict[str, Any] | None = None) -> str:
        reply = await self.rpc(
            initialize_request(version, capabilities), legacy_headers(version, session=False)
        )
        reply.raise_for_status()
        session = reply.headers["mcp-session-id"]
        headers = {**legacy_headers(version), "mcp-session-id": session}
        await self.rpc({"jsonrpc": "2.0", "method": "notifications/initialized"}, headers)
        return session

    async def prepare(self, case: Case) -> httpx.Request:
        headers: dict[str, str | bytes] = {
            name: value for name, value in self.headers.items() if name not in case.headers
        }
        session = ""
        if case.session is not None:
            if case.fresh_session:
                session = await self.open_session(case.session)
            else:
                session = self.sessions[case.session]
        for name, value in case.headers.items():
            if isinstance(value, str):
                value = value.replace(SID, session).replace(PORT, str(self.port))
            headers[name] = sendable(value)
        mutation = headers.pop(MUTATE_SID, None)
        if mutation is not None:
            rng = random.Random(str(mutation))
            headers["mcp-session-id"] = values.mutate_token(rng, session).strip() or "x"
        return self.client.build_request(
            case.http_method, self.base_url + case.path, headers=headers, content=case.body
        )

    async def run_case(self, case: Case) -> list[Outcome]:
        """One case: a request, or the exchanges of a scenario (tagged with the case)."""
        scenario = SCENARIOS.get(case.category)
        if scenario is None:
            return [await self.send(case)]
        outcomes = await scenario[0](self, random.Random(f"{case.seed}:{case.index}:scenario"))
        for outcome in outcomes:
            outcome.case.index, outcome.case.known = case.index, case.known
        return outcomes

    async def send(self, case: Case, on_message: OnMessage | None = None) -> Outcome:
        request = await self.prepare(case)
        answer = Answer()
        started = time.perf_counter()
        try:
            exchange = self._exchange(case, request, answer, on_message)
            await asyncio.wait_for(exchange, READ_LIMIT_S)
        except TimeoutError:
            answer.error = f"no complete answer in {READ_LIMIT_S} s"
        except httpx.HTTPError as exc:
            answer.error = f"{type(exc).__name__}: {exc}"
        answer.seconds = time.perf_counter() - started
        self.elapsed[case.category] += answer.seconds
        outcome = Outcome(case, answer, judge(case, answer), raw_request(request))
        return outcome

    async def _exchange(
        self, case: Case, request: httpx.Request, answer: Answer, on_message: OnMessage | None
    ) -> None:
        response = await self.client.send(request, stream=True)
        try:
            answer.status = response.status_code
            kind = response.headers.get("content-type", "").partition(";")[0].strip().lower()
            answer.content_type = kind
            long_lived = kind == "text/event-stream" and (
                case.http_method == "GET" or case.rpc_method == "subscriptions/listen"
            )
            if on_message is not None and kind == "text/event-stream":
                await _follow(response, answer, on_message)
                return
            if not long_lived:
                answer.body = await response.aread()
                return
            deadline = time.perf_counter() + STREAM_WINDOW_S
            chunks = response.aiter_bytes()
            while (left := deadline - time.perf_counter()) > 0:
                try:
                    answer.body += await asyncio.wait_for(anext(chunks), left)
                except (TimeoutError, StopAsyncIteration):
                    break
            answer.truncated = True
        finally:
            await response.aclose()


async def _follow(response: httpx.Response, answer: Answer, on_message: OnMessage) -> None:
    """Read an SSE body to its end, handing each message to `on_message` as it arrives."""
    parser = SSEParser()
    async for chunk in response.aiter_bytes():
        answer.body += chunk
        for item in parser.feed(chunk):
            if isinstance(item, SSEEvent) and item.data:
                try:
                    message = json.loads(item.data)
                except ValueError:
                    continue  # the oracle reports it
                await on_message(message)


def sendable(value: str | bytes) -> bytes:
    """A header value h11 will send: UTF-8, control bytes as "?", no edge whitespace."""
    data = value.encode("utf-8", "backslashreplace") if isinstance(value, str) else value
    data = bytes(b if (b >= 0x20 and b != 0x7F) or b == 0x09 else 0x3F for b in data)
    return data.strip(b" \t")[:MAX_HEADER_BYTES]


def raw_request(request: httpx.Request) -> bytes:
    """The request as it went on the wire (HTTP/1.1 framing, minus chunking)."""
    head = f"{request.method} {request.url.raw_path.decode()} HTTP/1.1\r\n".encode()
    lines = b"".join(name + b": " + value + b"\r\n" for name, value in request.headers.raw)
    return head + lines + b"\r\n" + request.content


async def run(
    base_url: str,
    *,
    seed: str,
    count: int,
    categories: Iterable[str],
    concurrency: int = 8,
    only: set[int] | None = None,
    out_dir: Path | None = None,
    headers: Mapping[str, str] | None = None,
) -> Report:
    """Generate `count` cases of `seed` and send them; return the judged outcomes.

    `headers` go with every request a case does not set itself (a server's bearer token)."""
    out = out_dir or Path(tempfile.mkdtemp(prefix=f"genmcp-fuzz-{seed}-"))
    limits = httpx.Limits(max_connections=concurrency * 2, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(timeout=READ_LIMIT_S, limits=limits) as client:
        target = Target(base_url, client, headers)
        catalog = await target.catalog()
        target.catalog_tools = frozenset(catalog.tools)
        for version in LEGACY_VERSIONS:
            target.sessions[version] = await target.open_session(version)
        cases = generate(seed, count, catalog, categories, only)
        report = Report(seed, out)
        started = time.perf_counter()
        # KNOWN and stall-probing cases go last and one at a time: a stall of theirs must not
        # slow the others, and a stall probe measures the server's loop, not the contention
        # of other costly cases (client and server share one process, one GIL).
        alone = [c for c in cases if c.known is not None or c.category in scenarios.ALONE]
        for batch, width in (
            (
                [c for c in cases if c.known is None and c.category not in scenarios.ALONE],
                concurrency,
            ),
            (alone, 1),
        ):
            queue = collections.deque(batch)
            await asyncio.gather(*(_work(target, queue, report) for _ in range(width)))
        report.seconds = time.perf_counter() - started
        report.setup_requests = target.setup_requests
        report.elapsed = target.elapsed
    report.outcomes.sort(key=lambda o: o.case.index)
    return report


async def _work(target: Target, queue: collections.deque[Case], report: Report) -> None:
    while queue:
        report.outcomes.extend(await target.run_case(queue.popleft()))
