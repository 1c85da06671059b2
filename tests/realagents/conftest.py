"""Fixtures of the real-agent tier: the pinned CLIs (installed once per session) and a test user.

When the pinned CLIs cannot be installed, every test of the tier is skipped with the reason
(``-rs`` lists it), and the terminal summary always says how many real-agent tests ran.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.realagents.install import AgentCLIs, InstallUnavailable, install
from tests.realagents.support import RealUser, close_user, make_user

_TIER = "tests/realagents/"


@pytest.fixture(scope="session")
def agent_clis() -> AgentCLIs:
    try:
        return install()
    except InstallUnavailable as e:
        pytest.skip(f"realagent: the pinned agent CLIs are not installable here: {e}")


@pytest.fixture
def user(agent_clis: AgentCLIs) -> Iterator[RealUser]:
    u = make_user(agent_clis)
    try:
        u.m.start()
        yield u
    finally:
        close_user(u)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.nodeid.startswith(_TIER):
            item.add_marker(pytest.mark.realagent)
            item.add_marker(pytest.mark.tmux)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    outcomes: dict[str, str] = {}
    for reports in terminalreporter.stats.values():
        for report in reports:
            nodeid = getattr(report, "nodeid", "")
            if not nodeid.startswith(_TIER) or not hasattr(report, "when"):
                continue
            if report.when == "call" or report.outcome != "passed":
                outcomes.setdefault(nodeid, report.outcome)
    if not outcomes:
        return
    counts = {
        o: sum(1 for v in outcomes.values() if v == o) for o in ("passed", "failed", "skipped")
    }
    terminalreporter.write_line(
        f"realagent tier: {counts['passed']} passed, {counts['failed']} failed, "
        f"{counts['skipped']} skipped (of {len(outcomes)} real-agent tests)"
    )
