"""Transcripts through the real controller: usage per job, Claude's Esc, token budgets.

The stand-ins write their transcripts in the real formats (Claude Code 2.1.332's project
``.jsonl``, Codex 0.171's rollout); the expected figures here are summed from those files with
plain ``json``, not with mytty's parser.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mytty.core.ids import stable_uuid
from mytty.daemon.clock import TIMINGS_ENV
from tests.e2e.events_support import all_records, control, stored_events, wait_request
from tests.e2e.jobs_support import (
    agent_result,
    agent_wait,
    completed,
    escape_held_turn,
    job_id,
    new_anchor,
    pane_of,
    run_id,
    shared_team,  # noqa: F401 - fixture
    spawn,
    team,
)
from tests.support.harness import MYTTY, Mytty, wait_until

COUNTERS = ("inputTokens", "outputTokens", "cacheReadTokens", "cacheWriteTokens")


def _claude_transcript(m: Mytty, job: dict[str, Any]) -> Path:
    paths = list((m.home / ".claude" / "projects").glob(f"*/{job['sessionID']}.jsonl"))
    assert len(paths) == 1, paths
    return paths[0]


def _codex_rollout(m: Mytty, job: dict[str, Any]) -> Path:
    paths = list((m.home / ".codex" / "sessions").glob(f"*/*/*/rollout-*-{job['sessionID']}.jsonl"))
    assert len(paths) == 1, paths
    return paths[0]


def _claude_sums(path: Path) -> dict[str, int]:
    """Each assistant message once (Claude repeats a streamed message's usage on every row)."""
    by_message: dict[str, dict[str, int]] = {}
    for line in path.read_text().splitlines():
        row = json.loads(line)
        if row.get("type") == "assistant" and row["message"].get("usage"):
            by_message[row["message"]["id"]] = row["message"]["usage"]
    usages = list(by_message.values())
    return {
        "inputTokens": sum(u.get("input_tokens", 0) for u in usages),
        "outputTokens": sum(u.get("output_tokens", 0) for u in usages),
        "cacheReadTokens": sum(u.get("cache_read_input_tokens", 0) for u in usages),
        "cacheWriteTokens": sum(u.get("cache_creation_input_tokens", 0) for u in usages),
    }


def _codex_sums(path: Path) -> dict[str, int]:
    """The last running total (and it equals the per-response records added up)."""
    totals, records = [], []
    for line in path.read_text().splitlines():
        row = json.loads(line)
        payload = row.get("payload") or {}
        if row["type"] == "event_msg" and payload.get("type") == "token_count":
            totals.append(payload["info"]["total_token_usage"])
        elif row["type"] == "token_usage_record":
            records.append(payload["usage"])
    last = totals[-1]
    assert last["total_tokens"] == sum(r["total_tokens"] for r in records)
    cached, written = last["cached_input_tokens"], last["cache_write_input_tokens"]
    return {
        "inputTokens": last["input_tokens"] - cached - written,
        "outputTokens": last["output_tokens"],
        "cacheReadTokens": cached,
        "cacheWriteTokens": written,
    }


def _usage_of(m: Mytty, job: dict[str, Any]) -> dict[str, Any] | None:
    usage: dict[str, Any] | None = agent_result(m, job)["job"].get("usage")
    return usage


def _wait_total(
    m: Mytty, job: dict[str, Any], total: int, timeout: float, what: str
) -> dict[str, Any]:
    """The job's usage once its totalTokens is ``total``; a timeout says the last usage seen
    (a double count overshoots, a slow or lost one stays below) and the transcript's sums."""
    seen: list[dict[str, Any] | None] = [None]

    def probe() -> dict[str, Any] | None:
        seen[0] = usage = _usage_of(m, job)
        return usage if usage and usage["totalTokens"] == total else None

    try:
        return wait_until(probe, timeout, message=what)
    except AssertionError as timed_out:
        sums = _claude_sums(_claude_transcript(m, job))
        raise AssertionError(f"{timed_out}; last usage {seen[0]}, transcript {sums}") from None


@pytest.mark.parametrize("provider", ["claude", "codex"])
def test_usage_in_agent_result_equals_the_sums_in_the_transcript(
    shared_team: Mytty,
    provider: str,
) -> None:
    m = shared_team
    task = "Count tokens.\n@standin: tokens 120 30 7 3"
    job = spawn(m, "--provider", provider, "--task", task, "--label", f"usage-{provider}")
    done = completed(m, job, 60)
    assert done["state"] == "succeeded", done
    path = (_claude_transcript if provider == "claude" else _codex_rollout)(m, done)
    sums = (_claude_sums if provider == "claude" else _codex_sums)(path)
    assert sums["inputTokens"] == 240 and sums["cacheWriteTokens"] == 6  # two model messages

    def settled() -> dict[str, Any] | None:
        usage = _usage_of(m, job)
        return usage if usage and usage["totalTokens"] == sum(sums.values()) else None

    usage = wait_until(settled, 15, message="the job's usage to reach the transcript's sums")
    assert {k: usage[k] for k in COUNTERS} == sums
    assert usage["model"] == ("claude-opus-5-5" if provider == "claude" else "gpt-5-codex"), usage
    assert "budgetTokens" not in usage
    # The same figures in agent wait and agent list (whose top-level usage adds them up).
    assert agent_wait(m, job, "completed", 1)["job"]["usage"] == usage
    listed = m.ctl("agent", "list", "--all", "--label", f"usage-{provider}").json
    assert [j["usage"] for j in listed["jobs"]] == [usage]
    assert listed["usage"] == dict(usage, model=None)

    # And in tmux itself: @mytty_tokens, which `mytty ls` shows.
    def ls_tokens() -> int | None:
        out = subprocess.run(
            [MYTTY, "ls", "--json"], env=m.env, capture_output=True, text=True, check=True
        )
        panes = json.loads(out.stdout)["panes"]
        entry = next((p for p in panes if p["paneID"] == pane_of(job)), None)
        return entry["tokens"] if entry and entry["tokens"] == usage["totalTokens"] else None

    wait_until(ls_tokens, 10, message="mytty ls to show the job's tokens")


def test_esc_in_a_hooked_claude_worker_ends_its_run_from_the_transcript(
    shared_team: Mytty,
) -> None:
    """No hook fires on Esc: the transcript's interrupt row ends the job (`disconnected`)."""
    m = shared_team
    job, _ = escape_held_turn(
        m, "claude", "Take your time.\n@standin: hold", "STANDIN interrupted by Esc"
    )
    done = completed(m, job, 30)
    assert done["state"] == "disconnected", done
    rows = [json.loads(line) for line in _claude_transcript(m, done).read_text().splitlines()]
    prompt = next(r["promptId"] for r in rows if r["type"] == "user" and r.get("promptId"))
    note = rows[-1]
    assert note["rowSource"] == "harness" and note["promptId"] == prompt, note
    # The hooks' run of that prompt ended, with the §9.6 event id.
    assert run_id(done) == stable_uuid("run", "claude-code", prompt)
    interrupts = [r for r in all_records(m) if r["runID"] == run_id(done) and r["kind"] == "idle"]
    assert len(interrupts) == 1, interrupts


def test_esc_before_claude_answered_ends_the_job_from_its_registry(
    shared_team: Mytty,
) -> None:
    """No hook and no transcript row: only Claude's live registry turns idle."""
    m = shared_team
    job, _pane = escape_held_turn(
        m, "claude", "Think first.\n@standin: thinking", "STANDIN prompt put back by Esc"
    )
    done = completed(m, job, 30)  # the registry must have said idle for 2 s first
    assert done["state"] == "disconnected", done
    ended = [r for r in all_records(m) if r["runID"] == run_id(done) and r["kind"] == "idle"]
    assert len(ended) == 1, ended


def test_a_codex_api_error_fails_the_hooked_job_from_the_rollout(
    shared_team: Mytty,
) -> None:
    """Codex fires no hook when the model API fails; the rollout's task_complete has the error."""
    m = shared_team
    job = spawn(m, "--provider", "codex", "--task", "Ask the model.\n@standin: apierror")
    done = completed(m, job, 30)
    assert done["state"] == "failed", done
    assert "stand-in API error" in (done["message"] or ""), done


def test_budget_warns_at_80_percent_and_presses_esc_at_100(
    shared_team: Mytty,
) -> None:
    m = shared_team
    job = spawn(
        m,
        "--provider",
        "claude",
        "--budget-tokens",
        "1000",
        "--task",
        "First part.\n@standin: tokens 400 0",
    )
    assert job["usage"]["budgetTokens"] == 1000 and job["usage"]["totalTokens"] == 0, job
    first = completed(m, job, 60)
    assert first["state"] == "succeeded", first

    def items() -> list[dict[str, Any]]:
        reply = control(m, {"type": "attention"})
        return [i for i in reply["items"] if i["kind"] == "budget" and i["runID"] == job_id(job)]

    warned = wait_until(lambda: items() or None, 15, message="the 80 % budget item")
    assert [i["message"] for i in warned] == ["Token budget 80% used: 800 of 1,000 tokens"]

    # The next turn crosses the budget mid-turn: mytty presses Esc, the turn ends.
    follow_up = "@standin: tokens 300 0; hold"  # one line: a newline would be Enter
    assert m.ctl("agent", "send", job_id(job), follow_up, "--enter").json == {"type": "ok"}
    m.wait_for_text(pane_of(job), "STANDIN interrupted by Esc", 30)
    done = completed(m, job, 30)
    assert done["state"] == "disconnected", done
    assert done["usage"]["totalTokens"] == 1100, done
    messages = sorted(i["message"] for i in items())
    assert messages == [
        "Token budget 80% used: 800 of 1,000 tokens",
        "Token budget used up: 1,100 of 1,000 tokens; mytty interrupted the worker (Esc)",
    ]


# -- no hooks: the transcript splits the native runs into turns ------------------------------


@pytest.fixture(scope="module")
def unhooked() -> Iterator[Mytty]:
    """Stand-ins on PATH, no integration installed: only native estimation makes runs."""
    m = Mytty(extra_env={TIMINGS_ENV: "native_start_grace=1"})
    try:
        m.start()
        m.install_standins("claude", "codex")
        yield m
    finally:
        m.close()


def _pane_events(m: Mytty, pane: str) -> list[dict[str, Any]]:
    return [e for e in stored_events(m) if e["surfaceID"]["rawValue"] == pane]


def _turn_events(m: Mytty, pane: str, run: str) -> list[tuple[str, str]]:
    return [
        (e["kind"], e.get("hookName", ""))
        for e in _pane_events(m, pane)
        if e["runID"]["rawValue"] == run
    ]


def _prompt_runs(path: Path) -> list[str]:
    """The hooks' run id of each typed prompt of a Claude transcript, in order."""
    return [
        stable_uuid("run", "claude-code", r["promptId"])
        for r in map(json.loads, path.read_text().splitlines())
        if r["type"] == "user" and r.get("promptId") and isinstance(r["message"]["content"], str)
    ]


def _wait_turn(m: Mytty, pane: str, run: str, event: tuple[str, str]) -> None:
    wait_until(
        lambda: event in _turn_events(m, pane, run),
        15,
        message=f"{event} on the turn's run {run}",
    )


STARTED = ("started", "mytty.native.turnStarted")
COMPLETED = ("succeeded", "mytty.native.turnCompleted")


def test_unhooked_claude_turns_are_runs_and_esc_ends_the_turn(unhooked: Mytty) -> None:
    """Each prompt is a run keyed like the hooks' (stable(run, claude-code, promptId)),
    completed by the transcript; the appended interrupt row ends the third. (The estimator
    reports the latest observation per pass, so each turn is let finish before the next.)"""
    m = unhooked
    job = spawn(
        m,
        "--provider",
        "claude",
        "--task",
        "First turn.\n@standin: linger 2",
        "--anchor",
        new_anchor(m),
    )
    pane = pane_of(job)
    for turn, prompt in ((1, None), (2, "@standin: linger 2"), (3, "@standin: hold")):
        if prompt is not None:
            m.ctl("send", pane, prompt, "--enter").ok()
        m.wait_for_text(pane, "STANDIN holding" if turn == 3 else f"STANDIN turn {turn} done", 30)
        runs = _prompt_runs(_claude_transcript(m, job))
        assert len(runs) == turn, runs
        _wait_turn(m, pane, runs[-1], STARTED if turn == 3 else COMPLETED)
    for run in runs[:2]:  # each finished turn is its own run, ended by the transcript
        assert _turn_events(m, pane, run) == [STARTED, COMPLETED], _pane_events(m, pane)
    assert wait_request(m, pane, "idle", 0.5)["timedOut"] is True  # the third is busy
    # Esc: the transcript's interrupt row ends the turn (no hook exists to say so).
    m.ctl("send-key", pane, "Escape").ok()
    m.wait_for_text(pane, "STANDIN interrupted by Esc", 15)
    idle = wait_request(m, pane, "idle", 15)
    assert idle == {"type": "waitResult", "state": "idle", "timedOut": False}, idle
    assert _turn_events(m, pane, runs[2]) == [STARTED, ("idle", "mytty.claudeInterrupted")]


def test_unhooked_codex_turns_are_runs_split_by_the_rollout(unhooked: Mytty) -> None:
    m = unhooked
    job = spawn(
        m,
        "--provider",
        "codex",
        "--task",
        "First turn.\n@standin: linger 2",
        "--anchor",
        new_anchor(m),
    )
    pane = pane_of(job)

    def turn_runs() -> list[str]:
        # Without hooks the job learns no session id: this module's only codex rollout.
        (path,) = (m.home / ".codex" / "sessions").glob("*/*/*/rollout-*.jsonl")
        rows = [json.loads(line) for line in path.read_text().splitlines()]
        return [
            stable_uuid("run", "codex", r["payload"]["turn_id"])
            for r in rows
            if r["type"] == "event_msg" and r["payload"]["type"] == "task_started"
        ]

    m.wait_for_text(pane, "STANDIN turn 1 done", 30)
    _wait_turn(m, pane, turn_runs()[0], COMPLETED)
    m.ctl("send", pane, "@standin: linger 2", "--enter").ok()
    m.wait_for_text(pane, "STANDIN turn 2 done", 30)
    runs = turn_runs()
    assert len(runs) == 2, runs
    _wait_turn(m, pane, runs[1], COMPLETED)
    for run in runs:
        assert _turn_events(m, pane, run) == [STARTED, COMPLETED], _pane_events(m, pane)
    usage = wait_until(
        lambda: u if (u := _usage_of(m, job)) and u["totalTokens"] == 60 else None,
        15,
        message="the job's usage (two turns, two responses each, 15 tokens each)",
    )
    assert usage["model"] == "gpt-5-codex"


def test_an_unhooked_codex_api_error_fails_the_turn_not_succeeds(unhooked: Mytty) -> None:
    m = unhooked
    job = spawn(
        m,
        "--provider",
        "codex",
        "--task",
        "Ask the model.\n@standin: sleep 3; apierror",
        "--anchor",
        new_anchor(m),
    )
    done = completed(m, job, 30)
    assert done["state"] == "failed", done
    assert "stand-in API error" in (done["message"] or ""), done


def test_usage_written_while_the_controller_is_down_counts_after_it_is_back() -> None:
    """The worker goes on while the controller is down (or before the reader's first look
    after a start, as on a loaded machine): what the transcript gained since the figures were
    stored still counts, once, when the next hook event has it read: here the turn's own
    events, which its hooks spooled while no controller ran (mytty.hook.spool)."""
    m = Mytty()
    try:
        m.start()
        team(m, providers=("claude",))
        job = spawn(m, "--provider", "claude", "--task", "One.\n@standin: tokens 100 10")
        assert completed(m, job, 60)["state"] == "succeeded"
        _wait_total(m, job, 220, 30, "the first turn's usage")
        pane = m.tmux_id(pane_of(job))
        m.stop()
        m.tmux("send-keys", "-t", pane, "-l", "@standin: tokens 5 0")
        m.tmux("send-keys", "-t", pane, "Enter")
        transcript = _claude_transcript(m, job)
        wait_until(
            lambda: sum(_claude_sums(transcript).values()) == 230,
            30,
            message="the second turn in the transcript",
        )
        assert list((m.mytty_home / "event-spool").glob("*.event"))  # kept for the next one
        m.start()
        _wait_total(m, job, 230, 30, "the turn run while it was down, from its spooled events")
        m.ctl("agent", "send", job_id(job), "@standin: tokens 1 0", "--enter").ok()
        usage = _wait_total(m, job, 232, 30, "both turns counted after the start")
        assert {k: usage[k] for k in COUNTERS} == _claude_sums(transcript)
    finally:
        m.close()


def test_usage_survives_a_controller_restart_and_keeps_counting(tmp_path: Path) -> None:
    """Stored with the job: after a restart the figures are back, and the next turn adds only
    what it wrote (the transcript is read again from its tail, not counted twice)."""
    m = Mytty()
    try:
        m.start()
        team(m, providers=("claude",))
        job = spawn(m, "--provider", "claude", "--task", "One.\n@standin: tokens 100 10")
        assert completed(m, job, 60)["state"] == "succeeded"

        first = _wait_total(m, job, 220, 30, "the first turn's usage")
        m.stop()
        m.start()
        assert _usage_of(m, job) == first
        m.ctl("agent", "send", job_id(job), "@standin: tokens 5 0", "--enter").ok()
        assert completed(m, job, 60)["state"] == "succeeded"
        usage = _wait_total(m, job, 230, 30, "the second turn added once")
        assert {k: usage[k] for k in COUNTERS} == _claude_sums(_claude_transcript(m, job))
    finally:
        m.close()
