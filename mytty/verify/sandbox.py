"""A loopback-only world for a real agent: its environment and answered onboarding.

Everything the agents would otherwise fetch is switched off, the mocks are the only model API,
and HTTP(S)_PROXY/ALL_PROXY point at a refusing proxy that records whatever still tries to leave
(real-agents.md §1 lists the switches; :data:`NO_SWITCH` names the one request no switch stops).
The test tier and ``mytty integrations verify`` build their agents' homes with these functions.
"""

from __future__ import annotations

import json
from pathlib import Path

from mytty.verify.mock_api import DenyProxy, MockAPI

ANTHROPIC_KEY = "sk-ant-mock-0000000000000000000000000000"
OPENAI_KEY_VAR = "MOCK_OPENAI_API_KEY"
#: Requests the refusing proxy may see because no switch stops them (real-agents.md §1):
#: the Codex TUI fetches its announcement tip from a hard-coded URL on a fresh CODEX_HOME.
NO_SWITCH = {"codex": {"raw.githubusercontent.com:443"}, "claude": set[str]()}


def agent_env(anthropic: MockAPI, openai: MockAPI, proxy: DenyProxy) -> dict[str, str]:
    """The environment the tmux server (so every pane and agent) and the controller get."""
    env = {
        "ANTHROPIC_BASE_URL": anthropic.url,
        "ANTHROPIC_API_KEY": ANTHROPIC_KEY,
        OPENAI_KEY_VAR: "sk-mock-openai",
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


def write_claude_state(home: Path, work: Path, version: str) -> None:
    """``~/.claude.json`` with onboarding, theme, the API-key question and trust answered."""
    state = {
        "hasCompletedOnboarding": True,
        "lastOnboardingVersion": version,
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


def write_codex_config(codex_home: Path, work: Path, openai: MockAPI) -> None:
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
env_key = "{OPENAI_KEY_VAR}"
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
