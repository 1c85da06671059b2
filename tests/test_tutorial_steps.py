"""The tutorial's steps that need no agent run as written on a fresh machine (issue 26).

Step 4 failed on a machine with no git identity (``git commit``: "Please tell me who you
are"); it now gives the demo repository one when there is none.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

TUTORIAL = Path(__file__).resolve().parent.parent / "docs" / "tutorials" / "first-team.md"


def step(number: int) -> str:
    """The first ``sh`` block under the tutorial's heading ``## <number>.``."""
    text = TUTORIAL.read_text()
    section = re.split(r"^## ", text, flags=re.M)
    body = next(s for s in section if s.startswith(f"{number}. "))
    block = re.search(r"```sh\n(.*?)```", body, flags=re.S)
    assert block is not None
    return block.group(1)


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_step_4_works_without_a_git_identity(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = {
        "HOME": str(home),
        "PATH": "/usr/bin:/bin",
        "GIT_CONFIG_NOSYSTEM": "1",  # no identity from the machine's /etc/gitconfig either
        "LANG": "C.UTF-8",
    }
    done = subprocess.run(
        ["bash", "-euc", step(4)], env=env, capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    log = subprocess.run(
        ["git", "-C", str(home / "mytty-demo"), "log", "--format=%an <%ae> %s"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert log.stdout == "mytty demo <demo@example.invalid> calc: first version\n"


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_step_4_keeps_an_identity_you_have(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / ".gitconfig").write_text("[user]\n\tname = Ada\n\temail = ada@example.org\n")
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin", "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run(["bash", "-euc", step(4)], env=env, check=True, timeout=60)
    repo_config = (home / "mytty-demo" / ".git" / "config").read_text()
    assert "[user]" not in repo_config
