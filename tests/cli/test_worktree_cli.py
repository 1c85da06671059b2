"""`mytty worktree list|gc` end to end: the real `mytty` executable, a real git repository."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from mytty.daemon.worktree.create import resolve_worktree
from mytty.daemon.worktree.record_file import WorktreeRecord

MYTTY_EXE = str(Path(sys.executable).with_name("mytty"))
pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def git(cwd: Path, *args: str, env: dict[str, str]) -> str:
    return subprocess.run(
        ["git", "-C", str(cwd), *args], check=True, capture_output=True, text=True, env=env
    ).stdout.strip()


def mytty(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [MYTTY_EXE, "worktree", *args], capture_output=True, text=True, env=env, timeout=60
    )


def test_list_and_gc_from_the_command_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
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
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    (tmp_path / "mh").mkdir()
    repo = tmp_path / "proj"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main", env=env)
    (repo / "f").write_text("x\n")
    git(repo, "add", "f", env=env)
    git(repo, "commit", "-q", "-m", "init", env=env)
    record = WorktreeRecord(tmp_path / "mh" / "worktrees.jsonl")
    clean = Path(resolve_worktree(str(repo), "done", record=record))
    dirty = Path(resolve_worktree(str(repo), "wip", record=record))
    (dirty / "new.txt").write_text("unsaved\n")

    listed = mytty("list", "--json", env=env)
    assert listed.returncode == 0, listed.stderr
    rows: dict[str, Any] = {Path(r["path"]).name: r for r in json.loads(listed.stdout)["worktrees"]}
    assert (rows["done"]["removable"], rows["wip"]["reason"]) == (True, "dirty")
    table = mytty("list", env={**env, "COLUMNS": "200"})
    assert "done" in table.stdout and "wip" in table.stdout and "dirty" in table.stdout

    dry = mytty("gc", "--dry-run", env={**env, "COLUMNS": "200"})
    assert dry.returncode == 0 and "would remove (merged)" in dry.stdout, dry.stdout
    assert clean.is_dir()

    done = json.loads(mytty("gc", "--json", env=env).stdout)
    outcome = {Path(r["path"]).name: r for r in done["worktrees"]}
    assert outcome["done"]["removed"] and outcome["done"]["archiveRef"] == "refs/mytty/archive/done"
    assert not outcome["wip"]["removed"] and dirty.is_dir() and not clean.exists()
    assert "wip" in git(repo, "worktree", "list", env=env)
    assert "done" not in git(repo, "worktree", "list", env=env)
