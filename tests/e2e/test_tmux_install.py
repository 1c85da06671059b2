"""``mytty tmux install`` / ``uninstall`` and the attention popup, on a real attached client.

The client is a real ``tmux attach`` on a terminal (tests/support/screen.py): the installed
segments and the popup are read back from that terminal with ``capture-pane``.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator

import pytest

from mytty.tmux.user_formats import BORDER_SEGMENT, STATUS_SEGMENT
from tests.e2e.events_support import AgentPane, K, new_id, open_agent_pane
from tests.support.harness import MYTTY, Mytty, wait_until
from tests.support.screen import Screen

pytestmark = pytest.mark.tmux


def mytty_cli(m: Mytty, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [MYTTY, *args],
        env=m.env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        cwd=str(m.home),
    )


def state(m: Mytty) -> tuple[str, str]:
    """What install must not leave behind: every global option and the prefix-table keys.

    Taken once the controller published its first batch (``@mytty_attention_total`` is the
    controller's, set a moment after it started).
    """
    wait_until(
        lambda: "@mytty_attention_total" in m.tmux("show-options", "-g"),
        10,
        message="the controller's first published batch",
    )
    return m.tmux("show-options", "-g"), m.tmux("list-keys", "-T", "prefix")


@pytest.fixture
def agent(mytty: Mytty) -> AgentPane:
    return open_agent_pane(mytty)  # before any client attaches: it opens in session base


@pytest.fixture
def screen(mytty: Mytty, agent: AgentPane) -> Iterator[Screen]:
    # The human sits in a session of their own; the agent runs elsewhere.
    mytty.tmux("new-session", "-d", "-s", "desk", "-x", "160", "-y", "40")
    s = Screen(mytty, "desk")
    try:
        yield s
    finally:
        s.close()


def test_install_then_uninstall_restores_every_option(mytty: Mytty) -> None:
    m = mytty
    # A user's own formats, with characters that need care (quotes, #, a trailing space).
    m.tmux("set-option", "-g", "status-right", "\"#{pane_title}\" '%H:%M' ## ")
    m.tmux("set-option", "-g", "pane-border-format", "#{pane_index} #{pane_current_command}")
    before = state(m)

    out = mytty_cli(m, "tmux", "install")
    assert out.returncode == 0, out.stderr
    assert "status segment: done" in out.stdout and "popup key (prefix A): done" in out.stdout
    assert m.tmux("show-options", "-gv", "status-right") == (
        "\"#{pane_title}\" '%H:%M' ## " + STATUS_SEGMENT + "\n"
    )
    assert m.tmux("show-options", "-gv", "pane-border-format") == (
        "#{pane_index} #{pane_current_command}" + BORDER_SEGMENT + "\n"
    )
    assert "mytty.cli.popup" in m.tmux("list-keys", "-T", "prefix", "A")
    installed = state(m)

    again = mytty_cli(m, "tmux", "install")  # idempotent
    assert again.returncode == 0 and "already installed" in again.stdout, again
    assert state(m) == installed

    out = mytty_cli(m, "tmux", "uninstall")
    assert out.returncode == 0, out.stderr
    assert state(m) == before  # byte for byte
    out = mytty_cli(m, "tmux", "uninstall")  # nothing left to take out
    assert out.returncode == 0 and "not installed" in out.stdout
    assert state(m) == before


def test_a_format_changed_after_install_keeps_the_change(mytty: Mytty) -> None:
    m = mytty
    before = m.tmux("show-options", "-gv", "status-right")
    assert mytty_cli(m, "tmux", "install").returncode == 0
    changed = m.tmux("show-options", "-gv", "status-right").rstrip("\n") + " #H"
    m.tmux("set-option", "-g", "status-right", changed)
    out = mytty_cli(m, "tmux", "uninstall")
    assert out.returncode == 0 and "only the segment was cut out" in out.stdout, out.stdout
    assert m.tmux("show-options", "-gv", "status-right") == before.rstrip("\n") + " #H\n"
    assert "@mytty_saved" not in m.tmux("show-options", "-g")


def test_an_unknown_key_or_server_changes_nothing(mytty: Mytty) -> None:
    before = state(mytty)
    out = mytty_cli(mytty, "tmux", "install", "--key", "NoSuchKey")
    assert out.returncode == 1 and out.stdout == ""
    assert out.stderr.startswith("mytty: invalid-request: tmux refused: "), out.stderr
    assert state(mytty) == before
    out = mytty_cli(mytty, "tmux", "install", "--tmux-socket", str(mytty.root / "none.sock"))
    assert out.returncode == 1 and out.stderr.startswith("mytty: tmux-unavailable: "), out.stderr


def test_what_is_installed_follows_config_toml(mytty: Mytty) -> None:
    m = mytty
    before = state(m)
    (m.mytty_home / "config.toml").write_text('[tmux]\npopup_key = "M-a"\nstatus_segment = false\n')
    out = mytty_cli(m, "tmux", "install")
    assert out.returncode == 0, out.stderr
    assert "popup key (prefix M-a): done" in out.stdout and "status segment" not in out.stdout
    assert "mytty.cli.popup" in m.tmux("list-keys", "-T", "prefix", "M-a")
    assert STATUS_SEGMENT not in m.tmux("show-options", "-gv", "status-right")
    assert BORDER_SEGMENT in m.tmux("show-options", "-gv", "pane-border-format")
    # The key moves with the config; the old binding goes.
    (m.mytty_home / "config.toml").write_text('[tmux]\npopup_key = "M-b"\n')
    assert mytty_cli(m, "tmux", "install").returncode == 0
    assert "mytty.cli.popup" in m.tmux("list-keys", "-T", "prefix", "M-b")
    assert m.tmux("list-keys", "-T", "prefix", "M-a", check=False) == ""
    assert mytty_cli(m, "tmux", "uninstall").returncode == 0
    assert state(m) == before


def test_a_key_bound_by_the_user_is_not_taken_over(mytty: Mytty) -> None:
    mytty.tmux("bind-key", "-T", "prefix", "A", "display-message", "mine")
    before = state(mytty)
    out = mytty_cli(mytty, "tmux", "install")
    assert out.returncode == 0, out.stderr
    assert "already bound" in out.stdout
    assert "mine" in mytty.tmux("list-keys", "-T", "prefix", "A")
    assert mytty_cli(mytty, "tmux", "uninstall").returncode == 0
    assert state(mytty) == before


def test_segments_and_popup_on_a_real_client(
    mytty: Mytty, agent: AgentPane, screen: Screen
) -> None:
    m = mytty
    m.tmux("set-option", "-g", "pane-border-status", "top")  # the user's choice
    before = state(m)
    assert mytty_cli(m, "tmux", "install").returncode == 0
    agent_tmux = m.tmux_id(agent.pane_id)
    agent_session = m.tmux("display-message", "-p", "-t", agent_tmux, "#{session_name}").strip()
    assert agent_session != "desk"
    run = new_id()
    agent.send(K.STARTED, run_id=run)
    agent.send(K.APPROVAL_REQUESTED, run_id=run, message="may I run the migration?")

    # The status segment, on the human's own session (the count is server-wide).
    screen.wait_for(" attention 1")
    # The pane-border segment, seen once the client looks at the agent's window.
    m.tmux("select-window", "-t", agent_tmux)
    m.tmux("switch-client", "-c", str(screen.client_name()), "-t", "desk")

    screen.press("C-b", "A")
    # The picker's own lines (the status line may show a notification with the same words).
    popup = screen.wait_for("Enter jump and acknowledge")
    row = next(line for line in popup.splitlines() if " 1 " in line and "│" in line)
    for cell in ("claude-code", "approval", "may I run the migration?"):
        assert cell in row, popup
    screen.press("Enter")

    # The client jumped across sessions to the agent's pane, and the item is acknowledged.
    def client_pane() -> str | None:
        out = m.tmux("list-clients", "-F", "#{client_name} #{session_name} #{pane_id}")
        for line in out.splitlines():
            name, session, pane = line.split()
            if name == screen.client_name():
                return f"{session} {pane}"
        return None

    wait_until(lambda: client_pane() == f"{agent_session} {agent_tmux}", 10, message="the jump")
    items = json.loads(mytty_cli(m, "attention", "--json", "--all").stdout)["items"]
    assert [bool(i["resolvedAt"]) for i in items] == [True]
    text = screen.wait_for("[claude-code waiting-approval]")
    assert " attention 1" not in text

    assert mytty_cli(m, "tmux", "uninstall").returncode == 0
    assert state(m) == before
