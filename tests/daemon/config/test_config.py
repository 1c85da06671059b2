"""config.toml in the home: first start writes defaults, bad files are reported, never rewritten."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from mytty.core.admission.defaults import Machine
from mytty.core.config import DEFAULTS, default_text, defaults_for
from mytty.daemon.config.load import config_path, load_settings, read_settings
from mytty.daemon.resources.memory import this_machine


def test_first_start_writes_the_commented_defaults(tmp_path: Path) -> None:
    settings, warnings = load_settings(tmp_path)
    # [admission] is derived from this machine's memory and CPUs.
    assert (settings, warnings) == (defaults_for(this_machine()), [])
    path = config_path(tmp_path)
    assert path.read_text() == default_text(this_machine())
    assert oct(path.stat().st_mode & 0o777) == oct(0o600)
    assert [p.name for p in tmp_path.iterdir()] == ["config.toml"]  # no temp file left


def test_an_existing_file_is_read_and_never_rewritten(tmp_path: Path) -> None:
    path = config_path(tmp_path)
    path.write_text("# mine\n[notify]\ncooldown = 5\nextra = 1\n")
    before = path.read_bytes()
    settings, warnings = load_settings(tmp_path)
    assert settings.notify.cooldown == 5.0
    assert warnings == ["[notify] unknown key 'extra' ignored"]
    assert path.read_bytes() == before


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("[notify]\ncooldown = 5\ntimeout = = 3\n", "line 3, column"),
        ('[notify]\nchannels = ["bell"\n', "line "),
        ("[notify]\ncooldown = 5\ncooldown = 6\n", "line 3"),  # duplicate key
    ],
)
def test_a_malformed_file_keeps_defaults_is_located_and_untouched(
    tmp_path: Path, text: str, where: str
) -> None:
    path = config_path(tmp_path)
    path.write_text(text)
    settings, warnings = load_settings(tmp_path)
    assert settings == DEFAULTS
    assert len(warnings) == 1 and warnings[0].startswith("not valid TOML"), warnings
    assert where in warnings[0]
    assert path.read_text() == text


def test_the_column_is_the_offending_one(tmp_path: Path) -> None:
    config_path(tmp_path).write_text("[tmux]\npopup_key = 'A\n")
    _, [warning] = read_settings(tmp_path)
    assert "line 2, column" in warning


def test_undecodable_bytes_are_reported(tmp_path: Path) -> None:
    config_path(tmp_path).write_bytes(b"[notify]\ncommand = '\xff'\n")
    settings, [warning] = read_settings(tmp_path)
    assert settings == DEFAULTS
    assert "not UTF-8 at line 2" in warning


def test_read_settings_writes_nothing(tmp_path: Path) -> None:
    assert read_settings(tmp_path) == (DEFAULTS, [])
    assert not config_path(tmp_path).exists()


def test_a_dangling_symlink_is_not_replaced(tmp_path: Path) -> None:
    os.symlink(tmp_path / "elsewhere.toml", config_path(tmp_path))
    settings, _ = load_settings(tmp_path)
    assert settings == DEFAULTS
    assert os.path.islink(config_path(tmp_path))
    assert not (tmp_path / "elsewhere.toml").exists()


def test_first_start_derives_the_admission_limits_from_the_machine(tmp_path: Path) -> None:
    machine = Machine(total_memory_mb=16384, cpus=8)
    settings, _warnings = load_settings(tmp_path, machine)
    assert settings.admission.max_workers == 12
    assert settings.admission.min_available_memory_mb == 1536
    assert settings.admission.max_workers_per_lead is None  # left out: no limit
    assert "16,384 MB of memory, 8 CPUs" in config_path(tmp_path).read_text()
