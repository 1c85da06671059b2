"""The facade: statuses, enable/disable/repair per provider, planned changes, wire shape."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from mytty.core.errors import ErrorCode, MyttyError
from mytty.core.events import PROVIDER_ORDER, AgentProvider
from mytty.core.vocab import LEAD_NOTICES
from mytty.integrations import api
from mytty.integrations.common import Locations
from mytty.protocol.limits import APPROVAL_HOOK_TIMEOUT_S

from .conftest import FakeCodex

ALL = list(PROVIDER_ORDER)


def _statuses(env: dict[str, str]) -> dict[str, str]:
    return {s.provider.value: s.status for s in api.list_statuses(env)}


def test_everything_starts_not_installed(env: dict[str, str]) -> None:
    assert api.integrations_wire(env) == {
        "type": "integrationStatuses",
        "integrations": [
            {"provider": p.value, "status": "not-installed", "leadNotices": LEAD_NOTICES[p.value]}
            for p in ALL
        ],
    }


@pytest.mark.parametrize("provider", ALL, ids=lambda p: p.value)
def test_enable_installs_and_disable_removes(
    provider: AgentProvider, env: dict[str, str], home: Path, fake_codex: FakeCodex
) -> None:
    changed = api.enable(provider, env, codex_hooks=fake_codex)
    assert changed and all(Path(p).is_absolute() and Path(p).exists() for p in changed)
    assert api.status_of(provider, env) == api.IntegrationStatus(provider, "installed")
    others = {p.value: "not-installed" for p in ALL if p is not provider}
    assert {k: v for k, v in _statuses(env).items() if k != provider.value} == others

    assert api.enable(provider, env, codex_hooks=fake_codex) == []  # already complete

    removed = api.disable(provider, env)
    assert sorted(removed) == sorted(changed)
    assert api.status_of(provider, env).status == "not-installed"
    # Nothing mytty wrote is left behind (directories that held only our files go too).
    leftovers = [p for p in home.rglob("*") if p.is_file()]
    assert leftovers == []
    assert api.disable(provider, env) == []


def test_planned_changes_names_what_enable_writes(
    env: dict[str, str], fake_codex: FakeCodex
) -> None:
    loc = Locations.from_env(env)
    assert api.planned_changes("claude-code", env) == [
        str(loc.claude_settings),
        str(loc.claude_skill),
    ]
    assert api.planned_changes("codex", env) == [
        str(loc.codex_hooks),
        str(loc.codex_agents_md),
        str(loc.codex_config),
    ]
    plan = api.planned_changes("codex", env)
    assert sorted(api.enable("codex", env, codex_hooks=fake_codex)) == sorted(plan)
    assert api.planned_changes("codex", env) == []
    assert api.planned_changes("antigravity", env) == [
        str(loc.antigravity_dir / "plugin.json"),
        str(loc.antigravity_dir / "hooks.json"),
    ]


def test_unknown_provider_is_invalid_provider(env: dict[str, str]) -> None:
    for call in (api.status_of, api.enable, api.disable, api.planned_changes):
        with pytest.raises(MyttyError) as caught:
            call("claude", env)
        assert caught.value.code is ErrorCode.INVALID_PROVIDER


def test_status_wire_carries_error_only_when_set() -> None:
    ok = api.IntegrationStatus(AgentProvider.CURSOR, "installed")
    bad = api.IntegrationStatus(AgentProvider.CURSOR, "needs-repair", "broken")
    assert ok.to_wire() == {"provider": "cursor", "status": "installed"}
    assert bad.to_wire() == {"provider": "cursor", "status": "needs-repair", "error": "broken"}


def test_a_deleted_handler_needs_repair_and_repair_fixes_it(env: dict[str, str]) -> None:
    api.enable("claude-code", env)
    settings = Locations.from_env(env).claude_settings
    data = json.loads(settings.read_text())
    del data["hooks"]["Stop"]
    settings.write_text(json.dumps(data, indent=2) + "\n")
    assert api.status_of("claude-code", env).status == "needs-repair"
    assert api.repair(None, env) == [str(settings)]
    assert api.status_of("claude-code", env).status == "installed"


def test_an_edited_handler_or_foreign_group_after_ours_needs_repair(env: dict[str, str]) -> None:
    api.enable("cursor", env)
    path = Locations.from_env(env).cursor_hooks
    data = json.loads(path.read_text())
    data["hooks"]["stop"][0]["timeout"] = 30  # a key added to our handler
    path.write_text(json.dumps(data))
    assert api.status_of("cursor", env).status == "needs-repair"
    api.repair("cursor", env)
    data = json.loads(path.read_text())
    data["hooks"]["stop"].append({"command": "./after.sh"})
    path.write_text(json.dumps(data))
    assert api.status_of("cursor", env).status == "needs-repair"
    api.repair("cursor", env)
    stop = json.loads(path.read_text())["hooks"]["stop"]
    assert (
        stop[0] == {"command": "./after.sh"} and api.status_of("cursor", env).status == "installed"
    )


def test_missing_pointer_needs_repair(env: dict[str, str], fake_codex: FakeCodex) -> None:
    loc = Locations.from_env(env)
    api.enable("claude-code", env)
    loc.claude_skill.unlink()
    assert api.status_of("claude-code", env).status == "needs-repair"
    api.enable("codex", env, codex_hooks=fake_codex)
    loc.codex_agents_md.write_text("mine\n")
    assert api.status_of("codex", env).status == "needs-repair"
    api.repair(None, env, codex_hooks=fake_codex)
    assert _statuses(env)["claude-code"] == _statuses(env)["codex"] == "installed"


@pytest.mark.parametrize("provider", ALL, ids=lambda p: p.value)
def test_missing_or_non_executable_helper_needs_repair(
    provider: AgentProvider, env: dict[str, str], helper: Path, fake_codex: FakeCodex
) -> None:
    api.enable(provider, env, codex_hooks=fake_codex)
    helper.chmod(0o644)
    status = api.status_of(provider, env)
    assert status.status == "needs-repair" and "not executable" in (status.error or "")
    helper.unlink()
    status = api.status_of(provider, env)
    assert status.status == "needs-repair" and "does not exist" in (status.error or "")
    with pytest.raises(MyttyError):
        api.repair(provider, env, codex_hooks=fake_codex)


def test_enable_refuses_without_a_helper(env: dict[str, str], helper: Path, home: Path) -> None:
    helper.unlink()
    with pytest.raises(MyttyError) as caught:
        api.enable("cursor", env)
    assert caught.value.code is ErrorCode.INVALID_CONFIGURATION
    assert not any(home.rglob("*"))


def test_a_moved_helper_leaves_the_old_handlers_alone(env: dict[str, str], tmp_path: Path) -> None:
    api.enable("cursor", env)
    other = tmp_path / "other-hook"
    other.write_text("#!/bin/sh\n")
    other.chmod(0o755)
    moved = {**env, "MYTTY_AGENT_HOOK_BIN": str(other)}
    assert api.status_of("cursor", moved).status == "not-installed"
    api.enable("cursor", moved)
    stop = json.loads(Locations.from_env(env).cursor_hooks.read_text())["hooks"]["stop"]
    assert [h["command"] for h in stop] == [
        "'" + env["MYTTY_AGENT_HOOK_BIN"] + "' cursor",
        f"'{other}' cursor",
    ]


def test_handler_shapes_match_the_providers(
    env: dict[str, str], helper: Path, fake_codex: FakeCodex
) -> None:
    loc = Locations.from_env(env)
    for provider in ALL:
        api.enable(provider, env, codex_hooks=fake_codex)
    quoted = f"'{helper}'"
    codex = json.loads(loc.codex_hooks.read_text())["hooks"]
    assert list(codex) == [
        "SessionStart",
        "UserPromptSubmit",
        "PermissionRequest",
        "PostToolUse",
        "Stop",
        "Interrupt",  # beyond the original: Esc ends the turn's run (idle)
        "PreToolUse",  # beyond the original: the kill-server guard of spawned workers
        "SubagentStart",  # beyond the original: a live subagent keeps its parent's turn
        "SubagentStop",
        "PostModelRequest",  # beyond the original: a turn stopped at a usage limit
    ]
    assert codex["SubagentStart"] == codex["SubagentStop"] == codex["Stop"]
    assert codex["PostModelRequest"] == codex["Stop"]
    assert codex["Stop"] == [
        {"hooks": [{"type": "command", "command": f"{quoted} codex", "timeout": 5}]}
    ]
    assert codex["PreToolUse"] == [{"matcher": "Bash", "hooks": codex["Stop"][0]["hooks"]}]
    claude = json.loads(loc.claude_settings.read_text())["hooks"]
    assert len(claude) == 11
    # Beyond the original: a live subagent keeps its parent's run (and job) running.
    assert claude["SubagentStart"] == claude["SubagentStop"] == claude["Stop"]
    exec_form = {"type": "command", "command": str(helper), "args": ["claude-code"], "timeout": 5}
    assert claude["Stop"] == [{"hooks": [exec_form]}]
    # Beyond the original: the kill-server guard of spawned workers, on Bash calls only.
    assert claude["PreToolUse"] == [{"matcher": "Bash", "hooks": [exec_form]}]
    assert claude["Notification"][0]["matcher"].split("|")[0] == "permission_prompt"
    cursor = json.loads(loc.cursor_hooks.read_text())
    assert cursor["version"] == 1
    assert cursor["hooks"]["preToolUse"] == [{"type": "command", "command": f"{quoted} cursor"}]
    agy = json.loads((loc.antigravity_dir / "hooks.json").read_text())
    assert set(agy["mytty-attention"]) == {"PreInvocation", "PostInvocation", "Stop"}
    assert agy["mytty-attention"]["Stop"][0]["command"] == f"{quoted} antigravity"
    assert json.loads((loc.antigravity_dir / "plugin.json").read_text())["name"] == "mytty"
    plugin = loc.opencode_plugin.read_text()
    assert json.dumps(str(helper)) in plugin and "MYTTY_EVENT_SOCKET" in plugin
    skill = loc.claude_skill.read_text()
    assert skill.startswith("---\nname: mytty-panes\ndescription: ")
    assert str(loc.guide) in skill and "mytty-ctl guide" in skill
    agents = loc.codex_agents_md.read_text()
    assert str(loc.guide) in agents and "mytty-ctl guide" in agents


def test_paths_follow_codex_home_xdg_and_mytty_home(
    env: dict[str, str], tmp_path: Path, fake_codex: FakeCodex
) -> None:
    custom = {
        **env,
        "CODEX_HOME": str(tmp_path / "cx"),
        "XDG_CONFIG_HOME": str(tmp_path / "xdg"),
        "MYTTY_HOME": str(tmp_path / "mh"),
    }
    api.enable("codex", custom, codex_hooks=fake_codex)
    api.enable("opencode", custom)
    assert (tmp_path / "cx" / "hooks.json").exists()
    assert (tmp_path / "xdg" / "opencode" / "plugins" / "mytty.js").exists()
    assert str(tmp_path / "mh" / "mytty-ctl.md") in (tmp_path / "cx" / "AGENTS.md").read_text()
    assert _statuses(custom)["codex"] == "installed"
    assert _statuses(env)["codex"] == "not-installed"


def test_new_files_are_private(env: dict[str, str], fake_codex: FakeCodex) -> None:
    changed = []
    for provider in ALL:
        changed += api.enable(provider, env, codex_hooks=fake_codex)
    modes = {Path(p).name: os.stat(p).st_mode & 0o777 for p in changed}
    assert modes.pop("AGENTS.md") == 0o644
    assert set(modes.values()) == {0o600}


def _before_the_broker(data: dict[str, Any]) -> None:
    """What an install from before the approvals broker had: PermissionRequest's 5 s timeout."""
    for group in data["hooks"]["PermissionRequest"]:
        for handler in group["hooks"]:
            handler["timeout"] = 5


@pytest.mark.parametrize("provider", [AgentProvider.CLAUDE_CODE, AgentProvider.CODEX])
def test_an_install_from_before_the_broker_stays_installed_and_repair_lengthens_its_timeout(
    provider: AgentProvider, env: dict[str, str], home: Path, fake_codex: FakeCodex
) -> None:
    """The previous mytty gave PermissionRequest 5 s: still installed (spawns keep working),
    the status says what repair adds, and repair writes the new timeout (Codex: and trusts it
    again, since the timeout is part of the hook's trust hash)."""
    api.enable(provider, env, codex_hooks=fake_codex)
    loc = Locations.from_env(env)
    settings = loc.claude_settings if provider is AgentProvider.CLAUDE_CODE else loc.codex_hooks
    data = json.loads(settings.read_text())
    assert [h["timeout"] for g in data["hooks"]["PermissionRequest"] for h in g["hooks"]] == [
        APPROVAL_HOOK_TIMEOUT_S
    ]
    _before_the_broker(data)
    if provider is AgentProvider.CODEX:  # its limit hook came after the broker
        del data["hooks"]["PostModelRequest"]
    settings.write_text(json.dumps(data, indent=2) + "\n")
    old = api.status_of(provider, env)
    assert old.status == "installed" and old.upgrade is not None
    assert "5 s timeout" in old.upgrade
    assert str(settings) in api.repair(None, env, codex_hooks=fake_codex)
    fresh = json.loads(settings.read_text())["hooks"]["PermissionRequest"]
    assert [h["timeout"] for g in fresh for h in g["hooks"]] == [APPROVAL_HOOK_TIMEOUT_S]
    now = api.status_of(provider, env)
    assert now.status == "installed" and now.upgrade is None


@pytest.mark.parametrize("provider", [AgentProvider.CLAUDE_CODE, AgentProvider.CODEX])
def test_an_install_from_before_the_guard_stays_installed_and_repair_adds_it(
    provider: AgentProvider, env: dict[str, str], home: Path, fake_codex: FakeCodex
) -> None:
    api.enable(provider, env, codex_hooks=fake_codex)
    loc = Locations.from_env(env)
    settings = loc.claude_settings if provider is AgentProvider.CLAUDE_CODE else loc.codex_hooks
    data = json.loads(settings.read_text())
    guard = data["hooks"].pop("PreToolUse")
    assert guard[0]["matcher"] == "Bash"
    if provider is AgentProvider.CODEX:  # its subagent and limit hooks came after the guard
        for event in ("SubagentStart", "SubagentStop", "PostModelRequest"):
            del data["hooks"][event]
    _before_the_broker(data)  # so did the PermissionRequest handler's long timeout
    settings.write_text(json.dumps(data, indent=2) + "\n")
    # Spawning must keep working for such an install: installed, not needs-repair; what
    # repair would add is said (doctor warns with it), not on the wire.
    old = api.status_of(provider, env)
    assert old.status == "installed" and old.error is None
    assert old.upgrade is not None and "without the kill-server guard" in old.upgrade
    assert old.to_wire() == api.IntegrationStatus(provider, "installed").to_wire()
    # `repair` with no provider named takes it too (it is not needs-repair).
    assert str(settings) in api.repair(None, env, codex_hooks=fake_codex)
    assert json.loads(settings.read_text())["hooks"]["PreToolUse"] == guard
    if provider is AgentProvider.CODEX:
        assert {"SubagentStart", "SubagentStop"} <= set(json.loads(settings.read_text())["hooks"])
    now = api.status_of(provider, env)  # (Codex: its trust recorded too)
    assert now.status == "installed" and now.upgrade is None
    # A broken guard entry (edited) still needs repair, like any other edited handler.
    data = json.loads(settings.read_text())
    data["hooks"]["PreToolUse"][0]["hooks"][0]["timeout"] = 99
    settings.write_text(json.dumps(data))
    assert api.status_of(provider, env).status == "needs-repair"


def test_a_codex_install_from_before_the_limit_hook_stays_installed_and_repair_adds_it(
    env: dict[str, str], home: Path, fake_codex: FakeCodex
) -> None:
    """The previous mytty installed no PostModelRequest: spawning keeps working (a usage
    limit is still read from the rollout), the status says what repair adds, repair adds it
    with its trust."""
    provider = AgentProvider.CODEX
    api.enable(provider, env, codex_hooks=fake_codex)
    hooks = Locations.from_env(env).codex_hooks
    data = json.loads(hooks.read_text())
    del data["hooks"]["PostModelRequest"]
    hooks.write_text(json.dumps(data, indent=2) + "\n")
    old = api.status_of(provider, env)
    assert old.status == "installed" and old.upgrade is not None
    assert "without the PostModelRequest hook" in old.upgrade
    assert str(hooks) in api.repair(None, env, codex_hooks=fake_codex)
    assert "PostModelRequest" in json.loads(hooks.read_text())["hooks"]
    now = api.status_of(provider, env)
    assert now.status == "installed" and now.upgrade is None


def test_a_codex_install_from_before_the_subagent_hooks_stays_installed_and_repair_adds_them(
    env: dict[str, str], home: Path, fake_codex: FakeCodex
) -> None:
    """The previous mytty installed the guard but not SubagentStart/SubagentStop: spawning
    keeps working, the status says what repair adds, and a bare ``repair`` adds it."""
    provider = AgentProvider.CODEX
    api.enable(provider, env, codex_hooks=fake_codex)
    hooks = Locations.from_env(env).codex_hooks
    data = json.loads(hooks.read_text())
    for event in ("SubagentStart", "SubagentStop", "PostModelRequest"):
        del data["hooks"][event]
    _before_the_broker(data)
    hooks.write_text(json.dumps(data, indent=2) + "\n")
    old = api.status_of(provider, env)
    assert old.status == "installed" and old.upgrade is not None
    assert "without the subagent hooks" in old.upgrade
    assert str(hooks) in api.repair(None, env, codex_hooks=fake_codex)
    assert {"SubagentStart", "SubagentStop"} <= set(json.loads(hooks.read_text())["hooks"])
    now = api.status_of(provider, env)
    assert now.status == "installed" and now.upgrade is None
