"""Prune: forget runs that finished long ago, with their attention items (semantics §1.8).

A run and its items go together, so this module reads both books; the store deletes the
returned events' rows.
"""

from __future__ import annotations

from mytty.core.attention.items import AttentionBook
from mytty.core.ids import RunId
from mytty.core.runs.book import RunBook
from mytty.core.runs.retention import RETENTION_SECONDS


def prunable_runs(
    book: RunBook,
    attention: AttentionBook,
    now: float,
    retention: float = RETENTION_SECONDS,
) -> list[RunId]:
    """Ids of runs old enough to delete, in creation order (semantics §1.8, prune).

    A run qualifies when it is terminal (idle/succeeded/failed/disconnected), its updatedAt is
    more than ``retention`` seconds old, none of its attention items is actionable, and every
    item's retention anchor is more than ``retention`` seconds old.
    """
    prunable: list[RunId] = []
    for run in book.all_runs():
        if not run.is_terminal or run.updated_at is None:
            continue
        if now - run.updated_at <= retention:
            continue
        if attention.actionable_for_run(run.id):
            continue
        if all(now - anchor > retention for anchor in attention.anchors_for_run(run.id)):
            prunable.append(run.id)
    return prunable


def prune_runs(
    book: RunBook,
    attention: AttentionBook,
    now: float,
    retention: float = RETENTION_SECONDS,
) -> dict[RunId, list[str]]:
    """Forget every prunable run in both books; return run id → the event ids to delete."""
    pruned: dict[RunId, list[str]] = {}
    for run_id in prunable_runs(book, attention, now, retention):
        run = book.get(run_id)
        pruned[run_id] = book.event_ids_for_run(run_id)
        # The store keeps a folded-in turn's events under that turn's own run id.
        for alias in run.continuations if run is not None else ():
            pruned.setdefault(alias, [])
        book.forget_run(run_id)
        attention.forget_run(run_id)
    return pruned
