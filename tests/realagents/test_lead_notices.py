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

from tests.e2e.jobs_support import completed, job_id, spawn
from tests.realagents.mocks.servers import Turn
from tests.realagents.support import RealUser
from tests.support.harness import wait_until

ANSWER = "Hello from the mock model: the scripted answer."
HEADER = "mytty: news from workers you spawned with --notify-lead:"


def _lead_hears_its_worker_once(user: RealUser, provider: str, api: str, ready: str) -> None:
    mock = user.anthropic if api == "anthropic" else user.openai
    mock.script(Turn.answer(ANSWER))
    user.enable(provider)
    lead = user.m.ctl("new-tab", "--cwd", str(user.work), "--command", provider).json["paneID"]
    user.wait_screen(lead, ready)
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

    user.type_prompt(lead, "What is new with my workers?")
    asked = wait_until(
        lambda: user.requests_with(api, "What is new with my workers?"),
        60,
        message="the lead's prompt at the mock model",
    )
    told = [r for r in asked if HEADER in json.dumps(r.body)]
    assert told, [r.body for r in asked]
    assert job_id(worker) in json.dumps(told[0].body)

    user.type_prompt(lead, "Anything else?")
    again = wait_until(
        lambda: user.requests_with(api, "Anything else?"),
        60,
        message="the lead's second prompt at the mock model",
    )
    # The first notice is in the conversation's history; no second one was added.
    assert json.dumps(again[-1].body).count(HEADER) == 1, again[-1].body
    user.assert_no_leaks(provider)


def test_claude_lead_hears_its_worker_at_its_next_prompt_once(user: RealUser) -> None:
    _lead_hears_its_worker_once(user, "claude", "anthropic", "shift+tab to cycle")


def test_codex_lead_hears_its_worker_at_its_next_prompt_once(user: RealUser) -> None:
    # Codex fires SessionStart with the first prompt, ~20 ms before UserPromptSubmit, so here
    # the notice is taken (and proven honoured) by SessionStart's additionalContext.
    _lead_hears_its_worker_once(user, "codex", "openai", "OpenAI Codex")


def test_claude_lead_started_after_its_worker_ended_hears_at_session_start(
    user: RealUser,
) -> None:
    """SessionStart's additionalContext: the notice taken by the lead's SessionStart hook (at
    launch, before any prompt) is in the model request of its first prompt."""
    user.anthropic.script(Turn.answer(ANSWER))
    user.enable("claude")
    lead = user.anchor()  # a shell for now: the lead agent starts only after the worker ended
    worker = spawn(
        user.m,
        "--provider",
        "claude",
        "--anchor",
        lead,
        "--cwd",
        str(user.work),
        "--notify-lead",
        "--task",
        "Say hello.",
    )
    assert completed(user.m, worker, 90)["state"] == "succeeded"
    user.m.ctl("send", lead, "claude", "--enter").ok()
    user.wait_screen(lead, "shift+tab to cycle")
    user.type_prompt(lead, "First prompt of the new lead.")
    asked = wait_until(
        lambda: user.requests_with("anthropic", "First prompt of the new lead."),
        60,
        message="the new lead's first prompt at the mock model",
    )
    told = [r for r in asked if HEADER in json.dumps(r.body)]
    assert told and job_id(worker) in json.dumps(told[0].body), [r.body for r in asked]
    user.assert_no_leaks("claude")


def test_claude_lead_is_not_told_mid_turn(user: RealUser) -> None:
    """The worker ends while the lead's model reply is held: nothing reaches the lead during
    that turn or at its Stop; the notice arrives with the lead's next prompt and only there."""
    user.anthropic.script(Turn.answer(ANSWER))
    user.enable("claude")
    lead = user.m.ctl("new-tab", "--cwd", str(user.work), "--command", "claude").json["paneID"]
    user.wait_screen(lead, "shift+tab to cycle")
    user.anthropic.script(Turn.answer(ANSWER, delay=15))  # the lead's turn stays busy
    user.type_prompt(lead, "A long first turn.")
    wait_until(
        lambda: user.requests_with("anthropic", "A long first turn."),
        60,
        message="the lead's busy turn at the mock model",
    )
    user.anthropic.script(Turn.answer(ANSWER))  # the worker answers at once
    worker = spawn(
        user.m,
        "--provider",
        "claude",
        "--anchor",
        lead,
        "--cwd",
        str(user.work),
        "--notify-lead",
        "--task",
        "Say hello.",
    )
    assert completed(user.m, worker, 90)["state"] == "succeeded"
    busy = user.m.ctl("wait", lead, "--until", "idle", "--timeout-seconds", "0").json
    assert busy == {"type": "waitResult", "state": "running", "timedOut": True}  # mid-turn
    done = user.m.ctl("wait", lead, "--until", "idle", "--timeout-seconds", "60").json
    assert done["timedOut"] is False, done  # the lead's turn ended (its Stop hook ran)
    user.type_prompt(lead, "The next prompt.")
    wait_until(
        lambda: user.requests_with("anthropic", "The next prompt."),
        60,
        message="the lead's next prompt at the mock model",
    )
    told = user.requests_with("anthropic", HEADER)
    assert told, "the notice never reached the model"
    # Every request that carries the notice is of the next prompt: none mid-turn or at Stop.
    assert all("The next prompt." in json.dumps(r.body) for r in told), [r.body for r in told]
    user.assert_no_leaks("claude")
