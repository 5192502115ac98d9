#!/usr/bin/env bash
# Instructions per in-process tools/call for each RateLimit variant of bench/ratelimit_overhead.py
# (none, memory, redis, redis+headers) under valgrind's callgrind: repeatable on a busy machine,
# where wall-clock figures are not. Each figure is (instructions at 1,500 calls - at 500) / 1,000,
# so start-up cancels out. Counts this process only: Redis's own work is `INFO commandstats`'
# usec_per_call, which bench/ratelimit_overhead.py prints, and the kernel's send is not counted.
#
#     bash bench/ratelimit_instructions.sh                 # all four
#     bash bench/ratelimit_instructions.sh none redis      # some
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
python=${PYTHON:-$here/../.venv/bin/python}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
count() {  # variant calls -> instructions
    valgrind --tool=callgrind --callgrind-out-file="$out/cg" "$python" "$here/ratelimit_overhead.py" \
        --variant "$1" "$2" >/dev/null 2>"$out/err" || { cat "$out/err"; exit 1; }
    awk '/^(summary|totals):/ {print $2; exit}' "$out/cg"
}
export PYTHONHASHSEED=0
"$python" -m compileall -q "$here/../src" "$here" >/dev/null
variants=("$@")
[ ${#variants[@]} -gt 0 ] || variants=(none memory redis redis+headers)
for variant in "${variants[@]}"; do
    low=$(count "$variant" 500)
    high=$(count "$variant" 1500)
    echo "$variant: $(( (high - low) / 1000 )) instructions per tools/call"
done
