"""Real Claude Code and Codex workers, driven only through mytty's CLIs (issue 14's scenarios).

Each test: a private tmux server and controller, the pinned real CLIs first on the panes' PATH,
a loopback mock model API scripted for the test, and a refusing proxy that proves nothing left
127.0.0.1.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.e2e.jobs_support import (
    agent_result,
    agent_wait,
    completed,
    listed,
    pane_of,
    run_id,
    spawn,
    tmux_format,
)
from tests.realagents.mocks.servers import Turn
from tests.realagents.support import RealUser
from tests.support.harness import wait_until

ANSWER = "Hello from the mock model: the scripted answer."


def _started(user: RealUser, job: dict[str, Any]) -> dict[str, Any]:
    reply = agent_wait(user.m, job, "running", 60)
    assert reply["timedOut"] is False, reply
    return reply["job"]


def _plain_answer(user: RealUser, provider: str) -> None:
    """Scenarios 1 and 3a: spawn → running → succeeded, and the result holds the answer."""
    job = user.spawn(provider, "Say hello.")
    running = _started(user, job)
    assert running["state"] in {"running", "succeeded"}, running
    done = completed(user.m, job, 90)
    assert done["state"] == "succeeded", done
    result = agent_result(user.m, job)
    assert result["lastAssistantMessage"] == ANSWER, result
    assert ANSWER in result["content"]["text"], result["content"]["text"]
    assert result["content"]["paneID"] == pane_of(job)
    user.assert_no_leaks(provider)


def test_claude_plain_answer(user: RealUser) -> None:
    user.anthropic.script(Turn.answer(ANSWER))
    user.enable("claude")
    _plain_answer(user, "claude")
    assert any(r.path.startswith("/v1/messages") for r in user.anthropic.requests)


def test_codex_plain_answer_with_hook_trust_recorded_by_enable(user: RealUser) -> None:
    user.openai.script(Turn.answer(ANSWER))
    user.enable("codex")  # the real codex's app-server records the hooks' trust
    config = (user.m.home / ".codex" / "config.toml").read_text()
    assert "[hooks.state." in config and "trusted_hash" in config, config
    _plain_answer(user, "codex")
    assert any(r.path.startswith("/v1/responses") for r in user.openai.requests)


def test_claude_api_error_fails_the_job_with_the_message(user: RealUser) -> None:
    message = "mock failure: the scripted API error"
    user.anthropic.script(Turn.error(400, message))
    user.enable("claude")
    job = user.spawn("claude", "Say hello.")
    done = completed(user.m, job, 90)
    assert done["state"] == "failed", done
    assert message in (done["message"] or ""), done
    user.assert_no_leaks("claude")


def test_claude_approval_answered_with_send_key(user: RealUser) -> None:
    target = user.work / "approved_file"
    # Not a read-only command and not one acceptEdits allows by itself: it needs approval.
    user.anthropic.script(Turn.shell(f"python3 -c \"open('{target}', 'w').write('ok')\""))
    user.enable("claude")
    job = user.spawn("claude", "Write the file.")
    attention = agent_wait(user.m, job, "attention", 90)
    assert attention["timedOut"] is False, attention
    assert attention["job"]["state"] == "waiting-approval", attention
    assert not target.exists()
    pane = pane_of(job)
    # PermissionRequest fires before the dialog is drawn: a key sent earlier is lost.
    user.m.wait_for_text(pane, "Do you want to proceed?", 30)
    user.m.ctl("send-key", pane, "Enter").ok()
    done = completed(user.m, job, 90)
    assert done["state"] == "succeeded", done
    wait_until(target.exists, 10, message=f"{target} to be written")
    assert target.read_text() == "ok"
    assert agent_result(user.m, job)["lastAssistantMessage"].startswith("Tool finished")
    user.assert_no_leaks("claude")


def test_two_codex_workers_at_once_each_see_only_their_own_events(user: RealUser) -> None:
    user.openai.script(Turn.echo("Answer to: "))
    user.enable("codex")
    first = user.spawn("codex", "Task one for the first worker.")
    second = user.spawn("codex", "Task two for the second worker.")
    done = [completed(user.m, job, 90) for job in (first, second)]
    assert [d["state"] for d in done] == ["succeeded", "succeeded"], done
    assert done[0]["runID"] != done[1]["runID"] and done[0]["sessionID"] != done[1]["sessionID"]
    answers = [agent_result(user.m, job)["lastAssistantMessage"] for job in (first, second)]
    assert answers == [
        "Answer to: Task one for the first worker.",
        "Answer to: Task two for the second worker.",
    ], answers
    user.assert_no_leaks("codex")


def test_claude_busy_turn_is_running_until_the_answer_arrives(user: RealUser) -> None:
    user.anthropic.script(Turn.answer(ANSWER, delay=8))  # the model "thinks" for 8 s
    user.enable("claude")
    job = user.spawn("claude", "Take your time.")
    assert _started(user, job)["state"] == "running"
    busy = agent_wait(user.m, job, "completed", 1)
    assert busy["timedOut"] is True and busy["job"]["state"] == "running", busy
    done = completed(user.m, job, 90)
    assert done["state"] == "succeeded", done
    assert agent_result(user.m, job)["lastAssistantMessage"] == ANSWER
    idle = user.m.ctl("wait", pane_of(job), "--until", "idle", "--timeout-seconds", "30").json
    assert idle["timedOut"] is False, idle
    user.assert_no_leaks("claude")


def test_claude_background_subagent_keeps_the_job_running_until_the_final_stop(
    user: RealUser,
) -> None:
    """Scenario 8: an async subagent. Claude stops the parent turn while the subagent works,
    then submits a synthetic ``<task-notification>`` prompt (a new prompt id) and stops again:
    one job, one run, ``running`` until that final Stop."""
    user.anthropic.script(Turn.subagent(ANSWER, delay=6))  # the subagent works for 6 s
    user.enable("claude")
    job = user.spawn("claude", "Ask a subagent to look around.")
    bound = run_id(_started(user, job))

    def live() -> bool:
        snapshot = agent_wait(user.m, job, "completed", 0.1)["job"]
        return snapshot.get("liveSubagents") == 1

    wait_until(live, 60, message="the job to report its live subagent")
    entry = listed(user.m, pane_of(job))
    assert entry is not None and entry.get("liveSubagents") == 1, entry
    busy = agent_wait(user.m, job, "completed", 1)
    assert busy["timedOut"] is True and busy["job"]["state"] == "running", busy

    done = completed(user.m, job, 90)
    assert done["state"] == "succeeded", done  # it ended `disconnected` (superseded) before
    assert run_id(done) == bound and "liveSubagents" not in done, done
    # The final answer is the one given to the task notification.
    assert agent_result(user.m, job)["lastAssistantMessage"] == ANSWER
    user.assert_no_leaks("claude")


def test_claude_quick_subagent_ends_the_job_on_the_final_stop_with_its_answer(
    user: RealUser,
) -> None:
    """Scenario 8, a subagent that finishes before its parent's turn: SubagentStop (still
    listing the subagent as a running background task) comes before the parent's Stop, which
    lists none. The job ends on the task-notification turn's Stop, with that answer — not on
    the parent's Stop with Claude's internal "Async agent launched" note."""
    # The subagent answers at once; the parent's reply to the Agent tool result waits 3 s.
    user.anthropic.script(Turn.subagent(ANSWER, delay=0, parent_delay=3))
    user.enable("claude")
    job = user.spawn("claude", "Ask a quick subagent to look around.")
    bound = run_id(_started(user, job))
    done = completed(user.m, job, 90)
    assert done["state"] == "succeeded" and run_id(done) == bound, done
    assert agent_result(user.m, job)["lastAssistantMessage"] == ANSWER
    user.assert_no_leaks("claude")


def _pane_processes(user: RealUser, pane: str) -> list[list[str]]:
    """The argv of every process under the pane's shell (read from /proc)."""
    shell = int(tmux_format(user.m, pane, "#{pane_pid}"))
    found: list[list[str]] = []
    todo = [shell]
    while todo:
        pid = todo.pop()
        try:
            children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        found.append([a.decode(errors="replace") for a in argv if a])
        todo += [int(c) for c in children]
    return found


def test_claude_worker_inherits_the_lead_mode_flag(user: RealUser) -> None:
    user.anthropic.script(Turn.answer(ANSWER))
    user.enable("claude")
    lead = user.m.ctl(
        "new-tab", "--cwd", str(user.work), "--command", "claude --permission-mode plan"
    ).json["paneID"]
    user.m.wait_for_text(lead, "plan mode on", 60)
    job = spawn(
        user.m,
        "--provider",
        "claude",
        "--access",
        "inherit",
        "--anchor",
        lead,
        "--cwd",
        str(user.work),
        "--task",
        "Say hello.",
    )
    done = completed(user.m, job, 90)
    assert done["state"] == "succeeded", done
    workers = [a for a in _pane_processes(user, pane_of(job)) if "--teammate-mode" in a]
    assert len(workers) == 1, _pane_processes(user, pane_of(job))
    argv = workers[0]
    assert argv[argv.index("--permission-mode") + 1] == "plan", argv
    user.m.wait_for_text(pane_of(job), "plan mode on", 30)
    user.assert_no_leaks("claude")


def test_claude_esc_at_the_permission_dialog_ends_the_job_from_the_transcript(
    user: RealUser,
) -> None:
    """Scenario 2 (denied): Esc at the dialog fires no hook; the transcript's interrupt row
    (``[Request interrupted by user for tool use]``) ends the job, instead of leaving it
    ``waiting-approval`` for good."""
    target = user.work / "denied_file"
    user.anthropic.script(Turn.shell(f"python3 -c \"open('{target}', 'w').write('no')\""))
    user.enable("claude")
    job = user.spawn("claude", "Write the file.")
    attention = agent_wait(user.m, job, "attention", 90)
    assert attention["job"]["state"] == "waiting-approval", attention
    pane = pane_of(job)
    user.m.wait_for_text(pane, "Do you want to proceed?", 30)
    user.m.ctl("send-key", pane, "Escape").ok()
    done = completed(user.m, job, 30)
    assert done["state"] == "disconnected", done
    assert run_id(done) == run_id(attention["job"])  # the same run, ended
    assert not target.exists()
    user.assert_no_leaks("claude")


def test_claude_esc_while_the_model_thinks_ends_the_job_from_its_registry(
    user: RealUser,
) -> None:
    """Scenario 5: Esc before any answer puts the prompt back, fires no hook and writes no
    transcript row; Claude's live registry turning ``idle`` ends the run."""
    user.anthropic.script(Turn.answer(ANSWER, delay=30))  # the model "thinks" for 30 s
    user.enable("claude")
    job = user.spawn("claude", "Take your time.")
    running = _started(user, job)
    assert running["state"] == "running", running
    pane = pane_of(job)
    user.m.ctl("send-key", pane, "Escape").ok()
    done = completed(user.m, job, 20)  # long before the 30 s answer
    assert done["state"] == "disconnected", done
    assert run_id(done) == run_id(running)
    user.assert_no_leaks("claude")
