"""``mytty attention`` (table and ``--json``) against a real controller.

Items come from applied events: approval-request, input-request, failure, disconnect (only for
a run that was active), completion (only for a run of at least five minutes); newest first.
"""

from __future__ import annotations

import json
import subprocess
import time
from typing import Any

import pytest

from mytty.core.events import format_timestamp
from tests.e2e.events_support import K, P, control, new_id, open_agent_pane
from tests.support.harness import MYTTY, Mytty

pytestmark = pytest.mark.tmux

ITEM_KEYS = {
    "paneID",
    "runID",
    "provider",
    "kind",
    "message",
    "createdAt",
    "resolvedAt",
    "location",
    "label",
}


def _mytty(m: Mytty, *args: str, columns: int = 300) -> subprocess.CompletedProcess[str]:
    env = dict(m.env, COLUMNS=str(columns))
    return subprocess.run(
        [MYTTY, *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        cwd=str(m.home),
    )


def _iso(seconds: float) -> str:
    return format_timestamp(seconds, fractional=True)


def _build_inbox(m: Mytty) -> dict[str, Any]:
    """One pane per item kind, with distinct times so the order is known."""
    t = float(int(time.time())) - 1000
    panes = {
        name: open_agent_pane(m)
        for name in ("approval", "input", "failure", "disconnect", "completion", "quiet")
    }
    runs = {name: new_id() for name in panes}

    p, r = panes["approval"], runs["approval"]
    p.send(K.STARTED, run_id=r, occurred_at=t)
    p.send(K.APPROVAL_REQUESTED, run_id=r, occurred_at=t + 10, message="Bash requires approval")

    p, r = panes["input"], runs["input"]
    p.send(K.STARTED, run_id=r, provider=P.OPENCODE, occurred_at=t)
    p.send(K.INPUT_REQUESTED, run_id=r, provider=P.OPENCODE, occurred_at=t + 20)
    p.send(K.RUNNING, run_id=r, provider=P.OPENCODE, occurred_at=t + 25)  # answered: resolved

    p, r = panes["failure"], runs["failure"]
    p.send(K.STARTED, run_id=r, provider=P.CURSOR, occurred_at=t)
    p.send(K.FAILED, run_id=r, provider=P.CURSOR, occurred_at=t + 30, message="exit status 2")

    p, r = panes["disconnect"], runs["disconnect"]
    p.send(K.STARTED, run_id=r, provider=P.ANTIGRAVITY, occurred_at=t)
    p.send(K.DISCONNECTED, run_id=r, provider=P.ANTIGRAVITY, occurred_at=t + 40)

    p, r = panes["completion"], runs["completion"]
    p.send(K.STARTED, run_id=r, occurred_at=t)
    p.send(K.SUCCEEDED, run_id=r, occurred_at=t + 300, message="done")

    # None of these is worth a human's attention.
    p = panes["quiet"]
    short = new_id()
    p.send(K.STARTED, run_id=short, occurred_at=t)
    p.send(K.SUCCEEDED, run_id=short, occurred_at=t + 299)  # not a long run
    p.send(K.DISCONNECTED, run_id=short, occurred_at=t + 500)  # the run had already finished
    p.send(K.IDLE, occurred_at=t + 501)
    p.send(K.DISCONNECTED, occurred_at=t + 502)  # a run that never started
    p.send(K.RUNNING, occurred_at=t + 503)
    return {"t": t, "panes": panes, "runs": runs}


def _location(m: Mytty, pane_id: str) -> str:
    fmt = "#{session_name}:#{window_index}.#{pane_index}"
    return m.tmux("display-message", "-p", "-t", m.tmux_id(pane_id), fmt).strip()


def test_attention_json_has_the_documented_shape(mytty: Mytty) -> None:
    inbox = _build_inbox(mytty)
    t, panes, runs = inbox["t"], inbox["panes"], inbox["runs"]
    out = _mytty(mytty, "attention", "--json", "--all")
    assert out.returncode == 0, out.stderr
    assert out.stdout.count("\n") == 1
    reply = json.loads(out.stdout)
    assert set(reply) == {"type", "items"} and reply["type"] == "attention"
    for item in reply["items"]:
        assert set(item) == ITEM_KEYS, item

    def expected(
        name: str,
        provider: str,
        kind: str,
        message: str | None,
        created: float,
        resolved: float | None = None,
    ) -> dict[str, Any]:
        return {
            "paneID": panes[name].pane_id,
            "runID": runs[name],
            "provider": provider,
            "kind": kind,
            "message": message,
            "createdAt": _iso(created),
            "resolvedAt": None if resolved is None else _iso(resolved),
            "location": _location(mytty, panes[name].pane_id),
            "label": None,  # no job runs in these panes
        }

    assert reply["items"] == [
        expected("completion", "claude-code", "completion", "done", t + 300),
        expected("disconnect", "antigravity", "disconnect", None, t + 40),
        expected("failure", "cursor", "failure", "exit status 2", t + 30),
        expected("input", "opencode", "input-request", None, t + 20, resolved=t + 25),
        expected("approval", "claude-code", "approval-request", "Bash requires approval", t + 10),
    ]
    # With --all the CLI prints what the control socket answers ...
    assert control(mytty, {"type": "attention"}) == reply
    # ... and without it only the open items.
    out = _mytty(mytty, "attention", "--json")
    assert json.loads(out.stdout) == {
        "type": "attention",
        "items": [i for i in reply["items"] if i["resolvedAt"] is None],
    }
    # A closed pane has no location any more, and its items are no longer open (issue 26).
    mytty.ctl("close-pane", panes["failure"].pane_id).ok()
    after = json.loads(_mytty(mytty, "attention", "--json", "--all").stdout)["items"]
    (failure,) = [i for i in after if i["runID"] == runs["failure"]]
    assert failure["location"] is None and failure["resolvedAt"] is not None


EXPECTED_ROWS = {
    "approval": ("claude-code", "approval", "Bash requires approval", "open"),
    "input": ("opencode", "question", "", "resolved"),
    "failure": ("cursor", "failure", "exit status 2", "open"),
    "disconnect": ("antigravity", "disconnected", "", "open"),
    "completion": ("claude-code", "finished", "done", "open"),
}
NEWEST_FIRST = ("completion", "disconnect", "failure", "input", "approval")


@pytest.mark.parametrize("show_all", [False, True])
def test_attention_table_lists_the_open_items_or_all(mytty: Mytty, show_all: bool) -> None:
    inbox = _build_inbox(mytty)
    out = _mytty(mytty, "attention", *(["--all"] if show_all else []), columns=120)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert all(len(line) <= 120 for line in lines), out.stdout
    assert "…" not in out.stdout
    assert any("mytty attention" in line for line in lines), out.stdout
    header = next(line for line in lines if "provider" in line and "needs" in line)
    columns = ["pane", "label", "run", "provider", "needs", "age"]
    columns += ["state", "message"] if show_all else ["message"]
    assert header.split() == columns

    def rows(name: str) -> list[str]:
        where = _location(mytty, inbox["panes"][name].pane_id)
        return [line for line in lines if line.split()[:1] == [where]]

    for name, (provider, needs, message, state) in EXPECTED_ROWS.items():
        if state == "resolved" and not show_all:
            assert rows(name) == [], out.stdout
            continue
        (line,) = rows(name)
        for text in (provider, needs, message, inbox["runs"][name][:8]):
            assert text in line, (name, text, line)
        assert (state in line) == show_all, line
    # Newest first, like the JSON.
    shown = [n for n in NEWEST_FIRST if show_all or EXPECTED_ROWS[n][3] == "open"]
    order = [lines.index(rows(n)[0]) for n in shown]
    assert order == sorted(order)
    assert _location(mytty, inbox["panes"]["quiet"].pane_id) not in out.stdout


def test_attention_in_a_narrow_pane_cuts_nothing_off(mytty: Mytty) -> None:
    inbox = _build_inbox(mytty)
    out = _mytty(mytty, "attention", "--all", columns=60)
    assert out.returncode == 0, out.stderr
    assert all(len(line) <= 60 for line in out.stdout.splitlines()), out.stdout
    assert "…" not in out.stdout
    blocks = out.stdout.splitlines()
    for name, (provider, needs, message, state) in EXPECTED_ROWS.items():
        where = _location(mytty, inbox["panes"][name].pane_id)
        start = next(i for i, line in enumerate(blocks) if line.startswith(where + " "))
        first, second = blocks[start], blocks[start + 1]
        assert needs in first and f"({state})" in first, first
        assert provider in second and inbox["runs"][name][:8] in second, second
        if message:
            assert blocks[start + 2].strip() == message


def test_attention_shows_the_job_label(mytty: Mytty) -> None:
    from tests.e2e.jobs_support import agent_wait, new_anchor, spawn, team

    m = team(mytty, providers=("claude",))
    job = spawn(
        m,
        "--provider",
        "claude",
        "--label",
        "bugs",
        "--task",
        "needs a yes\n@standin: approve",
        "--anchor",
        new_anchor(m),
    )
    assert agent_wait(m, job, "attention", 30)["job"]["state"] == "waiting-approval"
    (item,) = json.loads(_mytty(m, "attention", "--json").stdout)["items"]
    assert item["label"] == "bugs" and item["kind"] == "approval-request"
    where = _location(m, job["paneID"]["rawValue"])
    assert item["location"] == where
    (line,) = [line for line in _mytty(m, "attention").stdout.splitlines() if where in line]
    assert line.split()[:2] == [where, "bugs"]


def test_attention_with_nothing_to_do(mytty: Mytty) -> None:
    out = _mytty(mytty, "attention")
    assert (out.returncode, out.stdout.strip()) == (0, "Nothing needs you right now.")
    out = _mytty(mytty, "attention", "--json")
    assert json.loads(out.stdout) == {"type": "attention", "items": []}


def test_attention_without_a_controller_fails_with_a_code(mytty: Mytty) -> None:
    mytty.stop()
    out = _mytty(mytty, "attention", "--json")
    assert out.returncode == 1 and out.stdout == ""
    assert out.stderr.startswith("mytty: not-running: "), out.stderr


def test_acknowledging_a_run_resolves_its_items_and_survives_a_restart(mytty: Mytty) -> None:
    inbox = _build_inbox(mytty)
    failure_run = inbox["runs"]["failure"]

    def items() -> list[dict[str, Any]]:
        out = _mytty(mytty, "attention", "--json")
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout)["items"]

    def open_runs() -> set[str]:
        return {i["runID"] for i in items() if i["resolvedAt"] is None}

    assert failure_run in open_runs()
    acked = _mytty(mytty, "attention", "--json", "--ack", failure_run)
    assert acked.returncode == 0, acked.stderr
    assert failure_run not in open_runs()
    others = open_runs()
    assert others, "the other open items must stay open"
    mytty.stop()
    mytty.start()
    assert failure_run not in open_runs()  # the acknowledgement was stored
    assert control(mytty, {"type": "attention", "acknowledgeAll": True})["type"] == "attention"
    assert open_runs() == set()


def test_acknowledging_an_unknown_run_is_an_error_and_changes_nothing(mytty: Mytty) -> None:
    inbox = _build_inbox(mytty)
    before = json.loads(_mytty(mytty, "attention", "--json", "--all").stdout)
    failure_run = inbox["runs"]["failure"]
    for args in (["nonsense"], [failure_run, "--ack", "nonsense"], [""]):
        out = _mytty(mytty, "attention", "--ack", *args)
        assert out.returncode == 1 and out.stdout == "", out
        (line,) = out.stderr.splitlines()
        assert line.startswith("mytty: run-not-found: "), line
        assert "nothing was acknowledged" in line
    assert json.loads(_mytty(mytty, "attention", "--json", "--all").stdout) == before
    # The control socket refuses it the same way.
    reply = control(mytty, {"type": "attention", "acknowledge": [failure_run, "nonsense"]})
    assert reply["type"] == "failure" and reply["code"] == "run-not-found", reply
    assert json.loads(_mytty(mytty, "attention", "--json", "--all").stdout) == before


def test_acknowledging_by_a_unique_prefix(mytty: Mytty) -> None:
    t = float(int(time.time())) - 100
    pane = open_agent_pane(mytty)
    first, second = (f"ABCDEF01-0000-4000-8000-00000000000{n}" for n in (1, 2))
    for run in (first, second):
        pane.send(K.STARTED, run_id=run, occurred_at=t)
        pane.send(K.FAILED, run_id=run, occurred_at=t + 1, message=f"failed {run[-1]}")
    out = _mytty(mytty, "attention", "--ack", "abcdef01")
    assert out.returncode == 1 and "matches 2 runs" in out.stderr, out
    assert _mytty(mytty, "attention", "--ack", first.lower()).returncode == 0
    (left,) = json.loads(_mytty(mytty, "attention", "--json").stdout)["items"]
    assert left["runID"] == second
    # Acknowledging an already acknowledged run again is fine (it still has its item).
    assert _mytty(mytty, "attention", "--ack", first).returncode == 0


def test_ack_all_leaves_nothing_open_and_says_what_is_hidden(mytty: Mytty) -> None:
    _build_inbox(mytty)
    out = _mytty(mytty, "attention", "--ack-all")
    assert (out.returncode, out.stdout.strip()) == (
        0,
        "Nothing needs you right now. (5 resolved hidden; --all lists them)",
    )
    shown = _mytty(mytty, "attention", "--all").stdout
    assert shown.count("resolved") == 5, shown
