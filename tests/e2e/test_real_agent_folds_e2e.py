"""What the real agents showed, through the real controller with the stand-ins (issue 14).

Each behaviour was first seen on Claude Code 2.1.332 / codex-cli 0.171.0 in the real-agent tier
(tests/realagents/README.md, "What the real agents showed…"), folded into the stand-ins, and
proven here to be handled by mytty the same way the real tier proves it for the real CLIs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.e2e.events_support import all_records
from tests.e2e.jobs_support import (
    agent_result,
    agent_wait,
    completed,
    escape_held_turn,
    job_id,
    listed,
    pane_of,
    run_id,
    shared_team,  # noqa: F401 - fixture
    spawn,
    standin_in,
)
from tests.support.harness import Mytty, wait_until


def _hook_names(m: Mytty, name: str, pid: int) -> list[str]:
    path = m.standin_dir / f"{name}.{pid}.hooks.jsonl"
    if not path.exists():
        return []
    return [json.loads(line)["event"] for line in path.read_text().splitlines()]


def _records_of(m: Mytty, run: str | None) -> list[dict[str, Any]]:
    return [r for r in all_records(m) if r["runID"] == run]


def test_late_generic_permission_notification_keeps_the_approval_and_its_message(
    shared_team: Mytty,
) -> None:
    """Claude's permission_prompt Notification comes ~6 s after PermissionRequest and says only
    "Claude needs your permission": the job stays waiting-approval on the same run with the
    PermissionRequest's "Bash requires approval", and an answer still ends it succeeded."""
    m = shared_team
    job = spawn(m, "--provider", "claude", "--task", "needs a yes\n@standin: approve; notify 0.5")
    waiting = agent_wait(m, job, "attention", 30)
    assert waiting["job"]["state"] == "waiting-approval", waiting
    bound = run_id(waiting["job"])
    standin = standin_in(m, pane_of(job), "claude")
    wait_until(
        lambda: "Notification" in _hook_names(m, "claude", standin.pid),
        15,
        message="the late permission_prompt Notification",
    )

    # The Notification was delivered (both approval requests are stored for the run) ...
    def both_requests() -> list[str] | None:
        kinds = [r["kind"] for r in _records_of(m, bound)]
        return kinds if kinds.count("approval-requested") == 2 else None

    kinds = wait_until(both_requests, 15, message="the Notification's approval-requested event")
    assert kinds[-2:] == ["approval-requested", "approval-requested"], kinds
    # ... and it changed nothing: the same state, run and (more useful) message.
    still = agent_wait(m, job, "attention", 1)["job"]
    assert (still["state"], run_id(still), still["message"]) == (
        "waiting-approval",
        bound,
        "Bash requires approval",
    ), still
    assert m.ctl("agent", "send", job_id(job), "1", "--enter").json == {"type": "ok"}
    done = completed(m, job)
    assert done["state"] == "succeeded" and run_id(done) == bound, done


def test_esc_at_claudes_permission_dialog_ends_the_job_from_the_transcript(
    shared_team: Mytty,
) -> None:
    """No hook fires after Esc at the dialog (2.1.332): the rejected tool_result and the
    harness's interrupt row (no interruptedMessageId) end the run; the job is disconnected
    and the command never ran."""
    m = shared_team
    job = spawn(m, "--provider", "claude", "--task", "write it\n@standin: approve; notify 600")
    waiting = agent_wait(m, job, "attention", 30)
    assert waiting["job"]["state"] == "waiting-approval", waiting
    pane = pane_of(job)
    m.wait_for_text(pane, "STANDIN waiting for approval", 15)
    standin = standin_in(m, pane, "claude")
    # The team's workers share a directory: other tests' approved commands ran there.
    made_before = set(Path(standin.cwd).glob("standin_approved_*"))
    assert m.ctl("send-key", pane, "Escape").json == {"type": "ok"}
    m.wait_for_text(pane, "STANDIN tool rejected by Esc", 15)
    done = completed(m, job, 30)
    assert done["state"] == "disconnected", done
    assert run_id(done) == run_id(waiting["job"])
    assert _hook_names(m, "claude", standin.pid)[-1] == "PermissionRequest", "no hook after Esc"
    made = set(Path(standin.cwd).glob("standin_approved_*")) - made_before
    assert not made, "the command did not run"
    idle = [r for r in _records_of(m, run_id(done)) if r["kind"] == "idle"]
    assert len(idle) == 1, idle


def test_esc_in_a_codex_worker_fires_interrupt_and_ends_the_job(
    shared_team: Mytty,
) -> None:
    """Codex 0.171: Esc mid-turn fires Interrupt and no Stop; the turn's run goes idle and the
    job ends instead of staying running for good."""
    m = shared_team
    job, pane = escape_held_turn(
        m, "codex", "take your time\n@standin: hold", "STANDIN interrupted by Esc"
    )
    done = completed(m, job, 30)
    assert done["state"] == "disconnected", done
    standin = standin_in(m, pane, "codex")
    names = _hook_names(m, "codex", standin.pid)
    assert names[-1] == "Interrupt" and "Stop" not in names, names
    # The turn's run: UserPromptSubmit's start, then the Interrupt hook's idle (not synthesized).
    records = _records_of(m, run_id(done))
    assert [(r["kind"], r["synthesized"]) for r in records] == [
        ("started", False),
        ("idle", False),
    ], records


def test_a_subagent_done_before_its_parents_stop_keeps_the_job_for_the_final_answer(
    shared_team: Mytty,
) -> None:
    """2.1.332 with a quick async subagent: SubagentStop (still listing the subagent as a
    running background task) → the parent's Stop with no background tasks → the
    task-notification prompt → the final Stop. The job must end on that final Stop, with its
    answer, not on the first one with Claude's internal launch note."""
    m = shared_team
    job = spawn(m, "--provider", "claude", "--task", "quick review\n@standin: background 0")
    pane = pane_of(job)
    m.wait_for_text(pane, "STANDIN task notification delivered", 30)
    standin = standin_in(m, pane, "claude")
    names = _hook_names(m, "claude", standin.pid)
    assert names.index("SubagentStop") < names.index("Stop"), names  # the quick ordering
    done = completed(m, job)
    assert done["state"] == "succeeded", done
    # The final Stop's answer (the first Stop's is "Started a subagent in the background."); the
    # stand-in logs a hook only once its handler is done, so its log may lag the controller.
    assert agent_result(m, job)["lastAssistantMessage"] == "The background agent reported back."
    wait_until(
        lambda: _hook_names(m, "claude", standin.pid).count("Stop") == 2,
        10,
        message="the stand-in's log of the final Stop",
    )
    # One run from the prompt to the final Stop, which is the only success.
    kinds = [r["kind"] for r in _records_of(m, run_id(done))]
    assert kinds[0] == "started" and kinds.count("succeeded") == 1, kinds
    assert kinds[-1] == "succeeded", kinds


def test_codex_enforcing_hook_trust_runs_the_hooks_enable_trusted(
    shared_team: Mytty,
) -> None:
    """Codex 0.171 runs a hook only once it is trusted. ``mytty integrations enable codex``
    records that trust (asking ``codex app-server``), so a Codex that enforces it shows no
    review screen and its hooks move the pane's state; a worker launched by mytty needs no
    bypass flag."""
    m = shared_team
    command = "env MYTTY_STANDIN_CODEX_TRUST=enforce codex --no-daemon -- 'trust me'"
    pane = m.ctl("new-tab", "--command", command).json["paneID"]
    standin = standin_in(m, pane, "codex")
    screen = m.wait_for_text(pane, "STANDIN ready", 30)
    assert "Hooks need review" not in screen, screen
    assert "--dangerously-bypass-hook-trust" not in standin.argv

    def ran() -> list[str] | None:
        found = _hook_names(m, "codex", standin.pid)
        return found if "Stop" in found else None

    names = wait_until(ran, 20, message="the trusted hooks to run")
    assert names[:2] == ["SessionStart", "UserPromptSubmit"], names
    entry = wait_until(
        lambda: e if (e := listed(m, pane)) and e.get("agentState") == "succeeded" else None,
        20,
        message="the hooks' run to succeed",
    )
    assert entry["provider"] == "codex"


def test_claude_api_error_fails_the_job_with_claudes_message(shared_team: Mytty) -> None:
    """2.1.332's StopFailure has ``error: "unknown"`` (a category) and the API's text in
    ``last_assistant_message``: that text is the failed job's message, as on the real CLI."""
    m = shared_team
    job = spawn(m, "--provider", "claude", "--task", "this will break\n@standin: fail")
    done = completed(m, job)
    assert (done["state"], done["message"]) == ("failed", "API Error: 400 stand-in failure"), done


def test_a_codex_subagent_keeps_the_job_running_and_never_becomes_a_run(
    shared_team: Mytty,
) -> None:
    """codex-cli 0.171 with spawn_agent: the subagent's thread fires SubagentStart and its own
    UserPromptSubmit (the parent's session, its own turn id), the parent stops, and the
    SubagentStop comes later. The job stays running with one live subagent until then and
    ends succeeded with the parent's answer; the subagent's prompt opens no run, so the pane
    does not read running afterwards."""
    m = shared_team
    job = spawn(m, "--provider", "codex", "--task", "look around\n@standin: background 3")
    pane = pane_of(job)
    m.wait_for_text(pane, "STANDIN subagent running", 30)

    def live() -> bool:
        return agent_wait(m, job, "completed", 0.1)["job"].get("liveSubagents") == 1

    wait_until(live, 15, message="the job to report its live subagent")
    entry = listed(m, pane)
    assert entry is not None and entry.get("liveSubagents") == 1, entry
    done = completed(m, job, 30)
    assert done["state"] == "succeeded" and "liveSubagents" not in done, done
    assert agent_result(m, job)["lastAssistantMessage"] == "Stand-in finished turn 1."
    standin = standin_in(m, pane, "codex")
    assert "SubagentStop" in _hook_names(m, "codex", standin.pid)
    entry = listed(m, pane)
    assert entry is not None and entry.get("agentState") == "succeeded", entry
    # No run of the subagent's own: nothing in the pane's ledger starts or ends one (its
    # events are kept under its own turn id, folded into the parent's run, like Claude's
    # task-notification turn).
    starts = [
        r["runID"]
        for r in all_records(m)
        if r["paneID"] == pane and r["kind"] in ("started", "succeeded", "failed")
    ]
    assert set(starts) == {run_id(done)}, starts
