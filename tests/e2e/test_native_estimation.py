"""Native run estimation end to end: stand-in agents with no hooks installed, real tmux.

With no integration installed nothing reports runs but the controller itself: it sees the agent
in the pane's foreground (/proc), starts a run once the start grace passed, and ends it from the
shell's "finished with exit N" (OSC 133 D via shell integration) or, with no shell to say so,
from the process or pane going away (semantics §9). The grace is cut to 1 s (test-only
override) so the tests need not wait out 3 s each time.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from typing import Any

import pytest

from mytty.daemon.clock import TIMINGS_ENV
from tests.e2e.events_support import stored_events, wait_request
from tests.e2e.jobs_support import (
    agent_wait,
    completed,
    listed,
    new_anchor,
    pane_of,
    run_id,
    spawn,
    standin_in,
    team,
)
from tests.support.harness import Mytty, wait_until

pytestmark = pytest.mark.tmux

NATIVE = "mytty.native."


@pytest.fixture(scope="module")
def native() -> Iterator[Mytty]:
    """One controller, every stand-in on PATH, no integration installed."""
    m = Mytty(extra_env={TIMINGS_ENV: "native_start_grace=1"})
    try:
        m.start()
        m.install_standins("claude", "codex", "cursor-agent")
        yield m
    finally:
        m.close()


def native_events(m: Mytty, pane_id: str) -> list[dict[str, Any]]:
    def mine(e: dict[str, Any]) -> bool:
        return bool(e["surfaceID"]["rawValue"] == pane_id)

    return [e for e in stored_events(m) if mine(e)]


def hook_names(m: Mytty, pane_id: str) -> list[tuple[str, str]]:
    return [(e["kind"], e.get("hookName", "")) for e in native_events(m, pane_id)]


def running_job(m: Mytty, provider: str, task: str) -> dict[str, Any]:
    job = spawn(m, "--provider", provider, "--task", task, "--anchor", new_anchor(m))
    reply = agent_wait(m, job, "running", 30)
    assert reply["timedOut"] is False, reply
    bound = reply["job"]
    assert bound["state"] == "running" and run_id(bound) is not None, bound
    return bound


def test_a_worker_without_hooks_runs_and_succeeds_on_exit_0(native: Mytty) -> None:
    m = native
    job = spawn(
        m,
        "--provider",
        "claude",
        "--task",
        "work\n@standin: sleep 6; exit",
        "--anchor",
        new_anchor(m),
    )
    pane = pane_of(job)
    standin_in(m, pane, "claude")
    # `list` names the agent as soon as it is in front (the run starts after the grace).
    wait_until(lambda: (listed(m, pane) or {}).get("command") == "Claude Code", 15)
    entry = wait_until(
        lambda: e if (e := listed(m, pane)) and e.get("agentState") == "running" else None,
        20,
        message="the native run to start",
    )
    assert entry["provider"] == "claude-code"
    # The job binds to the native run instead of ending launch-failed.
    running = agent_wait(m, job, "running", 20)["job"]
    assert running["state"] == "running" and run_id(running) is not None, running
    # The pane is not idle while the agent works…
    assert wait_request(m, pane, "idle", 0.5)["timedOut"] is True
    # …and the shell's "exit 0" ends the run succeeded.
    done = completed(m, job, timeout=40)
    assert done["state"] == "succeeded", done
    assert done["runID"] == running["runID"]
    idle = wait_request(m, pane, "idle", 20)
    assert idle == {"type": "waitResult", "state": "succeeded", "timedOut": False}, idle
    # One run from launch to exit: the epoch's own, or (once the transcript reader saw the
    # prompt) the turn's, with the run id the hooks would give it.
    events = native_events(m, pane)
    names = [(e["kind"], e["hookName"]) for e in events]
    assert names[0] in {("started", NATIVE + "launchObserved"), ("started", NATIVE + "turnStarted")}
    assert names[-1] in {
        ("succeeded", NATIVE + "commandFinished"),
        ("succeeded", NATIVE + "turnCompleted"),
    }, names
    assert {e["runID"]["rawValue"] for e in events} == {done["runID"]["rawValue"]}, events
    for e in events:
        assert e["hookName"].startswith(NATIVE), e
        assert "sessionID" not in e or e["sessionID"] is None, e


def test_exit_1_fails_the_run_and_a_wrapper_shell_is_seen_through(native: Mytty) -> None:
    # The agent runs under a wrapper script that exits 1 after it: the wrapper search finds
    # the agent below `sh`, and the shell's "finished with exit 1" fails the run.
    m = native
    wrapper = "sh -c 'claude -- \"@standin: sleep 3; exit\"; exit 1'"
    pane = m.ctl("new-tab", "--command", wrapper).json["paneID"]
    standin_in(m, pane, "claude")
    wait_until(lambda: (listed(m, pane) or {}).get("command") == "Claude Code", 15)
    wait_until(
        lambda: (listed(m, pane) or {}).get("agentState") == "running",
        20,
        message="the native run to start",
    )
    done = wait_request(m, pane, "idle", 30)
    assert done == {"type": "waitResult", "state": "failed", "timedOut": False}, done
    assert hook_names(m, pane)[-1] == ("failed", NATIVE + "commandFinished")


def test_a_worker_that_exits_1_fails_its_job(native: Mytty) -> None:
    m = native
    job = running_job(m, "claude", "work\n@standin: sleep 3; crash")
    done = completed(m, job, timeout=40)
    assert done["state"] == "failed", done
    assert hook_names(m, pane_of(job))[-1] == ("failed", NATIVE + "commandFinished")
    assert wait_request(m, pane_of(job), "idle", 10)["state"] == "failed"


def test_death_by_signal_at_a_shell_is_failed_with_its_status(native: Mytty) -> None:
    # The shell reports 128+signal: a non-zero exit, so the seed's rule says failed.
    m = native
    job = running_job(m, "cursor", "work\n@standin: sleep 120")
    agent = standin_in(m, pane_of(job), "cursor-agent")
    os.kill(agent.pid, signal.SIGKILL)
    done = completed(m, job, timeout=20)
    assert done["state"] == "failed", done


def test_death_by_signal_with_no_shell_is_disconnected(native: Mytty) -> None:
    # The agent is the pane's own process (exec): nothing reports an exit status.
    m = native
    reply = m.ctl("new-tab", "--command", "exec claude -- '@standin: sleep 120'").json
    pane = reply["paneID"]
    agent = standin_in(m, pane, "claude")
    wait_until(
        lambda: (listed(m, pane) or {}).get("agentState") == "running",
        20,
        message="the native run to start",
    )
    os.kill(agent.pid, signal.SIGKILL)
    wait_until(
        lambda: hook_names(m, pane)[-1:] == [("disconnected", NATIVE + "processExited")],
        10,
        message="the run to end disconnected",
    )


def test_a_killed_pane_disconnects_its_run(native: Mytty) -> None:
    m = native
    job = running_job(m, "claude", "work\n@standin: sleep 120")
    pane = pane_of(job)
    m.tmux("kill-pane", "-t", m.tmux_id(pane))
    wait_until(
        lambda: hook_names(m, pane)[-1:] == [("disconnected", NATIVE + "processExited")],
        10,
        message="the run to end disconnected",
    )
    assert completed(m, job, timeout=10)["state"] == "lost"  # its pane is gone


def test_a_restart_keeps_tracking_agents_that_still_run(native: Mytty) -> None:
    m = native
    anchor = new_anchor(m)
    jobs = [
        spawn(m, "--provider", "claude", "--task", task, "--anchor", anchor)
        for task in ("work\n@standin: sleep 20; exit", "work\n@standin: sleep 120")
    ]
    stays, leaves = [agent_wait(m, job, "running", 30)["job"] for job in jobs]
    assert stays["state"] == leaves["state"] == "running", (stays, leaves)
    doomed = standin_in(m, pane_of(leaves), "claude")
    m.stop()
    # While no controller watches, one agent dies (its shell is back in front).
    os.kill(doomed.pid, signal.SIGKILL)
    wait_until(lambda: not os.path.exists(f"/proc/{doomed.pid}"), 10, message="the agent gone")
    m.start()
    # The startup sweep closed only the run whose agent is gone.
    gone = listed(m, pane_of(leaves))
    assert gone is not None and gone["agentState"] == "disconnected", gone
    assert hook_names(m, pane_of(leaves))[-1] == ("disconnected", "mytty.startupSweep")
    kept = listed(m, pane_of(stays))
    assert kept is not None and kept["agentState"] == "running", kept
    # …and the one still running is tracked to its end by the new controller, on its run.
    done = completed(m, stays, timeout=40)
    assert done["state"] == "succeeded" and done["runID"] == stays["runID"], done


def test_installed_hooks_leave_no_room_for_estimates() -> None:
    m = Mytty(extra_env={TIMINGS_ENV: "native_start_grace=1"})
    try:
        m.start()
        team(m, providers=("claude",))
        job = spawn(
            m,
            "--provider",
            "claude",
            "--task",
            "work\n@standin: sleep 3; exit",
            "--anchor",
            new_anchor(m),
        )
        assert completed(m, job, timeout=40)["state"] == "succeeded"
        names = [name for _, name in hook_names(m, pane_of(job))]
        assert names and not any(n.startswith(NATIVE) for n in names), names
    finally:
        m.close()


@pytest.mark.parametrize("provider", ["claude", "codex"])
def test_a_turn_answered_between_two_looks_completes_the_job(native: Mytty, provider: str) -> None:
    """The real Claude and Codex answer a short task within one 0.5 s pass: the transcript's
    first look at the turn already shows it ended. The job still binds a turn run and ends
    ``succeeded`` (the original ignores a turn first seen ended)."""
    m = native
    # `boot`: like the real CLIs, write nothing for a while (the estimator's first looks find
    # no turn), then the whole turn at once, within milliseconds.
    task = "Say hello.\n@standin: boot 1.5"
    job = spawn(m, "--provider", provider, "--task", task, "--anchor", new_anchor(m))
    pane = pane_of(job)
    m.wait_for_text(pane, "STANDIN turn 1 done", 30)
    done = completed(m, job, timeout=40)
    assert done["state"] == "succeeded", done
    # The epoch's run (started once the 1 s grace passed) hands off to the turn, which the
    # job follows: before, the hand-off's idle ended the job `disconnected` (and within the
    # grace, as with the 3 s default, no run at all: `launch-failed`).
    names = hook_names(m, pane)
    assert names[:-2] in (
        [],
        [("started", NATIVE + "launchObserved"), ("idle", NATIVE + "turnHandoff")],
    )
    assert names[-2:] == [
        ("started", NATIVE + "turnStarted"),
        ("succeeded", NATIVE + "turnCompleted"),
    ]
    assert standin_in(m, pane, provider).pid > 0  # the agent is still there, at its prompt


def test_a_fast_codex_turn_whose_model_api_failed_fails_the_job(native: Mytty) -> None:
    """Codex 0.171 records a model API error on the turn's task_complete (``error.message``):
    the turn, first seen already ended, fails with that message (it was `succeeded`: the
    reader's failure event reached the run before the turn's start, so it was dropped)."""
    m = native
    task = "Ask the model.\n@standin: boot 1.5; apierror"
    job = spawn(m, "--provider", "codex", "--task", task, "--anchor", new_anchor(m))
    pane = pane_of(job)
    done = completed(m, job, timeout=40)
    assert done["state"] == "failed", (done, hook_names(m, pane))
    assert "stand-in API error" in (done["message"] or ""), done
    # The reader's own mytty.codexTurnFailed is stored too (ignored or redundant on the run).
    assert ("failed", NATIVE + "turnFailed") in hook_names(m, pane)


@pytest.mark.parametrize("provider", ["claude", "codex"])
def test_a_prompt_queued_while_busy_lets_the_finished_turn_succeed(
    native: Mytty, provider: str
) -> None:
    """A prompt typed while the agent works runs as soon as the turn ends: the transcript
    shows the end and the next start within one 0.5 s look. The job of the first turn ends
    ``succeeded`` (it read ``disconnected``: the next turn's start superseded it)."""
    m = native
    job = running_job(m, provider, "First.\n@standin: sleep 3")
    pane = pane_of(job)
    m.ctl("send", pane, "Queued while busy.", "--enter").ok()  # the tty holds it meanwhile
    done = completed(m, job, timeout=40)
    assert done["state"] == "succeeded", (done, hook_names(m, pane))
    m.wait_for_text(pane, "STANDIN turn 2 done", 30)
    names = hook_names(m, pane)
    assert ("idle", NATIVE + "turnSuperseded") not in names, names
    assert names.count(("succeeded", NATIVE + "turnCompleted")) == 2, names
