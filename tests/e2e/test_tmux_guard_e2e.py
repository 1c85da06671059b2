"""The kill-server guard end to end: a real controller, the installed Claude integration, the
stand-in Claude firing PreToolUse with Claude Code's payload, the real hook helper deciding.

Each test has a controller of its own: were the guard to fail, ``tmux kill-server`` would
really run, and only that test's private tmux server would go.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from tests.e2e.jobs_support import (
    agent_result,
    completed,
    job_id,
    new_anchor,
    pane_of,
    running_team,
    spawn,
    standin_in,
)
from tests.e2e.test_hooks_e2e import hook_log
from tests.support.harness import Mytty

pytestmark = pytest.mark.tmux


@pytest.fixture
def guarded() -> Iterator[Mytty]:
    yield from running_team(providers=("claude",))


@pytest.fixture
def unguarded() -> Iterator[Mytty]:
    yield from running_team(providers=("claude",), config="[spawn]\nguard_tmux_server = false\n")


def _run_in_worker(m: Mytty, command: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """Spawn a stand-in Claude worker whose one tool call is ``command``; (job, PreToolUse run)."""
    job = spawn(
        m, "--provider", "claude", "--task", f"@standin: run {command}", "--anchor", new_anchor(m)
    )
    done = completed(m, job)
    pid = standin_in(m, pane_of(job), "claude").pid
    (pre,) = [run for run in hook_log(m, "claude", pid) if run["event"] == "PreToolUse"]
    return done, pre


def _server_alive(m: Mytty) -> bool:
    return "base" in m.tmux("list-sessions", "-F", "#{session_name}", check=False)


def test_a_worker_is_refused_tmux_kill_server_and_told_to_use_its_own_socket(
    guarded: Mytty,
) -> None:
    m = guarded
    done, pre = _run_in_worker(m, "tmux kill-server")
    assert pre["payload"]["tool_name"] == "Bash"
    assert pre["payload"]["tool_input"]["command"] == "tmux kill-server"
    assert pre["exitCode"] == 0 and pre["stderr"] == ""
    decision = json.loads(pre["stdout"])["hookSpecificOutput"]
    assert (decision["hookEventName"], decision["permissionDecision"]) == ("PreToolUse", "deny")
    assert "tmux -L" in decision["permissionDecisionReason"]
    assert m.socket in decision["permissionDecisionReason"]
    assert _server_alive(m)
    assert done["state"] == "succeeded"
    assert "mytty refused" in agent_result(m, done)["lastAssistantMessage"]
    m.wait_for_text(pane_of(done), "STANDIN tool denied")


def test_a_worker_may_kill_a_server_of_its_own(guarded: Mytty) -> None:
    m = guarded
    own = f"tmux -L guard-other-{m.root.name}"
    done, pre = _run_in_worker(m, f"{own} new-session -d && {own} kill-server")
    assert pre["stdout"] == "" and pre["exitCode"] == 0  # no opinion: the tool runs
    m.wait_for_text(pane_of(done), "STANDIN tool ran: 0")
    assert _server_alive(m)
    assert done["state"] == "succeeded"


def test_the_guard_is_off_when_config_says_so(unguarded: Mytty) -> None:
    m = unguarded
    # `true ||` keeps the shell from ever running the kill; only the guard would object.
    done, pre = _run_in_worker(m, "true || tmux kill-server")
    assert pre["stdout"] == ""
    m.wait_for_text(pane_of(done), "STANDIN tool ran: 0")
    assert job_id(done)


def test_a_pane_that_is_not_a_spawned_worker_is_not_guarded(guarded: Mytty) -> None:
    m = guarded
    pane = m.ctl("new-tab", "--command", "claude -- '@standin: run true || tmux kill-server'").json
    pane_id = pane["paneID"]
    m.wait_for_text(pane_id, "STANDIN tool ran: 0", timeout=30)
