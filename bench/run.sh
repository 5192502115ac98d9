#!/usr/bin/env bash
# Side-by-side benchmark of genmcp and the baselines; writes bench/RESULTS.md.
#
#   bash bench/run.sh                                   # everything, median of 3 (~45-50 min)
#   BENCH_OUT=/tmp/smoke.md bash bench/run.sh --runs 1 --duration 2 --warmup 1 --stream-n 100
#                                                   # smoke pass (~6 min), RESULTS.md untouched
#   BENCH_SERVERS=starlette,genmcp bash bench/run.sh --scenarios call
#
# Extra arguments go to `driver.py run` (see python3 bench/driver.py run --help).
# genmcp is included when its venv imports genmcp.mcp_router; otherwise it is skipped.
# BENCH_OUT=file writes the report there instead of bench/RESULTS.md.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash bench/setup.sh
VENVS="${BENCH_VENVS:-/tmp/genmcp-bench/venvs}"
servers="starlette,fastapi,mcp_low,mcp_high,fastmcp"
if "$VENVS/genmcp/bin/python" -c "import genmcp; genmcp.mcp_router" >/dev/null 2>&1; then
  servers="starlette,genmcp,fastapi,mcp_low,mcp_high,fastmcp"
else
  echo "run.sh: genmcp.mcp_router not importable in $VENVS/genmcp; benchmarking the baselines only" >&2
fi
run_id="$(date -u +%Y%m%dT%H%M%SZ)"
python3 bench/driver.py run --servers "${BENCH_SERVERS:-$servers}" --run-id "$run_id" "$@"
python3 bench/driver.py report "bench/results/$run_id" --out "${BENCH_OUT:-bench/RESULTS.md}"
