#!/usr/bin/env bash
# Instructions per in-process tools/call and tools/list with and without a visibility
# decision (bench/visibility.py under valgrind's callgrind): repeatable whatever else the
# machine does. Each figure is (instructions at 1,500 requests - at 500) / 1,000, so start-up
# cancels out; .pyc files are compiled first and the hash seed fixed.
#
#     bash bench/visibility_instructions.sh                  # none, cached, uncached
#     VARIANTS="none cached" METHODS=tools/call bash bench/visibility_instructions.sh
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
python=${PYTHON:-$here/../.venv/bin/python}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
count() {  # method variant requests -> instructions
    valgrind --tool=callgrind --callgrind-out-file="$out/cg" "$python" "$here/visibility.py" \
        --method "$1" --variant "$2" -n "$3" --runs 1 >/dev/null 2>"$out/err" || { cat "$out/err"; exit 1; }
    awk '/^(summary|totals):/ {print $2; exit}' "$out/cg"
}
export PYTHONHASHSEED=0
"$python" -m compileall -q "$here/../src" "$here" >/dev/null
for method in ${METHODS:-tools/call tools/list}; do
    base=
    for variant in ${VARIANTS:-none cached uncached}; do
        low=$(count "$method" "$variant" 500)
        high=$(count "$method" "$variant" 1500)
        per=$(( (high - low) / 1000 ))
        base=${base:-$per}
        echo "$method $variant: $per instructions per request ($(( (per - base) * 1000 / base )) per mille vs ${VARIANTS%% *})"
    done
done
