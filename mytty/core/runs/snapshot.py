"""The books' state as one text: what a restart reads instead of replaying every event.

A snapshot holds every run the :class:`~mytty.core.runs.book.RunBook` keeps and every attention item
that comes from events (launch-failure items come from jobs and are not kept across a restart). Restoring
it and then applying the events stored after it gives the same books as replaying the whole log,
at a cost of O(kept runs + events since the snapshot) instead of O(events ever stored).

Compact JSON arrays, one per record; ``SNAPSHOT_VERSION`` changes whenever the layout does, and
a snapshot of another version (or one that does not decode) is ignored: the log is replayed.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass

from mytty.core.attention.items import AttentionItem, AttentionKind
from mytty.core.events import AgentProvider, AgentRunState
from mytty.core.ids import RunId, SurfaceId
from mytty.core.runs.run import AgentRun

SNAPSHOT_VERSION = 3


@dataclass(frozen=True, slots=True)
class BooksSnapshot:
    runs: list[AgentRun]
    items: list[AttentionItem]


def encode_snapshot(runs: Iterable[AgentRun], items: Iterable[AttentionItem]) -> str:
    return json.dumps(
        {
            "v": SNAPSHOT_VERSION,
            "runs": [
                [
                    r.id,
                    r.surface_id,
                    r.provider.value,
                    r.session_id,
                    r.state.value,
                    r.started_at,
                    r.updated_at,
                    r.message,
                    r.accepted_event_count,
                    r.last_assistant_message,
                    sorted(r.subagents),
                    sorted(r.live_subagents),
                    sorted(r.continuations),
                    r.root_ended,
                ]
                for r in runs
            ],
            "items": [
                [
                    i.id,
                    i.surface_id,
                    i.run_id,
                    i.provider.value,
                    i.kind.value,
                    i.message,
                    i.created_at,
                    i.resolved_at,
                    i.acknowledged_at,
                ]
                for i in items
                if i.kind is not AttentionKind.LAUNCH_FAILURE
            ],
        },
        ensure_ascii=False,
        separators=(",", ":"),
    )


def decode_snapshot(text: str) -> BooksSnapshot | None:
    """The snapshot in ``text``; None when it is of another version or does not decode."""
    try:
        obj = json.loads(text)
        if not isinstance(obj, dict) or obj.get("v") != SNAPSHOT_VERSION:
            return None
        runs = [
            AgentRun(
                id=RunId(str(rid)),
                surface_id=SurfaceId(str(surface)),
                provider=AgentProvider(provider),
                session_id=_text(session),
                state=AgentRunState(state),
                started_at=_number(started),
                updated_at=_number(updated),
                message=_text(message),
                accepted_event_count=int(count),
                last_assistant_message=_text(answer),
                subagents=frozenset(_texts(subagents)),
                live_subagents=frozenset(_texts(live)),
                continuations=frozenset(RunId(t) for t in _texts(continuations)),
                root_ended=root_ended is True,
            )
            for (
                rid,
                surface,
                provider,
                session,
                state,
                started,
                updated,
                message,
                count,
                answer,
                subagents,
                live,
                continuations,
                root_ended,
            ) in obj["runs"]
        ]
        items = [
            AttentionItem(
                id=str(iid),
                surface_id=SurfaceId(str(surface)),
                run_id=RunId(str(rid)),
                provider=AgentProvider(provider),
                kind=AttentionKind(kind),
                message=_text(message),
                created_at=float(created),
                resolved_at=_number(resolved),
                acknowledged_at=_number(acked),
            )
            for iid, surface, rid, provider, kind, message, created, resolved, acked in obj["items"]
        ]
    except (ValueError, TypeError, KeyError):
        return None
    return BooksSnapshot(runs, items)


def _text(value: object) -> str | None:
    if value is None or isinstance(value, str):
        return value
    raise TypeError("not text")


def _texts(value: object) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise TypeError("not a list of text")
    return list(value)


def _number(value: object) -> float | None:
    if value is None:
        return None
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    raise TypeError("not a number")
