# genmcp developer entry points. `make run` serves the example app, `make test` is what CI runs.
#
# The virtualenv lives in $(VENV). Installs are stamped inside it and redone only when
# pyproject.toml changes (or the venv is gone): .run-stamp for `pip install -e .`,
# .dev-stamp for `pip install -e '.[dev]'` (which also satisfies .run-stamp), .build-stamp for
# PyPA's `build` alone (what `make dist` needs; genmcp itself is not installed for it).

PYTHON ?= python3
VENV ?= .venv
HOST ?= 127.0.0.1
PORT ?= 8000
APP ?= app:app
APP_DIR ?= examples
PYTEST_ARGS ?=
# pytest-xdist: whole files to one worker (module-scoped servers start once). Three workers
# on the CI machine's two cores: most tests wait on servers, processes and sockets, and a third
# worker took the suite from 258 to 231 s with no new failure; the long tests (load, faults)
# keep two (PYTEST_LONG_XDIST). PYTEST_XDIST= runs the suite in one process.
PYTEST_XDIST ?= -n 3 --dist loadfile
PYTEST_LONG_XDIST ?= -n 2 --dist loadfile
# Which tests `make test` and `make pytest` run: all but the `long` ones (load and fault runs
# of several seconds each), which `make test-long` runs (CI runs both). PYTEST_MARKS= for all.
PYTEST_MARKS ?= not long
# Bytecode is written, whatever the environment says: with PYTHONDONTWRITEBYTECODE set (CI's
# machine sets it), every pytest worker rewrote the asserts of all ~300 test modules again
# (11 of the 22 s each worker spent collecting) and every test's subprocess compiled genmcp
# from source.
unexport PYTHONDONTWRITEBYTECODE

BIN := $(VENV)/bin
VENV_PYTHON := $(BIN)/python
PIP := $(VENV_PYTHON) -m pip --disable-pip-version-check --no-input --quiet
RUN_STAMP := $(VENV)/.run-stamp
DEV_STAMP := $(VENV)/.dev-stamp
BUILD_STAMP := $(VENV)/.build-stamp

# A failed recipe leaves no half-made stamp or venv marker behind.
.DELETE_ON_ERROR:
.PHONY: help run test lint typecheck pytest pytest-312 venv dev clean

help:
	@echo "make run        serve $(APP_DIR)/$(APP) on http://$(HOST):$(PORT) (HOST=, PORT= to change)"
	@echo "make test       ruff, mypy --strict, the layout checks and pytest in $(VENV) (what CI runs)"
	@echo "make lint       ruff check src tests examples"
	@echo "make typecheck  mypy, configured in pyproject.toml"
	@echo "make test-long  the long tests make test leaves out (load and fault runs; CI runs them)"
	@echo "make pytest     pytest alone; PYTEST_ARGS='-k name' to narrow, PYTEST_XDIST= for one process"
	@echo "make pytest-312 pytest on Python 3.12 (eager call tasks; venv: matrix.sh's py312); PY312= to pick it"
	@echo "make matrix     the FastAPI-facing tests on the declared range: floor, 0.135, newest"
	@echo "make fuzz       the long fuzz run: FUZZ_COUNT=10000 hostile requests, both eras"
	@echo "make rolling    a rolling restart of 3 processes behind nginx under load: no call lost"
	@echo "make rolling-cluster  the same on a 3-master Redis Cluster"
	@echo "make scale-cluster   legacy tools/call per core, 3-master Redis Cluster vs one node (same run)"
	@echo "make scale-sessions  the load run: 100,000 legacy sessions through 3 processes on Redis"
	@echo "make bench-gate  instructions per in-process request vs bench/gate_baseline.json (callgrind)"
	@echo "make docs       build the documentation site into site/ (strict)"
	@echo "make dist       build the sdist and the wheel into dist/ (PyPA build, hatchling)"
	@echo "make wheel-smoke  install the built wheel in a fresh venv, serve examples/app.py, call it"
	@echo "make bench-peer  the TM Dev Lab v1 workload: genmcp, their FastMCP and TS SDK servers"
	@echo "make clean      remove $(VENV) and the tool caches"

$(VENV_PYTHON):
	@echo "==> creating $(VENV) with $(PYTHON) ($$($(PYTHON) --version 2>&1))"
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --upgrade pip

$(RUN_STAMP): pyproject.toml | $(VENV_PYTHON)
	@echo "==> installing genmcp into $(VENV)"
	$(PIP) install -e .
	@touch $@

$(DEV_STAMP): pyproject.toml | $(VENV_PYTHON)
	@echo "==> installing genmcp with the dev extra into $(VENV)"
	$(PIP) install -e '.[dev]'
	@touch $@ $(RUN_STAMP)

$(BUILD_STAMP): | $(VENV_PYTHON)
	@echo "==> installing PyPA build into $(VENV)"
	$(PIP) install 'build>=1.2'
	@touch $@

venv: $(RUN_STAMP)
dev: $(DEV_STAMP)

run: $(RUN_STAMP)
	@echo "==> serving $(APP_DIR)/$(APP) on http://$(HOST):$(PORT) (MCP at /mcp)"
	$(VENV_PYTHON) -m uvicorn --app-dir $(APP_DIR) $(APP) --host $(HOST) --port $(PORT) --http genmcp.transports.http.heads:BoundedHeads

# One recipe, not prerequisites, so the steps run in order and stop at the first failure
# even under `make -j`.
# The layout checks (tests/layout: the layers, the test tree) run as their own step, reported
# apart from the behaviour tests; `make pytest` runs both in one go.
test: $(DEV_STAMP)
	@echo "==> [1/4] ruff check src tests examples"
	$(BIN)/ruff check src tests examples
	@echo "==> [2/4] mypy (pytest writes its assertion-rewrite cache meanwhile)"
	@$(VENV_PYTHON) -m pytest --collect-only -q -p no:xdist >/dev/null 2>&1 & primer=$$!; $(BIN)/mypy; checked=$$?; wait $$primer; exit $$checked
	@echo "==> [3/4] layout checks (tests/layout)"
	$(VENV_PYTHON) -m pytest -q tests/layout
	@echo "==> [4/4] pytest (behaviour tests)"
	$(VENV_PYTHON) -m pytest --ignore=tests/layout $(PYTEST_XDIST) -m "$(PYTEST_MARKS)" $(PYTEST_ARGS)

lint: $(DEV_STAMP)
	$(BIN)/ruff check src tests examples

typecheck: $(DEV_STAMP)
	$(BIN)/mypy

pytest: $(DEV_STAMP)
	$(VENV_PYTHON) -m pytest $(PYTEST_XDIST) -m "$(PYTEST_MARKS)" $(PYTEST_ARGS)

# The `long` tests: the fuzzer's short form, a thousand tasks and a thousand streams at once,
# the Host/Origin matrix, Redis faults under uvicorn processes (about 50 s on 2 cores).
.PHONY: test-long
test-long: $(DEV_STAMP)
	$(VENV_PYTHON) -m pytest $(PYTEST_LONG_XDIST) -m long \
		--ignore=tests/storage/redis/test_failover.py $(PYTEST_ARGS)  # make test-cluster runs it

# The suite again on Python 3.12, where a call's task starts eagerly (Call.start): PY312 is
# the first interpreter found that is 3.12 (a pyenv install counts), or say PY312=/path.
PY312 ?= $(shell for p in python3.12 /root/.pyenv/versions/3.12*/bin/python /usr/bin/python3.12; \
	do "$$p" -c 'import sys; assert sys.version_info[:2] == (3, 12)' 2>/dev/null && \
	{ command -v "$$p" || echo "$$p"; } && break; done)
# Only the packages a call's lifecycle runs through: auth, the docs' blocks, the examples,
# the CLI, the schema engine, the protocol codecs and routes-as-tools behave alike on both
# (they are about half the suite's time, and CI's whole run has a 20-minute budget).
# The venv is scripts/matrix.sh's cell py312, under ~/.cache/genmcp-matrix like the matrix's:
# built once per pyproject.toml and reused by CI's fresh clones (genmcp installed editable
# from the checkout when it is another's), where a venv in the clone (.venv312) was built
# anew each run.
PYTEST_312_SKIP ?= auth docs examples cli schema protocol routes_as_tools layout
pytest-312:
	@test -n "$(PY312)" || { echo "pytest-312: no Python 3.12 found; set PY312=/path/to/python3.12"; exit 1; }
	MATRIX_CELLS=py312 MATRIX_PYTHON=$(PY312) MATRIX_TESTS=tests MATRIX_XDIST="$(PYTEST_XDIST)" \
		MATRIX_ARGS="$(foreach d,$(PYTEST_312_SKIP),--ignore=tests/$(d)) $(PYTEST_ARGS)" \
		bash scripts/matrix.sh

# The tested range of pyproject.toml (issue 45): the FastAPI-facing tests and the examples on
# Python 3.11 and 3.13 with every web dependency at its floor, 3.12 with FastAPI 0.135.0 and
# 3.13 with the newest releases, each in its venv under ~/.cache/genmcp-matrix (scripts/matrix.sh;
# MATRIX_CELLS= to pick). About 3 minutes on two cores once the venvs exist.
.PHONY: matrix
matrix:
	bash scripts/matrix.sh

# The sdist and the wheel, as an index would serve them (docs/guides/releasing.md). `build`
# makes the sdist first and the wheel from it (hatchling, in an isolated env), so a file the
# sdist lacks breaks the wheel here rather than on a user's machine.
.PHONY: dist wheel-smoke
dist: $(BUILD_STAMP)
	rm -f dist/genmcp-*
	$(VENV_PYTHON) -m build --outdir dist .

# The wheel installed as a user installs it (a fresh venv in a temp dir, not editable, the
# checkout off sys.path), examples/app.py served by that venv's uvicorn, tools/list and
# tools/call over HTTP and the genmcp command against it (scripts/wheel_smoke.py; ~35 s).
wheel-smoke: dist
	$(VENV_PYTHON) scripts/wheel_smoke.py

# bench: and conformance: are added by their owners below.

# The documentation site (mkdocs, material theme, mkdocstrings) into site/; strict: a warning
# fails the build. tests/docs/test_docs.py builds it too, so CI checks it with `make test`.
.PHONY: docs
docs: $(DEV_STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

# Side-by-side benchmark (genmcp, mcp SDK, FastMCP, bare routes) -> bench/RESULTS.md; ~50 min.
# Venvs under /tmp/genmcp-bench/venvs; details in bench/README.md.
.PHONY: bench
bench:
	bash bench/run.sh

# Cost curves (issue 35): genmcp and MCPServer as concurrency, catalog, payload size, open
# streams, legacy sessions and Redis-backed processes grow -> bench/RESULTS.md "Cost curves"
# and bench/curves/*.png (matplotlib lives in the bench's own plot venv); ~10 min.
# Knobs: CURVES_ARGS='--curves conc,size --point conc=1,64'.
CURVES_ARGS ?=
BENCH_VENVS ?= /tmp/genmcp-bench/venvs
.PHONY: bench-curves
bench-curves: $(DEV_STAMP)
	BENCH_VENVS=$(BENCH_VENVS) bash bench/setup.sh mcp genmcp plot
	BENCH_VENVS=$(BENCH_VENVS) python3 bench/curves.py run $(CURVES_ARGS)
	python3 bench/curves.py report
	$(BENCH_VENVS)/plot/bin/python bench/curves.py plot

# Instructions per tools/call of each bench server's whole process (uvicorn included) under
# callgrind, both eras: the same on a busy machine, where wrk's req/s are not (issue 35); ~15 min.
# Knobs: INSTRUCTIONS_ARGS='--servers genmcp,genmcp_base --modes legacy'.
INSTRUCTIONS_ARGS ?=
.PHONY: bench-instructions
bench-instructions:
	BENCH_VENVS=$(BENCH_VENVS) bash bench/setup.sh starlette fastapi mcp genmcp
	BENCH_VENVS=$(BENCH_VENVS) python3 bench/server_instructions.py $(INSTRUCTIONS_ARGS)

# The instruction gate (issue 50): instructions per in-process tools/call (2026-07-28 and a
# 2025-11-25 session) and per tools/list page under callgrind, against bench/gate_baseline.json;
# more than 3 % above fails. Load-independent, ~10 s; needs valgrind. `make bench-gate-baseline`
# re-baselines (commit the file and say why): docs/guides/performance.md, "The instruction gate".
GATE_ARGS ?=
.PHONY: bench-gate bench-gate-baseline
bench-gate: $(DEV_STAMP)
	$(VENV_PYTHON) bench/gate.py $(GATE_ARGS)

bench-gate-baseline: $(DEV_STAMP)
	$(VENV_PYTHON) bench/gate.py --write --runs 3 $(GATE_ARGS)

# tools/call through genmcp's proxy and FastMCP's over real HTTP, one upstream, same run
# (issue 31) -> bench/RESULTS.md "Over real HTTP"; ~8 min. Knobs: PROXY_ARGS='--rows direct,genmcp'.
PROXY_ARGS ?=
.PHONY: bench-proxy
bench-proxy:
	BENCH_VENVS=$(BENCH_VENVS) bash bench/setup.sh fastmcp genmcp
	BENCH_VENVS=$(BENCH_VENVS) python3 bench/proxy.py run $(PROXY_ARGS)
	python3 bench/proxy.py report

# One OpenAPI document imported by genmcp and by FastMCP 4.1.6 (issue 49): tools produced, a
# call's result, lines of code, CPU per call -> bench/RESULTS.md "Issue 49"; ~2 min.
OPENAPI_ARGS ?=
.PHONY: bench-openapi
bench-openapi:
	BENCH_VENVS=$(BENCH_VENVS) bash bench/setup.sh fastmcp genmcp
	$(BENCH_VENVS)/genmcp/bin/python bench/openapi_import.py run \
		--fastmcp-python $(BENCH_VENVS)/fastmcp/bin/python $(OPENAPI_ARGS)

# A peer's public benchmark run here (issue 50): the TM Dev Lab v1 workload (four tools, their
# k6 iteration at 50 virtual users, driven by bench/peer_tmdevlab/run.py) against genmcp, their
# FastMCP server and their official TypeScript SDK server, interleaved repetitions -> the
# "TM Dev Lab v1" block of bench/RESULTS.md; ~14 min. Installs its servers under
# /tmp/genmcp-bench/peer_tmdevlab (not project dependencies); needs node. Not a CI step.
# Knobs: PEER_ARGS='--reps 5 --seconds 20 --servers genmcp,fastmcp,node'.
PEER_ARGS ?=
.PHONY: bench-peer
bench-peer:
	bash bench/peer_tmdevlab/setup.sh
	python3 bench/peer_tmdevlab/run.py run --out bench/RESULTS.md $(PEER_ARGS)

# The official MCP conformance suite against examples/everything_server.py; installs Node 22
# and the suite under .cache/conformance on first use. Knobs: scripts/README.md.
.PHONY: conformance
conformance: $(DEV_STAMP)
	VENV=$(VENV) bash scripts/conformance.sh
	VENV=$(VENV) MODE=client bash scripts/conformance.sh

# The suite's client scenarios only, against genmcp.client.Client (scripts/conformance_client.py).
.PHONY: conformance-client
conformance-client: $(DEV_STAMP)
	VENV=$(VENV) MODE=client bash scripts/conformance.sh

# The long fuzz run (docs/guides/quality.md, "Fuzzing"): FUZZ_COUNT hostile requests over both eras against a
# real server. FUZZ_SEED=<hex> replays a run; FUZZ_KNOWN=1 adds the KNOWN open bugs (slow:
# each of those cases waits out its read limit, one at a time).
FUZZ_COUNT ?= 10000
FUZZ_KNOWN ?= 0
.PHONY: fuzz
fuzz: $(DEV_STAMP)
	FUZZ_COUNT=$(FUZZ_COUNT) FUZZ_KNOWN=$(FUZZ_KNOWN) $(VENV_PYTHON) -m pytest -q -s tests/fuzz/test_fuzz.py

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache build dist site
	find . -path ./.git -prune -o \( -name __pycache__ -o -name '*.egg-info' \) -type d -prune -exec rm -rf {} +

# Scale-out load (issue 13): legacy tools/call at c=512 for 10 s through 1, 2 and 3 uvicorn
# processes (nginx round-robin in front of 2+), a redis-server of its own; needs wrk, nginx,
# redis-server. Numbers -> bench/RESULTS.md "Scale-out". Knobs: SCALE_ARGS='--seconds 30'.
# The second run holds the load per process fixed (16 in flight each, nginx at every N, upstream
# connections kept), so its CPU per call shows what an added process costs.
SCALE_ARGS ?=
.PHONY: scale
scale: $(DEV_STAMP)
	$(VENV_PYTHON) bench/scale/run.py --processes 1,2,3 --concurrency 512 --seconds 10 $(SCALE_ARGS)
	$(VENV_PYTHON) bench/scale/run.py --processes 1,2,3 --per-process 16 --proxy-one \
		--upstream-keepalive 128 --seconds 10 $(SCALE_ARGS)

# Legacy tools/call on a 3-master Redis Cluster against one Redis node, same run (issue 36):
# rounds alternate the two, one process each, wrk at c=16; CPU per call from /proc, Redis
# commands per call over every master, and the 2026-07-28 call's Redis commands (none beyond
# the idle background, else it fails). -> bench/RESULTS.md. ~4 min. SCALE_CLUSTER_ARGS= to change.
SCALE_CLUSTER_ARGS ?= --rounds 3 --seconds 10 --concurrency 16
.PHONY: scale-cluster
scale-cluster: $(DEV_STAMP)
	$(VENV_PYTHON) bench/scale/cluster.py $(SCALE_CLUSTER_ARGS)

# The capacity model's load run (issue 36): 100,000 legacy sessions opened through 3 processes
# on one Redis, a tools/call and a logging/setLevel in each; Redis memory per session, p99s,
# errors (must be 0). -> docs/guides/scaling-out.md. ~15 min. SESSIONS_ARGS='--redis cluster'.
SESSIONS_ARGS ?= --sessions 100000 --processes 3
.PHONY: scale-sessions
scale-sessions: $(DEV_STAMP)
	$(VENV_PYTHON) bench/scale/sessions.py $(SESSIONS_ARGS)

# A rolling restart under load (issue 29): 3 processes behind nginx with the lossless settings
# of docs/guides/deployment.md, each SIGTERMed and started again in turn under 16 clients
# (quick and streaming calls, both eras); fails unless every call succeeded. ROLLING_ARGS=
# '--rounds 3' for the long form (the figures in that guide).
ROLLING_ARGS ?= --rounds 1 --warmup 2 --between 3
.PHONY: rolling
rolling: $(DEV_STAMP)
	$(VENV_PYTHON) bench/scale/rolling.py --keepalive 32 --request-buffering \
		--next-upstream "error non_idempotent" --check $(ROLLING_ARGS)

# The same rolling restart on a 3-master Redis Cluster of its own (issue 36; ~50 s, not in .ci/run).
.PHONY: rolling-cluster
rolling-cluster: $(DEV_STAMP)
	$(MAKE) rolling ROLLING_ARGS="--redis cluster $(ROLLING_ARGS)"

# examples/tenants.py in 3 uvicorn processes on one redis-server of its own, behind nginx
# (tests/examples/test_tenants_scaled.py: visibility alike everywhere, a tenant's runtime tool
# reaches that tenant only, on every process); ~15 s, so not in `make test`.
.PHONY: test-tenants-scaled
test-tenants-scaled: $(DEV_STAMP)
	GENMCP_SCALED_TESTS=1 $(VENV_PYTHON) -m pytest -q tests/examples/test_tenants_scaled.py

# The conformance suite through `genmcp proxy` in front of the everything server
# (scripts/proxied.py): 2026-07-28 (Tasks included), 2025-06-18 and 2025-03-26 clients over a
# 2026-07-28 upstream, then 2025-11-25 session clients over a 2025-11-25 session upstream
# (SSE polling and mid-call requests have a 2025 wire on both sides there). 112 scored runs.
.PHONY: conformance-proxy
conformance-proxy: $(DEV_STAMP)
	SPECS="2026-07-28 2025-06-18 2025-03-26" VENV=$(VENV) \
		SERVER_CMD='$(VENV_PYTHON) scripts/proxied.py --port $$PORT' bash scripts/conformance.sh
	SPECS=2025-11-25 VENV=$(VENV) \
		SERVER_CMD='$(VENV_PYTHON) scripts/proxied.py --port $$PORT --protocol 2025-11-25' \
		bash scripts/conformance.sh

# The conformance suite through nginx round-robin over 3 processes of the everything server
# sharing a redis-server of their own (scripts/scaled.py); needs nginx and redis-server.
# The authorization-server front's heavy tests: three uvicorn processes on one Redis
# (test_front_redis.py), the conformance suite's authorization-server scenarios against the
# front (test_front_conformance.py; after make conformance, which installs the suite).
.PHONY: auth-front
auth-front: $(DEV_STAMP)
	GENMCP_AUTH_FRONT=1 $(VENV_PYTHON) -m pytest -q $(PYTEST_XDIST) \
		tests/auth/front/test_front_redis.py tests/auth/front/test_front_conformance.py

.PHONY: conformance-scaled
conformance-scaled: $(DEV_STAMP)
	$(VENV_PYTHON) scripts/scaled.py --processes 3 -- env VENV=$(VENV) bash scripts/conformance.sh

# The same on a 3-master Redis Cluster (a replica each) of its own, then again with one master
# SIGKILLed 25 s into the run (a failover mid-run); docs/guides/scaling-out.md says what it may lose.
.PHONY: conformance-cluster
conformance-cluster: $(DEV_STAMP)
	$(VENV_PYTHON) scripts/scaled.py --redis cluster --processes 3 -- env VENV=$(VENV) bash scripts/conformance.sh
	$(VENV_PYTHON) scripts/scaled.py --redis cluster --kill-master-after 25 --processes 3 -- \
		env VENV=$(VENV) bash scripts/conformance.sh

# Redis Cluster and Sentinel (issue 36): the storage contract suite on a 3-master cluster and on a
# Sentinel-managed pair (each started once from redis-server on free ports), the failover
# tests (tests/storage/redis/test_topology.py: a master SIGKILLed under a legacy server) and
# slots moved under load (test_topology_reshard.py: redis-cli --cluster rebalance). ~75 s.
# test_failover.py starts its own deployments (one per fault), whatever the topology: it runs
# first in the Sentinel pytest (one interpreter and collection fewer; the session's Sentinel
# starts after it).
STORAGE_CONTRACT := tests/storage/test_bundle.py tests/storage/test_sessions.py \
	tests/storage/test_messaging.py tests/storage/test_tasks.py tests/storage/test_records.py \
	tests/storage/test_states.py
# Left out on a topology: the memory bundles, and the check that imports the Redis module in a
# child with no redis package (it reaches no Redis; make test runs it).
TOPOLOGY_K := not memory and not test_importing_the_redis_module_without_redis
.PHONY: test-cluster
test-cluster: $(DEV_STAMP)
	GENMCP_TEST_REDIS_TOPOLOGY=cluster $(VENV_PYTHON) -m pytest -q -k "$(TOPOLOGY_K)" \
		$(STORAGE_CONTRACT) tests/storage/redis/test_topology.py \
		tests/storage/redis/test_topology_reshard.py tests/storage/redis/test_notices.py
	GENMCP_TEST_REDIS_TOPOLOGY=sentinel $(VENV_PYTHON) -m pytest -q -k "$(TOPOLOGY_K)" \
		tests/storage/redis/test_failover.py $(STORAGE_CONTRACT) tests/storage/redis/test_notices.py

# The scale-out scenarios on a 3-master cluster: processes sharing sessions, mail and tasks,
# streams resumed on another process, a process killed behind nginx (~90 s; not in .ci/run).
.PHONY: test-cluster-scenarios
test-cluster-scenarios: $(DEV_STAMP)
	GENMCP_TEST_REDIS_TOPOLOGY=cluster $(VENV_PYTHON) -m pytest -q tests/scenarios/test_redis_scaleout.py \
		tests/scenarios/test_resume_across_processes.py tests/scenarios/test_nginx.py
