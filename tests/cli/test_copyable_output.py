"""What a user must copy is wrapped, never cut (issue 26, item 16). Before: at 80 columns
``mytty doctor`` printed ``edit ~/.config/m…``, the attention popup cut each message to a dozen
characters, and ``mytty worktree list`` broke a path mid-word at 140 columns."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mytty.cli.popup import render
from mytty.daemon.worktree.create import resolve_worktree
from mytty.daemon.worktree.record_file import WorktreeRecord
from tests.support.harness import MYTTY, Mytty

MYTTY_EXE = str(Path(sys.executable).with_name("mytty"))
ANSI = re.compile(r"\x1b\[[0-9;]*m")


@pytest.mark.tmux
def test_doctor_at_80_columns_keeps_the_paths_whole(mytty: Mytty) -> None:
    config = mytty.mytty_home / "config.toml"
    config.write_text("[notify]\ncooldown = 5\nchannels = [bell\n")
    done = subprocess.run(
        [MYTTY, "doctor"],
        env={**mytty.env, "COLUMNS": "80"},
        capture_output=True,
        text=True,
        timeout=60,
        cwd=str(mytty.home),
    )
    assert done.returncode == 1, done.stderr
    assert "…" not in done.stdout
    assert f"edit {config} (see docs/reference/config.md)" in done.stdout, done.stdout


def test_the_popup_wraps_each_message_in_full() -> None:
    message = "Bash: rm -rf build && make all && ./scripts/run-the-integration-suite --everything"
    items = [
        {
            "label": "fix-login",
            "location": "mytty:1.2",
            "provider": "claude-code",
            "kind": "approval-request",
            "createdAt": "2026-01-01T00:00:00Z",
            "message": message,
        }
    ]
    for width in (100, 80, 60, 45):
        shown = ANSI.sub("", render(items, 0, width, 1767225900.0))
        assert "…" not in shown
        words = " ".join(shown.split("\r\n")[2:]).split()
        assert " ".join(message.split()) in " ".join(words), (width, shown)


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_worktree_list_never_breaks_a_path(tmp_path: Path) -> None:
    deep = tmp_path / "a-rather-long-directory-name" / "and-another-one-for-good-measure"
    repo = deep / "project-with-a-long-name"
    repo.mkdir(parents=True)
    env = {
        **os.environ,
        "HOME": str(tmp_path / "home"),
        "MYTTY_HOME": str(tmp_path / "mh"),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_AUTHOR_NAME": "t",
        "GIT_COMMITTER_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.invalid",
        "GIT_COMMITTER_EMAIL": "t@example.invalid",
    }
    (tmp_path / "mh").mkdir()
    for args in (["init", "-q", "-b", "main"], ["commit", "-q", "--allow-empty", "-m", "init"]):
        subprocess.run(["git", "-C", str(repo), *args], env=env, check=True)
    record = WorktreeRecord(tmp_path / "mh" / "worktrees.jsonl")
    path = resolve_worktree(str(repo), "feature/a-branch-with-a-long-name", record=record)
    for columns in ("140", "80"):
        done = subprocess.run(
            [MYTTY_EXE, "worktree", "list"],
            env={**env, "COLUMNS": columns},
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        assert path in done.stdout, (columns, done.stdout)
        assert "…" not in done.stdout
