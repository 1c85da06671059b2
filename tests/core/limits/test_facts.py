"""Reading a usage limit's reset and window from the providers' own records (research §1.6, §2.5)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from mytty.core.limits.facts import (
    LimitFacts,
    claude_limit,
    claude_retry_limits,
    codex_limit,
    codex_window_name,
    reset_time,
)

RESET = 1796169600  # 2026-12-02T00:00:00Z
WEEK = 1796601600

#: The limit row of Claude Code 2.1.332 (gateway/OAuth login), fields as captured.
CLAUDE_LIMIT_ROW = {
    "type": "assistant",
    "message": {
        "model": "<synthetic>",
        "role": "assistant",
        "stop_reason": "stop_sequence",
        "content": [{"type": "text", "text": "You've hit your 5-hour limit · resets 12am (UTC)"}],
    },
    "requestId": "req_mock_limit",
    "apiError": "usage_limit_reached",
    "apiErrorParams": {
        "rate_limit_info": {
            "status": "rejected",
            "resetsAt": RESET,
            "rateLimitType": "five_hour",
            "isUsingOverage": False,
        }
    },
    "quotaLimits": {
        "status": "rejected",
        "resetsAt": RESET,
        "unifiedRateLimitFallbackAvailable": False,
        "rateLimitType": "five_hour",
        "isUsingOverage": False,
    },
    "error": "rate_limit",
    "isApiErrorMessage": True,
    "apiErrorStatus": 429,
    "apiErrorType": "rate_limit_error",
}


def test_claude_limit_row_gives_the_reset_and_window() -> None:
    facts = claude_limit(CLAUDE_LIMIT_ROW, "text")
    assert facts == LimitFacts(float(RESET), "five_hour", "text")


def test_claude_limit_falls_back_to_the_rate_limit_info() -> None:
    row = {k: v for k, v in CLAUDE_LIMIT_ROW.items() if k != "quotaLimits"}
    assert claude_limit(row, None) == LimitFacts(float(RESET), "five_hour")


def test_claude_api_key_row_has_no_reset() -> None:
    row = {k: v for k, v in CLAUDE_LIMIT_ROW.items() if k not in ("quotaLimits", "apiErrorParams")}
    assert claude_limit(row, "API Error") == LimitFacts(None, None, "API Error")


def test_claude_retry_row_carries_the_rate_limits() -> None:
    row = {
        "type": "system",
        "subtype": "api_error",
        "level": "error",
        "error": {"status": 429, "rateLimits": {"rateLimitType": "five_hour", "resetsAt": RESET}},
        "retryInMs": 590,
    }
    assert claude_retry_limits(row) == LimitFacts(float(RESET), "five_hour")
    row["error"] = {"status": 429, "rateLimits": None}
    assert claude_retry_limits(row) is None
    assert claude_retry_limits({"type": "system", "subtype": "turn_duration"}) is None


def _snapshot(primary: float | None, secondary: float | None) -> dict[str, object]:
    def window(used: float | None, minutes: int, reset: int) -> object:
        if used is None:
            return None
        return {"used_percent": used, "window_minutes": minutes, "resets_at": reset}

    return {
        "limit_id": "codex",
        "limit_name": None,
        "primary": window(primary, 300, RESET),
        "secondary": window(secondary, 10080, WEEK),
        "credits": {"has_credits": False, "unlimited": False, "balance": "0"},
    }


def test_codex_exhausted_primary_window() -> None:
    assert codex_limit(_snapshot(100.0, 41.0), "m") == LimitFacts(float(RESET), "five_hour", "m")


def test_codex_both_windows_exhausted_the_later_reset_binds() -> None:
    assert codex_limit(_snapshot(100.0, 100.0), None) == LimitFacts(float(WEEK), "seven_day")


def test_codex_without_windows_has_no_reset() -> None:
    assert codex_limit(_snapshot(None, None), "m") == LimitFacts(None, None, "m")
    assert codex_limit(None, None) == LimitFacts(None, None)
    # Windows below 100 % say nothing about when this limit resets.
    assert codex_limit(_snapshot(42.0, 41.0), None) == LimitFacts(None, None)


def test_codex_other_limit_family_is_named() -> None:
    snap = _snapshot(100.0, None) | {"limit_id": "codex_bengalfox"}
    assert codex_limit(snap, None).window == "codex_bengalfox/five_hour"


def test_codex_window_names() -> None:
    assert codex_window_name(300) == "five_hour"
    assert codex_window_name(10080) == "seven_day"
    assert codex_window_name(60) == "60_minutes"
    assert codex_window_name(0) is None
    assert codex_window_name(True) is None


@given(st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text()))
def test_reset_time_is_plausible_or_none(value: object) -> None:
    got = reset_time(value)
    assert got is None or 1e9 <= got <= 1e11


@given(st.recursive(st.none() | st.integers() | st.text(), lambda c: st.dictionaries(st.text(), c)))
def test_parsers_never_raise(junk: object) -> None:
    row = junk if isinstance(junk, dict) else {"quotaLimits": junk}
    claude_limit(row, None)
    claude_retry_limits(row)
    codex_limit(junk, None)
