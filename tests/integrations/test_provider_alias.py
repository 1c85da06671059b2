"""``mytty integrations enable claude`` means claude-code (issue 26, item 14): before, it was
``invalid-provider`` with no suggestion."""

from __future__ import annotations

from typer.testing import CliRunner

from mytty.cli.integrations import app
from mytty.integrations.common import Locations


def test_mytty_integrations_enable_claude_means_claude_code(env: dict[str, str]) -> None:
    settings = Locations.from_env(env).claude_settings
    result = CliRunner().invoke(app, ["enable", "claude"], env=env, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "claude-code: installed" in result.stdout
    assert settings.exists()
    result = CliRunner().invoke(app, ["disable", "claude"], env=env, catch_exceptions=False)
    assert result.exit_code == 0 and "claude-code: not-installed" in result.stdout
