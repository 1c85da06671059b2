"""Admission with a real controller, real tmux and stand-in workers (issue 23's acceptance).

- Memory: stand-ins that each hold N MB, ``min_available_memory_mb`` computed from this
  machine's available memory so that only k of them fit: k run, the next 3 wait ``queued`` in
  order, ``--no-queue`` is refused naming the reason, a restart keeps the queue, and closing a
  worker starts exactly the next one.
- ``max_workers = 2`` and 5 spawns from one lead: never more than 2 live (sampled), all 5 end
  ``succeeded``, and one ``agent wait --all`` returns once.
- Cost: the price table times the transcript's tokens, per job and per lead; an unknown model
  is null; ``[prices]`` adds a model; ``--budget-usd`` warns at 80 % and presses Esc at 100 %.
- ``mytty resume`` goes through admission: paced starts, and three failed starts stop it.
"""

from __future__ import annotations

import json
import threading
from decimal import Decimal
from typing import Any

import pytest

from mytty.core.cost.prices import PRICES
from mytty.daemon.clock import TIMINGS_ENV
from mytty.daemon.resources.memory import available_mb
from tests.e2e.events_support import control
from tests.e2e.jobs_support import (
    agent_wait,
    completed,
    job_id,
    new_anchor,
    pane_of,
    spawn_reply,
    standin_in,
    team,
)
from tests.e2e.test_lifecycle import kill_tmux_server, run_mytty
from tests.support.harness import Mytty, wait_until

pytestmark = pytest.mark.tmux

#: What each memory-holding stand-in holds (MB); the threshold sits half of it from the edge,
#: so other processes may move the machine's memory by up to that much meanwhile.
HOLD_MB = 1024
FIT = 2
LIVE_STATES = {"launching", "running", "waiting-input", "waiting-approval"}


def configure(m: Mytty, admission: str, *, prices: str = "") -> None:
    """Write config.toml's [admission] (and [prices]) and wait until the controller uses it."""
    before = m.log().count("reloaded; the new settings are in use")
    (m.mytty_home / "config.toml").write_text(f"[admission]\n{admission}\n{prices}")
    wait_until(
        lambda: m.log().count("reloaded; the new settings are in use") > before,
        15,
        message="config.toml to be reloaded",
    )


def jobs(m: Mytty) -> dict[str, dict[str, Any]]:
    return {job_id(j): j for j in m.ctl("agent", "list", "--all").json["jobs"]}


def state_of(m: Mytty, job: dict[str, Any]) -> str:
    return str(jobs(m)[job_id(job)]["state"])


def settled(m: Mytty, job: dict[str, Any]) -> dict[str, Any]:
    """The job once it runs or waits in the queue."""

    def now() -> dict[str, Any] | None:
        j = jobs(m)[job_id(job)]
        return j if j["state"] in ("running", "queued") else None

    return wait_until(now, 30, message=f"job {job_id(job)} to run or be queued")


def test_memory_admits_k_workers_queues_the_rest_in_order_and_survives_a_restart(
    mytty: Mytty,
) -> None:
    m = team(mytty, providers=("claude",))
    anchor = new_anchor(m, width=400, height=120)
    # Only FIT more holders fit: the threshold is half a holder above what FIT leave.
    threshold = int(available_mb() - FIT * HOLD_MB + HOLD_MB / 2)
    configure(m, f"min_available_memory_mb = {threshold}")
    task = f"hold\n@standin: hold-memory {HOLD_MB}; sleep 300"
    spawned = []
    for n in range(FIT + 3):
        reply = spawn_reply(
            m, "--provider", "claude", "--label", f"h{n}", "--task", task, "--anchor", anchor
        )
        spawned.append(settled(m, reply["job"]))
    assert [j["state"] for j in spawned] == ["running"] * FIT + ["queued"] * 3
    queued = spawned[FIT:]
    assert [j["queuePosition"] for j in queued] == [1, 2, 3]
    assert {j["queuedBecause"] for j in queued} == {"memory"}
    # A queued worker's pane is there and says why; its agent has not started.
    first_queued = pane_of(queued[0])
    m.wait_for_text(first_queued, "is queued (#1): memory")
    assert (
        m.tmux("show-options", "-p", "-v", "-t", m.tmux_id(first_queued), "@mytty_state").strip()
        == "queued"
    )
    listed = json.loads(run_mytty(m, "ls", "--json").stdout)["panes"]
    assert {p["state"] for p in listed if p["paneID"] == first_queued} == {"queued"}
    holding = {pane_of(j) for j in spawned[:FIT]}

    def holders_shown() -> bool:
        # ls reads @mytty_rss, which the controller publishes after its next sample: under load
        # that comes a little after the holders are running.
        panes = json.loads(run_mytty(m, "ls", "--json").stdout)["panes"]
        shown = [p for p in panes if p["paneID"] in holding]
        return len(shown) == FIT and all(
            (p["rssBytes"] or 0) >= HOLD_MB * 1024 * 1024 for p in shown
        )

    wait_until(holders_shown, 20, message="mytty ls to show each holder's memory")
    # The running ones show their memory (sampled for this read).
    assert all(jobs(m)[job_id(j)]["rssBytes"] >= HOLD_MB * 1024 * 1024 for j in spawned[:FIT])

    refused = m.ctl(
        "agent", "spawn", "--provider", "claude", "--task", task, "--anchor", anchor, "--no-queue"
    )
    assert refused.code == "admission-refused"
    assert "(memory: " in refused.stderr, refused.stderr

    m.stop()
    m.start()
    after = jobs(m)
    assert [after[job_id(j)]["state"] for j in spawned] == ["running"] * FIT + ["queued"] * 3
    assert [after[job_id(j)]["queuePosition"] for j in queued] == [1, 2, 3]

    # Closing a worker frees its memory: the first in line starts, and only it.
    assert m.ctl("agent", "close", job_id(spawned[0])).json == {"type": "ok"}
    started = agent_wait(m, queued[0], "running", 60)["job"]
    assert started["state"] == "running", started
    standin_in(m, pane_of(queued[0]), "claude")
    now = jobs(m)
    assert [now[job_id(j)]["state"] for j in queued[1:]] == ["queued", "queued"], [
        line for line in m.log().splitlines() if "admission" in line or "admitted" in line
    ]
    assert [now[job_id(j)]["queuePosition"] for j in queued[1:]] == [1, 2]
    # agent close cancels a queued job: it never started.
    assert m.ctl("agent", "close", job_id(queued[2])).json == {"type": "ok"}
    cancelled = completed(m, queued[2], 10)
    assert cancelled["state"] == "lost" and "Cancelled while queued" in cancelled["message"]


def test_max_workers_two_of_five_at_a_time_all_succeed_and_one_wait_returns(mytty: Mytty) -> None:
    m = team(mytty, providers=("claude",))
    configure(m, "max_workers = 2")
    anchor = new_anchor(m, width=400, height=120)  # one lead: the anchor
    seen: list[int] = []
    stop = threading.Event()

    def sample() -> None:
        while not stop.is_set():
            listing = m.ctl("agent", "list", "--all").json["jobs"]
            seen.append(sum(1 for j in listing if j["state"] in LIVE_STATES))
            stop.wait(0.1)

    sampler = threading.Thread(target=sample)
    sampler.start()
    try:
        spawned = [
            spawn_reply(
                m,
                "--provider",
                "claude",
                "--task",
                f"w{n}\n@standin: sleep 1.5",
                "--anchor",
                anchor,
            )["job"]
            for n in range(5)
        ]
        assert [j["state"] for j in spawned] == ["launching"] * 2 + ["queued"] * 3
        assert {j["queuedBecause"] for j in spawned[2:]} == {"max-workers"}
        reply = m.ctl(
            "agent",
            "wait",
            *map(job_id, spawned),
            "--all",
            "--until",
            "completed",
            "--timeout-seconds",
            "120",
            timeout=150,
        ).json
    finally:
        stop.set()
        sampler.join(30)
    assert reply["timedOut"] is False, reply
    assert [j["state"] for j in reply["jobs"]] == ["succeeded"] * 5, reply
    assert len(seen) >= 5 and max(seen) <= 2, seen
    assert max(seen) == 2  # the limit was reached, not only respected


def _price(usage: dict[str, Any], model: str) -> float:
    price = PRICES[model]
    exact = (
        usage["inputTokens"] * price.input
        + usage["outputTokens"] * price.output
        + usage["cacheReadTokens"] * price.cache_read
        + usage["cacheWriteTokens"] * price.cache_write
    ) / Decimal(1_000_000)
    return float(round(exact, 6))


def listed_from(m: Mytty, pane: str) -> dict[str, Any]:
    """``agent list`` run inside ``pane`` (so the pane is the lead whose jobs are listed)."""
    out = m.root / f"list-{pane[:8]}.json"
    m.tmux(
        "send-keys",
        "-t",
        m.tmux_id(pane),
        "-l",
        f"mytty-ctl agent list > {out}.tmp && mv {out}.tmp {out}",
    )
    m.tmux("send-keys", "-t", m.tmux_id(pane), "Enter")
    wait_until(lambda: out.exists(), 20, message="agent list in the lead's pane")
    reply: dict[str, Any] = json.loads(out.read_text())
    return reply


def test_cost_is_the_price_table_times_the_tokens_per_job_and_per_lead(mytty: Mytty) -> None:
    m = team(mytty, providers=("claude", "codex"))
    configure(
        m,
        "",
        prices='[prices."claude-opus-5-5"]\ninput = 2\noutput = 10\ncache_read = 0.2\n'
        "cache_write = 2.5\n",
    )
    tokens = "@standin: tokens 1200 800 50000 3000"
    known_lead, other_lead = (
        new_anchor(m, width=400, height=120),
        new_anchor(m, width=400, height=120),
    )
    runs = {
        "sonnet": ("claude", "claude-sonnet-4-5-20250929", known_lead),
        "codex": ("codex", "gpt-5-codex", known_lead),
        "configured": ("claude", "claude-opus-5-5", other_lead),  # priced by [prices]
        "unknown": ("claude", "claude-mystery-1", other_lead),
    }
    done = {}
    for label, (provider, model, lead) in runs.items():
        job = spawn_reply(
            m,
            "--provider",
            provider,
            "--model",
            model,
            "--label",
            label,
            "--task",
            f"spend\n{tokens}",
            "--anchor",
            lead,
        )["job"]
        done[label] = completed(m, job, 60)
    assert done["sonnet"]["costUsd"] == _price(done["sonnet"]["usage"], "claude-sonnet-4-5")
    assert done["codex"]["costUsd"] == _price(done["codex"]["usage"], "gpt-5-codex")
    usage = done["configured"]["usage"]
    expected = (
        usage["inputTokens"] * 2
        + usage["outputTokens"] * 10
        + usage["cacheReadTokens"] * Decimal("0.2")
        + usage["cacheWriteTokens"] * Decimal("2.5")
    ) / 1_000_000
    assert done["configured"]["costUsd"] == float(round(expected, 6))
    assert done["unknown"]["costUsd"] is None and done["unknown"]["usage"]["totalTokens"] > 0
    for job in done.values():  # the tokens are the fixture's: 2 model messages a turn
        assert job["usage"]["outputTokens"] == 2 * 800, job

    # Per lead: its own agent (here a shell: nothing) plus its workers.
    known = listed_from(m, known_lead)
    both = Decimal(repr(done["sonnet"]["costUsd"])) + Decimal(repr(done["codex"]["costUsd"]))
    assert {j["label"] for j in known["jobs"]} == {"sonnet", "codex"}
    assert known["costUsd"] == float(both)
    assert known["lead"] == {
        "paneID": known_lead,
        "ownCostUsd": 0.0,
        "workersCostUsd": float(both),
        "costUsd": float(both),
    }
    other = listed_from(m, other_lead)
    assert other["costUsd"] is None and other["lead"]["workersCostUsd"] is None  # never a guess


def test_a_dollar_budget_warns_at_80_percent_and_presses_esc_at_100(mytty: Mytty) -> None:
    m = team(mytty, providers=("claude",))
    model = "claude-sonnet-4-5"
    # Two model messages of 10,000 output tokens: $0.30 a turn at $15 per million.
    job = spawn_reply(
        m,
        "--provider",
        "claude",
        "--model",
        model,
        "--budget-usd",
        "0.7",
        "--task",
        "first\n@standin: tokens 0 10000",
    )["job"]
    assert job["usage"]["budgetUsd"] == 0.7 and job["costUsd"] == 0.0, job
    assert completed(m, job, 60)["costUsd"] == 0.3

    def items() -> list[str]:
        reply = control(m, {"type": "attention"})
        return sorted(i["message"] for i in reply["items"] if i["kind"] == "budget")

    follow_up = "@standin: tokens 0 10000"
    assert m.ctl("agent", "send", job_id(job), follow_up, "--enter").json == {"type": "ok"}
    wait_until(lambda: items() or None, 30, message="the 80 % dollar budget item")
    assert items() == ["Dollar budget 80% used: $0.60 of $0.70"]
    assert m.ctl("agent", "send", job_id(job), follow_up + "; hold", "--enter").json == {
        "type": "ok"
    }
    m.wait_for_text(pane_of(job), "STANDIN interrupted by Esc", 30)
    done = completed(m, job, 30)
    assert done["state"] == "disconnected" and done["costUsd"] == 0.75, done
    assert items() == [
        "Dollar budget 80% used: $0.60 of $0.70",
        "Dollar budget used up: $0.75 of $0.70; mytty interrupted the worker (Esc)",
    ]


def test_resume_paces_its_starts_and_stops_after_three_failed_starts() -> None:
    m = Mytty(extra_env={TIMINGS_ENV: "launch_window=3"})
    try:
        m.start()
        team(m, providers=("claude",))
        configure(m, "start_burst = 1\nstart_interval_seconds = 1")
        anchor = new_anchor(m, width=400, height=120)
        spawned = [
            spawn_reply(
                m,
                "--provider",
                "claude",
                "--label",
                f"r{n}",
                "--task",
                "work\n@standin: sleep 300",
                "--anchor",
                anchor,
            )["job"]
            for n in range(5)
        ]
        for job in spawned:
            assert agent_wait(m, job, "running", 30)["job"]["state"] == "running"
        kill_tmux_server(m)
        for job in spawned[:2]:
            assert completed(m, job, 15)["state"] == "lost"
        # Paced: one at a time, each once the one before it runs.
        out = run_mytty(m, "resume", "--json", job_id(spawned[0]), job_id(spawned[1]), timeout=120)
        assert out.returncode == 0, out.stdout + out.stderr
        entries = json.loads(out.stdout)["jobs"]
        assert [e["state"] for e in entries] == ["launching", "queued"], entries
        assert entries[1]["queuedBecause"] == "start-burst"
        for job in spawned[:2]:
            # A resumed worker's turn may already be over by the time this wait is asked.
            assert agent_wait(m, job, "running", 60)["job"]["state"] in {"running", "succeeded"}
        first, second = (standin_in(m, pane_of(jobs(m)[job_id(j)]), "claude") for j in spawned[:2])
        started = sorted(
            (m.standin_dir / f"claude.{run.pid}.json").stat().st_mtime for run in (first, second)
        )
        # The controller starts them 1 s apart; each stand-in writes its file after its own
        # Python start-up, which varies by a tenth of a second or two (unpaced: ~0.05 s apart).
        assert started[1] - started[0] >= 0.7, started
        # The other three fail to start (no claude on PATH any more): the third failure stops
        # the resumption with an attention item.
        (m.bin / "claude").unlink()
        out = run_mytty(m, "resume", "--json", *map(job_id, spawned[2:]), timeout=120)
        assert out.returncode == 0, out.stdout + out.stderr

        def stopped() -> list[dict[str, Any]]:
            return [
                i
                for i in control(m, {"type": "attention"})["items"]
                if i["kind"] == "resume-stopped"
            ]

        items = wait_until(stopped, 60, message="the resume-stopped item")
        assert "3 failed starts in a row" in items[0]["message"]
        assert {state_of(m, j) for j in spawned[2:]} <= {"launch-failed"}
    finally:
        m.close()
