"""``explain`` end to end: a real controller, real tmux, stand-in agents.

A hooked job names its provider's hook events (``source: hook``, their ``hookName``), an
unhooked one native estimation and what it saw (the foreground process, the shell's exit
report, the transcript's turn), a resumed one the resumption (``source: resume``); a hooked run
whose agent died without its Stop hook is flagged ``agent-gone``. ``mytty explain`` prints the
same for humans, within 80 columns.
"""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Iterator
from typing import Any

import pytest

from mytty.daemon.clock import TIMINGS_ENV
from tests.e2e.jobs_support import (
    agent_wait,
    completed,
    job_id,
    new_anchor,
    pane_of,
    spawn,
    standin_in,
    team,
)
from tests.e2e.test_lifecycle import kill_tmux_server, run_mytty
from tests.support.harness import Mytty, wait_until

pytestmark = pytest.mark.tmux


def explain(m: Mytty, target: str) -> dict[str, Any]:
    """``mytty-ctl explain``: what agents and scripts get."""
    reply = m.ctl("explain", target).json
    assert reply["type"] == "explanation", reply
    return reply


def mytty_explain(m: Mytty, target: str) -> dict[str, Any]:
    """``mytty explain --json``: the human command's JSON (the same reply)."""
    out = run_mytty(m, "explain", "--json", target)
    assert out.returncode == 0, out.stdout + out.stderr
    reply: dict[str, Any] = json.loads(out.stdout)
    assert reply["type"] == "explanation", reply
    return reply


def sources(reply: dict[str, Any]) -> set[tuple[str, str | None]]:
    """(source, hookName) of the evidence on the run the state comes from."""
    return {(e["source"], e.get("hookName")) for e in reply["evidence"] if e["shownRun"]}


def codes(reply: dict[str, Any]) -> set[str]:
    return {w["code"] for w in reply["warnings"]}


@pytest.fixture(scope="module")
def hooked() -> Iterator[Mytty]:
    m = Mytty()
    try:
        m.start()
        team(m, providers=("claude",))
        yield m
    finally:
        m.close()


def test_a_hooked_job_names_its_hooks(hooked: Mytty) -> None:
    m = hooked
    job = spawn(m, "--provider", "claude", "--task", "work\n@standin: sleep 1")
    done = completed(m, job, 60)
    assert done["state"] == "succeeded", done
    reply = mytty_explain(m, job_id(job)[:8])  # the prefix `mytty ls` shows
    assert reply["target"] == "job" and reply["state"] == "succeeded", reply
    assert reply["jobID"] == job["jobID"] and reply["paneID"] == pane_of(job)
    assert reply["run"]["runID"] == done["runID"]["rawValue"]
    found = sources(reply)
    assert ("hook", "UserPromptSubmit") in found and ("hook", "Stop") in found, found
    assert not any(source != "hook" for source, _ in found), found
    stop = [e for e in reply["evidence"] if e.get("hookName") == "Stop"][-1]
    assert stop["effect"] == "running → succeeded", stop
    assert "followed by its hooks" in reply["summary"], reply["summary"]
    assert reply["following"] == {"hooks": True, "nativeEstimation": False, "perTurn": False}
    assert reply["observed"]["integrations"] == {"claude-code": "installed"}
    # What comes next for a finished job: a follow-up re-arms it.
    assert [(s["kind"], s["state"]) for s in reply["next"]] == [(None, "launching")]
    assert reply["warnings"] == [], reply["warnings"]
    # Asked by its pane, the same run, with the job that lives there.
    by_pane = explain(m, pane_of(job))
    assert by_pane["target"] == "pane" and "jobID" not in by_pane
    assert by_pane["job"]["jobID"] == job["jobID"]
    assert by_pane["run"]["runID"] == done["runID"]["rawValue"]


def test_a_hooked_run_whose_agent_died_unreported_is_flagged(hooked: Mytty) -> None:
    m = hooked
    job = spawn(m, "--provider", "claude", "--task", "work\n@standin: sleep 300")
    assert agent_wait(m, job, "running", 30)["job"]["state"] == "running"
    agent = standin_in(m, pane_of(job), "claude")
    os.kill(agent.pid, signal.SIGKILL)  # no Stop hook, ever
    reply = wait_until(
        lambda: r if "agent-gone" in codes(r := explain(m, job_id(job))) else None,
        15,
        message="explain to see the agent gone",
    )
    assert reply["state"] == "running", reply
    assert reply["observed"]["foreground"]["pid"] is None  # the shell is back at its prompt
    warning = next(w for w in reply["warnings"] if w["code"] == "agent-gone")
    assert "startup sweep" in warning["message"], warning
    # What would still end it: its hooks, or a restart's sweep.
    ends = {s["state"]: s["by"] for s in reply["next"]}
    assert any("mytty.startupSweep" in by for by in ends["disconnected"]), ends


def test_mytty_explain_prints_the_same_for_humans(hooked: Mytty) -> None:
    m = hooked
    job = spawn(m, "--provider", "claude", "--task", "work\n@standin: sleep 1")
    assert completed(m, job, 60)["state"] == "succeeded"
    out = run_mytty(m, "explain", job_id(job)[:8])
    assert out.returncode == 0, out.stdout + out.stderr
    text = out.stdout
    assert "succeeded" in text and "UserPromptSubmit" in text and "Stop" in text, text
    assert all(len(line) <= 80 for line in text.splitlines()), text
    as_json = run_mytty(m, "explain", "--json", job_id(job))
    assert as_json.returncode == 0, as_json.stderr
    assert json.loads(as_json.stdout)["jobID"] == job["jobID"]
    # tmux's own name for the pane, as `mytty ls` shows it.
    by_tmux = run_mytty(m, "explain", "--json", m.tmux_id(pane_of(job)))
    assert by_tmux.returncode == 0, by_tmux.stderr
    assert json.loads(by_tmux.stdout)["paneID"] == pane_of(job)
    missing = run_mytty(m, "explain", "FFFFFFFF")
    assert missing.returncode == 1 and "pane-not-found" in missing.stderr, missing.stderr


def test_an_unhooked_job_names_native_estimation_and_what_it_saw() -> None:
    m = Mytty(extra_env={TIMINGS_ENV: "native_start_grace=1"})
    try:
        m.start()
        m.install_standins("claude")
        job = spawn(
            m,
            "--provider",
            "claude",
            "--task",
            "work\n@standin: sleep 4; exit",
            "--anchor",
            new_anchor(m),
        )
        running = agent_wait(m, job, "running", 30)["job"]
        assert running["state"] == "running", running
        live = explain(m, job_id(job))
        fg = live["observed"]["foreground"]
        assert fg["agent"] == "claude-code" and fg["agentPID"] is not None, fg
        assert live["observed"]["epoch"]["provider"] == "claude-code", live["observed"]
        assert live["observed"]["integrations"] == {"claude-code": "not-installed"}
        assert "native estimation" in live["summary"], live["summary"]
        assert live["following"]["hooks"] is False and live["following"]["nativeEstimation"]
        assert any(src == "native" for src, _ in sources(live)), live["evidence"]

        done = completed(m, job, 40)
        assert done["state"] == "succeeded", done
        reply = mytty_explain(m, job_id(job))
        found = sources(reply)
        assert found and all(src == "native" for src, _ in found), found
        names = {name for _, name in found}
        assert names & {"mytty.native.commandFinished", "mytty.native.turnCompleted"}, names
        # The event that ended the run (the shell's exit report and the transcript's turn end
        # race: whichever came second is shown as ignored) and what it saw.
        ended = [e for e in reply["evidence"] if e["effect"] == "running → succeeded"]
        assert len(ended) == 1 and ended[0]["shownRun"], reply["evidence"]
        assert "exit 0" in ended[0]["what"] or "transcript" in ended[0]["what"], ended
    finally:
        m.close()


def test_a_resumed_job_names_the_resumption(mytty: Mytty) -> None:
    m = team(mytty, providers=("claude",))
    work = m.root / "work"
    work.mkdir()
    job = spawn(
        m, "--provider", "claude", "--cwd", str(work), "--task", "long\n@standin: sleep 300"
    )
    assert agent_wait(m, job, "running", 30)["job"]["state"] == "running"
    kill_tmux_server(m)
    assert completed(m, job, 15)["state"] == "lost"
    lost = explain(m, job_id(job))
    assert lost["state"] == "lost" and lost["observed"]["paneAlive"] is False, lost
    assert "pane-gone" in codes(lost) and "mytty resume" in lost["warnings"][0]["message"]
    assert [s["by"] for s in lost["next"]] == [["`mytty resume`"]], lost["next"]

    out = run_mytty(m, "resume", "--json", timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    moved = json.loads(out.stdout)["jobs"][0]
    assert moved["resumed"] is True, moved
    reply = mytty_explain(m, job_id(job))
    assert reply["paneID"] == moved["paneID"]["rawValue"] != pane_of(job)
    resumed = [e for e in reply["evidence"] if e["source"] == "resume"]
    assert resumed and resumed[0]["hookName"] == "mytty.resume", reply["evidence"]
    assert "mytty resume" in resumed[0]["what"], resumed
    # The resumed worker's new turn is its hooks' again.
    assert completed(m, job_id(job), 60)["state"] == "succeeded"
    after = explain(m, job_id(job))
    assert ("hook", "Stop") in sources(after), after["evidence"]
    assert any(e["source"] == "resume" for e in after["evidence"]), after["evidence"]
