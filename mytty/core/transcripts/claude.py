"""Claude Code's session transcript (``~/.claude/projects/<slug>/<session>.jsonl``) → turns,
the ESC interrupt, and token usage (semantics §9.4; real-agents.md §2.4, Claude Code 2.1.332).

Fed whole lines in file order, :class:`ClaudeTranscript` keeps only what the next line can
change, so a reader can tail a file of any length a piece at a time:

- the turn (:attr:`ClaudeTranscript.observation`): a real user prompt (not ``isMeta``, no
  ``interruptedMessageId``, text a human typed rather than one Claude injects, a valid
  ``promptId``) starts turn ``promptId``; a ``tool_result`` or an assistant ``tool_use`` keeps it
  active; an assistant ``end_turn`` or a ``system``/``turn_duration`` row completes it, and an
  assistant row with ``isApiErrorMessage`` (an API error) fails it, with that row's text.
  Sidechain rows (a subagent's) are skipped. Claude itself never reports ``interrupted``;
- the interrupt (:attr:`ClaudeTranscript.interrupt`): Esc writes a ``user`` row with the turn's
  ``promptId`` and ``interruptedMessageId`` (the cut-off assistant message); it counts only
  while it is the *last* row carrying a ``promptId``. Esc at a permission dialog writes
  ``[Request interrupted by user for tool use]`` with ``rowSource: "harness"`` and *no*
  ``interruptedMessageId`` (captured from 2.1.332); mytty counts that row too, keyed by its
  ``uuid`` — a difference from the original, which missed it and left the run waiting for an
  approval nobody could give any more;
- a usage limit (:attr:`ClaudeTranscript.limits`, a mytty addition): the turn's ``assistant``
  error row (``isApiErrorMessage``, ``error: "rate_limit"``) ends it ``limited``, with the reset
  and window of its ``quotaLimits`` (or of the retries' ``system``/``api_error`` rows). A
  subscriber's own continuation after the reset (a ``user`` row with ``isMeta`` and
  ``origin.kind: "auto-continuation"``) starts a turn like a typed prompt;
- usage (:attr:`ClaudeTranscript.usage`): the assistant rows' ``message.usage``. Claude writes
  one row per content block of a streamed message, each repeating that message's usage, so a
  message id counts once, with its latest figures.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, replace

from mytty.core.answers import clip_answer
from mytty.core.estimation.turn_observation import TurnPhase
from mytty.core.events import AgentEvent, AgentEventKind, AgentProvider
from mytty.core.ids import RunId, SurfaceId, stable_uuid
from mytty.core.limits.facts import LimitFacts, claude_limit, claude_retry_limits
from mytty.core.transcripts.codex import MAX_ERROR_CHARS
from mytty.core.transcripts.limits import TurnLimit, clip_text
from mytty.core.transcripts.rows import MAX_ID_BYTES, TurnReader, valid_identifier
from mytty.core.transcripts.usage import TokenUsage, UsageReading, count

#: Text Claude puts in a ``user`` row itself (slash-command echoes, hook output, reminders,
#: interrupt notes, task notifications are handled by their own promptId): not a typed prompt.
_INJECTED_PREFIXES = (
    "<command-name>",
    "<command-message>",
    "<command-args>",
    "<local-command-stdout>",
    "<local-command-stderr>",
    "<local-command-caveat>",
    "<bash-input>",
    "<bash-stdout>",
    "<bash-stderr>",
    "<system-reminder>",
    "<user-prompt-submit-hook>",
    "[Request interrupted",
    "Caveat: ",
)

#: A failed turn's message when its API error row has no text.
_API_ERROR = "Claude's API request failed."

#: Recent message ids kept to fold a streamed message's repeated rows into one (the rows of
#: one message are adjacent; a few more cover interleaved subagent rows).
_RECENT_MESSAGES = 64


@dataclass(frozen=True, slots=True)
class ClaudeInterrupt:
    """Esc cut turn ``prompt_id`` off while assistant message ``message_id`` was streaming."""

    prompt_id: str
    message_id: str  # interruptedMessageId, else the interrupt row's own uuid


def _text_of(content: object) -> str | None:
    """The first text of a message's content (a string, or a list of blocks)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        for block in content:
            if isinstance(block, dict) and block.get("type") == "text":
                text = block.get("text")
                return text if isinstance(text, str) else None
    return None


def _all_text(content: object) -> str | None:
    """Every text block of an assistant message, in order (what the turn said last)."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return None
    texts = [
        b["text"]
        for b in content
        if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)
    ]
    return "\n".join(texts) if texts else None


def _has_block(content: object, kind: str) -> bool:
    return isinstance(content, list) and any(
        isinstance(block, dict) and block.get("type") == kind for block in content
    )


_INTERRUPT_NOTE = "[Request interrupted by user"
#: StopFailure's and the error row's ``error`` when Claude gave up on a 429.
_RATE_LIMIT = "rate_limit"
#: Limited turns kept for the reader (it takes them after every read).
_KEPT_LIMITS = 8


def _auto_continuation(row: dict[str, object]) -> bool:
    """Claude's own prompt once a subscriber's limit reset (2.1.332: ``origin.kind``)."""
    origin = row.get("origin")
    return isinstance(origin, dict) and origin.get("kind") == "auto-continuation"


def _interrupted_message(row: dict[str, object], message: dict[str, object]) -> str | None:
    """The interrupt's message id when ``row`` (a user row) is Claude's Esc note, else None."""
    interrupted = valid_identifier(row.get("interruptedMessageId"))
    if interrupted is not None:
        return interrupted
    text = _text_of(message.get("content"))
    if row.get("rowSource") == "harness" and text is not None and text.startswith(_INTERRUPT_NOTE):
        return valid_identifier(row.get("uuid"))
    return None


def _usage_of(raw: object) -> TokenUsage | None:
    if not isinstance(raw, dict):
        return None
    return TokenUsage(
        input=count(raw.get("input_tokens")),
        output=count(raw.get("output_tokens")),
        cache_read=count(raw.get("cache_read_input_tokens")),
        cache_write=count(raw.get("cache_creation_input_tokens")),
    )


class ClaudeTranscript(TurnReader):
    """The state of one Claude transcript, advanced one line at a time (see the module doc)."""

    def __init__(self) -> None:
        super().__init__()
        self.interrupt: ClaudeInterrupt | None = None
        self._committed = TokenUsage()
        self._recent: OrderedDict[str, TokenUsage] = OrderedDict()
        self._recent_sum = TokenUsage()
        self.model: str | None = None
        self.session_id: str | None = None
        #: Turns that stopped at the usage limit, oldest first, until the reader takes them.
        self.limits: list[TurnLimit] = []
        self._retry_limits: LimitFacts | None = None  # the current turn's retries said so

    @property
    def usage(self) -> UsageReading:
        return UsageReading(self._committed + self._recent_sum, self.model)

    def begin(self, key: str, row: dict[str, object]) -> None:
        super().begin(key, row)
        self._retry_limits = None

    def apply(self, row: dict[str, object]) -> None:
        kind = row.get("type")
        message = row.get("message")
        message = message if isinstance(message, dict) else {}
        if kind == "assistant":
            self._count_usage(message)  # a subagent's tokens are the job's cost too
        if row.get("isSidechain") is True:
            return
        if self.session_id is None and (session := valid_identifier(row.get("sessionId"))):
            self.session_id = session
        prompt_id = valid_identifier(row.get("promptId"))
        if prompt_id is not None:
            # The interrupt check reads the last row carrying a promptId, whatever it says.
            cut = _interrupted_message(row, message) if kind == "user" else None
            self.interrupt = ClaudeInterrupt(prompt_id, cut) if cut is not None else None
        if kind == "user":
            self._user(row, message, prompt_id)
        elif kind == "assistant" and row.get("isApiErrorMessage") is True:
            if row.get("error") == _RATE_LIMIT:
                self._limited(row, message)
            else:
                # The API failed the turn (StopFailure's hook says so too); Claude writes no
                # turn_duration then, so without this the turn would look active for good.
                self._set(TurnPhase.FAILED)
                text = _all_text(message.get("content"))
                self.message = (
                    text.strip()[:MAX_ERROR_CHARS] if text and text.strip() else _API_ERROR
                )
        elif kind == "assistant":
            stop = message.get("stop_reason")
            if stop == "end_turn":
                self._set(TurnPhase.COMPLETED)
                self.answer = clip_answer(_all_text(message.get("content")))
            elif stop == "tool_use":
                self._set(TurnPhase.ACTIVE)
        elif kind == "system" and row.get("subtype") == "turn_duration":
            self._set(TurnPhase.COMPLETED)
        elif kind == "system" and (retry := claude_retry_limits(row)) is not None:
            self._retry_limits = retry

    def _limited(self, row: dict[str, object], message: dict[str, object]) -> None:
        """The turn's error row says Claude gave up on a 429: the turn stopped at a limit."""
        if self.key is None:
            return
        text = clip_text(_all_text(message.get("content")))
        facts = claude_limit(row, text)
        retry = self._retry_limits
        if facts.resets_at is None and retry is not None:
            facts = replace(facts, resets_at=retry.resets_at, window=facts.window or retry.window)
        self.phase, self.message = TurnPhase.LIMITED, text
        self.limits.append(TurnLimit(self.key, facts))
        del self.limits[:-_KEPT_LIMITS]

    def _user(
        self, row: dict[str, object], message: dict[str, object], prompt_id: str | None
    ) -> None:
        content = message.get("content")
        if _has_block(content, "tool_result"):
            self._set(TurnPhase.ACTIVE)
            return
        if _auto_continuation(row) and prompt_id is not None:
            self.begin(prompt_id, row)  # a subscriber's own continuation after the reset
            return
        if row.get("isMeta") is True or "interruptedMessageId" in row or prompt_id is None:
            return
        text = _text_of(content)
        if text is None or not text.strip() or text.lstrip().startswith(_INJECTED_PREFIXES):
            return
        self.begin(prompt_id, row)

    def _set(self, phase: TurnPhase) -> None:
        if self.key is not None:
            self.phase = phase

    def _count_usage(self, message: dict[str, object]) -> None:
        usage = _usage_of(message.get("usage"))
        model = message.get("model")
        if isinstance(model, str) and model and not model.startswith("<"):  # "<synthetic>"
            self.model = model[:MAX_ID_BYTES]
        if usage is None:
            return
        message_id = valid_identifier(message.get("id"))
        if message_id is None:
            self._committed = self._committed + usage
            return
        previous = self._recent.pop(message_id, None)
        if previous is not None:
            self._recent_sum = self._recent_sum - previous
        self._recent[message_id] = usage
        self._recent_sum = self._recent_sum + usage
        while len(self._recent) > _RECENT_MESSAGES:
            _, oldest = self._recent.popitem(last=False)
            self._recent_sum = self._recent_sum - oldest
            self._committed = self._committed + oldest


#: The hookName of the interrupt event. The original sent this event with no hookName, which
#: would count as a hook event and silence native estimation of the pane from then on; mytty
#: names it (a ``mytty.`` name, so ``synthesized: true``): a documented difference.
INTERRUPT_HOOK_NAME = "mytty.claudeInterrupted"
INTERRUPT_MESSAGE = "Interrupted by the user (Esc)."


def interrupt_event(
    surface_id: SurfaceId, interrupt: ClaudeInterrupt, session_id: str | None, occurred_at: float
) -> AgentEvent:
    """The ``idle`` event that ends the interrupted turn's run (semantics §9.4, §9.6).

    The run is the one Claude's hooks key by ``prompt_id`` (``stable(run, claude-code,
    promptId)``), so it lands on the hooked run and on the native turn's run alike; the id is
    ``stable(event, claude-code, interrupted, promptId, messageId)``, so re-reading the same row
    (a restart, a second reader) is de-duplicated by the store.
    """
    provider = AgentProvider.CLAUDE_CODE
    return AgentEvent(
        id=stable_uuid(
            "event", provider.value, "interrupted", interrupt.prompt_id, interrupt.message_id
        ),
        run_id=RunId(stable_uuid("run", provider.value, interrupt.prompt_id)),
        surface_id=surface_id,
        provider=provider,
        kind=AgentEventKind.IDLE,
        occurred_at=occurred_at,
        session_id=session_id,
        message=INTERRUPT_MESSAGE,
        hook_name=INTERRUPT_HOOK_NAME,
    )


#: Claude's registry must have said ``idle`` this long (seconds) before a still-active turn
#: counts as interrupted: a turn that ends normally writes its closing rows well within it.
REGISTRY_IDLE_GRACE_S = 2.0


def registry_interrupt(
    transcript: ClaudeTranscript, registry: object, now: float
) -> ClaudeInterrupt | None:
    """Esc before Claude answered: the interrupt its transcript cannot show.

    Claude puts the prompt back into its input box and writes no row, but its live registry
    (``~/.claude/sessions/<pid>.json``, captured on 2.1.332) turns ``status`` to ``idle`` at
    once. The turn counts as interrupted when its transcript still shows it active with no
    interrupt row, and the registry has said ``idle`` since *after* the prompt was written
    (``statusUpdatedAt``, ms) for :data:`REGISTRY_IDLE_GRACE_S`. The message id stands for that
    registry update (``idle@<statusUpdatedAt>``), so the event id stays deterministic.
    """
    since = registry_idle_since(transcript, registry)
    obs = transcript.observation
    if since is None or obs is None or now - since < REGISTRY_IDLE_GRACE_S:
        return None
    return ClaudeInterrupt(obs.key, f"idle@{round(since * 1000)}")


def registry_idle_since(transcript: ClaudeTranscript, registry: object) -> float | None:
    """When the registry turned ``idle`` for the transcript's active turn (Unix seconds), if
    it did after that turn's prompt; else None (see :func:`registry_interrupt`)."""
    obs = transcript.observation
    if obs is None or obs.phase is not TurnPhase.ACTIVE or transcript.interrupt is not None:
        return None
    if not isinstance(registry, dict) or registry.get("status") != "idle":
        return None
    updated = registry.get("statusUpdatedAt")
    if isinstance(updated, bool) or not isinstance(updated, int | float):
        return None
    at = updated / 1000.0
    if transcript.started_at is None or at <= transcript.started_at:
        return None  # the registry has not caught up with this prompt yet
    return at
