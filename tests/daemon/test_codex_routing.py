"""Codex routing only trusts files held open by processes in the pane's own session."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from mytty.daemon import procfs
from mytty.daemon.codex_routing import _has_session_file_open, _process_tree

# A "TUI" that keeps one child in its session and forks one "daemon" into a new session; the
# daemon holds the rollout file open, like codex's shared app-server.
TUI = r"""
import subprocess, sys, time
rollout = sys.argv[1]
keep = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
daemon = subprocess.Popen(
    [sys.executable, "-c", "import sys, time; f = open(sys.argv[1]); time.sleep(60)", rollout],
    start_new_session=True,
)
print(keep.pid, daemon.pid, flush=True)
time.sleep(60)
"""


def test_a_daemon_in_its_own_session_is_not_the_panes(tmp_path: Path) -> None:
    session = "019a0000-0000-7000-8000-00000000abcd"
    rollout = tmp_path / f"rollout-2026-11-30T00-00-00-{session}.jsonl"
    rollout.write_text("")
    tui = subprocess.Popen(
        [sys.executable, "-c", TUI, str(rollout)],
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        assert tui.stdout is not None
        keep_pid, daemon_pid = (int(x) for x in tui.stdout.readline().split())
        deadline = time.monotonic() + 10
        while not _has_session_file_open(daemon_pid, session) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert _has_session_file_open(daemon_pid, session)
        own = procfs.session_id(tui.pid)
        tree = _process_tree(tui.pid, own)
        assert keep_pid in tree and daemon_pid not in tree
        # Without the session filter the daemon would be taken for the pane's own process.
        assert daemon_pid in _process_tree(tui.pid, None)
        assert not any(_has_session_file_open(pid, session) for pid in tree)
    finally:
        for pid in (tui.pid,):
            try:
                os.killpg(pid, 9)
            except ProcessLookupError:
                pass
        tui.wait()
        try:
            os.kill(daemon_pid, 9)  # its own session: not in the TUI's process group
        except (ProcessLookupError, UnboundLocalError):
            pass
