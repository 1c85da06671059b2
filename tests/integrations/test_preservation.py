"""Foreign content survives: enable then disable gives back the user's files byte for byte."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from mytty.core.errors import ErrorCode, MyttyError
from mytty.integrations import api, pointers
from mytty.integrations.common import Locations

from .conftest import FakeCodex, snapshot

CLAUDE_LAYOUTS = {
    "two-space": json.dumps(
        {
            "model": "opus",
            "permissions": {"allow": ["Bash(ls:*)"]},
            "hooks": {
                "PreToolUse": [
                    {
                        "matcher": "AskUserQuestion",
                        "hooks": [{"type": "command", "command": "a.sh"}],
                    }
                ],
                "Stop": [
                    {"_otty": True, "hooks": [{"type": "command", "command": "notify-send done"}]}
                ],
            },
        },
        indent=2,
    )
    + "\n",
    "four-space-odd-order-unicode": json.dumps(
        {
            "zeta": "ünïcödé ✓ 日本語",
            "hooks": {
                "Stop": [{"hooks": [{"command": "say \u00e9", "type": "command", "timeout": 9}]}],
                "PreCompact": [],
                "SessionEnd": [{"matcher": "x"}],
            },
            "alpha": [1, 2, {"b": None}],
        },
        indent=4,
        ensure_ascii=False,
    ),
    "tabs-escaped-unicode": json.dumps({"env": {"A": "é/\u2603"}, "description": "x"}, indent="\t")
    + "\n",
    "compact-one-line": (
        '{"model":"sonnet","hooks":{"Stop":[{"hooks":[{"type":"command","command":"x"}]}]}}'
    ),
    "inline-arrays-in-pretty": (
        '{\n  "permissions": {"allow": ["a", "b"], "deny": []},\n'
        '  "hooks": {\n    "Stop": [ {"hooks": [ {"type": "command", "command": "z"} ]} ]\n  }\n}\n'
    ),
    "crlf-free-no-trailing-newline": '{\n  "model": "x"\n}',
    "empty-object": "{}",
}


@pytest.mark.parametrize("layout", sorted(CLAUDE_LAYOUTS))
def test_claude_settings_round_trip(layout: str, env: dict[str, str]) -> None:
    settings = Locations.from_env(env).claude_settings
    settings.parent.mkdir(parents=True)
    original = CLAUDE_LAYOUTS[layout].encode()
    settings.write_bytes(original)
    api.enable("claude-code", env)
    enabled = settings.read_bytes()
    assert enabled != original
    assert api.status_of("claude-code", env).status == "installed"
    # Foreign content is still there, in its place.
    before, after = json.loads(original), json.loads(enabled)
    for key, value in before.items():
        if key != "hooks":
            assert after[key] == value
    for event, groups in before.get("hooks", {}).items():
        assert after["hooks"][event][: len(groups)] == groups
    api.disable("claude-code", env)
    if original == b"{}":
        assert not settings.exists()  # nothing of the user's was in it
    else:
        assert settings.read_bytes() == original


CODEX_LAYOUTS = {
    "foreign-hooks-in-same-events": json.dumps(
        {
            "hooks": {
                "Stop": [
                    {
                        "hooks": [
                            {"type": "command", "command": "python3 log.py Stop", "timeout": 10}
                        ]
                    }
                ],
                "PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "p.sh"}]}],
                "UserPromptSubmit": [
                    {
                        "hooks": [
                            {"type": "command", "command": "one"},
                            {"type": "command", "command": "two"},
                        ]
                    }
                ],
            }
        },
        indent=2,
    )
    + "\n",
    "four-space-extra-keys": json.dumps(
        {"version": 3, "hooks": {"PreCompact": []}, "notes": "keep"}, indent=4
    )
    + "\n",
}


@pytest.mark.parametrize("layout", sorted(CODEX_LAYOUTS))
def test_codex_hooks_round_trip(layout: str, env: dict[str, str], fake_codex: FakeCodex) -> None:
    loc = Locations.from_env(env)
    loc.codex_home.mkdir()
    original = CODEX_LAYOUTS[layout].encode()
    loc.codex_hooks.write_bytes(original)
    api.enable("codex", env, codex_hooks=fake_codex)
    assert api.status_of("codex", env).status == "installed"
    api.disable("codex", env)
    assert loc.codex_hooks.read_bytes() == original


CURSOR_LAYOUTS = {
    "with-version": (
        '{\n  "version": 1,\n  "hooks": {\n    "stop": [\n      {\n'
        '        "command": "./hooks/metrics.sh"\n      }\n    ]\n  }\n}\n'
    ),
    "without-version-two-foreign-in-one-event": json.dumps(
        {
            "hooks": {
                "preToolUse": [{"command": "a"}, {"command": "b", "type": "command"}],
                "afterFileEdit": [],
            }
        },
        indent=2,
    ),
}


@pytest.mark.parametrize("layout", sorted(CURSOR_LAYOUTS))
def test_cursor_hooks_round_trip(layout: str, env: dict[str, str]) -> None:
    path = Locations.from_env(env).cursor_hooks
    path.parent.mkdir(parents=True)
    original = CURSOR_LAYOUTS[layout].encode()
    path.write_bytes(original)
    api.enable("cursor", env)
    assert api.status_of("cursor", env).status == "installed"
    data = json.loads(path.read_bytes())
    assert ("version" in data) == ("version" in json.loads(original))  # never added to a user file
    api.disable("cursor", env)
    assert path.read_bytes() == original


def test_empty_containers_for_our_own_events_are_not_restored(env: dict[str, str]) -> None:
    """The documented limit: an empty ``"hooks": {}`` or an empty list for one of mytty's events
    looks exactly like something mytty created, so disable drops it (the meaning is the same)."""
    path = Locations.from_env(env).claude_settings
    path.parent.mkdir(parents=True)
    path.write_text('{\n  "hooks": {\n    "Stop": []\n  },\n  "model": "x"\n}\n')
    api.enable("claude-code", env)
    api.disable("claude-code", env)
    assert path.read_text() == '{\n  "model": "x"\n}\n'


def test_reinstall_on_a_partial_install_keeps_foreign_handlers_in_our_group(
    env: dict[str, str],
) -> None:
    api.enable("claude-code", env)
    settings = Locations.from_env(env).claude_settings
    data = json.loads(settings.read_text())
    data["hooks"]["Stop"][0]["hooks"].insert(0, {"type": "command", "command": "mine.sh"})
    settings.write_text(json.dumps(data, indent=2) + "\n")
    assert api.status_of("claude-code", env).status == "needs-repair"
    api.repair("claude-code", env)
    stop = json.loads(settings.read_text())["hooks"]["Stop"]
    assert stop[0] == {"hooks": [{"type": "command", "command": "mine.sh"}]}
    assert api.status_of("claude-code", env).status == "installed"
    api.disable("claude-code", env)
    assert json.loads(settings.read_text()) == {
        "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "mine.sh"}]}]}
    }


MALFORMED = {
    "not-json": b"{ not-json",
    "root-array": b"[1, 2]",
    "hooks-string": b'{"hooks": "nope"}',
    "event-not-array": b'{"hooks": {"Stop": {"hooks": []}}}',
    "event-array-of-strings": b'{"hooks": {"Stop": ["x"]}}',
    "not-utf8": b'{"model": "\xff"}',
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_malformed_files_are_reported_and_never_rewritten(
    case: str, env: dict[str, str], home: Path
) -> None:
    loc = Locations.from_env(env)
    for path in (loc.claude_settings, loc.cursor_hooks):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(MALFORMED[case])
    before = {p: snapshot(p) for p in (loc.claude_settings, loc.cursor_hooks)}
    for provider in ("claude-code", "cursor"):
        for action in (api.enable, api.disable, api.repair, api.planned_changes):
            with pytest.raises(MyttyError) as caught:
                action(provider, env)
            assert caught.value.code is ErrorCode.INVALID_CONFIGURATION
        status = api.status_of(provider, env)
        assert status.status == "needs-repair"
        assert status.error and str(Locations.from_env(env).home) in status.error
    assert {p: snapshot(p) for p in before} == before
    assert not loc.claude_skill.exists()  # nothing else was written either
    wire = {i["provider"]: i for i in api.integrations_wire(env)["integrations"]}
    assert "error" in wire["cursor"] and "error" not in wire["codex"]


def test_repair_all_repairs_what_it_can_then_reports(env: dict[str, str]) -> None:
    loc = Locations.from_env(env)
    api.enable("opencode", env)
    loc.opencode_plugin.write_text("// changed\n")
    loc.cursor_hooks.parent.mkdir(parents=True)
    loc.cursor_hooks.write_text("{ broken")
    with pytest.raises(MyttyError):
        api.repair(None, env)
    assert api.status_of("opencode", env).status == "installed"


def test_malformed_codex_config_toml_blocks_enable(
    env: dict[str, str], fake_codex: FakeCodex
) -> None:
    loc = Locations.from_env(env)
    loc.codex_home.mkdir()
    loc.codex_config.write_text("model = [unterminated\n")
    before = snapshot(loc.codex_config)
    with pytest.raises(MyttyError) as caught:
        api.enable("codex", env, codex_hooks=fake_codex)
    assert caught.value.code is ErrorCode.INVALID_CONFIGURATION
    assert not loc.codex_hooks.exists() and snapshot(loc.codex_config) == before


def test_symlinked_settings_stay_symlinks(env: dict[str, str], tmp_path: Path) -> None:
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    target = dotfiles / "claude-settings.json"
    original = b'{\n  "model": "opus"\n}\n'
    target.write_bytes(original)
    link = Locations.from_env(env).claude_settings
    link.parent.mkdir(parents=True)
    link.symlink_to(target)
    api.enable("claude-code", env)
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert "hooks" in json.loads(target.read_text())
    assert api.status_of("claude-code", env).status == "installed"
    api.disable("claude-code", env)
    assert link.is_symlink() and target.read_bytes() == original


def test_a_symlink_emptied_by_disable_is_kept(env: dict[str, str], tmp_path: Path) -> None:
    target = tmp_path / "cursor-hooks.json"
    target.write_text("{}")
    link = Locations.from_env(env).cursor_hooks
    link.parent.mkdir(parents=True)
    link.symlink_to(target)
    api.enable("cursor", env)
    api.disable("cursor", env)
    assert link.is_symlink() and json.loads(target.read_text()) == {}


def test_file_mode_is_kept(env: dict[str, str]) -> None:
    path = Locations.from_env(env).cursor_hooks
    path.parent.mkdir(parents=True)
    path.write_text('{"version": 1, "hooks": {"stop": [{"command": "x"}]}}')
    path.chmod(0o640)
    api.enable("cursor", env)
    assert path.stat().st_mode & 0o777 == 0o640
    api.disable("cursor", env)
    assert path.stat().st_mode & 0o777 == 0o640


def test_no_temporary_files_are_left_behind(env: dict[str, str], fake_codex: FakeCodex) -> None:
    loc = Locations.from_env(env)
    api.enable("codex", env, codex_hooks=fake_codex)
    api.enable("claude-code", env)
    names = [p.name for p in loc.home.rglob("*")]
    assert not [n for n in names if "mytty-tmp" in n]


AGENTS_CASES = {
    "missing": None,
    "empty": "",
    "trailing-newline": "# My rules\n\nBe terse.\n",
    "no-trailing-newline": "# My rules\nBe terse.",
    "ends-with-blank-lines": "rules\n\n\n",
    "unicode": "# ルール\n日本語で答える。\n",
}


@pytest.mark.parametrize("case", sorted(AGENTS_CASES))
def test_agents_md_block_round_trip(case: str, env: dict[str, str], fake_codex: FakeCodex) -> None:
    loc = Locations.from_env(env)
    loc.codex_home.mkdir()
    original = AGENTS_CASES[case]
    if original is not None:
        loc.codex_agents_md.write_text(original)
    api.enable("codex", env, codex_hooks=fake_codex)
    text = loc.codex_agents_md.read_text()
    assert text.count(pointers.BEGIN_MARKER) == 1 and text.count(pointers.END_MARKER) == 1
    assert text.startswith(original or "")
    api.disable("codex", env)
    if original:
        assert loc.codex_agents_md.read_text() == original
    else:
        assert not loc.codex_agents_md.exists()


def test_agents_md_block_is_replaced_in_place(env: dict[str, str], fake_codex: FakeCodex) -> None:
    loc = Locations.from_env(env)
    loc.codex_home.mkdir()
    stale = f"top\n{pointers.BEGIN_MARKER}\nold words\n{pointers.END_MARKER}\nbottom\n"
    loc.codex_agents_md.write_text(stale)
    api.enable("codex", env, codex_hooks=fake_codex)
    text = loc.codex_agents_md.read_text()
    assert text.startswith("top\n" + pointers.BEGIN_MARKER) and text.endswith(
        pointers.END_MARKER + "\nbottom\n"
    )
    assert "old words" not in text
    api.disable("codex", env)
    assert loc.codex_agents_md.read_text() == "top\nbottom\n"


def test_agents_md_that_is_not_utf8_is_refused(env: dict[str, str], fake_codex: FakeCodex) -> None:
    loc = Locations.from_env(env)
    loc.codex_home.mkdir()
    loc.codex_agents_md.write_bytes(b"\xff\xfe rules")
    before = snapshot(loc.codex_agents_md)
    with pytest.raises(MyttyError):
        api.enable("codex", env, codex_hooks=fake_codex)
    assert snapshot(loc.codex_agents_md) == before
    assert not loc.codex_hooks.exists()


def test_skill_folder_with_user_files_is_kept(env: dict[str, str]) -> None:
    api.enable("claude-code", env)
    skill = Locations.from_env(env).claude_skill
    (skill.parent / "notes.md").write_text("mine")
    api.disable("claude-code", env)
    assert not skill.exists() and (skill.parent / "notes.md").read_text() == "mine"
