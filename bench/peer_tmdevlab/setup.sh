#!/usr/bin/env bash
# Installs the three servers of the TM Dev Lab v1 port, outside the project's dependencies:
#   $PEER_CACHE/venv-genmcp   genmcp from a snapshot of the last commit touching src/ (git archive),
#                             uvicorn[standard] (uvloop + httptools) and httpx, as a user installs it
#   $PEER_CACHE/venv-fastmcp  the peer's python-server/requirements.txt, pinned to what it resolved
#                             to around when they published (Feb 2026: fastmcp 2.14, mcp 1.26, whose
#                             mcp.server.fastmcp.FastMCP their main.py imports)
#   $PEER_CACHE/node          the peer's nodejs-server/package.json: @modelcontextprotocol/sdk
#                             1.26.0 (the TypeScript SDK) and express 4, with zod
# Idempotent: a part whose marker matches its spec is left alone.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
CACHE="${PEER_CACHE:-/tmp/genmcp-bench/peer_tmdevlab}"
PY="${BENCH_PYTHON:-python3}"
mkdir -p "$CACHE"

FASTMCP_SPEC="fastmcp==2.14.5 mcp==1.26.0 pydantic==2.12.5 fastapi uvicorn[standard] httpx psutil"
NODE_SPEC="@modelcontextprotocol/sdk@1.26.0 express@4 zod@3"

venv() {  # name spec
  local dir="$CACHE/$1" marker="$CACHE/$1/.spec"
  if [ -x "$dir/bin/python" ] && [ -f "$marker" ] && [ "$(cat "$marker")" = "$2" ]; then
    echo "setup: $1 ok"; return 0
  fi
  echo "setup: building $1: pip install $2"
  rm -rf "$dir" && "$PY" -m venv "$dir"
  # shellcheck disable=SC2086
  "$dir/bin/python" -m pip install -q --disable-pip-version-check $2
  echo "$2" > "$marker"
}

sha="$(git -C "$REPO" log -1 --format=%h --abbrev=12 -- src pyproject.toml)"
snap="$CACHE/src-genmcp-$sha"
if [ ! -f "$snap/pyproject.toml" ]; then
  rm -rf "$snap.tmp" && mkdir -p "$snap.tmp"
  git -C "$REPO" archive "$sha" | tar -x -C "$snap.tmp"
  mv "$snap.tmp" "$snap"
fi
venv venv-genmcp "$snap uvicorn[standard] httpx"
venv venv-fastmcp "$FASTMCP_SPEC"

node_marker="$CACHE/node/.spec"
if [ -d "$CACHE/node/node_modules" ] && [ -f "$node_marker" ] && [ "$(cat "$node_marker")" = "$NODE_SPEC" ]; then
  echo "setup: node ok"
else
  echo "setup: npm install $NODE_SPEC"
  rm -rf "$CACHE/node" && mkdir -p "$CACHE/node"
  printf '{"name":"tmdevlab-node","private":true,"type":"module"}\n' > "$CACHE/node/package.json"
  # shellcheck disable=SC2086
  (cd "$CACHE/node" && npm install --silent --no-audit --no-fund $NODE_SPEC)
  echo "$NODE_SPEC" > "$node_marker"
fi
echo "setup: done ($CACHE)"
