"""What the explanation tests share: inputs made from an event log, the way the controller
would gather them (the runs from a replayed book, the events as the store holds them)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from mytty.core.events import AgentEvent, AgentProvider
from mytty.core.explain.inputs import (
    EventWindow,
    ExplainInputs,
    Observations,
    StoredEvent,
    runs_to_read,
    shown_run,
)
from mytty.core.ids import RunId, SurfaceId
from mytty.core.jobs.tracker import AgentJob
from mytty.core.runs.book import RunBook
from tests.core.builders import PANE

NOW = 1_000_000.0


def window(events: Iterable[AgentEvent], truncated: Iterable[RunId] = ()) -> EventWindow:
    return EventWindow(
        tuple(StoredEvent(n, e) for n, e in enumerate(events, start=1)), frozenset(truncated)
    )


def inputs_for(
    events: list[AgentEvent],
    *,
    pane: SurfaceId = PANE,
    job: AgentJob | None = None,
    by_job: bool | None = None,
    observations: Observations | None = None,
    integrations: Mapping[AgentProvider, str] | None = None,
    now: float = NOW,
    read_all: bool = True,
) -> ExplainInputs:
    """The inputs of an explanation of ``pane`` after ``events``: its runs as the reducer
    leaves them; every event read (``read_all``) or only those of the runs
    :func:`runs_to_read` picks, each of them whole."""
    book = RunBook()
    for event in events:
        book.apply(event)
    runs = tuple(book.runs_for_surface(pane))
    relevant = book.most_relevant(pane)
    relevant_id = relevant.id if relevant is not None else None
    if read_all:
        picked = events
    else:
        wanted = set(runs_to_read(shown_run(runs, job, relevant_id), runs, job))
        picked = [e for e in events if e.run_id in wanted]
    return ExplainInputs(
        surface_id=pane,
        runs=runs,
        window=window(picked),
        observations=observations or Observations(pane_alive=True),
        now=now,
        job=job,
        by_job=job is not None if by_job is None else by_job,
        relevant=relevant_id,
        integrations=dict(integrations or {}),
    )
