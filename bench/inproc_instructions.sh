#!/usr/bin/env bash
# Instructions per in-process tools/call (bench/inproc.py under valgrind's callgrind), for
# each checkout given: repeatable whatever else the machine does, so small hot-path changes
# can be compared. Each figure is (instructions at 1,500 calls - at 500 calls) / 1,000, so
# start-up cancels out; .pyc files are compiled first and the hash seed fixed. LOW and HIGH
# change the two call counts (500, 1500).
#
#     bash bench/inproc_instructions.sh . /tmp/base      # this checkout and a worktree
#     INPROC_ARGS=--legacy bash bench/inproc_instructions.sh .   # in a 2025-11-25 session
#     INPROC_ARGS="--depends agen" LOW=200 HIGH=700 bash bench/inproc_instructions.sh .
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
python=${PYTHON:-$here/../.venv/bin/python}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
count() {  # tree calls -> instructions
    valgrind --tool=callgrind --callgrind-out-file="$out/cg" "$python" "$here/inproc.py" \
        --tree "$1" -n "$2" --runs 1 ${INPROC_ARGS:-} >/dev/null 2>"$out/err" || { cat "$out/err"; exit 1; }
    awk '/^(summary|totals):/ {print $2; exit}' "$out/cg"
}
export PYTHONHASHSEED=0
for tree in "$@"; do
    "$python" -m compileall -q "$tree/src" "$here" >/dev/null
    low=$(count "$tree" "${LOW:-500}")
    high=$(count "$tree" "${HIGH:-1500}")
    echo "$tree: $(( (high - low) / (${HIGH:-1500} - ${LOW:-500}) )) instructions per tools/call"
done
