#!/usr/bin/env bash
# `make matrix`: the FastAPI-facing tests and the examples on each release pyproject.toml
# declares a range for, one venv per cell under $MATRIX_VENVS/<cell> (default
# ~/.cache/genmcp-matrix: outside the checkout, so CI's fresh clones on one machine reuse them;
# rebuilt when pyproject.toml or the cell's pins change; genmcp itself is installed editable
# from this checkout when the venv's is another checkout's, a few seconds).
#
#   floor      Python 3.11, every web dependency at its declared floor (scripts/matrix-floor.txt)
#   floor-313  Python 3.13, the same floors
#   mid        Python 3.12, FastAPI 0.135.0 (includes still copied, Starlette 1.x)
#   newest     Python 3.13, the newest FastAPI and Starlette
#   py312      Python 3.12, what pyproject.toml resolves to: `make pytest-312`'s venv (not
#              one of the default cells; that target runs the suite in it)
#
# The newest FastAPI on Python 3.11 is `make test` itself (and 3.12 `make pytest-312`).
#
# MATRIX_CELLS='floor newest' runs some; MATRIX_TESTS replaces the tests, MATRIX_ARGS adds
# pytest options, MATRIX_XDIST replaces the workers (-n 2 --dist loadfile); MATRIX_PYTHON
# names the interpreter of a one-cell run (else the first of the cell's version found).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

cells=${MATRIX_CELLS:-floor floor-313 mid newest}
venvs=${MATRIX_VENVS:-${XDG_CACHE_HOME:-$HOME/.cache}/genmcp-matrix}
read -r -a tests <<< "${MATRIX_TESTS:-tests/transports tests/sessions tests/fastapi tests/functions \
tests/routes_as_tools tests/testing tests/examples tests/test_context.py}"
# two workers (MATRIX_XDIST), whole files each; the browser test needs chromium and npm, which CI's matrix skips
read -r -a xdist <<< "${MATRIX_XDIST:--n 2 --dist loadfile}"
args=("${xdist[@]}" -m "not long" --ignore=tests/examples/test_apps_browser.py)
read -r -a extra <<< "${MATRIX_ARGS:-}"

python_for() {  # MATRIX_PYTHON, else the first interpreter of version $1 found: on PATH, then pyenv's
    local p
    if [ -n "${MATRIX_PYTHON:-}" ]; then echo "$MATRIX_PYTHON"; return; fi
    for p in "python$1" /root/.pyenv/versions/"$1"*/bin/python "/usr/bin/python$1"; do
        if "$p" -c "import sys; assert sys.version_info[:2] == tuple(map(int, '$1'.split('.')))" \
            2>/dev/null; then command -v "$p" || echo "$p"; return; fi
    done
    echo "matrix: no Python $1 found" >&2; return 1
}

pins_for() {  # what pip installs besides -e '.[dev]'
    case $1 in
        floor | floor-313) echo "-c scripts/matrix-floor.txt fastapi" ;;
        mid) echo "fastapi==0.135.0" ;;
        newest) echo "--upgrade fastapi starlette" ;;
        py312) echo "" ;;
    esac
}

version_for() {
    case $1 in floor) echo 3.11 ;; mid | py312) echo 3.12 ;; floor-313 | newest) echo 3.13 ;; esac
}

installed_from() {  # the checkout genmcp is installed editable from in venv $1 (a file: URL)
    "$1/bin/python" -c 'import json
from importlib.metadata import PackageNotFoundError, distribution
try:
    print(json.loads(distribution("genmcp").read_text("direct_url.json") or "{}").get("url", ""))
except PackageNotFoundError:
    pass'
}

failed=()
for cell in $cells; do
    venv=$venvs/$cell
    pins=$(pins_for "$cell")
    stamp="$venv/.stamp"
    want="$(cat pyproject.toml scripts/matrix-floor.txt | cksum) $pins"
    started=$SECONDS
    if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
        py=$(python_for "$(version_for "$cell")")
        echo "==> matrix $cell: building $venv with $py"
        rm -rf "$venv"
        "$py" -m venv "$venv"
        # shellcheck disable=SC2086  # the pins are words
        "$venv/bin/python" -m pip install --disable-pip-version-check --no-input --quiet \
            $pins -e '.[dev]'
        echo "$want" > "$stamp"
    elif [ "$(installed_from "$venv")" != "file://$PWD" ]; then  # kept from an earlier run
        # of another checkout: genmcp from this one (an editable install of this checkout
        # with this pyproject.toml, the stamp's, is already what it would make)
        "$venv/bin/python" -m pip install --disable-pip-version-check --no-input --quiet \
            --no-deps -e .
    fi
    versions=$("$venv/bin/python" -c 'import sys, fastapi, starlette, pydantic, uvicorn
from importlib.metadata import version
print(f"Python {sys.version.split()[0]}, FastAPI {fastapi.__version__}, Starlette "
      f"{starlette.__version__}, pydantic {pydantic.VERSION}, uvicorn {uvicorn.__version__},",
      "sse-starlette", version("sse-starlette"))')
    echo "==> matrix $cell: $versions"
    # this checkout's src first, for the tests and the processes they start: a run from another
    # checkout may reinstall the kept venv's genmcp meanwhile
    if PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}" \
        "$venv/bin/python" -m pytest -q "${args[@]}" "${extra[@]}" "${tests[@]}"; then
        echo "==> matrix $cell: passed in $((SECONDS - started))s"
    else
        echo "==> matrix $cell: FAILED in $((SECONDS - started))s"
        failed+=("$cell")
    fi
done
if [ ${#failed[@]} -gt 0 ]; then
    echo "matrix: failed: ${failed[*]}"
    exit 1
fi
