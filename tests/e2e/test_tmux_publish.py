"""Agent state published into tmux: the ``@mytty_*`` options after every transition.

A real client is attached on a terminal (tests/support/screen.py); the values are read back
with ``show-options`` and, through a user format that shows them, with ``capture-pane`` of that
terminal.
"""

from __future__ import annotations

import json
import shlex
import subprocess
from collections.abc import Iterator

import pytest

from tests.e2e.events_support import AgentPane, K, new_id, open_agent_pane
from tests.e2e.jobs_support import job_id, new_anchor, pane_of, spawn, team
from tests.support.harness import MYTTY, Mytty, wait_until
from tests.support.screen import Screen

pytestmark = pytest.mark.tmux

PANE_OPTIONS = (
    "@mytty_provider",
    "@mytty_state",
    "@mytty_job",
    "@mytty_label",
    "@mytty_note",
    "@mytty_attention",
)


def pane_options(m: Mytty, tmux_id: str) -> dict[str, str]:
    """The pane's own ``@mytty_*`` options (not inherited), as ``show-options -p`` lists them."""
    out = m.tmux("show-options", "-p", "-t", tmux_id)
    values: dict[str, str] = {}
    for line in out.splitlines():
        name, _, value = line.partition(" ")
        if name.startswith("@mytty_") and name != "@mytty_surface":
            # show-options quotes a value that needs it (`''`, `"running tests"`).
            values[name] = shlex.split(value)[0] if value else ""
    return values


def option(m: Mytty, *where: str) -> str | None:
    out = subprocess.run(
        ["tmux", "-S", m.socket, "show-options", "-v", *where],
        env=m.env,
        capture_output=True,
        text=True,
        check=False,
    )
    return out.stdout.rstrip("\n") if out.returncode == 0 and out.stdout else None


def session_of(m: Mytty, tmux_id: str) -> str:
    return m.tmux("display-message", "-p", "-t", tmux_id, "#{session_name}").strip()


def expect(m: Mytty, tmux_id: str, **wanted: str) -> dict[str, str]:
    """Wait until the pane's options hold ``wanted`` (``attention="approval"`` …)."""
    want = {f"@mytty_{k}": v for k, v in wanted.items()}

    def probe() -> dict[str, str] | None:
        values = pane_options(m, tmux_id)
        return values if all(values.get(k) == v for k, v in want.items()) else None

    return wait_until(probe, 10, message=f"{want} on {tmux_id} (now {pane_options(m, tmux_id)})")


@pytest.fixture
def agent(mytty: Mytty) -> AgentPane:
    return open_agent_pane(mytty)


@pytest.fixture
def screen(mytty: Mytty, agent: AgentPane) -> Iterator[Screen]:
    tmux_id = mytty.tmux_id(agent.pane_id)
    mytty.tmux("select-window", "-t", tmux_id)  # new-tab opened it in the background
    s = Screen(mytty, session_of(mytty, tmux_id))
    try:
        yield s
    finally:
        s.close()


def test_every_transition_is_published_and_shown(
    mytty: Mytty, agent: AgentPane, screen: Screen
) -> None:
    m = mytty
    tmux_id = m.tmux_id(agent.pane_id)
    session = session_of(m, tmux_id)
    # The user's own formats, reading the options (what `mytty tmux install` would append).
    m.tmux("set-option", "-g", "pane-border-status", "top")
    m.tmux(
        "set-option",
        "-g",
        "pane-border-format",
        "[#{@mytty_provider}|#{@mytty_state}|#{@mytty_attention}|#{@mytty_note}]",
    )
    m.tmux("set-option", "-g", "status-right", "open=#{@mytty_attention_count}")
    # A pane with no agent state carries none of the options.
    assert pane_options(m, tmux_id) == {}

    run = new_id()
    agent.send(K.STARTED, run_id=run)
    values = expect(m, tmux_id, provider="claude-code", state="running", attention="")
    assert set(values) >= set(PANE_OPTIONS), values
    assert values["@mytty_job"] == values["@mytty_label"] == values["@mytty_note"] == ""
    assert wait_until(lambda: option(m, "-t", f"={session}:", "@mytty_attention_count") == "0")
    assert option(m, "-g", "@mytty_attention_total") == "0"
    screen.wait_for("[claude-code|running||]", "open=0")

    m.ctl("status", "running tests", "--pane", agent.pane_id).ok()
    expect(m, tmux_id, note="running tests")
    screen.wait_for("[claude-code|running||running tests]")

    agent.send(K.APPROVAL_REQUESTED, run_id=run, message="run rm -rf build?")
    expect(m, tmux_id, state="waiting-approval", attention="approval")
    wait_until(lambda: option(m, "-t", f"={session}:", "@mytty_attention_count") == "1")
    assert option(m, "-g", "@mytty_attention_total") == "1"
    screen.wait_for("[claude-code|waiting-approval|approval|", "open=1")

    # Acknowledged: the item stops counting, the state stays.
    out = subprocess.run(
        [MYTTY, "attention", "--ack-all"], env=m.env, capture_output=True, text=True, check=False
    )
    assert out.returncode == 0, out.stderr
    expect(m, tmux_id, state="waiting-approval", attention="")
    screen.wait_for("open=0")

    agent.send(K.RUNNING, run_id=run)
    expect(m, tmux_id, state="running", attention="")
    agent.send(K.FAILED, run_id=run, message="tests failed")
    expect(m, tmux_id, state="failed", attention="failure")
    assert wait_until(lambda: option(m, "-g", "@mytty_attention_total") == "1")
    screen.wait_for("[claude-code|failed|failure|", "open=1")

    # A new run resolves the failure; a question, then a disconnect mid-run.
    second = new_id()
    agent.send(K.STARTED, run_id=second)
    expect(m, tmux_id, state="running", attention="")
    agent.send(K.INPUT_REQUESTED, run_id=second, message="which branch?")
    expect(m, tmux_id, state="waiting-input", attention="question")
    agent.send(K.RUNNING, run_id=second)
    agent.send(K.DISCONNECTED, run_id=second)
    expect(m, tmux_id, state="disconnected", attention="disconnected")
    screen.wait_for("[claude-code|disconnected|disconnected|", "open=1")

    # A stopped controller leaves no stale state behind.
    m.stop()
    assert pane_options(m, tmux_id) == {}
    assert option(m, "-g", "@mytty_attention_total") is None
    assert option(m, "-t", f"={session}:", "@mytty_attention_count") is None


def test_a_spawned_job_is_published_and_listed_by_mytty_ls(mytty: Mytty) -> None:
    m = team(mytty, providers=("claude",))
    job = spawn(
        m,
        "--provider",
        "claude",
        "--label",
        "fix-login",
        "--task",
        "fix it\n@standin: approve",
        "--anchor",
        new_anchor(m),
    )
    tmux_id = m.tmux_id(pane_of(job))
    expect(m, tmux_id, job=job_id(job), label="fix-login", provider="claude-code")
    expect(m, tmux_id, state="waiting-approval", attention="approval")

    out = subprocess.run(
        [MYTTY, "ls", "--json"], env=m.env, capture_output=True, text=True, check=False
    )
    assert out.returncode == 0, out.stderr
    listing = json.loads(out.stdout)
    assert listing["controllerRunning"] is True
    entry = next(p for p in listing["panes"] if p["paneID"] == pane_of(job))
    assert entry["pane"] == tmux_id
    assert (entry["provider"], entry["state"], entry["attention"]) == (
        "claude-code",
        "waiting-approval",
        "approval",
    )
    assert (entry["job"], entry["label"]) == (job_id(job), "fix-login")
    assert entry["since"].endswith("Z")
    assert all(p["location"].split(":")[0] != "_mytty" for p in listing["panes"])
    # A pane without an agent is listed too, with nothing but its place and command.
    assert any(p["state"] is None and p["command"] for p in listing["panes"])

    table = subprocess.run(
        [MYTTY, "status"], env=dict(m.env, COLUMNS="160"), capture_output=True, text=True
    )
    assert table.returncode == 0, table.stderr
    line = next(row for row in table.stdout.splitlines() if "fix-login" in row)
    assert "waiting-approval" in line and "approval" in line and job_id(job)[:8] in line
    # A narrow pane (a 50-column split): one block per pane, nothing cut off.
    narrow = subprocess.run(
        [MYTTY, "ls"], env=dict(m.env, COLUMNS="50"), capture_output=True, text=True
    )
    assert narrow.returncode == 0, narrow.stderr
    assert "…" not in narrow.stdout and all(len(x) <= 50 for x in narrow.stdout.splitlines())
    block = narrow.stdout.split(f"{entry['location']}  claude-code  ", 1)[1]
    assert block.startswith("waiting-approval\n  needs approval\n"), narrow.stdout
    assert f"job {job_id(job)[:8]}, label fix-login" in block, narrow.stdout

    m.stop()
    out = subprocess.run(
        [MYTTY, "ls", "--json"], env=m.env, capture_output=True, text=True, check=False
    )
    stopped = json.loads(out.stdout)
    assert stopped["controllerRunning"] is False
    assert all(p["state"] is None for p in stopped["panes"])
