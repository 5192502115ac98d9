"""A test that needs an outside service (Redis, nginx, Chromium, node, an authorization
server) skips without it on a developer's machine and fails under CI, which must run it.
One rule, one place: `CI` counts as set unless empty, "0" or "false"."""

from __future__ import annotations

import os
from typing import NoReturn

import pytest

__all__ = ["unavailable", "under_ci"]


def under_ci() -> bool:
    """True when the `CI` environment variable is set (not empty, "0" or "false")."""
    return os.environ.get("CI", "").lower() not in ("", "0", "false")


def unavailable(problem: str, what: str) -> NoReturn:
    """Skip the calling test for `problem`; under CI fail it instead: CI must run `what`."""
    if under_ci():
        pytest.fail(f"CI must run {what}, but {problem}", pytrace=False)
    pytest.skip(problem)
