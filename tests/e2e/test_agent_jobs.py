"""Agent jobs end to end: spawn → running → completed, launch-failed, lost, follow-ups, failures.

Real tmux, a real controller, stand-in agents that fire the installed hooks with the providers'
own payloads. Semantics §3.2/§3.3 (shapes, codes), §5.1 (order of checks), §5.5 (job tracker),
§7 (agent wait).
"""

from __future__ import annotations

import json
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.jobs_support import (
    BINARY,
    INTEGRATION,
    PROVIDERS,
    UUID_RE,
    agent_code,
    agent_result,
    agent_wait,
    completed,
    configure_shell,
    enable_integrations,
    job_id,
    listed,
    new_anchor,
    pane_of,
    run_id,
    shared_team,  # noqa: F401 - fixture
    spawn,
    spawn_code,
    spawn_reply,
    standin_in,
    standins_in,
    team,
    tmux_format,
    wait_pane_gone,
)
from tests.support.harness import MYTTY, Mytty, wait_until

pytestmark = pytest.mark.tmux

SNAPSHOT_KEYS = {"jobID", "paneID", "provider", "label", "state", "runID", "sessionID", "message"}


def _fresh_uuid() -> str:
    return str(uuid.uuid4()).upper()


# -- the reply of spawn ----------------------------------------------------------------------------


def test_spawn_reply_shape(shared_team: Mytty) -> None:
    m = shared_team
    anchor = new_anchor(m)
    reply = spawn_reply(
        m,
        "--provider",
        "codex",
        "--access",
        "review",
        "--label",
        "investigate-a",
        "--task",
        "look around\n@standin: exit",
        "--anchor",
        anchor,
    )
    assert set(reply) == {"type", "job"}
    job = reply["job"]
    assert set(job) - {"statusNote"} == SNAPSHOT_KEYS, job
    assert set(job["jobID"]) == {"rawValue"} and set(job["paneID"]) == {"rawValue"}
    assert UUID_RE.fullmatch(job_id(job)) and UUID_RE.fullmatch(pane_of(job)), job
    assert job_id(job) != pane_of(job)
    assert (job["provider"], job["label"], job["state"]) == ("codex", "investigate-a", "launching")
    assert (job["runID"], job["sessionID"], job["message"]) == (None, None, None)
    # The job's pane is a new pane, in the anchor's tab.
    assert pane_of(job) != anchor and listed(m, pane_of(job)) is not None
    assert tmux_format(m, pane_of(job), "#{window_id}") == tmux_format(m, anchor, "#{window_id}")


def test_spawn_without_a_label_and_with_an_empty_label(shared_team: Mytty) -> None:
    m = shared_team
    job = spawn(
        m, "--provider", "claude", "--task", "no label\n@standin: exit", "--anchor", new_anchor(m)
    )
    assert job.get("label") is None
    job = spawn(
        m,
        "--provider",
        "claude",
        "--label",
        "",
        "--task",
        "empty label\n@standin: exit",
        "--anchor",
        new_anchor(m),
    )
    assert job["label"] == ""


# -- the life of a job -----------------------------------------------------------------------------


@pytest.mark.parametrize("provider", PROVIDERS)
def test_spawn_running_succeeded_and_result(shared_team: Mytty, provider: str) -> None:
    m = shared_team
    job = spawn(
        m,
        "--provider",
        provider,
        "--task",
        "take your time\n@standin: sleep 3",
        "--anchor",
        new_anchor(m),
    )
    running = agent_wait(m, job, "running", 30)
    assert running["timedOut"] is False
    assert running["job"]["state"] == "running", running
    bound = run_id(running["job"])
    assert bound is not None and UUID_RE.fullmatch(bound)

    done = completed(m, job)
    assert done["state"] == "succeeded", done
    assert run_id(done) == bound  # a job never switches runs by itself
    assert done["jobID"] == job["jobID"] and done["paneID"] == job["paneID"]

    # The stand-in prints "turn 1 done" after its Stop hook returned: the screen may be a
    # moment behind the job's state.
    def ended_on_screen() -> dict[str, Any] | None:
        got = agent_result(m, job)
        return got if "STANDIN turn 1 done" in got["content"]["text"] else None

    result = wait_until(ended_on_screen, 15, message="the turn's end on the worker's screen")
    assert result["job"]["state"] == "succeeded" and run_id(result["job"]) == bound
    content = result["content"]
    assert content["paneID"] == pane_of(job)
    assert f"STANDIN {BINARY[provider]} pid=" in content["text"]
    assert isinstance(content["cursorRow"], int) and isinstance(content["cursorColumn"], int)
    # The worker's last answer, from its Stop hook (Cursor's stop sends none).
    expected = None if provider == "cursor" else "Stand-in finished turn 1."
    assert result["lastAssistantMessage"] == expected, result


def test_subagent_task_notification_keeps_the_job_running_until_the_final_stop(
    shared_team: Mytty,
) -> None:
    """Issue 10: an async subagent, the parent's Stop, Claude's synthetic ``<task-notification>``
    prompt (a UserPromptSubmit with a new prompt id), then the final Stop — one job, one run,
    ``running`` until that final Stop (it used to end ``disconnected``, superseded)."""
    m = shared_team
    job = spawn(
        m,
        "--provider",
        "claude",
        "--task",
        "review in the background\n@standin: background 2",
        "--anchor",
        new_anchor(m),
    )
    pane = pane_of(job)
    m.wait_for_text(pane, "STANDIN background agent running")
    first = agent_wait(m, job, "running", 30)["job"]
    assert first["state"] == "running" and first.get("liveSubagents") == 1, first
    bound = run_id(first)
    entry = listed(m, pane)
    assert entry is not None and entry.get("liveSubagents") == 1, entry

    m.wait_for_text(pane, "STANDIN task notification delivered")
    during = agent_wait(m, job, "completed", 0.2)
    assert during["timedOut"] is True and during["job"]["state"] == "running", during
    assert "liveSubagents" not in during["job"] and run_id(during["job"]) == bound

    done = completed(m, job)
    assert done["state"] == "succeeded", done
    assert run_id(done) == bound
    assert agent_result(m, job)["lastAssistantMessage"] == "The background agent reported back."
    entry = listed(m, pane)
    assert entry is not None and "liveSubagents" not in entry, entry


@pytest.mark.parametrize("provider", ["claude", "cursor"])
def test_failed_turn_completes_the_job_as_failed(shared_team: Mytty, provider: str) -> None:
    m = shared_team
    job = spawn(
        m,
        "--provider",
        provider,
        "--task",
        "this will break\n@standin: fail",
        "--anchor",
        new_anchor(m),
    )
    done = completed(m, job)
    assert done["state"] == "failed", done
    assert run_id(done) is not None
    m.wait_for_text(pane_of(job), "STANDIN turn 1 done (failed)")


def test_crashed_codex_worker_stays_running_until_closed(shared_team: Mytty) -> None:
    """Codex has no failure hook (§2.6), and a hook-covered provider gets no native estimate
    (§9.2): a codex turn that dies without its Stop leaves the job running. ``agent close``
    is how the orchestrator ends it."""
    m = shared_team
    job = spawn(
        m,
        "--provider",
        "codex",
        "--task",
        "this will crash\n@standin: fail",
        "--anchor",
        new_anchor(m),
    )
    m.wait_for_text(pane_of(job), "STANDIN exiting with an error")
    reply = agent_wait(m, job, "completed", 2)
    assert reply["timedOut"] is True and reply["job"]["state"] == "running", reply
    assert m.ctl("agent", "close", job_id(job)).json == {"type": "ok"}
    assert completed(m, job, timeout=5)["state"] == "lost"


def test_attention_then_answer_stays_on_the_same_run(shared_team: Mytty) -> None:
    """A follow-up to a live (waiting) run does not re-arm the job (§5.5)."""
    m = shared_team
    job = spawn(
        m,
        "--provider",
        "claude",
        "--task",
        "needs a yes\n@standin: approve",
        "--anchor",
        new_anchor(m),
    )
    waiting = agent_wait(m, job, "attention", 30)
    assert waiting["timedOut"] is False and waiting["job"]["state"] == "waiting-approval", waiting
    bound = run_id(waiting["job"])
    assert waiting["job"]["message"] == "Bash requires approval", waiting
    assert m.ctl("agent", "send", job_id(job), "1", "--enter").json == {"type": "ok"}
    done = completed(m, job)
    assert done["state"] == "succeeded" and run_id(done) == bound, done
    assert done["message"] is None, done  # the approval note went with the approval


# -- lost ------------------------------------------------------------------------------------------


def _running_job(m: Mytty) -> dict[str, Any]:
    job = spawn(
        m,
        "--provider",
        "claude",
        "--task",
        "long work\n@standin: sleep 120",
        "--anchor",
        new_anchor(m),
    )
    reply = agent_wait(m, job, "running", 30)
    assert reply["job"]["state"] == "running", reply
    return job


def test_agent_close_makes_the_job_lost(shared_team: Mytty) -> None:
    m = shared_team
    job = _running_job(m)
    assert m.ctl("agent", "close", job_id(job)).json == {"type": "ok"}
    assert listed(m, pane_of(job)) is None
    done = completed(m, job, timeout=10)
    assert done["state"] == "lost", done
    result = agent_result(m, job)  # a lost job still answers, with an empty screen
    assert result["job"]["state"] == "lost"
    assert result["content"]["text"] == ""
    assert result["content"].get("cursorRow") is None
    assert result["content"].get("cursorColumn") is None
    assert agent_code(m, "send", job_id(job), "more", "--enter") == "job-lost"
    assert agent_code(m, "focus", job_id(job)) == "job-lost"
    assert m.ctl("agent", "close", job_id(job)).json == {"type": "ok"}  # always ok for a known job


def test_pane_killed_from_tmux_makes_the_job_lost(shared_team: Mytty) -> None:
    m = shared_team
    job = _running_job(m)
    m.tmux("kill-pane", "-t", m.tmux_id(pane_of(job)))
    done = completed(m, job, timeout=15)
    assert done["state"] == "lost", done
    assert agent_code(m, "send", job_id(job), "are you there?", "--enter") == "job-lost"
    assert agent_code(m, "focus", job_id(job)) == "job-lost"


def test_a_finished_job_stays_finished_when_its_pane_goes(shared_team: Mytty) -> None:
    m = shared_team
    job = spawn(m, "--provider", "claude", "--task", "quick", "--anchor", new_anchor(m))
    assert completed(m, job)["state"] == "succeeded"
    assert m.ctl("agent", "close", job_id(job)).json == {"type": "ok"}
    assert agent_result(m, job)["job"]["state"] == "succeeded"


# -- binding ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("provider", PROVIDERS)
def test_follow_up_rearms_the_job_onto_the_new_run(shared_team: Mytty, provider: str) -> None:
    m = shared_team
    job = spawn(m, "--provider", provider, "--task", "first task", "--anchor", new_anchor(m))
    first = completed(m, job)
    assert first["state"] == "succeeded"
    old_run = run_id(first)
    assert old_run is not None
    m.wait_for_text(pane_of(job), "STANDIN ready")

    # The documented follow-up: the finished job is re-armed and follows the run it starts.
    assert m.ctl("agent", "send", job_id(job), "next", "--enter").json == {"type": "ok"}
    second = completed(m, job)
    assert second["state"] == "succeeded", second
    new_run = run_id(second)
    assert new_run is not None and new_run != old_run
    m.wait_for_text(pane_of(job), "STANDIN turn 2 done")

    # The re-armed state itself, seen while the follow-up is typed but not yet submitted.
    m.wait_for_text(pane_of(job), "STANDIN turn 2 done")
    assert m.ctl("agent", "send", job_id(job), "third").json == {"type": "ok"}
    rearmed = agent_result(m, job)["job"]
    assert (rearmed["state"], rearmed["runID"], rearmed["message"]) == ("launching", None, None)
    assert m.ctl("send-key", pane_of(job), "enter").json == {"type": "ok"}
    third = completed(m, job)
    assert third["state"] == "succeeded" and run_id(third) not in (None, old_run, new_run), third


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_follow_up_sent_while_the_run_works_is_followed_to_its_end(
    shared_team: Mytty, provider: str
) -> None:
    # A difference from the original (core/jobs/tracker.py): the job does not end with the run
    # the follow-up reached while busy; it follows the run the follow-up starts.
    m = shared_team
    job = spawn(
        m, "--provider", provider, "--task", "first\n@standin: sleep 3", "--anchor", new_anchor(m)
    )
    running = agent_wait(m, job, "running", 30)["job"]
    assert running["state"] == "running", running
    first_run = run_id(running)
    assert m.ctl("agent", "send", job_id(job), "and then this", "--enter").json == {"type": "ok"}
    done = completed(m, job)
    assert done["state"] == "succeeded", done
    assert run_id(done) not in (None, first_run), done  # the follow-up's run, not the first
    screen = m.wait_for_text(pane_of(job), "STANDIN turn 2 done")
    assert "STANDIN turn 1 done" in screen
    expected = None if provider == "cursor" else "Stand-in finished turn 2."
    assert agent_result(m, job)["lastAssistantMessage"] == expected


def test_jobs_spawned_back_to_back_never_see_each_others_runs(shared_team: Mytty) -> None:
    m = shared_team
    anchor = new_anchor(m)
    slow = spawn(
        m, "--provider", "claude", "--task", "slow one\n@standin: sleep 4", "--anchor", anchor
    )
    fast = spawn(m, "--provider", "claude", "--task", "fast one", "--anchor", anchor)
    assert pane_of(slow) != pane_of(fast)

    fast_done = completed(m, fast)
    assert fast_done["state"] == "succeeded"
    # The fast worker's run finished; the slow job must not have picked it up.
    slow_now = agent_wait(m, slow, "running", 30)["job"]
    assert slow_now["state"] == "running", slow_now
    assert run_id(slow_now) != run_id(fast_done)
    slow_done = completed(m, slow)
    assert slow_done["state"] == "succeeded"
    assert run_id(slow_done) == run_id(slow_now)

    # Each job's run really belongs to that job's pane (the event ledger says so).
    records = m.ctl("events", "--after", "0", "--timeout", "0").json["records"]
    pane_of_run = {r["runID"]: r["paneID"] for r in records}
    assert pane_of_run[run_id(slow_done)] == pane_of(slow)
    assert pane_of_run[run_id(fast_done)] == pane_of(fast)


# -- where the worker goes -------------------------------------------------------------------------


def test_spawn_without_an_anchor_opens_a_window_in_the_mytty_session(shared_team: Mytty) -> None:
    m = shared_team
    windows_before = set(m.tmux("list-windows", "-a", "-F", "#{window_id}").split())
    # From the test process: outside every pane, no MYTTY_SURFACE_ID.
    assert "MYTTY_SURFACE_ID" not in m.env
    caller_dir = m.root / "caller dir"
    caller_dir.mkdir()
    job = spawn(
        m, "--provider", "claude", "--task", "no anchor\n@standin: exit", cwd=str(caller_dir)
    )
    pane = pane_of(job)
    assert tmux_format(m, pane, "#{session_name}") == "mytty"
    window = tmux_format(m, pane, "#{window_id}")
    assert window not in windows_before
    assert m.tmux("list-panes", "-t", window, "-F", "#{pane_id}").split() == [m.tmux_id(pane)]
    record = standin_in(m, pane, "claude")
    assert record.task.startswith("no anchor\n")
    assert record.cwd == str(caller_dir)  # no anchor directory: the caller's own


def test_cwd_defaults_to_the_anchor_panes_directory(shared_team: Mytty) -> None:
    m = shared_team
    first, moved = m.root / "first dir", m.root / "moved-to"
    first.mkdir()
    moved.mkdir()
    anchor = new_anchor(m, first)
    m.ctl("send", anchor, f"cd '{moved}'", "--enter").ok()
    # Watched through tmux itself: a `list` would refresh the controller's view of the pane,
    # and the spawn must find the shell's current directory on its own.
    wait_until(
        lambda: tmux_format(m, anchor, "#{pane_current_path}") == str(moved),
        15,
        message="the anchor's shell in its new directory",
    )
    job = spawn(
        m, "--provider", "claude", "--task", "where am I\n@standin: exit", "--anchor", anchor
    )
    assert standin_in(m, pane_of(job), "claude").cwd == str(moved)

    job = spawn(
        m,
        "--provider",
        "claude",
        "--task",
        "explicit\n@standin: exit",
        "--anchor",
        anchor,
        "--cwd",
        str(first),
    )
    assert standin_in(m, pane_of(job), "claude").cwd == str(first)


# -- load ------------------------------------------------------------------------------------------


@pytest.fixture
def slow_rc_mytty() -> Iterator[Mytty]:
    m = Mytty()
    try:
        configure_shell(m, "export MYTTY_TEST_RC=slow\nsleep 1\n")
        m.start()
        team(m, providers=("claude",))
        yield m
    finally:
        m.close()


def test_six_spawns_back_to_back_all_start_with_their_full_task(slow_rc_mytty: Mytty) -> None:
    m = slow_rc_mytty
    anchor = new_anchor(m)
    tasks = [
        f"worker {i}: "
        + " ".join(f"line {i}.{j} {'x' * 40}" for j in range(60))
        + f"\nend of task {i}"
        for i in range(6)
    ]
    jobs = [spawn(m, "--provider", "claude", "--task", task, "--anchor", anchor) for task in tasks]
    assert len({pane_of(j) for j in jobs}) == 6
    for job, task in zip(jobs, tasks, strict=True):
        record = standin_in(m, pane_of(job), "claude", timeout=60)
        assert record.env.get("MYTTY_TEST_RC") == "slow"  # the slow rc really ran first
        assert record.task.startswith(task + "\n"), record.task[:200]
    runs = set()
    for job in jobs:
        done = completed(m, job)
        assert done["state"] == "succeeded", done
        runs.add(run_id(done))
    assert len(runs) == 6


# -- attention preflight ---------------------------------------------------------------------------


def test_attention_wait_without_the_integration_fails_at_once(mytty: Mytty) -> None:
    m = mytty
    m.install_standins("claude")  # but no hooks
    job = spawn(m, "--provider", "claude", "--task", "hi", "--anchor", new_anchor(m))
    # A wait that began would last an hour and end timedOut, not with this code: the code is
    # the proof that the preflight refused it before waiting (the ctl call's own deadline is 60 s).
    assert (
        agent_code(m, "wait", job_id(job), "--until", "attention", "--timeout-seconds", "3600")
        == "provider-integration-not-installed"
    )


# -- failure codes ---------------------------------------------------------------------------------


def test_spawn_anchor_not_found(shared_team: Mytty) -> None:
    m = shared_team
    before = len(m.panes())
    for anchor in (_fresh_uuid(), "not-a-pane"):
        assert (
            spawn_code(m, "--provider", "claude", "--task", "x", "--anchor", anchor)
            == "pane-not-found"
        )
    assert len(m.panes()) == before


def test_spawn_invalid_task(shared_team: Mytty, tmp_path: Path) -> None:
    m = shared_team
    anchor = new_anchor(m)
    base = ("--provider", "claude", "--anchor", anchor)
    assert spawn_code(m, *base, "--task", "") == "invalid-task"
    empty = tmp_path / "empty.md"
    empty.write_text("")
    assert spawn_code(m, *base, "--task-file", str(empty)) == "invalid-task"
    binary = tmp_path / "binary.md"
    binary.write_bytes(b"\xff\xfe\x00broken")
    for path in (tmp_path / "missing.md", tmp_path, binary):
        result = m.ctl("agent", "spawn", *base, "--task-file", str(path))
        assert result.code == "invalid-task"
        assert str(path) in result.stderr
    # Server side too (a raw request that skipped the CLI's checks).
    reply = m.request(
        {
            "type": "spawnAgent",
            "anchorPaneID": anchor,
            "direction": "auto",
            "provider": "claude",
            "task": "",
        }
    )
    assert (reply["type"], reply["code"]) == ("failure", "invalid-task")


def test_spawn_too_large_task_is_refused_before_connecting(
    shared_team: Mytty, tmp_path: Path
) -> None:
    m = shared_team
    huge = "y" * 70_000
    nowhere = {"MYTTY_CONTROL_SOCKET": str(tmp_path / "no-such.sock")}
    for args in (("--task", huge), ("--task-file", str(tmp_path / "huge.md"))):
        (tmp_path / "huge.md").write_text(huge)
        result = m.ctl(
            "agent", "spawn", "--provider", "codex", "--anchor", _fresh_uuid(), *args, env=nowhere
        )
        assert result.code == "invalid-task", result.stderr  # not "not-running": never connected


def test_a_large_task_that_fits_arrives_whole(shared_team: Mytty) -> None:
    m = shared_team
    task = "\n".join(f"{i:05d} " + "z" * 90 for i in range(400)) + "\n@standin: exit"  # ~38 KB
    job = spawn(m, "--provider", "codex", "--task", task, "--anchor", new_anchor(m))
    assert standin_in(m, pane_of(job), "codex").task.startswith(task + "\n")


@pytest.mark.parametrize("label", ["a" * 101, "bell\x07", "tab\there", "new\nline", "zwj\u200dx"])
def test_spawn_invalid_label(shared_team: Mytty, label: str) -> None:
    m = shared_team
    assert (
        spawn_code(
            m, "--provider", "claude", "--task", "x", "--label", label, "--anchor", new_anchor(m)
        )
        == "invalid-label"
    )


@pytest.mark.parametrize("model", ["", "two words", "tab\tmodel", "m" * 101, "ctl\x01"])
def test_spawn_invalid_model(shared_team: Mytty, model: str) -> None:
    m = shared_team
    assert (
        spawn_code(
            m, "--provider", "claude", "--task", "x", "--model", model, "--anchor", new_anchor(m)
        )
        == "invalid-model"
    )


def test_spawn_invalid_cwd(shared_team: Mytty, tmp_path: Path) -> None:
    m = shared_team
    anchor = new_anchor(m)
    a_file = tmp_path / "file"
    a_file.write_text("")
    before = len(m.panes())
    for cwd in (tmp_path / "missing", a_file):
        assert (
            spawn_code(
                m, "--provider", "claude", "--task", "x", "--cwd", str(cwd), "--anchor", anchor
            )
            == "invalid-cwd"
        )
    assert len(m.panes()) == before


def test_server_checks_run_in_the_documented_order(shared_team: Mytty) -> None:
    """§5.1: anchor, task, label, model, (integration), cwd, worktree, access."""
    m = shared_team
    anchor = new_anchor(m)

    def code(**fields: Any) -> str:
        req = {
            "type": "spawnAgent",
            "anchorPaneID": anchor,
            "direction": "auto",
            "provider": "claude",
            "task": "x",
            **fields,
        }
        reply = m.request(req)
        assert reply["type"] == "failure", reply
        return str(reply["code"])

    bad = {
        "task": "",
        "label": "\x07",
        "model": "a b",
        "cwd": "/no/such/dir",
        "worktreeBranch": "..bad",
        "access": "inherit",
    }
    assert code(anchorPaneID=_fresh_uuid(), **bad) == "pane-not-found"
    assert code(**bad) == "invalid-task"
    del bad["task"]
    assert code(**bad) == "invalid-label"
    del bad["label"]
    assert code(**bad) == "invalid-model"
    del bad["model"]
    assert code(**bad) == "invalid-cwd"
    del bad["cwd"]
    assert code(**bad) == "invalid-worktree-branch"
    del bad["worktreeBranch"]
    assert code(**bad) == "inherit-unavailable"


def test_spawn_failed_when_the_anchor_cannot_be_split(shared_team: Mytty) -> None:
    m = shared_team
    anchor = new_anchor(m)
    window = tmux_format(m, anchor, "#{window_id}")
    m.tmux("resize-window", "-t", window, "-x", "1", "-y", "1")
    assert tmux_format(m, anchor, "#{pane_width}x#{pane_height}") == "1x1"
    before = len(m.panes())
    # An explicit side (auto would open a `workers` window instead, see test_worker_layout).
    assert (
        spawn_code(
            m, "--provider", "claude", "--task", "x", "--anchor", anchor, "--direction", "right"
        )
        == "spawn-failed"
    )
    assert len(m.panes()) == before


@pytest.mark.parametrize("provider", PROVIDERS)
def test_spawn_needs_repair(mytty: Mytty, provider: str) -> None:
    m = mytty
    enable_integrations(m, provider)
    hook_file = {
        "claude": m.home / ".claude" / "settings.json",
        "codex": m.home / ".codex" / "hooks.json",
        "cursor": m.home / ".cursor" / "hooks.json",
    }[provider]
    config = json.loads(hook_file.read_text())
    events = list(config["hooks"])
    assert len(events) > 1
    del config["hooks"][events[0]]  # one handler gone: the integration is broken
    hook_file.write_text(json.dumps(config, indent=2))
    listing = m.ctl("integration", "list").json["integrations"]
    statuses = {i["provider"]: i["status"] for i in listing}
    assert statuses[INTEGRATION[provider]] == "needs-repair", statuses
    before = len(m.panes())
    assert (
        spawn_code(m, "--provider", provider, "--task", "x", "--anchor", m.first_pane())
        == "provider-integration-needs-repair"
    )
    assert len(m.panes()) == before


def test_a_job_is_named_by_the_8_characters_ls_shows(shared_team: Mytty) -> None:
    """What a person reads in ``mytty ls`` (a job's first 8 characters) and types back names
    the job in every job command; the replies carry the full id."""
    m = shared_team
    job = spawn(
        m, "--provider", "claude", "--task", "short\n@standin: sleep 1", "--anchor", new_anchor(m)
    )
    short = job_id(job)[:8].lower()
    shown = subprocess.run(
        [MYTTY, "ls"], env={**m.env, "COLUMNS": "250"}, capture_output=True, text=True, timeout=60
    )
    assert short.upper() in shown.stdout, shown.stdout
    waited = agent_wait(m, short, "completed", 60)
    assert waited["job"]["jobID"] == job["jobID"] and waited["job"]["state"] == "succeeded"
    assert agent_result(m, short)["job"]["jobID"] == job["jobID"]
    assert m.ctl("agent", "send", short, "again", "--enter").json["type"] == "ok"
    assert agent_wait(m, job, "completed", 60)["job"]["state"] == "succeeded"
    assert m.ctl("agent", "close", short).json["type"] == "ok"
    wait_pane_gone(m, pane_of(job))  # closed: the job it named, not another
    # Text that is no prefix of any job's id is still no job.
    assert agent_code(m, "result", "-") == "job-not-found"


def test_unknown_job_ids(shared_team: Mytty) -> None:
    m = shared_team
    unknown = _fresh_uuid()
    assert (
        agent_code(m, "wait", unknown, "--until", "completed", "--timeout-seconds", "1")
        == "job-not-found"
    )
    assert agent_code(m, "result", unknown) == "job-not-found"
    assert agent_code(m, "send", unknown, "hello", "--enter") == "job-not-found"
    assert agent_code(m, "focus", unknown) == "job-not-found"
    assert agent_code(m, "close", unknown) == "job-not-found"
    # A pane id is not a job id.
    assert agent_code(m, "result", m.first_pane()) == "job-not-found"


def test_an_unbound_job_is_kept_when_the_controller_restarts(mytty: Mytty) -> None:
    # No integration: the stand-in's hooks stay silent, so the job is unbound (launching).
    m = mytty
    m.install_standins("claude")
    # The turn holds: its transcript would otherwise end it (succeeded) as soon as ~1 s after
    # it began, before or after the restart depending on how busy the machine is.
    job = spawn(
        m,
        "--provider",
        "claude",
        "--task",
        "outlives the controller\n@standin: hold",
        "--anchor",
        new_anchor(m),
    )
    standin_in(m, pane_of(job), "claude")
    assert agent_result(m, job)["job"]["jobID"] == job["jobID"]
    m.stop()
    m.start()
    jid = job_id(job)
    after = agent_result(m, jid)["job"]
    assert after["jobID"] == job["jobID"] and after["paneID"] == job["paneID"]
    # Launching until its (stored) launch window closes, then launch-failed; never forgotten.
    # With no hooks installed, native estimation may have started a run for the agent by
    # now (3 s after it appeared, before or after the restart): then the job is bound to it.
    if after["runID"] is None:
        assert after["state"] in {"launching", "launch-failed"}, after
    else:
        assert after["state"] == "running", after
    assert m.ctl("agent", "focus", jid).json == {"type": "ok"}
    # The pane and its agent are untouched.
    assert listed(m, pane_of(job)) is not None
    assert len(standins_in(m, pane_of(job), "claude")) == 1
    assert m.ctl("agent", "close", jid).json == {"type": "ok"}
    assert completed(m, jid, timeout=10)["state"] == "lost"


def test_agent_send_to_a_job_whose_pane_was_killed_is_job_lost(shared_team: Mytty) -> None:
    m = shared_team
    job = spawn(m, "--provider", "claude", "--task", "quick", "--anchor", new_anchor(m))
    assert completed(m, job)["state"] == "succeeded"
    m.tmux("kill-pane", "-t", m.tmux_id(pane_of(job)))
    wait_pane_gone(m, pane_of(job))
    # The job had finished, so it keeps its state; but there is no pane to talk to any more.
    assert agent_code(m, "send", job_id(job), "follow-up", "--enter") == "job-lost"
    assert agent_result(m, job)["job"]["state"] == "succeeded"


def test_integration_environment_is_untouched_by_spawn(shared_team: Mytty) -> None:
    """A spawned worker carries the pane environment of its own pane."""
    m = shared_team
    job = spawn(
        m, "--provider", "cursor", "--task", "env\n@standin: exit", "--anchor", new_anchor(m)
    )
    record = standin_in(m, pane_of(job), "cursor-agent")
    assert record.env["MYTTY_SURFACE_ID"] == pane_of(job)
    assert record.env["MYTTY_CONTROL_SOCKET"] == m.control_socket
    assert record.env.get("MYTTY_EVENT_CAPABILITY")
    assert "MYTTY_LAUNCH_FILE" not in record.env
    launch_files = list(m.mytty_home.rglob(f"{pane_of(job)}.sh"))
    assert launch_files == []  # the private launch file is removed once it ran


def test_agent_list_shows_every_job_oldest_first(shared_team: Mytty) -> None:
    m = shared_team
    first = _running_job(m)
    second = _running_job(m)
    jobs = m.ctl("agent", "list").json
    assert jobs["type"] == "agentJobs"
    ids = [j["jobID"]["rawValue"] for j in jobs["jobs"]]
    assert ids.index(job_id(first)) < ids.index(job_id(second))
    m.ctl("agent", "close", job_id(second)).ok()
    listed_jobs = {j["jobID"]["rawValue"]: j for j in m.ctl("agent", "list").json["jobs"]}
    assert listed_jobs[job_id(second)]["state"] == "lost"
    assert listed_jobs[job_id(first)]["state"] == "running"
    m.ctl("agent", "close", job_id(first)).ok()
