"""The binary check asks the PATH the worker's login shell really gets (issue 26, item 1).

Before, it disagreed with the worker both ways: a lead whose own PATH held ``claude`` got its
spawn accepted, but the worker's login shell had no ``claude`` (``command not found``); with
the PATH set in ``~/.bashrc`` (no ``~/.profile``, so tmux's login shells alone never read it)
the worker found it, but a spawn from a plain shell was refused.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.e2e.jobs_support import pane_of, spawn, standin_in
from tests.support.harness import VENV_BIN, Mytty

pytestmark = pytest.mark.tmux

PLAIN_PATH = f"{VENV_BIN}:/usr/local/bin:/usr/bin:/bin"


@pytest.fixture
def bare() -> Iterator[Mytty]:
    """A user whose shells know nothing of the agents' directory, and a controller started
    from such a shell (its PATH has no ``claude`` either)."""
    m = Mytty()
    (m.home / ".profile").unlink()
    m.env["PATH"] = PLAIN_PATH
    m.install_standins("claude")
    try:
        yield m
    finally:
        m.close()


def _spawn(m: Mytty, env: dict[str, str]) -> dict[str, Any]:
    return spawn(m, "--provider", "claude", "--task", "x\n@standin: sleep 30", env=env)


def test_a_path_only_in_bashrc_is_the_workers_path(bare: Mytty) -> None:
    m = bare
    (m.home / ".bashrc").write_text(f'export PATH="{m.bin}:$PATH"\n')
    m.start()
    job = _spawn(m, {"PATH": PLAIN_PATH})  # a plain shell: no claude on its PATH
    assert job["state"] == "launching"
    standin_in(m, pane_of(job), "claude")  # the worker's shell found it


def test_a_lead_whose_own_path_has_the_binary_passes_its_directory(bare: Mytty) -> None:
    m = bare
    m.start()
    job = _spawn(m, {"PATH": f"{m.bin}:{PLAIN_PATH}"})  # the lead exported it itself
    standin_in(m, pane_of(job), "claude")  # not "command not found"


def test_on_no_path_at_all_is_refused_at_once(bare: Mytty) -> None:
    m = bare
    m.start()
    before = len(m.panes())
    refused = m.ctl(
        "agent", "spawn", "--provider", "claude", "--task", "x", env={"PATH": PLAIN_PATH}
    )
    assert refused.code == "provider-binary-not-found"
    assert "login shell" in refused.stderr
    assert len(m.panes()) == before
