"""A test user for the real agents: loopback-only environment, answered onboarding, a controller.

The environment and the agents' homes come from mytty.verify.sandbox (``mytty integrations
verify`` builds the same world); the refusing proxy's log is checked at the end of each test.
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mytty.verify.mock_api import DenyProxy, Logged, MockAPI
from mytty.verify.sandbox import NO_SWITCH, agent_env, write_claude_state, write_codex_config
from tests.e2e.jobs_support import INTEGRATION, new_anchor, new_repo, spawn
from tests.realagents.install import CLAUDE_VERSION, AgentCLIs
from tests.support.harness import MYTTY, Mytty


@dataclass
class RealUser:
    """One test's controller, tmux server, mocks and the agents' homes."""

    m: Mytty
    anthropic: MockAPI
    openai: MockAPI
    proxy: DenyProxy
    work: Path

    def enable(self, provider: str) -> str:
        """``mytty integrations enable`` as the user types it (real ``codex`` on PATH)."""
        proc = subprocess.run(
            [MYTTY, "integrations", "enable", INTEGRATION[provider]],
            env=self.m.env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert proc.returncode == 0, f"enable {provider}: {proc.stdout}{proc.stderr}"
        statuses = {
            i["provider"]: i["status"]
            for i in self.m.ctl("integration", "list").json["integrations"]
        }
        assert statuses[INTEGRATION[provider]] == "installed", statuses
        return proc.stdout + proc.stderr

    def anchor(self) -> str:
        return new_anchor(self.m, self.work)

    def spawn(self, provider: str, task: str, *extra: str) -> dict[str, Any]:
        """``agent spawn`` of a worker in the test's repository, from a fresh anchor tab."""
        args = ["--provider", provider, "--task", task, "--cwd", str(self.work), *extra]
        if "--anchor" not in extra:
            args += ["--anchor", self.anchor()]
        return spawn(self.m, *args)

    def requests_with(self, api: str, needle: str) -> list[Logged]:
        """The model requests (``api``: ``anthropic`` or ``openai``) whose body holds ``needle``."""
        mock = self.anthropic if api == "anthropic" else self.openai
        return [
            r
            for r in mock.requests
            if r.method == "POST" and "count_tokens" not in r.path and needle in json.dumps(r.body)
        ]

    def wait_screen(self, pane: str, needle: str, timeout: float = 60) -> None:
        """Wait for ``needle`` on the pane's screen; a timeout shows the screen."""
        try:
            self.m.wait_for_text(pane, needle, timeout)
        except AssertionError as exc:
            raise AssertionError(f"{exc}; the screen:\n{self.m.read(pane)}") from None

    def type_prompt(self, pane: str, text: str) -> None:
        """Type ``text`` into the agent's prompt as its user would, then Enter."""
        self.m.ctl("send", pane, text).ok()
        self.wait_screen(pane, text, 20)
        self.m.ctl("send-key", pane, "Enter").ok()

    def assert_no_leaks(self, provider: str) -> None:
        """Every connection went to 127.0.0.1: the proxy saw nothing a switch should stop."""
        leaked = [r for r in self.proxy.refused if r.target not in NO_SWITCH[provider]]
        assert leaked == [], f"non-loopback attempts the switches should have stopped: {leaked}"


def make_user(clis: AgentCLIs) -> RealUser:
    anthropic, openai, proxy = MockAPI("anthropic"), MockAPI("openai"), DenyProxy()
    m = Mytty(extra_env=agent_env(anthropic, openai, proxy))
    for binary in (clis.claude, clis.codex):
        (m.bin / binary.name).symlink_to(binary)
    work = new_repo(m.home / "work")
    write_claude_state(m.home, work, CLAUDE_VERSION)
    write_codex_config(Path(m.env["CODEX_HOME"]), work, openai)
    return RealUser(m, anthropic, openai, proxy, work)


def close_user(user: RealUser) -> None:
    try:
        user.m.close()
    finally:
        for server in (user.anthropic, user.openai, user.proxy):
            server.close()


__all__ = ["RealUser", "agent_env", "close_user", "make_user", "new_anchor"]
