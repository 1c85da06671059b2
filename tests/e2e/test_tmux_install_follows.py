"""``mytty tmux install`` turns border text on when asked, and follows a new tmux server
(issue 26, item 10). Before: with ``pane-border-status`` off the border segment was skipped
with no way to turn it on from mytty, and after ``tmux kill-server`` (or ``mytty up`` starting a
new server) the segments and the popup key were gone.
"""

from __future__ import annotations

import subprocess

import pytest

from mytty.tmux.user_formats import BORDER_SEGMENT, STATUS_SEGMENT
from tests.e2e.test_lifecycle import kill_tmux_server
from tests.support.harness import MYTTY, Mytty, wait_until

pytestmark = pytest.mark.tmux


def mytty_cli(m: Mytty, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [MYTTY, *args], env=m.env, capture_output=True, text=True, timeout=60, cwd=str(m.home)
    )


def option(m: Mytty, name: str) -> str:
    return m.tmux("show-options", "-gqv", name).strip()


def test_borders_on_request_and_back_on_uninstall(mytty: Mytty) -> None:
    m = mytty
    assert option(m, "pane-border-status") == "off"
    plain = mytty_cli(m, "tmux", "install")
    assert "mytty tmux install --borders" in plain.stdout  # says how to turn it on
    assert option(m, "pane-border-status") == "off"
    on = mytty_cli(m, "tmux", "install", "--borders")
    assert on.returncode == 0, on.stderr
    assert "pane borders: done" in on.stdout
    assert option(m, "pane-border-status") == "top"
    assert mytty_cli(m, "tmux", "uninstall").returncode == 0
    assert option(m, "pane-border-status") == "off"
    assert BORDER_SEGMENT not in option(m, "pane-border-format")


def test_a_new_tmux_server_gets_the_install_again(mytty: Mytty) -> None:
    m = mytty
    assert mytty_cli(m, "tmux", "install", "--borders").returncode == 0
    assert STATUS_SEGMENT in option(m, "status-right")
    kill_tmux_server(m)
    m.tmux("-f", "/dev/null", "new-session", "-d", "-s", "again")
    # The controller reconnects to the new server and installs it there too.
    wait_until(
        lambda: STATUS_SEGMENT in option(m, "status-right"),
        30,
        message="the status segment on the new server",
    )
    assert BORDER_SEGMENT in option(m, "pane-border-format")
    assert option(m, "pane-border-status") == "top"
    assert "display-popup" in m.tmux("list-keys", "-T", "prefix")
    # Uninstalled, a later server stays as tmux makes it.
    assert mytty_cli(m, "tmux", "uninstall").returncode == 0
    assert not (m.mytty_home / "tmux-install.json").exists()
