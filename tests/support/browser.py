"""MCP Apps test kit: the ext-apps package's published schema, and a real headless browser.

Owns: installing `@modelcontextprotocol/ext-apps` (for `dist/src/generated/schema.json`,
the extension's own JSON Schema of its types) and `playwright-core` into `.cache/apps`
(gitignored) from the npm registry on first use; validating values against a named
definition of that schema (`check_ext_apps`); running `apps_browser.mjs`, which drives
Debian's Chromium (`/usr/bin/chromium`, or `$GENMCP_CHROMIUM`) headless through the test
host page `apps_host.html`, over the built documentation site (`docs_browser.mjs`), or
over an endpoint's interactive page (`docsui_browser.mjs`, `run_docs_page`).

`apps_problem()` / `browser_problem()` say why the schema or the browser cannot be had
here (no node >= 20 or npm, install failed, no chromium); callers skip on it, or fail when
`CI` is set (`require`).
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any, Final

from jsonschema import Draft202012Validator

from support.authorization_server import _node
from support.cachelock import installing
from support.required import unavailable

ROOT: Final = Path(__file__).resolve().parents[2]
CACHE: Final = Path(os.environ.get("GENMCP_APPS_CACHE", ROOT / ".cache" / "apps"))
HOST_PAGE: Final = Path(__file__).with_name("apps_host.html")
DRIVER: Final = Path(__file__).with_name("apps_browser.mjs")
DOCS_DRIVER: Final = Path(__file__).with_name("docs_browser.mjs")
DOCSUI_DRIVER: Final = Path(__file__).with_name("docsui_browser.mjs")
ARTIFACTS: Final = Path(os.environ.get("GENMCP_ARTIFACTS", ROOT / "tmp" / "artifacts")) / "docsui"
"""Where the interactive page's browser tests save their screenshots (gitignored)."""
PACKAGES: Final = ("@modelcontextprotocol/ext-apps@2.0.4", "playwright-core@1.65.1")
SCHEMA: Final = "node_modules/@modelcontextprotocol/ext-apps/dist/src/generated/schema.json"
CHROMIUM: Final = os.environ.get("GENMCP_CHROMIUM", "/usr/bin/chromium")


@functools.cache
def apps_problem() -> str | None:
    """Why the npm packages cannot be had here, or None (installs them when needed)."""
    if _node() is None:
        return "no node >= 20 on PATH (the MCP Apps tests use npm packages under node)"
    with installing(CACHE):  # one installer at a time: xdist workers reach this together
        if _installed():
            return None
        npm = shutil.which("npm")
        if npm is None:
            return "npm is not on PATH (needed once to install the MCP Apps test packages)"
        return _install(npm)


def _installed() -> bool:
    return all((CACHE / "node_modules" / _name(p) / "package.json").is_file() for p in PACKAGES)


def _install(npm: str) -> str | None:
    CACHE.mkdir(parents=True, exist_ok=True)
    (CACHE / "package.json").write_text('{"name": "genmcp-test-apps", "private": true}\n')
    command = [npm, "install", "--no-audit", "--no-fund", "--legacy-peer-deps"]
    done = subprocess.run(
        [*command, "--prefix", str(CACHE), *PACKAGES],
        capture_output=True,
        text=True,
        timeout=300,
    )
    if done.returncode != 0:
        return f"npm install {' '.join(PACKAGES)} failed: {done.stderr[-500:]}"
    return None


@functools.cache
def browser_problem() -> str | None:
    """Why no headless browser test can run here, or None."""
    problem = apps_problem()
    if problem is not None:
        return problem
    if not os.access(CHROMIUM, os.X_OK):
        return f"{CHROMIUM} is missing (apt-get install chromium)"
    return None


def require(problem: str | None) -> None:
    """Skip the calling test on `problem`, or fail it when `CI` is set."""
    if problem is None:
        return
    unavailable(problem, "the MCP Apps tests")


def _name(package: str) -> str:
    return package.rsplit("@", 1)[0]


@functools.cache
def _schema() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((CACHE / SCHEMA).read_text())
    # The generated file (2.0.4) points tool input-schema properties at `#/$defs/__schema0`
    # without defining it (zod's recursive JSON Schema); any JSON Schema may stand there.
    loaded["$defs"].setdefault("__schema0", {})
    return loaded


def check_ext_apps(definition: str, value: Any) -> None:
    """Assert `value` is a valid `definition` of the ext-apps schema (e.g. McpUiToolMeta)."""
    require(apps_problem())
    schema = _schema()
    assert definition in schema["$defs"], f"ext-apps schema has no {definition}"
    validator = Draft202012Validator({"$ref": f"#/$defs/{definition}", "$defs": schema["$defs"]})
    problems = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(value)]
    assert problems == [], f"not a valid {definition}: {problems}"


def run_host(url: str, timeout_s: float = 60.0) -> dict[str, Any]:
    """Run `apps_browser.mjs` against the host page at `url`; its JSON report."""
    return _drive(DRIVER, url, timeout_s)


def run_docs_site(url: str, timeout_s: float = 60.0) -> dict[str, Any]:
    """Run `docs_browser.mjs` over the documentation site served at `url`; its JSON report."""
    return _drive(DOCS_DRIVER, url, timeout_s)


def run_docs_page(config: dict[str, Any], timeout_s: float = 180.0) -> dict[str, Any]:
    """Run the flows of ``docsui_browser.mjs`` named by ``config`` (``example``, ``base``,
    more per example) in one browser; the readings per flow, screenshots in :data:`ARTIFACTS`."""
    require(browser_problem())
    node = _node()
    assert node is not None
    config = {**config, "artifacts": str(ARTIFACTS)}
    done = subprocess.run(
        [node, str(DOCSUI_DRIVER), json.dumps(config), CHROMIUM],
        capture_output=True,
        text=True,
        timeout=timeout_s,  # a hang guard only
        env={**os.environ, "APPS_MODULES": str(CACHE / "node_modules")},
        cwd=CACHE,
    )
    lines = done.stdout.strip().splitlines()
    assert lines, f"the driver printed nothing (rc {done.returncode}): {done.stderr[-1500:]}"
    report: dict[str, Any] = json.loads(lines[-1])
    assert done.returncode == 0 and report["errors"] == [], (report, done.stderr[-1500:])
    flows: dict[str, Any] = report["flows"]
    return flows


def _drive(driver: Path, url: str, timeout_s: float) -> dict[str, Any]:
    require(browser_problem())
    node = _node()
    assert node is not None
    env = {**os.environ, "APPS_MODULES": str(CACHE / "node_modules")}
    done = subprocess.run(
        [node, str(driver), url, CHROMIUM],
        capture_output=True,
        text=True,
        timeout=timeout_s,
        env=env,
        cwd=CACHE,
    )
    lines = done.stdout.strip().splitlines()
    assert lines, (
        f"the browser driver printed nothing (rc {done.returncode}): {done.stderr[-1500:]}"
    )
    report: dict[str, Any] = json.loads(lines[-1])
    assert done.returncode == 0 and "failure" not in report, (report, done.stderr[-1500:])
    return report
