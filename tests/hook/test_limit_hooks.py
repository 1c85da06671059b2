"""The usage-limit hooks of the pinned CLIs (docs/dev/research/limits.md §1.5, §2.4): Claude's
StopFailure ``rate_limit`` and Codex's failed PostModelRequest become ``limit-reached``."""

from __future__ import annotations

from typing import Any

from mytty.core.events import AgentEventKind
from mytty.core.ids import stable_uuid
from mytty.hook.adapt import adapt

from .conftest import SURFACE_ID

CLAUDE_LIMIT_TEXT = "You've hit your 5-hour limit · resets 12am (UTC)"
#: Claude Code 2.1.332's StopFailure of a usage limit, as captured (TUI and -p alike).
CLAUDE_STOP_FAILURE: dict[str, Any] = {
    "session_id": "664226fe-6b57-4a1f-9f00-8fd6d4f6d5a1",
    "transcript_path": "/tmp/x/.claude/projects/-tmp-x/664226fe-6b57-4a1f-9f00-8fd6d4f6d5a1.jsonl",
    "cwd": "/tmp/x",
    "prompt_id": "f97fd987-0b47-4e1a-a4b3-7c41dc1f5a20",
    "effort": {"level": "medium"},
    "hook_event_name": "StopFailure",
    "error": "rate_limit",
    "last_assistant_message": CLAUDE_LIMIT_TEXT,
}
CODEX_LIMIT_TEXT = (
    "You\u2019ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), visit "
    "https://chatgpt.com/settings/usage to purchase more credits or try again at Dec 2nd, 2026 "
    "12:00 AM."
)
#: Codex 0.171.0's PostModelRequest of the request that hit the usage limit, as captured.
CODEX_POST_MODEL_REQUEST: dict[str, Any] = {
    "kind": "sampling",
    "request_id": "d6f05815-1111-4222-8333-444455556666",
    "attempt_number": 1,
    "session_id": "01a233a0-d09f-7000-8000-000000000001",
    "thread_id": "01a233a0-d09f-7000-8000-000000000001",
    "turn_id": "01a233a0-d0ca-7000-8000-000000000002",
    "cwd": "/tmp/x",
    "transcript_path": "/tmp/x/rollout-2026-12-01T22-01-46-01a233a0.jsonl",
    "model": "gpt-mock",
    "hook_event_name": "PostModelRequest",
    "status": "failed",
    "error": CODEX_LIMIT_TEXT,
    "token_usage": None,
    "response_id": None,
}


def test_claude_rate_limit_stop_failure_parks_the_prompt_run() -> None:
    ev = adapt("claude-code", CLAUDE_STOP_FAILURE, surface_id=SURFACE_ID, occurred_at=1e9)
    assert ev is not None
    assert ev.kind is AgentEventKind.LIMIT_REACHED
    assert ev.run_id == stable_uuid("run", "claude-code", CLAUDE_STOP_FAILURE["prompt_id"])
    assert ev.message == CLAUDE_LIMIT_TEXT
    assert ev.last_assistant_message is None  # the limit's text is no answer of the turn
    assert ev.hook_name == "StopFailure"


def test_claude_other_stop_failures_still_fail() -> None:
    for error in ("server_error", "unknown", "overloaded", None):
        payload = dict(CLAUDE_STOP_FAILURE, error=error)
        ev = adapt("claude-code", payload, surface_id=SURFACE_ID, occurred_at=1e9)
        assert ev is not None and ev.kind is AgentEventKind.FAILED


def test_codex_failed_model_request_at_the_usage_limit_parks_the_turn_run() -> None:
    ev = adapt("codex", CODEX_POST_MODEL_REQUEST, surface_id=SURFACE_ID, occurred_at=1e9)
    assert ev is not None
    assert ev.kind is AgentEventKind.LIMIT_REACHED
    assert ev.run_id == stable_uuid("run", "codex", CODEX_POST_MODEL_REQUEST["turn_id"])
    assert ev.message == CODEX_LIMIT_TEXT
    assert ev.session_id == CODEX_POST_MODEL_REQUEST["session_id"]


def test_codex_other_model_requests_are_not_followed() -> None:
    completed = dict(
        CODEX_POST_MODEL_REQUEST,
        status="completed",
        error=None,
        token_usage={"input_tokens": 3},
        response_id="resp_1",
    )
    other_failure = dict(CODEX_POST_MODEL_REQUEST, error="unexpected status 500 Internal Error")
    subagent = dict(CODEX_POST_MODEL_REQUEST, agent_id="01a233a0-aaaa-7000-8000-000000000009")
    for payload in (completed, other_failure, subagent):
        assert adapt("codex", payload, surface_id=SURFACE_ID, occurred_at=1e9) is None
