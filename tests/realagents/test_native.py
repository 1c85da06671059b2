"""Scenario 4: no hooks installed, the real Claude Code and Codex workers still complete.

Nothing runs ``mytty integrations enable``: the only source of run state is the controller's
native estimation (docs/explanation/native-estimation.md): the agent seen in the pane's
foreground through /proc, and the per-turn rows of the agent's own transcript (Claude's
``~/.claude/projects/<slug>/<session>.jsonl``, Codex's rollout). Every event is synthesized,
with a ``mytty.native.*`` hook name.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.events_support import stored_events
from tests.e2e.jobs_support import (
    agent_result,
    agent_wait,
    completed,
    listed,
    pane_of,
    run_id,
)
from tests.realagents.mocks.servers import Turn
from tests.realagents.support import RealUser

ANSWER = "Hello from the mock model: the scripted answer."
NATIVE = "mytty.native."
PROVIDER = {"claude": "claude-code", "codex": "codex"}


def _pane_events(user: RealUser, pane: str) -> list[dict[str, Any]]:
    return [e for e in stored_events(user.m) if e["surfaceID"]["rawValue"] == pane]


def _no_integration(user: RealUser) -> None:
    statuses = {
        i["provider"]: i["status"] for i in user.m.ctl("integration", "list").json["integrations"]
    }
    assert statuses["claude-code"] == "not-installed" and statuses["codex"] == "not-installed"


def _native_answer(user: RealUser, provider: str) -> None:
    _no_integration(user)
    job = user.spawn(provider, "Say hello.")
    pane = pane_of(job)
    running = agent_wait(user.m, job, "running", 60)
    assert running["timedOut"] is False, running
    assert running["job"]["state"] in {"running", "succeeded"}, running
    done = completed(user.m, job, 90)
    assert done["state"] == "succeeded", done
    assert run_id(done) is not None, done
    result = agent_result(user.m, job)
    assert ANSWER in result["content"]["text"], result["content"]["text"]
    entry = listed(user.m, pane)
    assert entry is not None and entry["provider"] == PROVIDER[provider], entry
    # Nothing but the controller's own estimation reported: the ledger says synthesized, the
    # stored events carry mytty.native.* hook names and no session id.
    ledger = user.m.ctl("events", "--after", "0", "--timeout", "0").json["records"]
    ledger = [r for r in ledger if r["paneID"] == pane]
    assert ledger and all(r["synthesized"] is True for r in ledger), ledger
    events = _pane_events(user, pane)
    assert len(events) == len(ledger), (events, ledger)
    for e in events:
        assert e["hookName"].startswith(NATIVE), e
        assert e.get("sessionID") is None, e
    mine = [(e["kind"], e["hookName"]) for e in events if e["runID"]["rawValue"] == run_id(done)]
    assert mine[-1] == ("succeeded", NATIVE + "turnCompleted"), mine
    user.assert_no_leaks(provider)


def test_claude_without_hooks_completes_through_native_estimation(user: RealUser) -> None:
    user.anthropic.script(Turn.answer(ANSWER))
    _native_answer(user, "claude")


def test_codex_without_hooks_completes_through_native_estimation(user: RealUser) -> None:
    user.openai.script(Turn.answer(ANSWER))
    _native_answer(user, "codex")


@pytest.mark.parametrize("provider", ["claude", "codex"])
def test_without_hooks_the_result_has_the_last_assistant_message(
    user: RealUser, provider: str
) -> None:
    (user.anthropic if provider == "claude" else user.openai).script(Turn.answer(ANSWER))
    job = user.spawn(provider, "Say hello.")
    assert completed(user.m, job, 90)["state"] == "succeeded"
    assert agent_result(user.m, job)["lastAssistantMessage"] == ANSWER


def test_codex_api_error_without_hooks_fails_the_job_with_the_message(user: RealUser) -> None:
    """Codex 0.171.0 writes the turn's ``task_complete`` with ``last_agent_message: null`` and
    ``error.message`` when the model API fails, and fires no hook: the job is ``failed`` with
    that message (the original's turn machine knows only active/completed/interrupted)."""
    message = "mock failure: the scripted API error"
    user.openai.script(Turn.error(400, message))
    _no_integration(user)
    job = user.spawn("codex", "Say hello.")
    done = completed(user.m, job, 120)
    pane = pane_of(job)
    names = [
        (e["kind"], e["hookName"], e["runID"]["rawValue"][:8]) for e in _pane_events(user, pane)
    ]
    assert done["state"] == "failed", names
    assert message in (done["message"] or ""), done
    user.assert_no_leaks("codex")
