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

ITEM_KEYS = {"paneID", "runID", "provider", "kind", "message", "createdAt", "resolvedAt"}


def _mytty(m: Mytty, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(m.env, COLUMNS="300")
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


def test_attention_json_has_the_documented_shape(mytty: Mytty) -> None:
    inbox = _build_inbox(mytty)
    t, panes, runs = inbox["t"], inbox["panes"], inbox["runs"]
    out = _mytty(mytty, "attention", "--json")
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
        }

    assert reply["items"] == [
        expected("completion", "claude-code", "completion", "done", t + 300),
        expected("disconnect", "antigravity", "disconnect", None, t + 40),
        expected("failure", "cursor", "failure", "exit status 2", t + 30),
        expected("input", "opencode", "input-request", None, t + 20, resolved=t + 25),
        expected("approval", "claude-code", "approval-request", "Bash requires approval", t + 10),
    ]
    # The CLI prints what the control socket answers.
    assert control(mytty, {"type": "attention"}) == reply


def test_attention_table_lists_every_item(mytty: Mytty) -> None:
    inbox = _build_inbox(mytty)
    out = _mytty(mytty, "attention")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert any("mytty attention" in line for line in lines), out.stdout
    header = next(line for line in lines if "provider" in line and "needs" in line)
    for column in ("pane", "provider", "needs", "age", "message", "state"):
        assert column in header

    def row(name: str) -> str:
        prefix = inbox["panes"][name].pane_id[:8]
        matches = [line for line in lines if prefix in line]
        assert len(matches) == 1, (name, out.stdout)
        return matches[0]

    expectations = {
        "approval": ("claude-code", "approve a tool call", "Bash requires approval", "open"),
        "input": ("opencode", "answer a question", "", "resolved"),
        "failure": ("cursor", "look at a failure", "exit status 2", "open"),
        "disconnect": ("antigravity", "agent disconnected", "", "open"),
        "completion": ("claude-code", "finished (long run)", "done", "open"),
    }
    for name, (provider, label, message, state) in expectations.items():
        line = row(name)
        for text in (provider, label, message, state):
            assert text in line, (name, text, line)
        assert "resolved" not in line or state == "resolved"
    # Newest first, like the JSON.
    newest_first = ("completion", "disconnect", "failure", "input", "approval")
    order = [lines.index(row(n)) for n in newest_first]
    assert order == sorted(order)
    assert inbox["panes"]["quiet"].pane_id[:8] not in out.stdout


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
