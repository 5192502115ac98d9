#!/usr/bin/env bash
# Run the official MCP conformance suite (@modelcontextprotocol/conformance, server side)
# against examples/everything_server.py, or against SERVER_CMD / an already running URL.
#
# Installs into .cache/conformance/ (idempotent): Node >= 22 when the system node is older
# (npm package node-linux-<arch>@22) and the suite itself. Then runs, in this order,
#   server --requirements 2025-11-25        (2025-11-25 wire: initialize + session)
#   server --requirements 2026-07-28        (2026-07-28 wire: stateless, _meta per request)
#   server --suite all --spec-version 2025-06-18
#   server --suite all --spec-version 2025-03-26
# then, at 2025-11-25 and 2026-07-28, the extension scenarios no requirement set lists
# (FORCED: the Skills extension's sep-2640-*, run one by one with --force), and scores every
# scenario from its checks.json (scripts/conformance_score.py). Prints a
# table per revision and last "conformance: P passed, F failed". Exit 0 only if no scored
# scenario failed; no expected-failures baseline.
#
# Environment (all optional):
#   SPECS="2026-07-28"        revisions to run (default: the four above)
#   SCENARIOS="a b"           only these scenarios (each run at every selected revision it belongs to)
#   FORCED="a b"              extension scenarios outside every requirement set, run with --force
#                             and scored at 2025-11-25 and 2026-07-28 (default: the sep-2640-* three)
#   MODE=client               the suite's client scenarios against genmcp.client.Client instead
#                             (scripts/conformance_client.py; CLIENT_RUNS="scenario@revision ...",
#                             CLIENT_JOBS runs at a time, default 3)
#   URL=http://...            test a server that is already running; start none
#   SERVER_CMD='...'          server command, run by bash from the repo root with PORT exported
#                             (default: ${VENV:-.venv}/bin/python examples/everything_server.py --port $PORT)
#   PORT                      port for the started server (default: a free loopback port)
#   CONFORMANCE_VERSION       suite version (default 0.2.0-alpha.12)
#   CONFORMANCE_CACHE         install + results folder (default .cache/conformance)
#   RESULTS_DIR               where checks.json files and logs go (default $CONFORMANCE_CACHE/results/<time>)
#   SERVER_START_TIMEOUT      seconds to wait for the server to answer (default 30)
#   SCENARIO_TIMEOUT_MS       per-scenario timeout given to the suite (default 30000)
#   HARNESS_TIMEOUT           seconds allowed per suite invocation (default 600)
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$REPO"

CONFORMANCE_VERSION=${CONFORMANCE_VERSION:-0.2.0-alpha.12}
CACHE=${CONFORMANCE_CACHE:-$REPO/.cache/conformance}
SPECS=${SPECS:-2025-11-25 2026-07-28 2025-06-18 2025-03-26}
SCENARIOS=${SCENARIOS:-}
FORCED=${FORCED-sep-2640-skills-enumeration sep-2640-skills-manifest sep-2640-skills-directory}
SERVER_START_TIMEOUT=${SERVER_START_TIMEOUT:-30}
SCENARIO_TIMEOUT_MS=${SCENARIO_TIMEOUT_MS:-30000}
HARNESS_TIMEOUT=${HARNESS_TIMEOUT:-600}
SCORE="$REPO/scripts/conformance_score.py"
STARTED=$SECONDS

say() { printf 'conformance.sh: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 2; }

# ---------------------------------------------------------------- process bookkeeping

SERVER_PID= # the server we started (leader of its own process group)
SUITE_PID=  # the suite invocation being waited for
CLIENT_PIDS=() # MODE=client: the runs going on (their timeout(1)), oldest first
CLIENT_RUN_OF=() # and for each, "scenario@revision log-stem"

cleanup() {
  local pid
  for pid in "${CLIENT_PIDS[@]}"; do
    kill -TERM "$pid" 2>/dev/null || true # timeout(1) passes it on to the suite
    wait "$pid" 2>/dev/null || true
  done
  CLIENT_PIDS=()
  if [ -n "$SUITE_PID" ]; then
    kill -TERM "$SUITE_PID" 2>/dev/null || true # timeout(1) passes it on to the suite
    wait "$SUITE_PID" 2>/dev/null || true
    SUITE_PID=
  fi
  stop_server
}

stop_server() {
  [ -n "$SERVER_PID" ] || return 0
  # The server runs in its own session (setsid), so its process group is its pid.
  kill -TERM -- "-$SERVER_PID" 2>/dev/null || true
  local _
  for _ in $(seq 50); do
    kill -0 -- "-$SERVER_PID" 2>/dev/null || break
    sleep 0.1
  done
  kill -KILL -- "-$SERVER_PID" 2>/dev/null || true
  wait "$SERVER_PID" 2>/dev/null || true
  SERVER_PID=
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

for spec in $SPECS; do
  case $spec in
    2025-11-25 | 2026-07-28 | 2025-06-18 | 2025-03-26) ;;
    *) die "unknown revision '$spec' in SPECS (2025-11-25 2026-07-28 2025-06-18 2025-03-26)" ;;
  esac
done
command -v python3 >/dev/null || die "python3 is needed to score the results"
command -v curl >/dev/null || die "curl is needed to probe the server"

# ---------------------------------------------------------------- installs (idempotent)

# npm_into DIR SPEC: install one npm package under DIR; a stamp records a finished install.
npm_into() {
  local dir=$1 spec=$2
  if [ "$(cat "$dir/.installed" 2>/dev/null)" = "$spec" ]; then
    return 0
  fi
  command -v npm >/dev/null || die "npm is needed to install $spec"
  say "installing $spec into ${dir#"$REPO"/}"
  rm -rf "$dir"
  mkdir -p "$dir"
  npm install --prefix "$dir" --no-audit --no-fund --loglevel=error "$spec" >&2 ||
    die "npm install $spec failed"
  printf '%s\n' "$spec" >"$dir/.installed"
}

node_major() { "$1" -e 'process.stdout.write(process.versions.node.split(".")[0])' 2>/dev/null || echo 0; }

pick_node() {
  local system arch bin
  system=$(command -v node || true)
  if [ -n "$system" ] && [ "$(node_major "$system")" -ge 22 ]; then
    echo "$system"
    return
  fi
  case $(uname -m) in
    x86_64 | amd64) arch=x64 ;;
    aarch64 | arm64) arch=arm64 ;;
    *) die "no node >= 22 and no node-linux package for $(uname -m)" ;;
  esac
  npm_into "$CACHE/node22" "node-linux-$arch@22"
  bin="$CACHE/node22/node_modules/node-linux-$arch/bin/node"
  if [ ! -x "$bin" ] || [ "$(node_major "$bin")" -lt 22 ]; then
    rm -f "$CACHE/node22/.installed"
    die "$bin is not a working node >= 22"
  fi
  echo "$bin"
}

NODE=$(pick_node)
SUITE_DIR="$CACHE/conformance-$CONFORMANCE_VERSION"
npm_into "$SUITE_DIR" "@modelcontextprotocol/conformance@$CONFORMANCE_VERSION"
CLI="$SUITE_DIR/node_modules/@modelcontextprotocol/conformance/dist/index.js"
[ -f "$CLI" ] || { rm -f "$SUITE_DIR/.installed"; die "$CLI missing after install"; }
export PATH="$(dirname "$NODE"):$PATH"

# The suite runs in the background and is waited for, so that INT/TERM traps fire at once
# (bash runs traps only after a foreground child has finished).
suite() {
  local rc=0
  timeout "$HARNESS_TIMEOUT" "$NODE" "$CLI" "$@" &
  SUITE_PID=$!
  wait "$SUITE_PID" || rc=$?
  SUITE_PID=
  return "$rc"
}

SUITE_HELP=$(suite server --help 2>&1) || die "the suite does not start on node $("$NODE" --version): $SUITE_HELP"
case $SUITE_HELP in
  *--requirements*) ;;
  *) die "conformance@$CONFORMANCE_VERSION has no --requirements (needs >= 0.2.0-alpha.11)" ;;
esac
TIMEOUT_ARGS=()
case $SUITE_HELP in *--timeout*) TIMEOUT_ARGS=(--timeout "$SCENARIO_TIMEOUT_MS") ;; esac

RESULTS_DIR=${RESULTS_DIR:-$CACHE/results/$(date -u +%Y%m%dT%H%M%SZ)-$$}
mkdir -p "$RESULTS_DIR"

# ---------------------------------------------------------------- client mode

# MODE=client: the suite's client scenarios against genmcp.client.Client, driven by
# scripts/conformance_client.py; each scenario at each revision it belongs to (CLIENT_RUNS).
# reap_oldest: wait for the oldest client run, record "scenario@revision status" in its .run
reap_oldest() {
  local rc=0
  wait "${CLIENT_PIDS[0]}" || rc=$?
  set -- ${CLIENT_RUN_OF[0]}
  echo "$1 $rc" >"$2.run"
  CLIENT_PIDS=("${CLIENT_PIDS[@]:1}") CLIENT_RUN_OF=("${CLIENT_RUN_OF[@]:1}")
}

if [ "${MODE:-server}" = client ]; then
  CLIENT_CMD=${CLIENT_CMD:-"${VENV:-.venv}/bin/python scripts/conformance_client.py"}
  CLIENT_RUNS=${CLIENT_RUNS:-"initialize@2025-11-25 tools_call@2025-11-25 tools_call@2026-07-28
    request-metadata@2026-07-28 json-schema-ref-no-deref@2026-07-28
    json-schema-2020-12-preservation@2025-11-25 json-schema-2020-12-preservation@2026-07-28
    http-standard-headers@2026-07-28 http-custom-headers@2026-07-28
    http-invalid-tool-headers@2026-07-28 sep-2322-client-request-state@2026-07-28
    sse-retry@2025-11-25 elicitation-sep1034-client-defaults@2025-11-25
    auth/metadata-default@2026-07-28 auth/metadata-var1@2026-07-28 auth/metadata-var2@2026-07-28
    auth/metadata-var3@2026-07-28 auth/basic-cimd@2026-07-28 auth/basic-cimd@2025-11-25
    auth/scope-from-www-authenticate@2026-07-28 auth/scope-from-scopes-supported@2026-07-28
    auth/scope-omitted-when-undefined@2026-07-28 auth/scope-step-up@2026-07-28
    auth/scope-step-up@2025-11-25 auth/scope-retry-limit@2026-07-28
    auth/token-endpoint-auth-basic@2026-07-28 auth/token-endpoint-auth-post@2026-07-28
    auth/token-endpoint-auth-none@2026-07-28 auth/token-endpoint-auth-basic@2025-06-18
    auth/pre-registration@2026-07-28 auth/2025-03-26-oauth-metadata-backcompat@2025-03-26
    auth/2025-03-26-oauth-endpoint-fallback@2025-03-26 auth/resource-mismatch@2026-07-28
    auth/offline-access-scope@2026-07-28 auth/offline-access-not-supported@2026-07-28
    auth/authorization-server-migration@2026-07-28 auth/iss-supported@2026-07-28
    auth/iss-not-advertised@2026-07-28 auth/iss-supported-missing@2026-07-28
    auth/iss-wrong-issuer@2026-07-28 auth/iss-unexpected@2026-07-28
    auth/iss-normalized@2026-07-28 auth/metadata-issuer-mismatch@2026-07-28
    auth/client-credentials-basic@2026-07-28 auth/client-credentials-jwt@2026-07-28
    auth/dpop@2026-07-28 auth/dpop-nonce@2026-07-28 auth/dpop-nonce@2025-11-25
    auth/wif-jwt-bearer@2026-07-28 auth/enterprise-managed-authorization@2026-07-28
    sep-2640-client-no-prefetch@2025-11-25 sep-2640-client-no-prefetch@2026-07-28
    sep-2640-client-verify-digest@2025-11-25 sep-2640-client-verify-digest@2026-07-28
    sep-2640-client-verify-size@2025-11-25 sep-2640-client-verify-size@2026-07-28
    sep-2640-client-verify-frontmatter@2025-11-25 sep-2640-client-verify-frontmatter@2026-07-28"}
  echo "suite: @modelcontextprotocol/conformance@$CONFORMANCE_VERSION on node $("$NODE" --version), client: $CLIENT_CMD"
  # CLIENT_JOBS runs at a time (each scenario's servers listen on ports of their own; a run
  # mostly waits on process start-up, so this pays even on two cores). Each run logs to
  # client/logs/NNN.log and leaves NNN.run ("scenario@revision suite-exit-status"); both are
  # put together in the runs' order afterwards.
  mkdir -p "$RESULTS_DIR/client/logs"
  n=0
  for run in $CLIENT_RUNS; do
    scenario=${run%@*} rev=${run#*@}
    if [ -n "$SCENARIOS" ] && ! printf ' %s ' $SCENARIOS | grep -q " $scenario "; then continue; fi
    n=$((n + 1))
    mkdir -p "$RESULTS_DIR/client/$rev"
    log=$(printf '%s/client/logs/%03d' "$RESULTS_DIR" "$n")
    # --force: extension scenarios (auth/client-credentials-*, auth/dpop*, auth/wif-*, the
    # enterprise-managed one, the Skills extension's sep-2640-client-*) are not on the spec
    # timeline
    timeout "$HARNESS_TIMEOUT" "$NODE" "$CLI" client --command "$CLIENT_CMD" --scenario "$scenario" \
      --spec-version "$rev" --force "${TIMEOUT_ARGS[@]}" -o "$RESULTS_DIR/client/$rev" \
      >"$log.log" 2>&1 &
    CLIENT_PIDS+=("$!") CLIENT_RUN_OF+=("$run $log")
    [ "${#CLIENT_PIDS[@]}" -lt "${CLIENT_JOBS:-3}" ] || reap_oldest
  done
  while [ "${#CLIENT_PIDS[@]}" -gt 0 ]; do reap_oldest; done
  : >"$RESULTS_DIR/client/runs.txt"
  for i in $(seq "$n"); do
    log=$(printf '%s/client/logs/%03d' "$RESULTS_DIR" "$i")
    cat "$log.log" >>"$RESULTS_DIR/client/harness.log" 2>/dev/null || true
    cat "$log.run" >>"$RESULTS_DIR/client/runs.txt" 2>/dev/null || echo "? 1" >>"$RESULTS_DIR/client/runs.txt"
  done
  status=0
  "${VENV:-.venv}/bin/python" scripts/conformance_client.py score "$RESULTS_DIR/client" || status=$?
  echo "time: $((SECONDS - STARTED))s"
  exit "$status"
fi

# ---------------------------------------------------------------- server

# http_status URL: status code of an empty JSON-RPC POST, 000 when nothing answers.
http_status() {
  curl -s -o /dev/null -w '%{http_code}' --max-time 5 -X POST \
    -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
    --data '{}' "$1" 2>/dev/null || true
}

SERVER_LOG="$RESULTS_DIR/server.log"

server_log_tail() {
  say "last lines of $SERVER_LOG:"
  tail -n 30 "$SERVER_LOG" 2>/dev/null | sed 's/^/    /' >&2 || true
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

if [ -n "${URL:-}" ]; then
  code=$(http_status "$URL")
  if [ "$code" = 000 ]; then
    say "nothing answers at $URL"
    echo "conformance: 0 passed, 1 failed"
    exit 1
  fi
  say "testing the running server at $URL (HTTP $code to an empty POST)"
else
  PORT=${PORT:-$(free_port)}
  export PORT
  # $PORT stays literal here: the bash that runs the command expands it.
  SERVER_CMD=${SERVER_CMD:-"${VENV:-.venv}/bin/python examples/everything_server.py --port \$PORT"}
  URL="http://127.0.0.1:$PORT/mcp"
  if [ "$(http_status "$URL")" != 000 ]; then
    die "something already answers at $URL; pick another PORT (or use URL=$URL to test it)"
  fi
  say "starting: $SERVER_CMD  (PORT=$PORT, log ${SERVER_LOG#"$REPO"/})"
  setsid bash -c "$SERVER_CMD" >"$SERVER_LOG" 2>&1 </dev/null &
  SERVER_PID=$!
  deadline=$((SECONDS + SERVER_START_TIMEOUT))
  while :; do
    code=$(http_status "$URL")
    [ "$code" != 000 ] && break
    if ! kill -0 "$SERVER_PID" 2>/dev/null; then
      wait "$SERVER_PID" && status=0 || status=$?
      SERVER_PID=
      say "the server exited (status $status) before answering at $URL"
      server_log_tail
      echo "conformance: 0 passed, 1 failed"
      exit 1
    fi
    if [ $SECONDS -ge $deadline ]; then
      say "the server did not answer at $URL within ${SERVER_START_TIMEOUT}s"
      server_log_tail
      echo "conformance: 0 passed, 1 failed"
      exit 1
    fi
    sleep 0.2
  done
  say "server up at $URL (HTTP $code to an empty POST)"
fi

# ---------------------------------------------------------------- suite runs

echo "suite: @modelcontextprotocol/conformance@$CONFORMANCE_VERSION on node $("$NODE" --version), server $URL"
for rev in $SPECS; do
  out="$RESULTS_DIR/$rev"
  mkdir -p "$out"
  case $rev in
    2025-11-25 | 2026-07-28) list_args=(--requirements "$rev") run_args=(--requirements "$rev") ;;
    *) list_args=(--server --spec-version "$rev") run_args=(--suite all --spec-version "$rev") ;;
  esac
  suite list "${list_args[@]}" >"$out/selection.txt" 2>&1 || true
  rc=0
  if [ -n "$SCENARIOS" ]; then
    : >"$out/harness.log"
    mapfile -t listed < <(python3 "$SCORE" select "$out/selection.txt")
    for s in $SCENARIOS; do
      for l in "${listed[@]}"; do
        if [ "$s" = "$l" ]; then
          # --force: extension scenarios (tasks-*) are listed but "not on the spec timeline"
          suite server --url "$URL" --scenario "$s" --spec-version "$rev" "${TIMEOUT_ARGS[@]}" \
            --force -o "$out" >>"$out/harness.log" 2>&1 || rc=$?
        fi
      done
    done
  else
    say "running ${run_args[*]}"
    suite server --url "$URL" "${run_args[@]}" "${TIMEOUT_ARGS[@]}" -o "$out" \
      >"$out/harness.log" 2>&1 || rc=$?
  fi
  # Extension scenarios no requirement set lists (the Skills extension's): each one forced at
  # the two revisions with a frozen requirement set; forced.txt tells the scorer to score them.
  : >"$out/forced.txt"
  case $rev in
    2025-11-25 | 2026-07-28)
      for s in $FORCED; do
        if [ -n "$SCENARIOS" ] && ! [[ " $SCENARIOS " == *" $s "* ]]; then
          continue
        fi
        echo "$s" >>"$out/forced.txt"
        suite server --url "$URL" --scenario "$s" --spec-version "$rev" "${TIMEOUT_ARGS[@]}" \
          --force -o "$out" >>"$out/harness.log" 2>&1 || rc=$?
      done
      ;;
  esac
  echo "$rc" >"$out/harness.rc"
done

if [ -n "$SERVER_PID" ] && ! kill -0 "$SERVER_PID" 2>/dev/null; then
  say "warning: the server died during the run"
  server_log_tail
fi

# ---------------------------------------------------------------- score

score_args=()
[ -z "$SCENARIOS" ] || score_args=(--only "$SCENARIOS")
status=0
python3 "$SCORE" score "${score_args[@]}" "$RESULTS_DIR" $SPECS >"$RESULTS_DIR/summary.txt" || status=$?
elapsed=$((SECONDS - STARTED))
if ! tail -n 1 "$RESULTS_DIR/summary.txt" | grep -q '^conformance: '; then
  cat "$RESULTS_DIR/summary.txt"
  say "scoring failed (status $status); results are in $RESULTS_DIR"
  echo "conformance: 0 passed, 1 failed"
  exit 1
fi
# Everything but the closing line, then the run time, then the closing line last.
head -n -1 "$RESULTS_DIR/summary.txt"
echo "time: ${elapsed}s"
tail -n 1 "$RESULTS_DIR/summary.txt"
exit "$status"
