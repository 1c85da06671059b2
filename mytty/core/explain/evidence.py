"""The evidence of an explanation: the events read, each with its source, what it saw and its
effect on its run.

The effect is found by replaying the events read through a fresh
:class:`~mytty.core.runs.book.RunBook`: the reducer itself, so "ignored" means exactly what the
reducer did. A run with more stored events than were read shows no effects, since its earlier
events are unknown.
"""

from __future__ import annotations

from dataclasses import dataclass

from mytty.core.estimation.epochs import COMMAND_FINISHED, LAUNCH_OBSERVED, turn_run_id
from mytty.core.events import AgentEvent, AgentEventKind, AgentRunState
from mytty.core.explain.inputs import ExplainInputs, Observations, StoredEvent
from mytty.core.explain.sources import Source, origin
from mytty.core.runs.book import RunBook
from mytty.core.runs.run import AgentRun

#: Evidence items an explanation carries at most (the newest; the shown run's first).
MAX_EVIDENCE = 40
#: How far apart (seconds) a shell report and a native event may be and still be one fact.
_SAME_MOMENT_S = 2.0


@dataclass(frozen=True, slots=True)
class Evidence:
    """One stored event, with where it came from and what it did."""

    sequence: int
    event: AgentEvent
    source: Source
    what: str
    #: ``"running → succeeded"``, ``"ignored (succeeded)"``; None when unknown.
    effect: str | None
    #: The event is on the run the state comes from.
    on_shown_run: bool


def gather(inputs: ExplainInputs, shown: AgentRun | None) -> tuple[Evidence, ...]:
    """The events read, oldest first, at most :data:`MAX_EVIDENCE` (the shown run's first)."""
    window = inputs.window
    effects = _effects(window.events, window.truncated)
    shown_ids = {shown.id, *shown.continuations} if shown is not None else set()
    items = [
        Evidence(
            sequence=stored.sequence,
            event=stored.event,
            source=origin(stored.event).source,
            what=_what(stored.event, inputs.observations),
            effect=effects.get(stored.sequence),
            on_shown_run=stored.event.run_id in shown_ids,
        )
        for stored in window.events
    ]
    if len(items) <= MAX_EVIDENCE:
        return tuple(items)
    mine = [e for e in items if e.on_shown_run][-MAX_EVIDENCE:]
    room = MAX_EVIDENCE - len(mine)
    rest = [e for e in items if not e.on_shown_run][-room:] if room else []
    kept = {e.sequence for e in (*mine, *rest)}
    return tuple(e for e in items if e.sequence in kept)


def _effects(events: tuple[StoredEvent, ...], truncated: frozenset[str]) -> dict[int, str]:
    """What each event did to its run, by sequence, replayed through the reducer itself.

    Only runs whose every stored event was read are replayed (with the runs they fold into,
    a truncated run's events are left out, so their effect is unknown)."""
    book = RunBook()
    out: dict[int, str] = {}
    for stored in events:
        event = stored.event
        if event.run_id in truncated:
            continue
        before = book.get(event.run_id)
        result = book.apply(event)
        if result.run is None or result.run.id in truncated:
            continue
        was = (before.state if before is not None else AgentRunState.UNKNOWN).value
        if result.conflict:
            out[stored.sequence] = "ignored (it conflicts with its run's pane, provider or session)"
        elif result.applied:
            out[stored.sequence] = f"{was} → {result.run.state.value}"
        else:
            out[stored.sequence] = f"ignored: the run was {was}"
    return out


def _what(event: AgentEvent, obs: Observations) -> str:
    """The event's origin in words, with what the controller still sees of it."""
    what = origin(event).describe(event.kind)
    seen = _seen(event, obs)
    return f"{what}: {seen}" if seen else what


def _seen(event: AgentEvent, obs: Observations) -> str | None:
    epoch, shell, transcript = obs.epoch, obs.shell, obs.transcript
    if event.hook_name == LAUNCH_OBSERVED and epoch is not None and epoch.run_id == event.run_id:
        fg = obs.foreground
        name = fg.command if fg is not None and fg.agent_pid == epoch.pid and fg.command else None
        return f"{name or event.provider.value} pid {epoch.pid}"
    if (
        event.hook_name == COMMAND_FINISHED
        and event.kind is AgentEventKind.FAILED
        and shell is not None
        and shell.last_exit_at is not None
        and shell.last_exit_status is not None
        and abs(shell.last_exit_at - event.occurred_at) <= _SAME_MOMENT_S
    ):
        return f"exit {shell.last_exit_status}"
    if (
        origin(event).source is Source.NATIVE
        and transcript is not None
        and transcript.turn is not None
        and turn_run_id(event.provider, transcript.turn) == event.run_id
    ):
        return f"turn {transcript.turn[:13]}"
    return None
