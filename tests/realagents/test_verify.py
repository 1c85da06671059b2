"""``mytty integrations verify`` against the pinned real CLIs, as a user runs it (issue 14).

The user's HOME holds a few files of their own; after verify every file there is byte-identical
(mode included), the table came out, and the agents made no non-loopback attempt.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import subprocess
import tempfile
from pathlib import Path

import pytest

from tests.realagents.install import CLAUDE_VERSION, CODEX_VERSION, AgentCLIs
from tests.support.harness import MYTTY


def _tree(root: Path) -> dict[str, tuple[int, str]]:
    """Every path under ``root`` → (mode, sha256 of its bytes or link target)."""
    out: dict[str, tuple[int, str]] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = Path(dirpath, name)
            st = path.lstat()
            if stat.S_ISLNK(st.st_mode):
                digest = os.readlink(path)
            elif stat.S_ISREG(st.st_mode):
                digest = hashlib.sha256(path.read_bytes()).hexdigest()
            else:
                digest = ""
            out[str(path.relative_to(root))] = (st.st_mode, digest)
    return out


@pytest.mark.parametrize("provider", ["claude-code", "codex"])
def test_verify_prints_the_table_and_touches_nothing_in_home(
    agent_clis: AgentCLIs, provider: str
) -> None:
    root = Path(tempfile.mkdtemp(prefix="mtvt", dir="/tmp"))
    home, mytty_home = root / "home", root / "mytty-home"
    (home / ".claude").mkdir(parents=True)
    (home / ".claude" / "settings.json").write_text('{"theme": "light"}\n')
    (home / ".codex").mkdir()
    (home / ".codex" / "config.toml").write_text('model = "the-users-own"\n')
    (home / "notes.txt").write_text("mine\n")
    before = _tree(home)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MYTTY_", "TMUX", "CODEX_"))}
    env.update(
        HOME=str(home),
        MYTTY_HOME=str(mytty_home),
        PATH=f"{agent_clis.claude.parent}:{Path(MYTTY).parent}:{env.get('PATH', '/usr/bin:/bin')}",
    )
    proc = subprocess.run(
        [MYTTY, "integrations", "verify", provider, "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=400,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    report = json.loads(proc.stdout)
    assert report["provider"] == provider
    assert (CLAUDE_VERSION if provider == "claude-code" else CODEX_VERSION) in report["version"]
    coverage = report["coverage"]
    assert set(coverage) == {
        "started",
        "approval",
        "input",
        "succeeded",
        "failed",
        "interrupt",
        "subagent",
    }
    assert coverage["started"]["outcome"] == "hook", coverage
    assert coverage["succeeded"]["outcome"] == "hook", coverage
    if provider == "claude-code":
        assert coverage["approval"]["outcome"] == "hook", coverage
        assert coverage["input"]["outcome"] == "hook", coverage
        assert coverage["failed"]["outcome"] == "hook", coverage
        assert coverage["subagent"]["outcome"] == "hook", coverage
        # No hook reports Esc on 2.1.332; the transcript/session file does, and the table says so.
        assert coverage["interrupt"]["outcome"] == "native", coverage
    else:
        assert coverage["approval"]["outcome"] == "hook", coverage
        # spawn_agent's subagent: SubagentStart/SubagentStop keep the job running.
        assert coverage["subagent"]["outcome"] == "hook", coverage
        # No hook reports a model API error on 0.171.0; the rollout does.
        assert coverage["failed"]["outcome"] == "native", coverage
    assert report["nonLoopbackAttempts"] == [], report
    assert _tree(home) == before, "verify changed something in the user's HOME"
    recorded = json.loads((mytty_home / "verified.json").read_text())
    assert recorded[provider]["version"] == report["version"]
    listed = subprocess.run(
        [MYTTY, "integrations", "list"], env=env, capture_output=True, text=True, check=True
    )
    assert f"hooks last verified with {report['version']}" in listed.stdout, listed.stdout
