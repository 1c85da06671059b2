"""Codex routing end to end: the stand-in ``codex`` with Codex's shared background server.

With the server (Codex's default), every TUI's hooks run as the server's children with the
environment of the pane that started it, and the server, not the pane, holds the rollouts open.
So neither the event's surfaceID nor an open file can place those events: the controller places
them by the rules after the first (daemon.codex_routing): an earlier binding, ``codex resume
<id>``'s argv, the one unbound codex pane in the rollout's cwd, and for a new session in a pane
that had one (``/new``) the one stale pane there. What can't be told apart answers
``unauthorized`` — the hook helper reports that and exits 1, which the stand-in logs.
"""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.test_hooks_e2e import (
    enable,
    entry,
    hook_log,
    pane_records,
    wait_hook,
    wait_standin,
    wait_state,
)
from tests.support.harness import Mytty, wait_until

pytestmark = pytest.mark.tmux

REFUSED = "mytty-agent-hook: mytty rejected the event: unauthorized\n"


def codex_pane(m: Mytty, cwd: Path, *args: str, prompt: str | None = None) -> str:
    """A pane in ``cwd`` running ``codex ARGS`` (with the shared server: no ``--no-daemon``)."""
    command = shlex.join(["codex", *args] + (["--", prompt] if prompt is not None else []))
    reply = m.ctl("split", m.first_pane(), "--cwd", str(cwd), "--command", command)
    return str(reply.json["paneID"])


def kinds(m: Mytty, pane: str) -> list[str]:
    return [r["kind"] for r in pane_records(m, pane)]


def background_servers(m: Mytty) -> dict[int, dict[str, Any]]:
    """The stand-in's ``codex app-server --managed-daemon`` launch records, by pid."""
    out = {}
    for path in m.standin_dir.glob("codex-app-server.*.json"):
        record = json.loads(path.read_text())
        if "--managed-daemon" in record["argv"]:
            out[int(path.name.split(".")[1])] = record
    return out


def open_paths(pid: int) -> set[str]:
    fd_dir = f"/proc/{pid}/fd"
    out = set()
    for fd in os.listdir(fd_dir):
        try:
            out.add(os.readlink(f"{fd_dir}/{fd}"))
        except OSError:
            continue
    return out


def refusals(log: list[dict[str, Any]]) -> list[str]:
    return [run["event"] for run in log if run["exitCode"] == 1 and run["stderr"] == REFUSED]


def reported(log: list[dict[str, Any]]) -> list[str]:
    """The hooks that report to the controller: PreToolUse is the worker guard's, decided by the
    hook helper itself (these panes are no workers), and never asks the controller; nor does a
    PostModelRequest that is no usage limit (the helper ignores it)."""
    return [run["event"] for run in log if run["event"] not in ("PreToolUse", "PostModelRequest")]


def test_two_panes_served_by_one_background_server(mytty: Mytty) -> None:
    m = mytty
    m.install_standins("codex")
    enable(m, "codex")
    dir_a, dir_b = m.root / "proj-a", m.root / "proj-b"
    dir_a.mkdir()
    dir_b.mkdir()

    pane_a = codex_pane(m, dir_a, prompt="first in a")
    pid_a, _ = wait_standin(m, "codex")
    wait_state(m, pane_a, "succeeded")
    assert kinds(m, pane_a) == ["idle", "started", "running", "succeeded"]

    pane_b = codex_pane(m, dir_b, prompt="first in b")
    pid_b, record_b = wait_standin(m, "codex", known={pid_a})
    wait_hook(m, "codex", pid_b, "Stop")
    wait_state(m, pane_b, "succeeded")
    assert kinds(m, pane_b) == ["idle", "started", "running", "succeeded"]
    assert kinds(m, pane_a) == ["idle", "started", "running", "succeeded"]

    # One server served both: it holds both rollouts, neither TUI holds one, and pane B's
    # hooks carried pane A's identity.
    ((server, server_record),) = background_servers(m).items()
    rollout_a = hook_log(m, "codex", pid_a)[0]["payload"]["transcript_path"]
    log_b = hook_log(m, "codex", pid_b)
    rollout_b = log_b[0]["payload"]["transcript_path"]
    assert {rollout_a, rollout_b} <= open_paths(server)
    assert not {rollout_a, rollout_b} & (open_paths(pid_a) | open_paths(pid_b))
    assert record_b["env"]["MYTTY_SURFACE_ID"] == pane_b
    assert server_record["env"]["MYTTY_SURFACE_ID"] == pane_a  # what B's hooks ran with
    assert all(run["exitCode"] == 0 for run in log_b), log_b

    # A second turn in each pane: placed by the earlier binding.
    m.ctl("send", pane_b, "second in b", "--enter")
    wait_hook(m, "codex", pid_b, "Stop", count=2)
    m.ctl("send", pane_a, "second in a", "--enter")
    wait_hook(m, "codex", pid_a, "Stop", count=2)
    wait_until(lambda: len(kinds(m, pane_a)) == 7, 10, message="pane A's second turn")
    assert kinds(m, pane_b) == [
        "idle",
        "started",
        "running",
        "succeeded",
        "started",
        "running",
        "succeeded",
    ]

    # /new in pane A: a new session in the same codex process, placed on the one pane of that
    # directory whose binding is now stale (rule 5, SessionStart and UserPromptSubmit).
    m.ctl("send", pane_a, "/new", "--enter")
    m.wait_for_text(pane_a, "STANDIN new session")
    m.ctl("send", pane_a, "in a new session", "--enter")
    wait_hook(m, "codex", pid_a, "Stop", count=3)
    sessions_a = {run["payload"]["session_id"] for run in hook_log(m, "codex", pid_a)}
    assert len(sessions_a) == 2
    assert refusals(hook_log(m, "codex", pid_a)) == []
    wait_until(lambda: len(kinds(m, pane_a)) == 11, 10, message="pane A's new session")
    assert kinds(m, pane_a)[-4:] == ["idle", "started", "running", "succeeded"]

    # Two codex panes, both unbound, in one directory: nothing tells them apart, so the new
    # session's events are refused, and the panes show no agent state.
    dir_c = m.root / "proj-c"
    dir_c.mkdir()
    pane_c = codex_pane(m, dir_c)
    pid_c, _ = wait_standin(m, "codex", known={pid_a, pid_b})
    pane_d = codex_pane(m, dir_c)
    pid_d, _ = wait_standin(m, "codex", known={pid_a, pid_b, pid_c})
    m.wait_for_text(pane_d, "STANDIN ready")
    m.ctl("send", pane_c, "who am I", "--enter")
    wait_hook(m, "codex", pid_c, "Stop")
    log_c = hook_log(m, "codex", pid_c)
    assert refusals(log_c) == reported(log_c)
    assert {"SessionStart", "UserPromptSubmit", "Stop"} <= set(refusals(log_c))
    assert kinds(m, pane_c) == [] and kinds(m, pane_d) == []
    assert "agentState" not in entry(m, pane_c)

    # Pane D resumes pane B's session (pane B quit first, so its binding is gone): only its
    # argv says which session it runs — its cwd is proj-c, the rollout's is proj-b.
    session_b = log_b[0]["payload"]["session_id"]
    m.ctl("send", pane_b, "/exit", "--enter")
    m.wait_for_text(pane_b, "STANDIN bye")
    m.ctl("send", pane_d, "/exit", "--enter")
    m.wait_for_text(pane_d, "STANDIN bye")
    m.ctl("send", pane_d, shlex.join(["codex", "resume", session_b]), "--enter")
    pid_e, record_e = wait_standin(m, "codex", known={pid_a, pid_b, pid_c, pid_d})
    assert record_e["argv"] == ["resume", session_b] and record_e["cwd"] == str(dir_c)
    m.wait_for_text(pane_d, "STANDIN ready")
    before_b = kinds(m, pane_b)
    m.ctl("send", pane_d, "back in b's conversation", "--enter")
    wait_hook(m, "codex", pid_e, "Stop")
    log_e = hook_log(m, "codex", pid_e)
    assert {run["payload"]["session_id"] for run in log_e} == {session_b}
    assert refusals(log_e) == []
    wait_state(m, pane_d, "succeeded")
    assert kinds(m, pane_d) == ["idle", "started", "running", "succeeded"]
    assert kinds(m, pane_b) == before_b and kinds(m, pane_c) == []

    # Two panes both started as `codex resume <pane C's session>` (never placed, so unbound):
    # the argv names the session in both, which proves nothing — refused.
    session_c = log_c[0]["payload"]["session_id"]
    known = {pid_a, pid_b, pid_c, pid_d, pid_e}
    pane_f = codex_pane(m, dir_b, "resume", session_c)
    pid_f, _ = wait_standin(m, "codex", known=known)
    pane_g = codex_pane(m, dir_b, "resume", session_c)
    pid_g, _ = wait_standin(m, "codex", known=known | {pid_f})
    m.wait_for_text(pane_g, "STANDIN ready")
    m.ctl("send", pane_f, "which of us?", "--enter")
    wait_hook(m, "codex", pid_f, "Stop")
    log_f = hook_log(m, "codex", pid_f)
    assert {run["payload"]["session_id"] for run in log_f} == {session_c}
    assert refusals(log_f) == reported(log_f) != []
    assert kinds(m, pane_f) == [] and kinds(m, pane_g) == []
    assert pid_g
