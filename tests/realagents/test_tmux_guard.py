"""The kill-server guard with the real Claude Code and Codex: a spawned worker's ``tmux
kill-server`` is denied by mytty's PreToolUse hook and the agent honours the deny (the command
never runs, the model is told why); ``tmux -L <own>`` goes through."""

from __future__ import annotations

import pytest

from tests.e2e.jobs_support import agent_result, agent_wait, completed, pane_of
from tests.realagents.mocks.servers import Turn
from tests.realagents.support import RealUser
from tests.support.harness import wait_until


def _alive(user: RealUser) -> bool:
    return "base" in user.m.tmux("list-sessions", "-F", "#{session_name}", check=False)


@pytest.mark.parametrize(("provider", "api"), [("claude", "anthropic"), ("codex", "openai")])
def test_the_agent_honours_the_deny_of_tmux_kill_server(
    user: RealUser, provider: str, api: str
) -> None:
    marker = user.work / "guard_marker"
    # Were the deny ignored, the marker would appear (and the test's own tmux server would go).
    mock = user.anthropic if api == "anthropic" else user.openai
    mock.script(Turn.shell(f"touch {marker}; tmux kill-server"))
    user.enable(provider)  # Codex: records the PreToolUse hook's trust too
    job = user.spawn(provider, "Clean up tmux.")
    done = completed(user.m, job, 90)
    assert done["state"] == "succeeded", done
    said = agent_result(user.m, job)["lastAssistantMessage"]
    # The mock answers a tool result with its first line: the hook's reason reached the model.
    assert said.startswith("Tool finished") and "mytty refused" in said, said
    assert not marker.exists()
    assert _alive(user)
    user.assert_no_leaks(provider)


def test_claude_may_kill_a_tmux_server_of_its_own(user: RealUser) -> None:
    own = f"tmux -L guard-real-{user.m.root.name}"
    marker = user.work / "own_server_done"
    user.anthropic.script(
        Turn.shell(f"{own} new-session -d && {own} kill-server && echo killed-own > {marker}")
    )
    user.enable("claude")
    job = user.spawn("claude", "Use your own tmux server.")
    # Claude may ask before running it (workspace-write): then approve, as a user would.
    reply = agent_wait(user.m, job, "attention", 90)
    if reply["job"]["state"] == "waiting-approval":
        pane = pane_of(job)
        user.m.wait_for_text(pane, "Do you want to proceed?", 30)
        user.m.ctl("send-key", pane, "Enter").ok()
    done = completed(user.m, job, 90)
    assert done["state"] == "succeeded", done
    assert "mytty refused" not in agent_result(user.m, job)["lastAssistantMessage"]
    wait_until(marker.exists, 10, message="the command to run")
    assert marker.read_text().strip() == "killed-own"
    assert _alive(user)
    user.assert_no_leaks("claude")
