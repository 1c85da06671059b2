"""Usage limits in transcripts the pinned CLIs wrote against the research mock's 429
(docs/dev/research/limits.md §1.6, §2.5; big request blobs dropped, paths replaced)."""

from __future__ import annotations

import json

from mytty.core.estimation.turn_observation import TurnPhase
from mytty.core.events import AgentEventKind, AgentProvider
from mytty.core.ids import stable_uuid
from mytty.core.limits.facts import LimitFacts
from mytty.core.transcripts.claude import ClaudeTranscript
from mytty.core.transcripts.limits import (
    CLAUDE_LIMIT_HOOK,
    CODEX_LIMIT_HOOK,
    TurnLimit,
    limit_event,
)
from tests.core.transcripts.test_transcripts import SURFACE, claude, codex, encode, lines

RESET = 1796169600.0


def test_claude_usage_limit_row_ends_the_turn_limited_with_its_reset() -> None:
    t = claude(lines("claude_usage_limit.jsonl"))
    obs = t.observation
    assert obs is not None and obs.phase is TurnPhase.LIMITED
    assert obs.key == "0e9b30e2-b21b-4fe3-8474-67a46398e3e8"
    assert obs.message == "You've hit your weekly limit · resets Dec 4, 10:26pm (UTC)"
    [limit] = t.limits
    assert limit.turn == obs.key
    assert limit.facts.window == "seven_day"
    assert limit.facts.resets_at == 1796423163.0  # Dec 4, 10:26pm UTC, as the text says


def test_claude_subscriber_continues_by_itself_in_a_new_turn() -> None:
    t = ClaudeTranscript()
    data = lines("claude_usage_limit_then_auto_continuation.jsonl")
    first_turn = None
    for line in data:
        t.feed(line)
        if t.limits and first_turn is None:
            first_turn = t.observation
    assert first_turn is not None and first_turn.phase is TurnPhase.LIMITED
    final = t.report()
    assert final is not None
    # Claude's own prompt after the reset (isMeta, origin auto-continuation) is a turn.
    assert final.key == "81d14b20-230d-45ad-a5d0-1328814cde24" != first_turn.key
    assert final.phase is TurnPhase.COMPLETED
    assert final.answer == "Hello from the research mock."


def test_claude_api_key_retries_give_the_reset_the_final_row_lacks() -> None:
    prompt = {"type": "user", "promptId": "P1", "message": {"role": "user", "content": "hi"}}
    retry = {
        "type": "system",
        "subtype": "api_error",
        "error": {"status": 429, "rateLimits": {"rateLimitType": "seven_day", "resetsAt": RESET}},
    }
    final = {
        "type": "assistant",
        "message": {"role": "assistant", "content": [{"type": "text", "text": "API Error: 429"}]},
        "error": "rate_limit",
        "isApiErrorMessage": True,
        "apiErrorStatus": 429,
        "apiErrorIsTransient": False,
    }
    t = claude([encode(prompt), encode(retry), encode(final)])
    assert t.limits == [TurnLimit("P1", LimitFacts(RESET, "seven_day", "API Error: 429"))]
    # A later turn's retry rows never leak into another turn.
    t = claude([encode(retry), encode(prompt), encode(final)])
    assert t.limits == [TurnLimit("P1", LimitFacts(None, None, "API Error: 429"))]


def test_claude_other_api_errors_are_no_limit() -> None:
    prompt = {"type": "user", "promptId": "P1", "message": {"role": "user", "content": "hi"}}
    final = {
        "type": "assistant",
        "message": {"role": "assistant", "content": [{"type": "text", "text": "API Error: 400"}]},
        "error": "invalid_request",
        "isApiErrorMessage": True,
    }
    t = claude([encode(prompt), encode(final)])
    assert t.limits == []
    # Not a limit: the turn failed, with the row's text (see test_transcripts.py).
    assert t.observation is not None and t.observation.phase is TurnPhase.FAILED
    assert t.observation.message == "API Error: 400"


def test_codex_usage_limit_ends_the_turn_limited_with_the_snapshot_reset() -> None:
    r = codex(lines("codex_usage_limit.jsonl"))
    obs = r.observation
    assert obs is not None and obs.phase is TurnPhase.LIMITED
    assert obs.key == "01a233a0-d0ca-7202-80be-dbc57503c29b"
    assert obs.message is not None and obs.message.startswith("You\u2019ve hit your usage limit")
    assert r.failure is None  # a limit, not a model API failure
    [limit] = r.limits
    assert limit.facts.resets_at == RESET and limit.facts.window == "five_hour"


def test_codex_usage_limit_without_rate_limit_headers_has_no_reset() -> None:
    data = []
    for line in lines("codex_usage_limit.jsonl"):
        row = json.loads(line)
        if row.get("payload", {}).get("type") == "token_count":
            row["payload"]["rate_limits"] = {
                "limit_id": "codex",
                "primary": None,
                "secondary": None,
            }
        data.append(encode(row))
    [limit] = codex(data).limits
    assert limit.facts.resets_at is None and limit.facts.window is None


def test_the_limit_event_lands_on_the_turn_run_with_a_stable_id() -> None:
    limit = TurnLimit("T1", LimitFacts(RESET, "five_hour", "limit text"))
    ev = limit_event(AgentProvider.CODEX, SURFACE, limit, "S", 5.0)
    again = limit_event(AgentProvider.CODEX, SURFACE, limit, "S", 9.0)
    assert ev.id == again.id == stable_uuid("event", "codex", "limited", "T1")
    assert ev.run_id == stable_uuid("run", "codex", "T1")
    assert ev.kind is AgentEventKind.LIMIT_REACHED and ev.synthesized
    assert ev.hook_name == CODEX_LIMIT_HOOK and ev.message == "limit text"
    claude_ev = limit_event(AgentProvider.CLAUDE_CODE, SURFACE, limit, None, 5.0)
    assert claude_ev.hook_name == CLAUDE_LIMIT_HOOK
