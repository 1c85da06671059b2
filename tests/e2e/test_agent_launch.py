"""How a worker's launch can go wrong, and what mytty says about it.

Real tmux, a real controller, stand-in agents. Covers: a binary that is on no PATH (refused at
once), a worker that starts but whose hooks never report (launch-failed naming the cause, in
the log and in `mytty attention`), and Codex's shared background server started earlier from
another pane (real-agents.md §3.5): a worker's events must still reach its own pane.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from mytty.daemon.clock import TIMINGS_ENV
from tests.e2e.jobs_support import (
    agent_wait,
    completed,
    configure_shell,
    enable_integrations,
    job_id,
    listed,
    new_anchor,
    pane_of,
    spawn,
    standin_in,
    team,
)
from tests.support.harness import MYTTY, Mytty, wait_until

pytestmark = pytest.mark.tmux


def attention_items(m: Mytty) -> list[dict[str, Any]]:
    reply = m.request({"type": "attention"})
    assert reply["type"] == "attention", reply
    items: list[dict[str, Any]] = reply["items"]
    return items


# -- the binary ------------------------------------------------------------------------------------


def test_spawn_refuses_a_binary_that_is_on_no_path_at_once(mytty: Mytty) -> None:
    m = mytty
    enable_integrations(m, "claude", "cursor")  # the hooks are fine; the binaries are missing
    pane_path = (
        m.pane_env(m.first_pane())["PATH"]
        + ":/usr/local/bin:/usr/bin:/bin:/usr/local/games:/usr/games"
    )
    for binary in ("claude", "cursor-agent"):
        assert shutil.which(binary, path=pane_path) is None, f"a real {binary} is installed"
    anchor = new_anchor(m)
    before = len(m.panes())
    for provider, binary in (("claude", "claude"), ("cursor", "cursor-agent")):
        result = m.ctl("agent", "spawn", "--provider", provider, "--task", "x", "--anchor", anchor)
        assert result.code == "provider-binary-not-found"
        assert f"`{binary}`" in result.stderr and "PATH" in result.stderr
    assert len(m.panes()) == before  # no pane was opened for a worker that can't start

    # Found on the caller's PATH alone is enough (a lead whose profile added the directory).
    elsewhere = m.root / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "claude").symlink_to(Path(__file__).parent.parent / "standins" / "claude")
    env = {"PATH": f"{elsewhere}:{m.env['PATH']}"}
    job = spawn(m, "--provider", "claude", "--task", "x", "--anchor", anchor, env=env)
    assert job["state"] == "launching"


# -- a worker whose hooks stay silent ------------------------------------------------------------


@pytest.fixture
def silent_mytty() -> Any:
    """Panes whose shell profile drops the event socket (in ``*silent*`` directories) or the
    stand-ins' directory from PATH (in ``*nobinary*`` directories). The launch window is cut
    from 30 s to 8 s (test-only override): long enough for the stand-in to be seen running."""
    m = Mytty(extra_env={TIMINGS_ENV: "launch_window=8"})
    try:
        configure_shell(
            m,
            'case "$PWD" in\n'
            "  *silent*) unset MYTTY_EVENT_SOCKET ;;\n"
            "  *nobinary*) PATH=/usr/bin:/bin ;;\n"
            "esac\n",
        )
        m.start()
        team(m, providers=("claude",))
        yield m
    finally:
        m.close()


def test_a_started_worker_whose_hooks_never_report_names_the_cause(silent_mytty: Mytty) -> None:
    m = silent_mytty
    silent, nobinary = m.root / "silent", m.root / "nobinary"
    silent.mkdir()
    nobinary.mkdir()
    anchor = new_anchor(m)
    quiet = spawn(
        m,
        "--provider",
        "claude",
        "--label",
        "quiet",
        "--task",
        "work\n@standin: sleep 120",
        "--anchor",
        anchor,
        "--cwd",
        str(silent),
    )
    absent = spawn(
        m, "--provider", "claude", "--task", "x", "--anchor", anchor, "--cwd", str(nobinary)
    )
    standin_in(m, pane_of(quiet), "claude")  # it visibly started…
    m.wait_for_text(pane_of(absent), "not found")  # …and this one could not

    done = completed(m, quiet, timeout=90)
    assert done["state"] == "launch-failed" and done["runID"] is None, done
    message = done["message"]
    assert message.startswith("No claude run was observed within the launch window"), message
    assert "claude is running in the worker's pane: its hooks did not report" in message
    assert "mytty integrations list" in message and "MYTTY_EVENT_SOCKET" in message

    gone = completed(m, absent, timeout=90)
    assert gone["state"] == "launch-failed", gone
    # Its shell said so at once (issue 26): the agent's own words, not the 30 s window's guess.
    assert gone["message"].startswith("claude exited with status 127 before its first run"), gone
    assert "command not found" in gone["message"], gone
    again = agent_wait(m, quiet, "completed", 0)  # launch-failed is final
    assert again["job"]["state"] == "launch-failed" and again["timedOut"] is False

    # Never silently: the controller log says why, and `mytty attention` lists both.
    wait_until(lambda: f"job {job_id(quiet)}" in m.log(), 10, message="the log line")
    items = {i["runID"]: i for i in attention_items(m) if i["kind"] == "launch-failure"}
    assert set(items) == {job_id(quiet), job_id(absent)}, items
    item = items[job_id(quiet)]
    assert (item["paneID"], item["provider"], item["label"]) == (
        pane_of(quiet),
        "claude-code",
        "quiet",
    )
    assert item["message"] == message and item["resolvedAt"] is None
    shown = subprocess.run(
        [MYTTY, "attention"], env=m.env, capture_output=True, text=True, timeout=30, check=False
    )
    assert shown.returncode == 0, shown.stderr
    assert "not started" in shown.stdout and "quiet" in shown.stdout, shown.stdout
    # Acknowledged like any item, by the id the listing shows as its run.
    assert m.request({"type": "attention", "acknowledge": [job_id(quiet)]})["type"] == "attention"
    assert {i["runID"] for i in attention_items(m) if i["resolvedAt"] is None} == {job_id(absent)}


# -- Codex's shared background server -------------------------------------------------------------


def _server_records(m: Mytty) -> list[dict[str, Any]]:
    out = []
    for path in m.standin_dir.glob("codex-app-server.*.json"):
        try:
            record = json.loads(path.read_text())
        except ValueError:
            continue
        if "--managed-daemon" in record["argv"]:
            out.append(record | {"pid": int(path.name.split(".")[1])})
    return out


def _hook_log(m: Mytty, pid: int) -> list[dict[str, Any]]:
    path = m.standin_dir / f"codex.{pid}.hooks.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_codex_workers_report_despite_a_background_server_from_another_pane(
    mytty: Mytty,
) -> None:
    """The reported failure: a Codex background server started first (by a codex in another
    pane, with that pane's environment) ran the next worker's hooks, whose events then carried
    the wrong pane, were refused, and the job ended launch-failed while the worker answered.
    Now the server's events are placed by their session (the seed's routing rules): pane A's
    own turn lands on pane A, and a worker mytty spawns runs without the server anyway."""
    m = team(mytty, providers=("codex",))
    # Pane A: someone runs codex by hand, with Codex's default background server.
    pane_a = m.ctl("new-tab").json["paneID"]
    m.ctl("send", pane_a, "MYTTY_TEST_MARK=pane-a codex -- 'hello from a'", "--enter").ok()
    (server,) = wait_until(lambda: _server_records(m), 20, message="the background server")
    assert server["env"]["MYTTY_SURFACE_ID"] == pane_a  # it has pane A's environment
    codex_a = standin_in(m, pane_a, "codex")
    # Those hooks ran in the server; the one unbound codex pane in the rollout's directory is
    # pane A, so its events are placed there and accepted.
    stops = wait_until(
        lambda: [e for e in _hook_log(m, codex_a.pid) if e["event"] == "Stop"],
        20,
        message="pane A's Stop hook",
    )
    assert stops[0]["exitCode"] == 0, stops
    wait_until(
        lambda: (listed(m, pane_a) or {}).get("agentState") == "succeeded",
        10,
        message="pane A's run to succeed",
    )

    # A worker spawned now starts without the server, so its hooks are its own.
    job = spawn(
        m, "--provider", "codex", "--task", "work\n@standin: sleep 1", "--anchor", new_anchor(m)
    )
    worker = standin_in(m, pane_of(job), "codex")
    assert worker.argv[0] == "--no-daemon", worker.argv
    done = completed(m, job)
    assert done["state"] == "succeeded", done
    assert all(e["exitCode"] == 0 for e in _hook_log(m, worker.pid)), _hook_log(m, worker.pid)
    records = m.ctl("events", "--after", "0", "--timeout", "0").json["records"]
    assert {r["paneID"] for r in records if r["runID"] == done["runID"]["rawValue"]} == {
        pane_of(job)
    }
    assert [s["pid"] for s in _server_records(m)] == [server["pid"]]  # the server lives on
