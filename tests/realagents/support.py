"""A test user for the real agents: loopback-only environment, answered onboarding, a controller.

Every switch shared/reference/real-agents.md lists is set: the mocks are the only model API,
telemetry/update/marketplace/catalog traffic is off, and HTTP(S)_PROXY/ALL_PROXY point at a
refusing proxy whose log the tests check (:data:`NO_SWITCH` names the one request no switch
stops).
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from pathlib import Path

from tests.e2e.jobs_support import INTEGRATION, new_anchor, new_repo
from tests.realagents.install import CLAUDE_VERSION, AgentCLIs
from tests.realagents.mocks.servers import DenyProxy, MockAPI
from tests.support.harness import MYTTY, Mytty

ANTHROPIC_KEY = "sk-ant-mock-0000000000000000000000000000"
#: Requests the refusing proxy may see because no switch stops them (real-agents.md §1):
#: the Codex TUI fetches its announcement tip from a hard-coded URL on a fresh CODEX_HOME.
NO_SWITCH = {"codex": {"raw.githubusercontent.com:443"}, "claude": set()}


def agent_env(anthropic: MockAPI, openai: MockAPI, proxy: DenyProxy) -> dict[str, str]:
    """The environment the tmux server (so every pane and agent) and the controller get."""
    env = {
        "ANTHROPIC_BASE_URL": anthropic.url,
        "ANTHROPIC_API_KEY": ANTHROPIC_KEY,
        "MOCK_OPENAI_API_KEY": "sk-mock-openai",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_ERROR_REPORTING": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_BUG_COMMAND": "1",
        "DISABLE_NON_ESSENTIAL_MODEL_CALLS": "1",
        "CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY": "1",
        "CLAUDE_CODE_MODEL_CATALOG": "0",
        "CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL": "1",
        "NO_PROXY": "127.0.0.1,localhost",
        "no_proxy": "127.0.0.1,localhost",
    }
    for name in ("HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY"):
        env[name] = env[name.lower()] = proxy.url
    return env


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
    _claude_home(m.home, work)
    _codex_home(Path(m.env["CODEX_HOME"]), work, openai)
    return RealUser(m, anthropic, openai, proxy, work)


def close_user(user: RealUser) -> None:
    try:
        user.m.close()
    finally:
        for server in (user.anthropic, user.openai, user.proxy):
            server.close()


def _claude_home(home: Path, work: Path) -> None:
    """Onboarding, theme, the API-key question and workspace trust answered (§2.1)."""
    state = {
        "hasCompletedOnboarding": True,
        "lastOnboardingVersion": CLAUDE_VERSION,
        "theme": "dark",
        "numStartups": 1,
        "customApiKeyResponses": {"approved": [ANTHROPIC_KEY[-20:]], "rejected": []},
        "projects": {
            str(work): {
                "hasTrustDialogAccepted": True,
                "allowedTools": [],
                "hasCompletedProjectOnboarding": True,
            }
        },
    }
    (home / ".claude.json").write_text(json.dumps(state))


def _codex_home(codex_home: Path, work: Path, openai: MockAPI) -> None:
    """A custom loopback provider (no login), plugins and the shared server off (§3.1)."""
    codex_home.mkdir(parents=True, exist_ok=True)
    (codex_home / "config.toml").write_text(
        f"""model = "gpt-mock"
model_provider = "mock"
approval_policy = "on-request"
sandbox_mode = "workspace-write"
check_for_update_on_startup = false
model_context_window = 200000
model_auto_compact_token_limit = 180000

[model_providers.mock]
name = "Local mock (127.0.0.1)"
base_url = "{openai.url}/v1"
env_key = "MOCK_OPENAI_API_KEY"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0
stream_idle_timeout_ms = 60000

[features]
plugins = false
daemon_auto_start = false

[tui]
show_tooltips = false

[analytics]
enabled = false

[feedback]
enabled = false

[projects."{work}"]
trust_level = "trusted"
"""
    )


__all__ = ["RealUser", "agent_env", "close_user", "make_user", "new_anchor"]
