"""``mytty approvals --watch``: a live view in a real terminal that follows the events."""

from __future__ import annotations

import shlex
import subprocess

import pytest

from tests.e2e.approvals_support import HookRun, set_approvals, wait_for_request
from tests.e2e.events_support import open_agent_pane, pane_env_when_exec
from tests.e2e.jobs_support import enable_integrations
from tests.e2e.test_approvals_popup import payload
from tests.support.harness import MYTTY, Mytty, wait_until

pytestmark = pytest.mark.tmux

EMPTY = "No permission request is waiting."


def test_the_watch_shows_a_request_and_drops_it_once_answered(mytty: Mytty) -> None:
    m = mytty
    enable_integrations(m, "claude")  # the installed hook's timeout lets the hold be 60 s
    set_approvals(m, hold=60)
    agent = open_agent_pane(m)
    env = f"MYTTY_HOME={shlex.quote(str(m.mytty_home))} TERM=xterm-256color"
    window = m.tmux(
        "new-window", "-d", "-P", "-F", "#{pane_id}", f"exec env {env} {MYTTY} approvals --watch"
    ).strip()
    m.tmux("resize-window", "-t", window, "-x", "160", "-y", "30")

    def screen() -> str:
        return m.tmux("capture-pane", "-p", "-t", window)

    wait_until(lambda: EMPTY in screen(), 15, message="the empty view")
    hook_env = {**m.env, **pane_env_when_exec(m, agent.pane_id)}
    assert (
        HookRun(m, hook_env, "claude-code", payload("UserPromptSubmit", prompt="go")).result()[0]
        == 0
    )
    asking = HookRun(
        m,
        hook_env,
        "claude-code",
        payload("PermissionRequest", tool_name="Bash", tool_input={"command": "touch /tmp/w1"}),
    )
    request = wait_for_request(m, agent.pane_id)
    # Woken by the events long poll: the row shows without a poll interval.
    wait_until(lambda: request["id"][:8] in screen(), 10, message="the request's row")
    denied = subprocess.run(
        [MYTTY, "deny", request["id"][:8]], env=m.env, capture_output=True, text=True, check=False
    )
    assert denied.returncode == 0, denied.stderr
    assert asking.result()[0] == 0
    wait_until(lambda: EMPTY in screen(), 10, message="the answered request to go")
    m.tmux("send-keys", "-t", window, "C-c")
    wait_until(lambda: window not in m.tmux("list-panes", "-a", "-F", "#{pane_id}"), 10)
