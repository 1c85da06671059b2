"""Codex's rollout (``$CODEX_HOME/sessions/YYYY/MM/DD/rollout-…-<session>.jsonl``) → turns and
token usage (semantics §9.4; real-agents.md §3.4, codex-cli 0.171.0).

Each line is ``{"timestamp", "type", "payload"}``. Of the ``event_msg`` rows:

- ``task_started`` starts turn ``payload.turn_id`` (else the row's ``timestamp``): active;
- ``task_complete`` completes the current turn; ``turn_aborted`` (Esc) interrupts it; a
  ``task_complete`` with an ``error`` (the model API failed: no hook fires) is
  :attr:`CodexRollout.failure`, which the reader turns into a ``failed`` event;
- a ``task_complete`` whose ``error.codex_error_info`` is ``usage_limit_exceeded`` ends the turn
  ``limited`` instead (:attr:`CodexRollout.limits`, a mytty addition), with the reset and window
  of the turn's last ``token_count.rate_limits`` (:func:`mytty.core.limits.facts.codex_limit`);
- ``token_count`` carries ``info.total_token_usage``: the *session's* running total (checked on
  0.171: each one adds the previous response to the last), so the latest one is the usage and
  a tail that skipped the file's start still reads the whole session's figures.

The model comes from ``turn_context.payload.model``, the session id from ``session_meta``.
"""

from __future__ import annotations

import dataclasses

from mytty.core.answers import clip_answer
from mytty.core.estimation.turn_observation import TurnPhase
from mytty.core.events import AgentEvent, AgentEventKind, AgentProvider
from mytty.core.ids import RunId, SurfaceId, stable_uuid
from mytty.core.limits.facts import codex_limit
from mytty.core.transcripts.limits import TurnLimit, clip_text
from mytty.core.transcripts.rows import MAX_ID_BYTES, TurnReader, valid_identifier
from mytty.core.transcripts.usage import TokenUsage, UsageReading, count

#: An API error's message is clipped to this many characters.
MAX_ERROR_CHARS = 1000
#: ``codex_error_info`` of a turn stopped at the usage limit (0.171.0; also quota-exceeded).
USAGE_LIMIT_INFO = "usage_limit_exceeded"
#: Limited turns kept for the reader (it takes them after every read).
_KEPT_LIMITS = 8


def _error_message(error: object) -> str:
    message = error.get("message") if isinstance(error, dict) else error
    text = message if isinstance(message, str) and message.strip() else "model API error"
    return text[:MAX_ERROR_CHARS]


def failure_event(
    surface_id: SurfaceId, turn: str, message: str, session_id: str | None, occurred_at: float
) -> AgentEvent:
    """The ``failed`` event of a Codex turn whose model API failed (0.171 fires no hook then):
    on the hooks' run of that turn (stable(run, codex, turn_id)), id stable(event, codex,
    failed, turn_id), hookName ``mytty.codexTurnFailed`` (a mytty addition)."""
    provider = AgentProvider.CODEX
    return AgentEvent(
        id=stable_uuid("event", provider.value, "failed", turn),
        run_id=RunId(stable_uuid("run", provider.value, turn)),
        surface_id=surface_id,
        provider=provider,
        kind=AgentEventKind.FAILED,
        occurred_at=occurred_at,
        session_id=session_id,
        message=message,
        hook_name=FAILURE_HOOK_NAME,
    )


FAILURE_HOOK_NAME = "mytty.codexTurnFailed"


def usage_of_total(raw: object) -> TokenUsage | None:
    """An OpenAI-style usage object in mytty's four counters (see :mod:`mytty.core.transcripts.usage`)."""
    if not isinstance(raw, dict):
        return None
    cached = count(raw.get("cached_input_tokens"))
    written = count(raw.get("cache_write_input_tokens"))
    # OpenAI's input_tokens counts every prompt token, cached or written to the cache alike, so
    # the four counters add up to Codex's total_tokens (input + output).
    return TokenUsage(
        input=max(0, count(raw.get("input_tokens")) - cached - written),
        output=count(raw.get("output_tokens")),
        cache_read=cached,
        cache_write=written,
    )


class CodexRollout(TurnReader):
    """The state of one rollout file, advanced one line at a time."""

    def __init__(self) -> None:
        super().__init__()
        self.tokens = TokenUsage()
        self.model: str | None = None
        self.session_id: str | None = None
        #: The turn the model API failed (``task_complete`` with an ``error``), while it is the
        #: latest turn: (turn key, the error's message).
        self.failure: tuple[str, str] | None = None
        #: Turns that stopped at the usage limit, oldest first, until the reader takes them.
        self.limits: list[TurnLimit] = []
        self._rate_limits: object = None  # the current turn's latest snapshot

    @property
    def usage(self) -> UsageReading:
        return UsageReading(self.tokens, self.model)

    def apply(self, row: dict[str, object]) -> None:
        payload = row.get("payload")
        if not isinstance(payload, dict):
            return
        kind = row.get("type")
        if kind == "event_msg":
            self._event(row, payload)
        elif kind == "turn_context":
            model = payload.get("model")
            if isinstance(model, str) and model:
                self.model = model[:MAX_ID_BYTES]
        elif kind == "session_meta" and self.session_id is None:
            self.session_id = valid_identifier(payload.get("id") or payload.get("session_id"))

    def _event(self, row: dict[str, object], payload: dict[str, object]) -> None:
        event = payload.get("type")
        if event == "task_started":
            key = valid_identifier(payload.get("turn_id")) or valid_identifier(row.get("timestamp"))
            if key is not None:
                failed, self.failure = self.failure, None
                self._rate_limits = None
                self.begin(key, row)
                # A failed turn passed on to the next report says so (no hook tells of it).
                if failed is not None and self._passed and self._passed[-1].key == failed[0]:
                    self._passed[-1] = dataclasses.replace(
                        self._passed[-1], phase=TurnPhase.FAILED, message=failed[1], answer=None
                    )
        elif event == "task_complete":
            self._end(payload, TurnPhase.COMPLETED)
            if self.phase is TurnPhase.COMPLETED:
                self.answer = clip_answer(payload.get("last_agent_message"))
            error = payload.get("error")
            if self.key is None or self.phase is not TurnPhase.COMPLETED or error is None:
                return
            if isinstance(error, dict) and error.get("codex_error_info") == USAGE_LIMIT_INFO:
                text = clip_text(_error_message(error))
                self.phase, self.message, self.answer = TurnPhase.LIMITED, text, None
                self.limits.append(TurnLimit(self.key, codex_limit(self._rate_limits, text)))
                del self.limits[:-_KEPT_LIMITS]
            else:
                self.failure = (self.key, _error_message(error))
        elif event == "turn_aborted":
            self._end(payload, TurnPhase.INTERRUPTED)
        elif event == "token_count":
            if isinstance(payload.get("rate_limits"), dict):
                self._rate_limits = payload["rate_limits"]
            info = payload.get("info")
            total = (
                usage_of_total(info.get("total_token_usage")) if isinstance(info, dict) else None
            )
            # A running total never shrinks; a smaller one is a new session's (or garbage).
            if total is not None and total.total >= self.tokens.total:
                self.tokens = total

    def _end(self, payload: dict[str, object], phase: TurnPhase) -> None:
        turn = valid_identifier(payload.get("turn_id"))
        if self.key is not None and (turn is None or turn == self.key):
            self.phase = phase
