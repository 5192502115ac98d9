"""What the layout checks print at the end of their run (``make test`` step 3).

- Modules past ~400 lines: a report, never a failure. A long module may hold two ideas
  (split it by concept) or one long one (leave it).
- The mirror coverage of the six core packages (``test_test_tree.py`` holds its floor).
"""

from __future__ import annotations

import pytest

from tests.layout.sources import LONG_MODULE, long_modules
from tests.layout.test_test_tree import CORE, coverage


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    long = long_modules()
    terminalreporter.section(f"modules past {LONG_MODULE} lines (a report, not a failure)")
    if not long:
        terminalreporter.write_line("none")
    for name, lines in long:
        terminalreporter.write_line(f"{lines:5d}  {name}")
    covered, total, _ = coverage()
    terminalreporter.section("the test tree")
    terminalreporter.write_line(
        f"{covered} of {total} modules of {', '.join(CORE)} have tests/<package>/"
        f"test_<module>.py ({covered / total:.0%})"
    )
