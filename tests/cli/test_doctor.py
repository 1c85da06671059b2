"""``mytty doctor``: green on a fresh setup; each thing broken on purpose is named with its fix."""

from __future__ import annotations

import json
import os
import subprocess
from typing import Any

import pytest

from tests.support.harness import MYTTY, Mytty

pytestmark = pytest.mark.tmux


def doctor(m: Mytty, **env: str) -> tuple[int, list[dict[str, Any]]]:
    done = subprocess.run(
        [MYTTY, "doctor", "--json"],
        env={**m.env, **env},
        capture_output=True,
        text=True,
        timeout=60,
        cwd=str(m.home),
    )
    assert done.stderr == "", done.stderr
    report = json.loads(done.stdout)
    assert report["ok"] is (done.returncode == 0)
    return done.returncode, report["findings"]


def problems(findings: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The warn/fail findings by area (the first of each area)."""
    out: dict[str, dict[str, Any]] = {}
    for f in findings:
        if f["status"] in ("warn", "fail"):
            out.setdefault(f["area"], f)
    return out


def test_green_on_a_fresh_setup(mytty: Mytty) -> None:
    code, findings = doctor(mytty)
    assert code == 0
    assert problems(findings) == {}
    areas = {f["area"] for f in findings if f["status"] == "ok"}
    assert {"tmux", "controller", "home", "sockets", "config", "tmux server"} <= areas
    # The user's sessions only: the controller's own control-mode session is not counted.
    sessions = mytty.tmux("list-sessions", "-F", "#{session_name}").split()
    assert "_mytty" in sessions
    server = next(f for f in findings if f["area"] == "tmux server")
    mine = len(sessions) - 1
    assert server["detail"].endswith(f"({mine} session{'' if mine == 1 else 's'})"), server


def test_each_broken_thing_is_named_with_its_fix(mytty: Mytty) -> None:
    m = mytty
    config = m.mytty_home / "config.toml"
    config.write_text("[notify]\ncooldown = 5\nchannels = [bell\n")
    (m.mytty_home / "launch" / "0F0F0F0F-0000-4000-8000-000000000000.sh").write_text("true\n")
    m.install_standins("claude")  # the agent is there, its hooks are not

    code, findings = doctor(m)
    found = problems(findings)
    assert code == 1
    assert found["config"]["status"] == "fail"
    assert "line 3, column" in found["config"]["detail"]
    assert str(config) in found["config"]["fix"]
    assert found["launch files"]["fix"].startswith("rm ")
    assert found["claude-code"]["fix"] == "mytty integrations enable claude-code"

    # Inside tmux: a pane without a mytty identity, and mytty-ctl missing from PATH.
    code, findings = doctor(m, TMUX=f"{m.socket},1,0", PATH="/usr/bin:/bin")
    found = problems(findings)
    assert "mytty shell-integration install" in found["this pane"]["fix"]
    assert found["mytty-ctl"]["status"] == "fail" and "export PATH" in found["mytty-ctl"]["fix"]

    os.chmod(m.mytty_home, 0o755)
    m.stop()
    code, findings = doctor(m)
    found = problems(findings)
    assert code == 1
    assert found["controller"]["fix"] == "mytty up"
    assert found["home"]["fix"] == f"chmod 700 {m.mytty_home}"


def test_an_agent_version_other_than_the_verified_one_is_named_with_verify(mytty: Mytty) -> None:
    m = mytty
    m.install_standins("claude")
    _, findings = doctor(m)
    never = next(f for f in findings if f["area"] == "claude-code version")
    assert never["status"] == "note" and never["fix"] == "mytty integrations verify claude-code"
    current = never["detail"].split(":")[0]

    (m.mytty_home / "verified.json").write_text(
        json.dumps({"claude-code": {"version": "0.0.1 (Claude Code)"}})
    )
    found = problems(doctor(m)[1])
    assert found["claude-code version"]["status"] == "warn"
    assert "0.0.1 (Claude Code)" in found["claude-code version"]["detail"]
    assert found["claude-code version"]["fix"] == "mytty integrations verify claude-code"

    (m.mytty_home / "verified.json").write_text(json.dumps({"claude-code": {"version": current}}))
    _, findings = doctor(m)
    assert next(f for f in findings if f["area"] == "claude-code version")["status"] == "ok"


def test_the_table_shows_config_sections_literally(mytty: Mytty) -> None:
    (mytty.mytty_home / "config.toml").write_text("[notify]\ncooldwn = 5\n")
    done = subprocess.run(
        [MYTTY, "doctor"], env={**mytty.env, "COLUMNS": "200"}, capture_output=True, text=True
    )
    assert done.returncode == 0  # a warning, nothing broken
    assert "[notify] unknown key 'cooldwn' ignored" in done.stdout


def test_an_install_from_before_the_guard_is_a_warning_with_repair(mytty: Mytty) -> None:
    """Hooks enabled by an older mytty (no PreToolUse guard) still work, so nothing is broken,
    but doctor and ``integrations list`` say the workers are unguarded and name ``repair``."""
    m = mytty
    m.install_standins("claude")
    enable = subprocess.run(
        [MYTTY, "integrations", "enable", "claude-code"], env=m.env, capture_output=True, text=True
    )
    assert enable.returncode == 0, enable.stderr
    settings = m.home / ".claude" / "settings.json"
    data = json.loads(settings.read_text())
    del data["hooks"]["PreToolUse"]
    for group in data["hooks"]["PermissionRequest"]:  # as old: before the approvals' timeout
        for handler in group["hooks"]:
            handler["timeout"] = 5
    settings.write_text(json.dumps(data, indent=2) + "\n")

    code, findings = doctor(m)
    found = problems(findings)
    assert code == 0  # a warning: spawning still works
    assert found["claude-code"]["status"] == "warn"
    assert "without the kill-server guard" in found["claude-code"]["detail"]
    assert found["claude-code"]["fix"] == "mytty integrations repair claude-code"
    listed = subprocess.run(
        [MYTTY, "integrations", "list"],
        env={**m.env, "COLUMNS": "300"},
        capture_output=True,
        text=True,
    )
    line = next(x for x in listed.stdout.splitlines() if x.startswith("claude-code:"))
    assert line.startswith("claude-code: installed — installed without the kill-server guard")
    assert line.endswith("run `mytty integrations repair claude-code`")

    repair = subprocess.run(
        [MYTTY, "integrations", "repair", "claude-code"], env=m.env, capture_output=True, text=True
    )
    assert repair.returncode == 0, repair.stderr
    assert "claude-code" not in problems(doctor(m)[1])
