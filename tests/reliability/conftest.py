from __future__ import annotations

import pytest

from tests.reliability import counts


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    ran = counts.snapshot()
    if not ran:
        return
    terminalreporter.section("reliability: cases run")
    for name, n in sorted(ran.items()):
        terminalreporter.line(f"{name:32} {n:8d}")
    terminalreporter.line(f"{'total':32} {sum(ran.values()):8d}")
    for (sock, answer), n in sorted(counts.outcomes().items()):
        terminalreporter.line(f"  {sock} answered {answer:28} {n:8d}")
