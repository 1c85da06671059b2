"""config.toml with a real controller: written on first start, a broken one reported and kept."""

from __future__ import annotations

import pytest

from mytty.core.config import DEFAULT_TEXT
from tests.support.harness import Mytty

pytestmark = pytest.mark.tmux


def test_first_start_writes_the_defaults_and_a_restart_keeps_edits(bare_mytty: Mytty) -> None:
    m = bare_mytty
    m.start()
    config = m.mytty_home / "config.toml"
    assert config.read_text() == DEFAULT_TEXT
    edited = DEFAULT_TEXT.replace("cooldown = 30", "cooldown = 5")
    config.write_text(edited)
    m.stop()
    m.start()
    assert config.read_text() == edited
    assert "config.toml" not in m.log()  # nothing to warn about


def test_a_malformed_file_is_located_in_the_log_and_left_alone(bare_mytty: Mytty) -> None:
    m = bare_mytty
    m.mytty_home.mkdir(parents=True)
    config = m.mytty_home / "config.toml"
    broken = '[notify]\ncommand = "ntfy publish\ncooldown = 5\n[tmux]\npopup_key = "A"\nshout = 1\n'
    config.write_text(broken)
    m.start()  # starts anyway, on the defaults
    log = m.log()
    assert "config.toml: not valid TOML at line 2, column" in log
    assert "using every default" in log
    assert m.ctl("list").json["type"] == "list"
    assert config.read_text() == broken

    config.write_text('[tmux]\npopup_key = "A"\nshout = 1\n')
    m.stop()
    m.start()
    assert "config.toml: [tmux] unknown key 'shout' ignored" in m.log()
