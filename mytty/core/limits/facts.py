"""What a provider's own records say about a usage limit: when it resets and which window.

Read from the structured records each pinned CLI writes (docs/dev/research/limits.md), never
from the text it shows:

- **Claude Code 2.1.332**, transcript ``assistant`` row of the failed turn
  (``isApiErrorMessage: true``, ``error: "rate_limit"``): ``quotaLimits.resetsAt`` (Unix
  seconds) and ``quotaLimits.rateLimitType`` (``five_hour``, ``seven_day``, ``seven_day_opus``,
  …), or the same in ``apiErrorParams.rate_limit_info``; ``apiError: "usage_limit_reached"``
  or ``status: "rejected"`` says it is the account's usage limit. An API-key login writes none
  of that; its retries' ``system``/``api_error`` rows may carry ``error.rateLimits`` with the
  same two fields.
- **Codex 0.171.0**, rollout ``event_msg`` ``token_count.rate_limits`` before the turn's
  ``task_complete`` (whose ``error.codex_error_info`` is ``usage_limit_exceeded``): the
  ``primary``/``secondary`` windows at 100 % used, their ``resets_at`` (Unix seconds) and
  ``window_minutes`` (300: the 5-hour window, 10080: the week). Both at 100 %: the later reset
  binds. Neither: Codex had no rate-limit headers, the reset is only in its text (local time
  without a zone), and mytty does not guess it.
"""

from __future__ import annotations

from dataclasses import dataclass

#: Reset times outside these Unix seconds are not real (a unit mix-up, garbage).
_EARLIEST, _LATEST = 1_000_000_000, 100_000_000_000
#: Codex window lengths (minutes) by the names Claude uses for the same windows.
_CODEX_WINDOWS = {300: "five_hour", 10080: "seven_day"}
_MAX_NAME = 64


@dataclass(frozen=True, slots=True)
class LimitFacts:
    """A usage limit as the provider recorded it."""

    #: When it resets (Unix seconds), None when the provider gave no time.
    resets_at: float | None
    #: Which window or plan, in the provider's words (``five_hour``, ``seven_day``, …).
    window: str | None
    #: The agent's own text about it (shown, never parsed).
    message: str | None = None


def reset_time(value: object) -> float | None:
    """A provider's reset time in Unix seconds, or None when it is not a plausible one."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    seconds = float(value)
    return seconds if _EARLIEST <= seconds <= _LATEST else None


def _name(value: object) -> str | None:
    if not isinstance(value, str) or not value or len(value) > _MAX_NAME:
        return None
    if not all(ch.isalnum() or ch in "_-./:" for ch in value):
        return None
    return value


def claude_limit(row: dict[str, object], message: str | None) -> LimitFacts:
    """The facts of Claude's ``rate_limit`` error row (reset and window, when it has them)."""
    quota = row.get("quotaLimits")
    if not isinstance(quota, dict):
        params = row.get("apiErrorParams")
        quota = params.get("rate_limit_info") if isinstance(params, dict) else None
    if not isinstance(quota, dict):
        return LimitFacts(None, None, message)
    return LimitFacts(reset_time(quota.get("resetsAt")), _name(quota.get("rateLimitType")), message)


def claude_retry_limits(row: dict[str, object]) -> LimitFacts | None:
    """``error.rateLimits`` of a ``system``/``api_error`` retry row (API-key logins), if any."""
    if row.get("type") != "system" or row.get("subtype") != "api_error":
        return None
    error = row.get("error")
    limits = error.get("rateLimits") if isinstance(error, dict) else None
    if not isinstance(limits, dict):
        return None
    resets = reset_time(limits.get("resetsAt"))
    window = _name(limits.get("rateLimitType"))
    return LimitFacts(resets, window) if resets is not None or window is not None else None


def codex_window_name(minutes: object) -> str | None:
    """A Codex window's length as a name: ``five_hour``, ``seven_day``, else ``<N>_minutes``."""
    if isinstance(minutes, bool) or not isinstance(minutes, int | float) or minutes <= 0:
        return None
    whole = int(minutes)
    return _CODEX_WINDOWS.get(whole, f"{whole}_minutes")


def codex_limit(rate_limits: object, message: str | None) -> LimitFacts:
    """The facts of a Codex rate-limit snapshot (``token_count.rate_limits``)."""
    if not isinstance(rate_limits, dict):
        return LimitFacts(None, None, message)
    full: list[tuple[float, str | None]] = []
    for side in ("primary", "secondary"):
        window = rate_limits.get(side)
        if not isinstance(window, dict):
            continue
        used = window.get("used_percent")
        resets = reset_time(window.get("resets_at"))
        if isinstance(used, bool) or not isinstance(used, int | float) or used < 100:
            continue
        if resets is not None:
            full.append((resets, codex_window_name(window.get("window_minutes"))))
    if not full:
        return LimitFacts(None, None, message)
    resets, window = max(full, key=lambda item: item[0])  # both exhausted: the later binds
    family = _name(rate_limits.get("limit_id"))
    if family is not None and family != "codex" and window is not None:
        window = f"{family}/{window}"
    return LimitFacts(resets, window, message)
