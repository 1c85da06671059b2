"""MYTTY_TEST_TIMINGS, the test-only override of the controller's durations, end to end.

Unit tests drive the controller's clock directly (tests/daemon/test_clock.py); this checks that
``mytty serve`` takes the override from its environment, and refuses a bad one at start.
"""

from __future__ import annotations

import pytest

from mytty.daemon.clock import TIMINGS_ENV
from tests.e2e.jobs_support import agent_wait, new_anchor, spawn
from tests.support.harness import Mytty

pytestmark = pytest.mark.tmux


def test_a_shortened_launch_window_ends_a_silent_job_early() -> None:
    m = Mytty(extra_env={TIMINGS_ENV: "launch_window=2"})
    try:
        m.start()
        # A `claude` that never reports anything: no hooks, and once it has exec'd into
        # `sleep` nothing in the pane looks like an agent to native estimation either.
        fake = m.bin / "claude"
        fake.write_text("#!/bin/sh\nexec sleep 120\n")
        fake.chmod(0o755)
        job = spawn(m, "--provider", "claude", "--task", "x", "--anchor", new_anchor(m))
        # With the production window (30 s) this 20 s wait would end timedOut.
        reply = agent_wait(m, job, "completed", 20)
        assert reply["timedOut"] is False, reply
        assert reply["job"]["state"] == "launch-failed", reply
    finally:
        m.close()


def test_a_bad_override_refuses_to_start() -> None:
    m = Mytty(extra_env={TIMINGS_ENV: "launch=2"})
    try:
        with pytest.raises(AssertionError, match="did not start") as err:
            m.start()
        # serve's one failure line names the variable and the code.
        assert f"invalid-request: {TIMINGS_ENV}: 'launch=2'" in str(err.value)
    finally:
        m.close()
