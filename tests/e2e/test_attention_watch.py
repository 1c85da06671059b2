"""``mytty attention --watch``: a live view in a real terminal that follows the events."""

from __future__ import annotations

import shlex
import subprocess

import pytest

from tests.e2e.events_support import K, new_id, open_agent_pane
from tests.support.harness import MYTTY, Mytty, wait_until

pytestmark = pytest.mark.tmux


def test_the_watch_follows_new_and_answered_items(mytty: Mytty) -> None:
    m = mytty
    agent = open_agent_pane(m)
    env = f"MYTTY_HOME={shlex.quote(str(m.mytty_home))} TERM=xterm-256color"
    window = m.tmux(
        "new-window", "-d", "-P", "-F", "#{pane_id}", f"exec env {env} {MYTTY} attention --watch"
    ).strip()
    m.tmux("resize-window", "-t", window, "-x", "160", "-y", "30")

    def screen() -> str:
        return m.tmux("capture-pane", "-p", "-t", window)

    wait_until(lambda: "Nothing needs you right now." in screen(), 15, message="the empty view")
    run = new_id()
    agent.send(K.STARTED, run_id=run)
    agent.send(K.APPROVAL_REQUESTED, run_id=run, message="may I deploy?")
    # Within one round trip of the events long-poll, not a poll interval.
    text = wait_until(lambda: next((t for t in [screen()] if "may I deploy?" in t), None), 10)
    assert "approval" in text and "claude-code" in text
    agent.send(K.RUNNING, run_id=run)  # answered: the item is resolved and leaves the view
    wait_until(lambda: "Nothing needs you right now." in screen(), 10, message="the item to go")
    m.tmux("send-keys", "-t", window, "C-c")
    wait_until(lambda: window not in m.tmux("list-panes", "-a", "-F", "#{pane_id}"), 10)


def test_watch_and_json_do_not_mix(mytty: Mytty) -> None:
    out = subprocess.run(
        [MYTTY, "attention", "--watch", "--json"],
        env=mytty.env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode == 1 and out.stdout == ""
    assert out.stderr.startswith("mytty: usage: ")
