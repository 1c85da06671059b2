"""Lead notices on the real CLIs (issue 13 item 4): which hook output the pinned Claude Code
and Codex honour, proven by what reaches the mock model.

A real lead runs in a pane; a real worker is spawned from it with ``--notify-lead`` and ends.
The lead is then prompted by typing, as its user would: its ``UserPromptSubmit`` hook's
``hookSpecificOutput.additionalContext`` (printed by ``mytty-agent-hook``) must appear in the
model request of that prompt, and only there: the next prompt brings no second notice.
"""

from __future__ import annotations

import json
from typing import Any

from mytty.verify.mock_api import Logged
from tests.e2e.jobs_support import completed, job_id, spawn
from tests.realagents.mocks.servers import Turn
from tests.realagents.support import RealUser
from tests.support.harness import wait_until

ANSWER = "Hello from the mock model: the scripted answer."
HEADER = "mytty: news from workers you spawned with --notify-lead:"


def _requests_with(user: RealUser, api: str, needle: str) -> list[Logged]:
    mock = user.anthropic if api == "anthropic" else user.openai
    return [
        r
        for r in mock.requests
        if r.method == "POST" and "count_tokens" not in r.path and needle in json.dumps(r.body)
    ]


def _wait_screen(user: RealUser, pane: str, needle: str, timeout: float = 60) -> None:
    try:
        user.m.wait_for_text(pane, needle, timeout)
    except AssertionError as exc:
        raise AssertionError(f"{exc}; the screen:\n{user.m.read(pane)}") from None


def _type_prompt(user: RealUser, pane: str, text: str) -> None:
    user.m.ctl("send", pane, text).ok()
    _wait_screen(user, pane, text, 20)
    user.m.ctl("send-key", pane, "Enter").ok()


def _lead_hears_its_worker_once(user: RealUser, provider: str, api: str, ready: str) -> None:
    mock = user.anthropic if api == "anthropic" else user.openai
    mock.script(Turn.answer(ANSWER))
    user.enable(provider)
    lead = user.m.ctl("new-tab", "--cwd", str(user.work), "--command", provider).json["paneID"]
    _wait_screen(user, lead, ready)
    worker: dict[str, Any] = spawn(
        user.m,
        "--provider",
        provider,
        "--anchor",
        lead,
        "--cwd",
        str(user.work),
        "--notify-lead",
        "--label",
        "greeter",
        "--task",
        "Say hello.",
    )
    assert completed(user.m, worker, 90)["state"] == "succeeded"
    assert HEADER not in user.m.read(lead)  # nothing was typed into the lead

    _type_prompt(user, lead, "What is new with my workers?")
    asked = wait_until(
        lambda: _requests_with(user, api, "What is new with my workers?"),
        60,
        message="the lead's prompt at the mock model",
    )
    told = [r for r in asked if HEADER in json.dumps(r.body)]
    assert told, [r.body for r in asked]
    assert job_id(worker) in json.dumps(told[0].body)

    _type_prompt(user, lead, "Anything else?")
    again = wait_until(
        lambda: _requests_with(user, api, "Anything else?"),
        60,
        message="the lead's second prompt at the mock model",
    )
    # The first notice is in the conversation's history; no second one was added.
    assert json.dumps(again[-1].body).count(HEADER) == 1, again[-1].body
    user.assert_no_leaks(provider)


def test_claude_lead_hears_its_worker_at_its_next_prompt_once(user: RealUser) -> None:
    _lead_hears_its_worker_once(user, "claude", "anthropic", "shift+tab to cycle")


def test_codex_lead_hears_its_worker_at_its_next_prompt_once(user: RealUser) -> None:
    _lead_hears_its_worker_once(user, "codex", "openai", "OpenAI Codex")
