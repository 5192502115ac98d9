"""``python -m genmcp`` and the ``genmcp`` console script: see ``genmcp.cli``."""

from __future__ import annotations

import sys

from genmcp.cli import main as _main

__all__ = ["main"]


def main() -> int:
    """Run the ``genmcp`` command line with ``sys.argv``; returns the exit status."""
    return _main()


if __name__ == "__main__":
    sys.exit(main())
