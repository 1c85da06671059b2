"""A worker that cannot start is said so at once, in its own words (issue 26, item 2).

Before: an offline ``claude`` exited in 1.5 s with ``ENOTFOUND`` (the pane's ``lastExitStatus``
1 at once), yet its job stayed ``launching`` for the 30 s window and then blamed the hooks,
which were installed; a Codex worker at "Sign in with ChatGPT" reported nothing (with hooks)
or was shown ``running`` for ever (without: native estimation sees codex in front), although
it needs a human.

The agents here are small scripts that print what the pinned real CLIs print offline (Claude
Code 2.1.332 with no network, Codex 0.171 with no sign-in) and then exit or wait.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from tests.e2e.jobs_support import agent_wait, enable_integrations, job_id, new_anchor, spawn
from tests.support.harness import Mytty, wait_until

pytestmark = pytest.mark.tmux

OFFLINE_CLAUDE = """#!/usr/bin/env python3
import sys, time
print("Welcome to Claude Code v2.1.332")
time.sleep(1.5)
print(" Unable to connect to Anthropic services")
print(" Failed to connect to api.anthropic.com: ENOTFOUND")
print(" Check your internet connection and network settings.")
print(" https://anthropic.com/supported-countries")
sys.exit(1)
"""

SIGN_IN_CODEX = """#!/usr/bin/env python3
import time
print("  Welcome to Codex, OpenAI's command-line coding agent")
print("  Choose how you want to use Codex.")
print("> 1. Sign in with ChatGPT")
print("  2. Sign in with Device Code")
print("  Press enter to continue", flush=True)
time.sleep(120)
"""


def install(m: Mytty, name: str, text: str) -> None:
    path = m.bin / name
    if path.exists() or path.is_symlink():
        path.unlink()
    path.write_text(text)
    path.chmod(0o755)


def test_an_agent_that_exits_ends_its_job_at_once_in_its_own_words(mytty: Mytty) -> None:
    m = mytty
    enable_integrations(m, "claude")  # the hooks are installed: they are not to blame
    install(m, "claude", OFFLINE_CLAUDE)
    started = time.monotonic()
    job = spawn(m, "--provider", "claude", "--task", "hello", "--anchor", new_anchor(m))
    done = agent_wait(m, job, "completed", 25)  # the launch window is 30 s
    assert done["timedOut"] is False, done
    assert time.monotonic() - started < 20
    state, message = done["job"]["state"], done["job"]["message"]
    assert state == "launch-failed"
    assert message.startswith("claude exited with status 1 before its first run: "), message
    assert "Failed to connect to api.anthropic.com: ENOTFOUND" in message
    assert "hooks" not in message
    items = [i for i in m.request({"type": "attention"})["items"] if i["runID"] == job_id(job)]
    assert [i["kind"] for i in items] == ["launch-failure"] and items[0]["message"] == message


def test_a_codex_worker_at_its_sign_in_screen_waits_for_a_human(mytty: Mytty) -> None:
    m = mytty
    enable_integrations(m, "codex")
    install(m, "codex", SIGN_IN_CODEX)
    job = spawn(m, "--provider", "codex", "--task", "hello", "--anchor", new_anchor(m))
    reply = agent_wait(m, job, "attention", 25)
    assert reply["timedOut"] is False, reply
    assert reply["job"]["state"] == "waiting-input"
    assert reply["job"]["message"] == "not signed in: > 1. Sign in with ChatGPT"
    m.ctl("agent", "close", job_id(job)).ok()


def test_a_codex_worker_without_hooks_at_sign_in_is_not_running(mytty: Mytty) -> None:
    m = mytty  # no integration: native estimation follows codex in the pane's foreground
    install(m, "codex", SIGN_IN_CODEX)
    job = spawn(m, "--provider", "codex", "--task", "hello", "--anchor", new_anchor(m))
    surface = job["paneID"]["rawValue"]

    def shown_state() -> str | None:  # what the border segment and `mytty ls` show
        for line in m.tmux("list-panes", "-a", "-F", "#{@mytty_surface} #{@mytty_state}").split(
            "\n"
        ):
            if line.startswith(surface + " "):
                return line.split(" ", 1)[1]
        return None

    def run_state() -> str | None:  # the pane's most relevant run (native estimation's)
        panes = m.request({"type": "list"})["panes"]
        return next((p.get("agentState") for p in panes if p["paneID"] == surface), None)

    # Native estimation has the codex run running; the pane still shows it needs a human.
    wait_until(lambda: run_state() == "running", 25, message="codex's native run")
    wait_until(lambda: shown_state() == "waiting-input", 25, message="the pane's state")
    # (`agent wait --until attention` needs hooks; `agent result` reconciles the job too.)
    seen = wait_until(
        lambda: (
            (j := m.ctl("agent", "result", job_id(job)).json["job"])["state"] == "waiting-input"
            and j
        ),
        25,
        message="the job to wait for a sign-in",
    )
    assert seen["message"] == "not signed in: > 1. Sign in with ChatGPT"
    # `mytty attention` lists it: the worker needs a human.
    items = wait_until(lambda: sign_in_items(m, job), 10, message="the sign-in's attention item")
    assert [(i["kind"], i["message"]) for i in items] == [("input-request", seen["message"])]
    # The human quits it instead: the job ends, it does not wait for ever.
    pane = seen["paneID"]["rawValue"]
    m.ctl("send-key", pane, "C-c").ok()
    done = wait_until(
        lambda: (
            (j := m.ctl("agent", "result", job_id(job)).json["job"])["state"] != "waiting-input"
            and j
        ),
        20,
        message="the job to end once codex left the pane",
    )
    assert done["state"] in ("launch-failed", "disconnected"), done
    wait_until(lambda: not sign_in_items(m, job), 10, message="the sign-in's item to go")


def sign_in_items(m: Mytty, job: dict[str, Any]) -> list[dict[str, Any]]:
    """The open attention items about the job (its id stands in for the run)."""
    items: list[dict[str, Any]] = m.request({"type": "attention"})["items"]
    return [
        i
        for i in items
        if i["runID"] == job_id(job) and i["kind"] == "input-request" and i["resolvedAt"] is None
    ]
