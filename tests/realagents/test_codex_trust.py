"""The real ``codex app-server`` lists the hooks ``enable`` wrote, and trusts the hashes it stored.

The rest of the suite uses the stand-in ``codex`` (tests/standins), which answers ``hooks/list``
the same way; this test keeps the two honest. The pinned Codex runs with the loopback config and
the refusing proxy, like every real agent here.
"""

from __future__ import annotations

from pathlib import Path

from mytty.integrations import api
from mytty.integrations.codex import EVENTS as codex_events
from mytty.integrations.codex_trust import AppServerHookSource
from mytty.integrations.common import Locations
from mytty.verify.mock_api import DenyProxy, MockAPI
from mytty.verify.sandbox import agent_env, write_codex_config
from tests.realagents.install import AgentCLIs


def test_real_codex_app_server_lists_hashes_that_codex_accepts(
    tmp_path: Path, agent_clis: AgentCLIs
) -> None:
    anthropic, openai, proxy = MockAPI("anthropic"), MockAPI("openai"), DenyProxy()
    try:
        home = tmp_path / "realhome"
        home.mkdir()
        helper = tmp_path / "bin dir" / "mytty-agent-hook"  # a space, to exercise the quoting
        helper.parent.mkdir()
        helper.write_text("#!/bin/sh\nexit 0\n")
        helper.chmod(0o755)
        write_codex_config(home / ".codex", home, openai)
        env = {
            **agent_env(anthropic, openai, proxy),
            "HOME": str(home),
            "CODEX_HOME": str(home / ".codex"),
            "MYTTY_AGENT_HOOK_BIN": str(helper),
            "PATH": f"{agent_clis.codex.parent}:/usr/bin:/bin",
        }
        source = AppServerHookSource(timeout=15.0)
        warnings: list[str] = []
        api.enable("codex", env, codex_hooks=source, warnings=warnings)
        assert warnings == []
        assert api.status_of("codex", env).status == "installed"
        hooks_path = Locations.from_env(env).codex_hooks
        listed = [h for h in source.list_hooks(env, home) if h.source_path == str(hooks_path)]
        assert len(listed) == len(codex_events)
        assert {h.trust_status for h in listed} == {"trusted"}
        assert [r for r in proxy.refused if r.target != "raw.githubusercontent.com:443"] == []
    finally:
        for server in (anthropic, openai, proxy):
            server.close()
