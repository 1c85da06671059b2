"""Without an override, enable installs this mytty's fast hook launcher and keeps it current."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from mytty.integrations import api
from mytty.integrations.helper import helper_path, launcher_text


def _env(home: Path) -> dict[str, str]:
    return {"HOME": str(home), "PATH": ""}


def test_enable_writes_an_executable_launcher_that_runs(home: Path) -> None:
    env = _env(home)
    changed = api.enable("claude-code", env)
    launcher = helper_path(env)
    assert launcher == home / ".local" / "share" / "mytty" / "bin" / "mytty-agent-hook"
    assert str(launcher) in changed
    assert launcher.read_bytes() == launcher_text()
    assert os.access(launcher, os.X_OK)
    settings = json.loads((home / ".claude" / "settings.json").read_text())
    commands = {
        h["command"] for groups in settings["hooks"].values() for g in groups for h in g["hooks"]
    }
    assert commands == {str(launcher)}
    assert api.status_of("claude-code", env).status == "installed"
    # Outside a mytty pane the helper must exit 0 silently, whatever the payload.
    run_env = {"PATH": "/usr/bin:/bin", "HOME": str(home)}
    result = subprocess.run(
        [str(launcher), "claude-code"],
        input=b'{"hook_event_name":"Stop"}',
        env=run_env,
        capture_output=True,
        timeout=20,
        check=False,
    )
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")


def test_a_stale_launcher_needs_repair_and_repair_rewrites_it(home: Path) -> None:
    env = _env(home)
    api.enable("cursor", env)
    launcher = helper_path(env)
    launcher.write_text('#!/bin/sh\nexec /old/venv/bin/python -IS /old/mytty/hook.py "$@"\n')
    status = api.status_of("cursor", env)
    assert status.status == "needs-repair"
    assert "another or an older mytty" in (status.error or "")
    api.repair("cursor", env)
    assert launcher.read_bytes() == launcher_text()
    assert api.status_of("cursor", env).status == "installed"


def test_a_deleted_launcher_needs_repair(home: Path) -> None:
    env = _env(home)
    api.enable("cursor", env)
    helper_path(env).unlink()
    assert api.status_of("cursor", env).status == "needs-repair"
