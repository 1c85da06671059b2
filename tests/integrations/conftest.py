"""Fixtures for the installer tests: a throw-away home, a fake helper, and a fake Codex."""

from __future__ import annotations

import hashlib
import json
import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from mytty.integrations.codex_trust import CodexHook, CodexUnavailable


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = tmp_path / "home"
    path.mkdir()
    return path


@pytest.fixture
def helper(tmp_path: Path) -> Path:
    path = tmp_path / "bin dir" / "mytty-agent-hook"  # a space, to exercise the quoting
    path.parent.mkdir()
    path.write_text("#!/bin/sh\nexit 0\n")
    path.chmod(0o755)
    return path


@pytest.fixture
def env(home: Path, helper: Path) -> dict[str, str]:
    # An empty PATH: nothing from the real machine (such as a real codex) leaks into a test.
    return {"HOME": str(home), "MYTTY_AGENT_HOOK_BIN": str(helper), "PATH": ""}


def _snake(event: str) -> str:
    return "".join("_" + c.lower() if c.isupper() and i else c.lower() for i, c in enumerate(event))


class FakeCodex:
    """Behaves like ``codex app-server``'s ``hooks/list`` for the user's ``hooks.json``.

    Hashes depend on the event and the handler, and a hook is trusted when ``config.toml`` holds
    its current hash, as in Codex 0.171.
    """

    def __init__(self, fail: str | None = None) -> None:
        self.fail = fail
        self.calls = 0

    def list_hooks(self, env: Mapping[str, str], cwd: Path) -> list[CodexHook]:
        self.calls += 1
        if self.fail:
            raise CodexUnavailable(self.fail)
        codex_home = Path(env.get("CODEX_HOME") or Path(env["HOME"]) / ".codex")
        hooks_path = codex_home / "hooks.json"
        config_path = codex_home / "config.toml"
        data = json.loads(hooks_path.read_text()) if hooks_path.exists() else {}
        config = tomllib.loads(config_path.read_text()) if config_path.exists() else {}
        hooks = config.get("hooks", {})
        if not isinstance(hooks, dict) or not isinstance(hooks.get("state", {}), dict):
            # Codex refuses to start with a config it cannot read (as `codex app-server` would).
            raise CodexUnavailable(f"{config_path}: hooks.state is not a table")
        state = hooks.get("state", {})
        try:
            return self._listed(data, state, hooks_path)
        except (AttributeError, TypeError):
            # A hooks.json (or trust entry) not in Codex's shape: Codex fails to list it.
            raise CodexUnavailable(f"{hooks_path}: not in the shape Codex reads") from None

    @staticmethod
    def _listed(data: Any, state: Any, hooks_path: Path) -> list[CodexHook]:
        result = []
        for event, groups in data.get("hooks", {}).items():
            for gi, group in enumerate(groups):
                for hi, handler in enumerate(group.get("hooks", [])):
                    key = f"{hooks_path}:{_snake(event)}:{gi}:{hi}"
                    digest = (
                        "sha256:"
                        + hashlib.sha256(
                            json.dumps([event, handler], sort_keys=True).encode()
                        ).hexdigest()
                    )
                    trusted = state.get(key, {}).get("trusted_hash") == digest
                    result.append(
                        CodexHook(
                            key=key,
                            event_name=event,
                            command=handler.get("command"),
                            source_path=str(hooks_path),
                            current_hash=digest,
                            trust_status="trusted" if trusted else "untrusted",
                        )
                    )
        return result


@pytest.fixture
def fake_codex() -> FakeCodex:
    return FakeCodex()


def snapshot(path: Path) -> tuple[bytes, int, int]:
    """Bytes, mtime (ns) and inode: enough to prove a file was not rewritten."""
    info = os.stat(path)
    return path.read_bytes(), info.st_mtime_ns, info.st_ino
