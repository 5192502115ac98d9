#!/usr/bin/env bash
# Create the benchmark virtualenvs and install wrk. Idempotent: a venv whose marker file
# matches its package list is left alone; re-running after a change only rebuilds that venv.
#
#   bash bench/setup.sh                 # all venvs (genmcp once src/genmcp is committed)
#   bash bench/setup.sh genmcp          # only the named venvs
#   bash bench/setup.sh micro           # candidates for micro.py (not built by default)
#   BENCH_BASE_REV=24a8fac bash bench/setup.sh genmcp_base   # a baseline genmcp (not by default)
#
# Venvs live in $BENCH_VENVS (default /tmp/genmcp-bench/venvs/<name>).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/.." && pwd)"
VENVS="${BENCH_VENVS:-/tmp/genmcp-bench/venvs}"
PY="${BENCH_PYTHON:-python3}"

# Server stack shared by every venv: one uvicorn worker with uvloop + httptools.
STACK="uvicorn uvloop httptools"

# name -> pip arguments. Framework versions are pinned to the ones issue 7 compares against;
# the rest of the stack floats and is recorded per run in RESULTS.md.
declare -A PKGS=(
  [starlette]="starlette $STACK"
  [fastapi]="fastapi $STACK"
  [mcp]="mcp==2.3.0 $STACK"
  [fastmcp]="fastmcp==4.1.6 $STACK"
  # filled in below: a snapshot of HEAD, or -e $REPO; redis for the curves' Redis-backed sessions
  [genmcp]="GENMCP_SOURCE redis $STACK"
  # a baseline for before/after runs: a snapshot of $BENCH_BASE_REV (not built by default)
  [genmcp_base]="GENMCP_SOURCE $STACK"
  # for micro.py only (validator / JSON-encoder candidates); not part of run.sh
  [micro]="jsonschema fastjsonschema jsonschema-rs orjson pydantic"
  # draws the cost curves' plots (curves.py plot; make bench-curves); not part of run.sh
  [plot]="matplotlib"
)
ORDER=(starlette fastapi mcp fastmcp genmcp)

ensure_wrk() {
  if command -v wrk >/dev/null 2>&1; then return; fi
  if [ "$(id -u)" != 0 ]; then echo "setup: wrk missing and not root; install wrk" >&2; exit 1; fi
  apt-get update
  DEBIAN_FRONTEND=noninteractive apt-get install -y wrk
}

# genmcp is installed from a snapshot of the last commit that touched src/ or pyproject.toml
# (git archive), not from the working tree, so that half-done edits by others don't break or blur a run; the marker holds
# the commit, so the venv is rebuilt when HEAD moves. BENCH_GENMCP_EDITABLE=1 installs the
# working tree in editable mode instead (for iterating on the hot path).
# genmcp_base (`bash bench/setup.sh genmcp_base`) is the same from the commit BENCH_BASE_REV names.
genmcp_source() {
  local sha snap
  if [ "$1" = genmcp_base ]; then
    sha="$(git -C "$REPO" rev-parse --short=12 "${BENCH_BASE_REV:?set BENCH_BASE_REV to the baseline commit}^{commit}")"
  elif [ "${BENCH_GENMCP_EDITABLE:-0}" = 1 ]; then echo "-e $REPO"; return
  else
    # the last commit that changed the package itself (bench-only commits don't count)
    sha="$(git -C "$REPO" log -1 --format=%h --abbrev=12 -- src pyproject.toml)"
  fi
  snap="$VENVS/../src/genmcp-$sha"
  if [ ! -f "$snap/pyproject.toml" ]; then
    rm -rf "$snap.tmp" && mkdir -p "$snap.tmp"
    git -C "$REPO" archive "$sha" | tar -x -C "$snap.tmp"
    mv "$snap.tmp" "$snap"
  fi
  (cd "$snap" && pwd)
}

make_venv() {
  local name="$1" spec="${PKGS[$1]}"
  if [[ "$name" = genmcp* ]]; then spec="${spec/GENMCP_SOURCE/$(genmcp_source "$name")}"; fi
  local dir="$VENVS/$name" marker="$VENVS/$name/.bench-spec"
  if [ "$name" = genmcp ] && ! git -C "$REPO" cat-file -e HEAD:src/genmcp/__init__.py 2>/dev/null; then
    echo "setup: skip genmcp (src/genmcp/__init__.py not committed yet)"; return 0
  fi
  if [ -x "$dir/bin/python" ] && [ -f "$marker" ] && [ "$(cat "$marker")" = "$spec" ]; then
    echo "setup: $name ok ($dir)"; return 0
  fi
  echo "setup: building $name: pip install $spec"
  rm -rf "$dir"
  "$PY" -m venv "$dir"
  "$dir/bin/python" -m pip install -q --upgrade pip >/dev/null
  # shellcheck disable=SC2086
  "$dir/bin/python" -m pip install -q $spec
  echo "$spec" > "$marker"
}

ensure_wrk
mkdir -p "$VENVS"
if [ "$#" -gt 0 ]; then names=("$@"); else names=("${ORDER[@]}"); fi
for n in "${names[@]}"; do
  [ -n "${PKGS[$n]+x}" ] || { echo "setup: unknown venv '$n' (known: ${ORDER[*]})" >&2; exit 2; }
  make_venv "$n"
done
echo "setup: done"
