"""config.toml with a real controller: written on first start, a broken one reported and kept,
an edit applied when it is saved."""

from __future__ import annotations

import json
import subprocess
from typing import Any

import pytest

from mytty.core.config import default_text
from mytty.daemon.resources.memory import this_machine
from tests.support.harness import MYTTY, Mytty, wait_until

pytestmark = pytest.mark.tmux


def test_first_start_writes_the_defaults_and_a_restart_keeps_edits(bare_mytty: Mytty) -> None:
    m = bare_mytty
    m.start()
    config = m.mytty_home / "config.toml"
    written = default_text(this_machine())  # [admission] is derived from the machine
    assert config.read_text() == written
    edited = written.replace("cooldown = 30", "cooldown = 5")
    config.write_text(edited)
    m.stop()
    m.start()
    assert config.read_text() == edited
    # Nothing to warn about (the edit, saved while it ran, was reloaded).
    assert [line for line in m.log().splitlines() if "config.toml" in line] == [
        line for line in m.log().splitlines() if "config.toml: reloaded" in line
    ]


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


def _notify_test(m: Mytty) -> dict[str, Any]:
    done = subprocess.run(
        [MYTTY, "notify", "test", "--json"], env=m.env, capture_output=True, text=True, timeout=60
    )
    reply: dict[str, Any] = json.loads(done.stdout)
    return reply


def test_a_saved_edit_takes_effect_without_a_restart(bare_mytty: Mytty) -> None:
    """The running controller reads config.toml again when it is saved: the next notification
    uses the new command; a half-edited save keeps the settings in use and is left alone."""
    m = bare_mytty
    first, second = m.root / "first.jsonl", m.root / "second.jsonl"
    m.mytty_home.mkdir(parents=True)
    config = m.mytty_home / "config.toml"
    config.write_text(f'[notify]\nchannels = ["command"]\ncommand = "cat >> {first}"\n')
    m.start()
    assert [c["channel"] for c in _notify_test(m)["channels"]] == ["command"]
    assert first.read_text()

    config.write_text(f'[notify]\nchannels = ["command"]\ncommand = "cat >> {second}"\n')
    wait_until(lambda: "config.toml: reloaded" in m.log(), 10, message="the reload")
    _notify_test(m)
    assert second.read_text() and len(first.read_text().splitlines()) == 1

    broken = f'[notify]\nchannels = ["command"\ncommand = "cat >> {first}"\n'
    config.write_text(broken)
    wait_until(lambda: "keeping the settings in use" in m.log(), 10, message="the warning")
    _notify_test(m)
    assert len(second.read_text().splitlines()) == 2 and len(first.read_text().splitlines()) == 1
    assert config.read_text() == broken
    assert m.ctl("list").json["type"] == "list"
