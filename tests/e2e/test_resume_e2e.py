"""``mytty resume`` after ``tmux kill-server``: every worker back on its own conversation.

Four stand-in workers (two Claude, one Codex, one Cursor) run long turns in their own directories; the tmux
server is killed under them, so their jobs read ``lost``. ``mytty resume --dry-run`` plans and
changes nothing; ``mytty resume`` replaces the dead server (restarting the controller onto a new
one, as ``mytty up`` does) and restarts each worker with ``--resume <its own session id>``
(Codex: ``resume <id>``; Cursor: ``--resume <chat id>``) in its own directory. The stand-ins record the argv and cwd they were
started with, so the check is on the real processes.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from mytty.tmux.bootstrap import server_alive
from tests.e2e.jobs_support import (
    agent_wait,
    completed,
    job_id,
    new_anchor,
    pane_of,
    spawn,
    standin_in,
    standin_runs,
    team,
)
from tests.e2e.test_lifecycle import kill_tmux_server, run_mytty
from tests.support.harness import Mytty

pytestmark = pytest.mark.tmux

LONG = "\n@standin: sleep 300"


def jobs_of(m: Mytty) -> dict[str, dict[str, Any]]:
    listing = m.ctl("agent", "list", "--all").json["jobs"]
    return {job_id(j): j for j in listing}


def resume(m: Mytty, *args: str) -> dict[str, Any]:
    out = run_mytty(m, "resume", "--json", *args, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    reply: dict[str, Any] = json.loads(out.stdout)
    return reply


PROVIDER = {"c": "claude", "x": "codex", "u": "cursor"}
STANDIN = {"claude": "claude", "codex": "codex", "cursor": "cursor-agent"}


def hook_sessions(m: Mytty, provider: str, pid: int) -> set[str]:
    """The conversations a stand-in's hooks reported (Cursor calls it ``conversation_id``)."""
    path = m.standin_dir / f"{STANDIN[provider]}.{pid}.hooks.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    key = "conversation_id" if provider == "cursor" else "session_id"
    return {row["payload"][key] for row in rows}


def test_kill_server_then_resume_restarts_each_worker_on_its_own_conversation(
    mytty: Mytty,
) -> None:
    m = team(mytty, providers=("claude", "codex", "cursor"))
    dirs = {name: m.root / f"work-{name}" for name in ("c1", "c2", "x1", "u1")}
    for path in dirs.values():
        path.mkdir()
    anchor = new_anchor(m)
    jobs = {
        name: spawn(
            m,
            "--provider",
            PROVIDER[name[0]],
            "--label",
            name,
            "--cwd",
            str(path),
            "--access",
            "review" if name == "c2" else "workspace-write",
            "--task",
            f"work in {name}{LONG}",
            "--anchor",
            anchor,
        )
        for name, path in dirs.items()
    }
    first: dict[str, Any] = {}
    for name, job in jobs.items():
        running = agent_wait(m, job, "running", 30)["job"]
        assert running["state"] == "running", running
        first[name] = standin_in(m, pane_of(job))
    # Claude workers run on the session mytty chose; the Codex and Cursor workers' were learned
    # from their hooks. Four different conversations.
    sessions = {name: jobs_of(m)[job_id(job)]["sessionID"] for name, job in jobs.items()}
    for name in ("c1", "c2"):
        argv = first[name].argv
        assert argv[argv.index("--session-id") + 1] == sessions[name] == jobs[name]["sessionID"]
    assert sessions["x1"] in hook_sessions(m, "codex", first["x1"].pid)
    assert sessions["u1"] in hook_sessions(m, "cursor", first["u1"].pid)
    assert len(set(sessions.values())) == 4

    kill_tmux_server(m)
    for job in jobs.values():
        assert completed(m, job, 15)["state"] == "lost"

    # The plan names each job's own session and directory; nothing starts, nothing changes.
    before = {r.pid for r in standin_runs(m)}
    plan = resume(m, "--dry-run")
    assert plan["dryRun"] is True
    planned = {e["label"]: e for e in plan["jobs"]}
    assert set(planned) == set(dirs)
    for name, entry in planned.items():
        assert entry["resumed"] is False and "skipped" not in entry, entry
        assert entry["cwd"] == str(dirs[name])
        argv = entry["argv"]
        if name == "x1":
            assert argv[argv.index("resume") + 1] == sessions[name]
        else:
            assert argv[argv.index("--resume") + 1] == sessions[name]
    assert {r.pid for r in standin_runs(m)} == before
    assert {j["state"] for j in map(jobs_of(m).__getitem__, map(job_id, jobs.values()))} == {"lost"}
    assert not server_alive(m.socket)  # a dry run does not even bring up a tmux server

    done = resume(m)
    assert done["dryRun"] is False
    resumed = {e["label"]: e for e in done["jobs"]}
    assert set(resumed) == set(dirs) and all(e["resumed"] for e in resumed.values()), done
    listing = jobs_of(m)
    for name, job in jobs.items():
        entry = resumed[name]
        now = listing[job_id(job)]  # the same job id, on a new pane, on the same session
        assert now["paneID"] == entry["paneID"] != job["paneID"]
        assert now["sessionID"] == sessions[name] and now["resumed"] == 1
        run = standin_in(m, pane_of(now))
        assert run.cwd == str(dirs[name])
        # Still a worker mytty spawned: marked, and guarded against tmux kill-server.
        assert run.env["MYTTY_WORKER"] == "1" and run.env["MYTTY_TMUX_GUARD"] == m.socket
        if name == "x1":
            assert run.argv[run.argv.index("resume") + 1] == sessions[name]
            assert run.argv[:1] == ["--no-daemon"]
        else:
            assert run.argv[run.argv.index("--resume") + 1] == sessions[name]
            assert "--session-id" not in run.argv
        assert "--continue" not in run.argv and "--last" not in run.argv
        # The same access flags as the spawn.
        flags = first[name].argv[: first[name].argv.index("--")]
        flags = [f for f in flags if f not in ("--session-id", sessions[name])]
        assert run.argv[: len(flags)] == flags, (run.argv, flags)
        # The resumed worker continues its conversation (the stand-in's hooks say which) and
        # its job follows the new turn to its end.
        assert completed(m, now, 60)["state"] == "succeeded"
        assert hook_sessions(m, PROVIDER[name[0]], run.pid) == {sessions[name]}

    # The events ledger records each resumption on the new pane.
    records = m.ctl("events", "--after", "0", "--timeout", "0").json["records"]
    for entry in resumed.values():
        mine = [r for r in records if r["paneID"] == entry["paneID"]["rawValue"]]
        assert mine and (mine[0]["kind"], mine[0]["synthesized"]) == ("idle", True), mine

    # Nothing is lost any more: a second resume has nothing to do.
    again = resume(m)
    assert again["jobs"] == []
    out = run_mytty(m, "resume")
    assert out.returncode == 0 and "nothing to resume" in out.stdout, out.stdout + out.stderr


def test_after_a_reboot_up_resumes_by_config_and_ask_only_says_so(mytty: Mytty) -> None:
    """A reboot: controller and tmux both gone. `mytty up` starts them again and, with
    ``[resume] mode = "auto"``, resumes the lost worker; with ``ask`` and no terminal it only
    says what `mytty resume` would do."""
    m = team(mytty, providers=("claude",))
    work = m.root / "work"
    work.mkdir()
    job = spawn(m, "--provider", "claude", "--cwd", str(work), "--task", "long" + LONG)
    assert agent_wait(m, job, "running", 30)["job"]["state"] == "running"
    session = job["sessionID"]

    def reboot() -> None:
        m.stop()
        kill_tmux_server(m)

    reboot()
    before = {r.pid for r in standin_runs(m)}
    config = m.mytty_home / "config.toml"
    asked = run_mytty(m, "up", "--no-attach", "--tmux-socket", m.socket)
    assert asked.returncode == 0, asked.stderr
    assert "1 worker(s) were lost" in asked.stderr and "run `mytty resume`" in asked.stderr
    assert f"--resume {session}" in asked.stderr
    assert {r.pid for r in standin_runs(m)} == before  # asked, not done
    assert jobs_of(m)[job_id(job)]["state"] == "lost"

    run_mytty(m, "stop")
    kill_tmux_server(m)
    text = config.read_text()
    assert 'mode = "ask"' in text
    config.write_text(text.replace('mode = "ask"', 'mode = "auto"'))
    up = run_mytty(m, "up", "--no-attach", "--tmux-socket", m.socket)
    assert up.returncode == 0, up.stderr
    assert "resumed " in up.stderr, up.stderr
    now = jobs_of(m)[job_id(job)]
    assert now["resumed"] == 1 and now["sessionID"] == session
    run = standin_in(m, pane_of(now))
    assert run.cwd == str(work)
    assert run.argv[run.argv.index("--resume") + 1] == session
    assert completed(m, now, 60)["state"] == "succeeded"
