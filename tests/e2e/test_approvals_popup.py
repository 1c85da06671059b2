"""The attention popup answers a permission request, on a real attached client (prefix A)."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator

import pytest

from tests.e2e.approvals_support import HookRun, open_approvals, set_approvals, wait_for_request
from tests.e2e.events_support import open_agent_pane, pane_env_when_exec
from tests.e2e.jobs_support import enable_integrations
from tests.support.harness import MYTTY, Mytty, wait_until
from tests.support.screen import Screen

pytestmark = pytest.mark.tmux

ALLOW = b'{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}\n'


def payload(event: str, **fields: object) -> dict[str, object]:
    return {
        "session_id": "87680a1b-f20b-42b1-9eea-1a4cda672aad",
        "transcript_path": "/tmp/t.jsonl",
        "cwd": "/tmp",
        "prompt_id": "5c1685ec-8bbd-4f90-9d9d-30fb07841708",
        "permission_mode": "default",
        "hook_event_name": event,
        **fields,
    }


@pytest.fixture
def screen(mytty: Mytty) -> Iterator[Screen]:
    mytty.tmux("new-session", "-d", "-s", "desk", "-x", "160", "-y", "40")
    s = Screen(mytty, "desk")
    try:
        yield s
    finally:
        s.close()


def test_the_popup_approves_the_request_of_an_approval_item(mytty: Mytty, screen: Screen) -> None:
    m = mytty
    # Installed, the hook's 630 s timeout lets the broker hold the whole 60 s (uninstalled it
    # would cut the hold to about 1 s, shorter than a loaded machine takes to show the popup).
    enable_integrations(m, "claude")
    set_approvals(m, hold=60)
    out = subprocess.run([MYTTY, "tmux", "install"], env=m.env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    agent = open_agent_pane(m)
    env = {**m.env, **pane_env_when_exec(m, agent.pane_id)}
    started = HookRun(m, env, "claude-code", payload("UserPromptSubmit", prompt="go"))
    assert started.result()[0] == 0
    asking = HookRun(
        m,
        env,
        "claude-code",
        payload(
            "PermissionRequest",
            tool_name="Bash",
            tool_input={"command": "touch /tmp/popup-\x1b[31mred", "description": "d"},
        ),
    )
    request = wait_for_request(m, agent.pane_id)
    screen.press("C-b", "A")
    popup = screen.wait_for("a approve · d deny · m deny with a message")
    row = next(line for line in popup.splitlines() if " 1 " in line and "│" in line)
    assert "approval" in row and "Bash: touch /tmp/popup-\\x1b[31mred" in row, popup
    screen.press("a")
    screen.wait_for("allow " + request["id"][:8])
    code, stdout, _ = asking.result()
    assert (code, stdout) == (0, ALLOW)
    screen.wait_for("Nothing needs you right now.")
    screen.press("q")
    assert open_approvals(m) == []
    log = json.loads(
        subprocess.run(
            [MYTTY, "approvals", "log", "--json"], env=m.env, capture_output=True, text=True
        ).stdout
    )
    assert log[0]["decidedBy"] == "human:popup"
    wait_until(
        lambda: not [i for i in m.request({"type": "attention"})["items"] if not i["resolvedAt"]],
        10,
    )
