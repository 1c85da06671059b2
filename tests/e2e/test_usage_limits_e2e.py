"""Workers that hit their usage limit, end to end: a real controller, a private tmux server and
the stand-in CLIs doing what Claude Code 2.1.332 and Codex 0.171.0 do at the limit
(tests/standins, ``@standin: limit``). Resets are seconds ahead and ``[limits]`` margins a
second, so each scenario takes seconds; every wait polls a condition with a deadline.
"""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Iterator
from typing import Any

import pytest

from mytty.core.events import parse_timestamp
from mytty.core.limits.park import DEFAULT_CONTINUATION
from tests.e2e.jobs_support import (
    agent_result,
    completed,
    job_id,
    pane_of,
    spawn,
    spawn_reply,
    standin_in,
    team,
)
from tests.e2e.test_lifecycle import run_mytty
from tests.standins.test_standins_limits import GATEWAY_JWT
from tests.support.harness import BackgroundCtl, Mytty, wait_until

pytestmark = pytest.mark.tmux

MARGIN, STAGGER = 1, 1
CONFIG = f"[limits]\nresume_margin_seconds = {MARGIN}\nstagger_seconds = {STAGGER}\n"
#: The login the stand-in Claude's limit path needs (a gateway JWT, as in the research).
GATEWAY = {"ANTHROPIC_AUTH_TOKEN": GATEWAY_JWT, "ANTHROPIC_BASE_URL": "http://127.0.0.1:9"}


def controller(
    *, config: str = CONFIG, env: dict[str, str] | None = None, hooks: bool = True
) -> Iterator[Mytty]:
    m = Mytty(extra_env=env or GATEWAY)
    try:
        m.mytty_home.mkdir(mode=0o700, parents=True)
        (m.mytty_home / "config.toml").write_text(config)
        m.start()
        if hooks:
            team(m, providers=("claude", "codex"))
        else:
            m.install_standins("claude", "codex")
        yield m
    finally:
        m.close()


@pytest.fixture
def m() -> Iterator[Mytty]:
    yield from controller()


def wait_job(m: Mytty, job: dict[str, Any], *extra: str, timeout: float = 60) -> dict[str, Any]:
    args = ["agent", "wait", job_id(job), "--until", "completed", "--timeout-seconds"]
    reply = m.ctl(*args, f"{timeout:g}", *extra, timeout=timeout + 30).json
    assert reply["type"] == "agentWaitResult", reply
    return reply


def parked(m: Mytty, job: dict[str, Any], timeout: float = 30) -> dict[str, Any]:
    reply = wait_job(m, job, "--return-on-park", timeout=timeout)
    assert reply["timedOut"] is False and reply["job"]["state"] == "parked", reply
    snapshot: dict[str, Any] = reply["job"]
    return snapshot


def limits(m: Mytty) -> dict[str, Any]:
    out = run_mytty(m, "limits", "--json")
    assert out.returncode == 0, out.stdout + out.stderr
    reply: dict[str, Any] = json.loads(out.stdout)
    return reply


def claude_rows(m: Mytty, job: dict[str, Any]) -> list[dict[str, Any]]:
    """The transcript of the job's stand-in Claude (the session mytty gave it)."""
    argv = standin_in(m, pane_of(job), "claude").argv
    session = argv[argv.index("--session-id") + 1]
    (path,) = (m.home / ".claude" / "projects").glob(f"*/{session}.jsonl")
    return [json.loads(line) for line in path.read_text().splitlines()]


def prompts(rows: list[dict[str, Any]]) -> list[tuple[float, str]]:
    """(time, text) of each prompt a stand-in Claude's transcript got."""
    return [
        (parse_timestamp(row["timestamp"]), row["message"]["content"])
        for row in rows
        if row.get("type") == "user" and isinstance(row["message"]["content"], str)
    ]


def limit_resets(rows: list[dict[str, Any]]) -> list[int]:
    return [r["quotaLimits"]["resetsAt"] for r in rows if "quotaLimits" in r]


# -- the lead's view: park, held send, one wait, the final answer -----------------------------


def test_a_claude_worker_parks_holds_a_send_and_finishes_on_its_own_conversation(
    m: Mytty,
) -> None:
    job = spawn(m, "--provider", "claude", "--task", "Do the work.\n@standin: limit 3")
    lead_wait = BackgroundCtl(
        m, "agent", "wait", job_id(job), "--until", "completed", "--timeout-seconds", "120"
    )
    snap = parked(m, job)
    rows = claude_rows(m, job)
    (reset,) = limit_resets(rows)
    assert parse_timestamp(snap["parkedUntil"]) == reset  # the provider's own reset
    assert parse_timestamp(snap["resumesAt"]) == reset + MARGIN
    assert snap["limit"] == "five_hour" and snap["account"].startswith("claude-code:")
    sent = m.ctl("agent", "send", job_id(job), "Then add a test.", "--enter").json
    assert sent == {"type": "ok", "queued": True}
    assert lead_wait.running()  # a park ends no wait
    listed = limits(m)
    assert [j["jobID"]["rawValue"] for j in listed["jobs"]] == [job_id(job)]
    assert listed["jobs"][0]["heldSends"] == 1
    result = lead_wait.result(timeout=90).json
    assert result["timedOut"] is False and result["job"]["state"] == "succeeded", result
    assert "heldSends" not in result["job"]
    texts = [text for _, text in prompts(claude_rows(m, job))]
    assert texts[1:] == [DEFAULT_CONTINUATION, "Then add a test."]  # same session, in order
    final = agent_result(m, job)
    assert final["lastAssistantMessage"] == "Stand-in finished turn 3."
    assert len(list(m.standin_dir.glob("claude.*.json"))) == 1  # the same live process


def test_a_codex_worker_parks_and_goes_on_after_its_switch_model_dialog_is_closed(
    m: Mytty,
) -> None:
    job = spawn(m, "--provider", "codex", "--task", "Do the work.\n@standin: limit 3 plan plus")
    snap = parked(m, job)
    assert snap["limit"] == "five_hour" and snap["parkedUntil"] is not None
    m.wait_for_text(pane_of(job), "Approaching rate limits", 15)
    done = completed(m, job, 60)
    assert done["state"] == "succeeded", done
    m.wait_for_text(pane_of(job), "STANDIN model kept", 5)  # "2", never a blind Enter
    run = standin_in(m, pane_of(job), "codex")
    log = [
        json.loads(line)
        for line in (m.standin_dir / f"codex.{run.pid}.hooks.jsonl").read_text().splitlines()
    ]
    submitted = [r["payload"] for r in log if r["event"] == "UserPromptSubmit"]
    assert [p["prompt"] for p in submitted][1:] == [DEFAULT_CONTINUATION]
    assert {p["model"] for p in submitted} == {submitted[0]["model"]}


# -- spawning while the account is limited ---------------------------------------------------


def test_a_spawn_for_a_limited_account_is_queued_until_its_parked_worker_went_on(
    m: Mytty,
) -> None:
    first = spawn(m, "--provider", "claude", "--task", "Do the work.\n@standin: limit 4")
    snap = parked(m, first)
    reset = snap["parkedUntil"]
    refused = m.ctl("agent", "spawn", "--provider", "claude", "--task", "More.", "--no-queue")
    assert refused.code == "provider-limited", refused.stdout + refused.stderr
    assert reset in refused.stdout + refused.stderr  # it names the reset
    assert "usage-limit" in refused.stdout + refused.stderr
    reply = spawn_reply(m, "--provider", "claude", "--task", "More.")
    second = reply["job"]
    assert second["state"] == "queued" and second["queuedBecause"] == "usage-limit", second
    assert reset in second["message"], second
    # Another provider's account is not limited: its worker starts at once.
    other = spawn(m, "--provider", "codex", "--task", "Elsewhere.")
    assert completed(m, other, 60)["state"] == "succeeded"
    assert completed(m, first, 60)["state"] == "succeeded"
    assert completed(m, second, 60)["state"] == "succeeded"
    (went_on,) = [t for t, text in prompts(claude_rows(m, first)) if text == DEFAULT_CONTINUATION]
    ((started, _task),) = prompts(claude_rows(m, second))
    assert started >= went_on + STAGGER - 0.1, (started, went_on)  # a stagger after it went on


# -- one account at a time; backing off --------------------------------------------------------


def test_four_parked_claude_jobs_of_one_account_go_on_in_order_stagger_apart(m: Mytty) -> None:
    # Four workers of one account at work (a spawn while the account is limited would wait
    # for it), each of which then meets the limit on its next turn.
    jobs = [
        spawn(m, "--provider", "claude", "--label", f"w{n}", "--task", f"Job {n}.")
        for n in range(4)
    ]
    for job in jobs:
        assert completed(m, job, 60)["state"] == "succeeded"
    for job in jobs:
        m.ctl("agent", "send", job_id(job), "@standin: limit 4", "--enter").ok()
        parked(m, job)
    accounts = limits(m)["accounts"]
    assert len(accounts) == 1 and len(accounts[0]["jobs"]) == 4  # one account
    for job in jobs:
        assert completed(m, job, 60)["state"] == "succeeded"
    went_on = []
    for job in jobs:
        rows = claude_rows(m, job)
        (reset,) = limit_resets(rows)
        (at,) = [t for t, text in prompts(rows) if text == DEFAULT_CONTINUATION]
        assert at >= reset + MARGIN - 0.05, (at, reset)
        went_on.append(at)
    assert went_on == sorted(went_on)  # in the order they parked
    gaps = [b - a for a, b in itertools.pairwise(went_on)]
    assert all(gap >= STAGGER - 0.1 for gap in gaps), gaps


def test_a_job_parked_again_right_after_going_on_backs_off(m: Mytty) -> None:
    job = spawn(m, "--provider", "claude", "--task", "Work.\n@standin: limit 2 repeat 1")
    assert completed(m, job, 90)["state"] == "succeeded"
    rows = claude_rows(m, job)
    first, second = limit_resets(rows)
    continued = [t for t, text in prompts(rows) if text == DEFAULT_CONTINUATION]
    assert len(continued) == 2
    assert continued[0] >= first + MARGIN - 0.05
    assert continued[1] >= second + 2 * MARGIN - 0.05  # the second park waits twice as long


# -- the agent's own continuation; a restart; no reset time ------------------------------------


def test_claudes_own_continuation_is_not_doubled() -> None:
    env = {
        "CLAUDE_CODE_OAUTH_TOKEN": "sk-ant-oat01-mock-0000",
        "MYTTY_STANDIN_AUTO_RESUME_S": "0.5",
    }
    # mytty's own time is far off (the margin), so even a loaded run checks before it.
    for m in controller(config="[limits]\nresume_margin_seconds = 30\n", env=env):
        job = spawn(m, "--provider", "claude", "--task", "Work.\n@standin: limit 1")
        snap = parked(m, job)
        assert snap["resumesAt"] is not None
        done = completed(m, job, 60)  # Claude went on by itself at reset + 0.5 s
        assert done["state"] == "succeeded"
        assert limits(m)["jobs"] == []  # nothing left planned: mytty sends nothing later
        rows = claude_rows(m, job)
        texts = [text for _, text in prompts(rows)]
        assert DEFAULT_CONTINUATION not in texts
        own = [r for r in rows if r.get("origin", {}).get("kind") == "auto-continuation"]
        assert len(own) == 1
        (reset,) = limit_resets(rows)
        assert time.time() < reset + 30, "the check above ran before mytty's own time"


def test_a_controller_restart_while_parked_keeps_the_park_and_its_timer(m: Mytty) -> None:
    # The reset far enough ahead that a loaded machine's stop and start end before it.
    job = spawn(m, "--provider", "claude", "--task", "Work.\n@standin: limit 12")
    before = parked(m, job)
    m.ctl("agent", "send", job_id(job), "And then this.", "--enter").ok()
    m.stop()
    m.start()
    after = parked(m, job)
    assert time.time() < parse_timestamp(before["resumesAt"]), "restarted after its time"
    assert after["parkedUntil"] == before["parkedUntil"]
    assert after["resumesAt"] == before["resumesAt"] and after["heldSends"] == 1
    done = completed(m, job, 60)
    assert done["state"] == "succeeded"
    texts = [text for _, text in prompts(claude_rows(m, job))]
    assert texts[1:] == [DEFAULT_CONTINUATION, "And then this."]  # once each


def test_a_park_without_a_reset_time_stays_parked_until_limits_resume(m: Mytty) -> None:
    job = spawn(m, "--provider", "claude", "--task", "Work.\n@standin: limit none")
    snap = parked(m, job)
    assert snap["parkedUntil"] is None and snap["resumesAt"] is None
    assert "no reset time" in snap["message"]
    still = wait_job(m, job, timeout=3)
    assert still["timedOut"] is True and still["job"]["state"] == "parked"
    # Everywhere the job shows: agent list, agent result, mytty ls (@mytty_state), attention.
    listed = m.ctl("agent", "list", "--state", "parked").json["jobs"]
    assert [job_id(j) for j in listed] == [job_id(job)]
    assert agent_result(m, job)["job"]["state"] == "parked"

    def ls_state() -> tuple[str | None, str | None] | None:
        out = run_mytty(m, "ls", "--json")
        panes = json.loads(out.stdout)["panes"]
        entry = next(p for p in panes if p["paneID"] == pane_of(job))
        seen = (entry["state"], entry["attention"])
        return seen if seen == ("parked", "limited") else None

    wait_until(ls_state, 15, message="mytty ls to show the pane parked and limited")
    items = json.loads(run_mytty(m, "attention", "--json").stdout)["items"]
    mine = [i for i in items if i["paneID"] == pane_of(job)]
    assert [i["kind"] for i in mine] == ["usage-limit"]  # one item, and no failure
    out = run_mytty(m, "limits", "resume", job_id(job), "--json")
    assert out.returncode == 0, out.stdout + out.stderr
    assert completed(m, job, 60)["state"] == "succeeded"


def test_limits_hold_keeps_it_and_close_still_closes_it(m: Mytty) -> None:
    # The reset far enough ahead that the hold comes before it on a loaded machine.
    job = spawn(m, "--provider", "claude", "--task", "Work.\n@standin: limit 4")
    snap = parked(m, job)
    held = json.loads(run_mytty(m, "limits", "hold", job_id(job), "--json").stdout)
    assert held["jobs"][0]["held"] is True and held["jobs"][0]["resumesAt"] is None
    past = parse_timestamp(snap["resumesAt"]) + 1.5 - time.time()
    still = wait_job(m, job, timeout=max(1.0, past))  # past reset + margin
    assert still["timedOut"] is True and still["job"]["state"] == "parked"
    m.ctl("agent", "close", job_id(job)).ok()
    assert completed(m, job, 15)["state"] == "lost"
    assert limits(m)["jobs"] == []


# -- without hooks -------------------------------------------------------------------------------


@pytest.mark.parametrize("provider", ["claude", "codex"])
def test_unhooked_workers_are_parked_from_their_transcripts(provider: str) -> None:
    for m in controller(hooks=False):
        job = spawn(
            m, "--provider", provider, "--task", "Work.\n@standin: limit 8\n@standin: boot 4"
        )
        snap = parked(m, job, timeout=40)
        assert snap["parkedUntil"] is not None and snap["limit"] == "five_hour"
        assert completed(m, job, 60)["state"] == "succeeded"
