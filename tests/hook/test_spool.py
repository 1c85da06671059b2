"""The hook's half of the event spool (mytty.hook.spool): what it keeps, and where it refuses."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from mytty.hook import spool


def _home(tmp_path: Path) -> str:
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    return str(home / "events.sock")


@pytest.mark.parametrize("umask", [0o000, 0o022, 0o077])
def test_an_event_is_kept_whole_and_private_whatever_the_umask(tmp_path: Path, umask: int) -> None:
    sock = _home(tmp_path)
    old = os.umask(umask)
    try:
        assert spool.spool(sock, b'{"x":1}\n')
    finally:
        os.umask(old)
    directory = Path(spool.spool_dir(sock))
    (name,) = os.listdir(directory)
    assert name.endswith(".event") and not name.startswith(".")
    assert (directory / name).read_bytes() == b'{"x":1}\n'
    assert stat.S_IMODE((directory / name).stat().st_mode) == 0o600
    assert stat.S_IMODE(directory.stat().st_mode) & 0o077 == 0


def test_names_sort_in_the_order_the_events_came(tmp_path: Path) -> None:
    sock = _home(tmp_path)
    for i in range(5):
        assert spool.spool(sock, f"{i}\n".encode())
    directory = Path(spool.spool_dir(sock))
    bodies = [(directory / n).read_bytes() for n in sorted(os.listdir(directory))]
    assert bodies == [f"{i}\n".encode() for i in range(5)]


def test_a_missing_home_or_a_symlinked_spool_is_refused(tmp_path: Path) -> None:
    assert not spool.spool(str(tmp_path / "nowhere" / "events.sock"), b"x\n")
    sock = _home(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    os.symlink(elsewhere, spool.spool_dir(sock))
    assert not spool.spool(sock, b"x\n")
    assert os.listdir(elsewhere) == []


def test_a_full_spool_takes_no_more(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(spool, "MAX_SPOOLED", 3)
    sock = _home(tmp_path)
    kept = [spool.spool(sock, b"x\n") for _ in range(5)]
    assert kept == [True, True, True, False, False]
    assert len(os.listdir(spool.spool_dir(sock))) == 3
