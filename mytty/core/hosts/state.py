"""What the controller knows of a host it follows (pure): whether it is current, since when,
when it was last seen, what answers there, and its open attention items.

A host is ``connecting`` until it first answers, ``current`` while its long poll answers,
``stale`` from the first failure until it answers again: its items are then kept with the
time they were last seen, never shown as if current (``mytty attention --hosts all`` and the
popup say so), and replaced, not added to, when it comes back.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

CONNECTING, CURRENT, STALE = "connecting", "current", "stale"
HOST_STATES = (CONNECTING, CURRENT, STALE)
#: The job states a host counts as its agents.
LIVE_JOB_STATES = frozenset({"queued", "launching", "running", "waiting-input", "waiting-approval"})


@dataclass(frozen=True, slots=True)
class HostState:
    name: str
    ssh: str
    state: str = CONNECTING
    #: When ``state`` began (Unix seconds).
    since: float = 0.0
    #: When the host last answered (None: never, since this controller started).
    last_seen: float | None = None
    version: str | None = None
    rtt_ms: float | None = None
    agents: int | None = None
    #: The last failure (code, message), kept while stale.
    error: tuple[str, str] | None = None
    #: Its open attention items as it gave them, ids qualified, each with ``host``.
    items: tuple[Mapping[str, object], ...] = field(default=())

    @property
    def attention(self) -> int | None:
        return len(self.items) if self.last_seen is not None else None


def item_key(item: Mapping[str, object]) -> str:
    """What tells one attention item of a host from another (the wire carries no item id; a
    run has at most one item of a kind created at one instant)."""
    return f"{item.get('runID')}|{item.get('kind')}|{item.get('createdAt')}"


def seen(
    state: HostState,
    now: float,
    *,
    items: Sequence[Mapping[str, object]],
    jobs: Sequence[Mapping[str, object]],
    rtt_ms: float,
    version: str | None,
) -> tuple[HostState, list[Mapping[str, object]]]:
    """The host answered: its new state, and its open items that are new since the last
    answer (what the notification router hears of, once each)."""
    open_items = tuple({**item, "host": state.name} for item in items if not item.get("resolvedAt"))
    known = {item_key(item) for item in state.items}
    fresh: list[Mapping[str, object]] = [i for i in open_items if item_key(i) not in known]
    since = state.since if state.state == CURRENT else now
    return (
        replace(
            state,
            state=CURRENT,
            since=since,
            last_seen=now,
            version=version if version is not None else state.version,
            rtt_ms=rtt_ms,
            agents=sum(1 for job in jobs if job.get("state") in LIVE_JOB_STATES),
            error=None,
            items=open_items,
        ),
        fresh,
    )


def lost(state: HostState, now: float, code: str, message: str) -> HostState:
    """The host stopped answering: stale since now (connecting until it first answered)."""
    if state.state == CURRENT:
        return replace(state, state=STALE, since=now, error=(code, message))
    return replace(state, error=(code, message))
