"""What mytty writes under $MYTTY_HOME is private whatever the umask (issue 19).

Everything runs under umask 000 (the tmux server, so the panes' shells too, and the
controller): the shell integration's event file (it holds the pane's capability), the record
of the tmux socket (a path ``mytty up`` would follow), the capability key, the store, the log,
the lock and the config are 0600 and the directories 0700; the guide is documentation and
0644 but never writable by others. An event file an older integration left readable is
tightened when the controller next reads it.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.e2e.test_shell_integration import (
    SHELLS,
    new_pane,
    run_and_wait,
    shell_path,
    wait_for_first_prompt,
)
from tests.support.harness import Mytty

pytestmark = [pytest.mark.tmux, pytest.mark.reliability]

#: Files that may be other than 0600, and what they must be.
DOCUMENTATION = {"mytty-ctl.md": 0o644}


@contextmanager
def umask(mask: int) -> Iterator[None]:
    old = os.umask(mask)
    try:
        yield
    finally:
        os.umask(old)


def modes(root: Path) -> dict[str, int]:
    """Every file and directory under ``root`` with its permission bits."""
    found = {".": stat.S_IMODE(root.lstat().st_mode)}
    for path in root.rglob("*"):
        found[str(path.relative_to(root))] = stat.S_IMODE(path.lstat().st_mode)
    return found


def process_umask(pid: int) -> str:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("Umask:"):
            return line.split()[1]
    raise AssertionError("no Umask line")


@pytest.mark.parametrize("shell", SHELLS)
def test_every_file_under_the_home_is_private_under_umask_000(shell: str) -> None:
    with umask(0):
        m = Mytty(extra_env={"SHELL": shell_path(shell)})
        try:
            m.start()
            pane, tmux_id = new_pane(m)
            wait_for_first_prompt(m, pane)  # the integration created its event file
            pid = int(m.tmux("display-message", "-p", "-t", tmux_id, "#{pane_pid}").strip())
            assert process_umask(pid) == "0000"  # the shell really runs with umask 000
            assert m.proc is not None and process_umask(m.proc.pid) == "0000"
            found = modes(m.mytty_home)
            expected = {"capability.key", "tmux-socket", "mytty.log", "controller.lock"}
            assert expected | {"events.sqlite3", f"shell/{pane}.ev"} <= set(found), found
            loose = {
                name: oct(mode)
                for name, mode in found.items()
                if mode
                != DOCUMENTATION.get(name, 0o700 if (m.mytty_home / name).is_dir() else 0o600)
            }
            assert loose == {}
            # A file an older integration made under the umask is tightened on the next read.
            events = m.mytty_home / "shell" / f"{pane}.ev"
            events.chmod(0o666)
            run_and_wait(m, pane, tmux_id, "true", 0)
            assert stat.S_IMODE(events.stat().st_mode) == 0o600
        finally:
            m.close()
