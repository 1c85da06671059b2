"""``mytty integrations``: the typer sub-app, run through typer's CliRunner."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from mytty.cli.integrations import app
from mytty.integrations import api
from mytty.integrations.common import Locations


def _run(env: dict[str, str], *args: str):
    return CliRunner().invoke(app, list(args), env=env, catch_exceptions=False)


def test_list_json_matches_the_wire(env: dict[str, str]) -> None:
    result = _run(env, "list", "--json")
    assert result.exit_code == 0
    assert json.loads(result.stdout) == api.integrations_wire(env)
    assert [i["provider"] for i in json.loads(result.stdout)["integrations"]] == [
        "codex",
        "claude-code",
        "opencode",
        "antigravity",
        "cursor",
    ]


def test_enable_prints_changes_then_disable_restores(env: dict[str, str]) -> None:
    settings = Locations.from_env(env).claude_settings
    settings.parent.mkdir(parents=True)
    settings.write_text('{\n    "model": "opus"\n}\n')
    result = _run(env, "enable", "claude-code")
    assert result.exit_code == 0, result.output
    assert str(settings) in result.stdout and "claude-code: installed" in result.stdout
    listed = json.loads(_run(env, "list", "--json").stdout)["integrations"]
    assert {
        "provider": "claude-code",
        "status": "installed",
        "leadNotices": "next-prompt",
    } in listed
    assert "Nothing to change." in _run(env, "enable", "claude-code").stdout

    result = _run(env, "disable", "claude-code")
    assert result.exit_code == 0 and "claude-code: not-installed" in result.stdout
    assert settings.read_text() == '{\n    "model": "opus"\n}\n'


def test_human_list_shows_errors(env: dict[str, str]) -> None:
    path = Locations.from_env(env).cursor_hooks
    path.parent.mkdir(parents=True)
    path.write_text("{ nope")
    result = _run(env, "list")
    assert result.exit_code == 0
    assert "cursor" in result.stdout and "not valid JSON" in result.stdout


def test_unknown_provider_is_one_line_and_exit_1(env: dict[str, str]) -> None:
    result = _run(env, "enable", "nosuch")  # "claude" now means claude-code (issue 26)
    assert result.exit_code == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("mytty: invalid-provider: ")


def test_malformed_file_is_one_line_and_exit_1(env: dict[str, str]) -> None:
    path = Locations.from_env(env).cursor_hooks
    path.parent.mkdir(parents=True)
    path.write_text("[]")
    result = _run(env, "enable", "cursor")
    assert result.exit_code == 1
    assert result.stderr.strip().startswith("mytty: invalid-configuration: ")
    assert path.read_text() == "[]"


def test_repair_without_provider_repairs_what_needs_it(env: dict[str, str]) -> None:
    assert _run(env, "enable", "opencode").exit_code == 0
    plugin = Locations.from_env(env).opencode_plugin
    plugin.write_text("// edited\n")
    result = _run(env, "repair")
    assert result.exit_code == 0 and str(plugin) in result.stdout
    assert "opencode: installed" in result.stdout and "cursor: not-installed" in result.stdout
