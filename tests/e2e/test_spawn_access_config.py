"""``[spawn] access`` in config.toml: what ``agent spawn`` uses when ``--access`` is left out."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.e2e.jobs_support import (
    BINARY,
    expected_argv,
    new_anchor,
    pane_of,
    running_team,
    spawn,
    standin_in,
)
from tests.support.harness import Mytty

pytestmark = pytest.mark.tmux


@pytest.fixture
def reviewing_team() -> Iterator[Mytty]:
    yield from running_team(providers=("codex",), config='[spawn]\naccess = "review"\n')


def test_a_configured_access_applies_when_none_is_given(reviewing_team: Mytty) -> None:
    m = reviewing_team
    task = "config access check\n@standin: exit"
    job = spawn(m, "--provider", "codex", "--task", task, "--anchor", new_anchor(m))
    argv = standin_in(m, pane_of(job), BINARY["codex"]).argv
    assert argv == expected_argv("codex", ["-s", "read-only", "-a", "never"], task)
    # --access still wins.
    job = spawn(
        m,
        "--provider",
        "codex",
        "--access",
        "workspace-write",
        "--task",
        task,
        "--anchor",
        new_anchor(m),
    )
    argv = standin_in(m, pane_of(job), BINARY["codex"]).argv
    assert argv == expected_argv("codex", ["-s", "workspace-write", "-a", "never"], task)
