"""When the notification router notifies: which transitions, once each, and never in a storm.

Pure; :mod:`mytty.daemon.notifier` feeds it what the controller saw and does the sending.

- **What notifies.** An event that created an attention item of kind approval-request,
  input-request, failure or disconnect (the attention book already decides which transitions
  need a human: a disconnect only of a run that was active, say), and a success whose run
  lasted at least ``[notify] long_success`` seconds, and a usage-limit park (one per park; the
  kind ``limit``) (a completion item when that is ≥ 5 min;
  the setting can ask for less or more). ``[notify] on`` turns kinds off.
- **Once per transition.** Each notification is keyed by the event that caused it: a
  duplicate delivery or a replay never notifies twice.
- **No storm after a restart.** Events replayed from the store never reach the router, the
  router only starts listening after the startup sweep, and an event that occurred before the
  controller started is dropped (a late delivery of something the human may already have seen).
- **Not for the pane being looked at.** If an attached client shows the pane, the human sees
  it already (checked by the daemon; this module only hears the answer).
- **Per-pane cooldown.** After a pane notified, it stays quiet about the same kind for
  ``[notify] cooldown`` seconds; what comes in between is dropped, not queued. Per kind, so an
  agent that flaps between two states cannot storm, yet a question right after a long turn
  finished still gets through.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum

from mytty.core.attention.items import AttentionItem, AttentionKind
from mytty.core.config import APPROVAL, DISCONNECT, FAILURE, INPUT, LIMIT, LONG_SUCCESS
from mytty.core.events import AgentEvent, AgentEventKind, AgentRunState, parse_timestamp
from mytty.core.ids import RunId, SurfaceId
from mytty.core.runs.run import AgentRun

#: How many notification keys the gate remembers (older ones cannot recur: their events are
#: long stored, so a redelivery is a duplicate the hub already drops).
REMEMBERED_KEYS = 4096

_ITEM_KINDS = {
    AttentionKind.APPROVAL_REQUEST: APPROVAL,
    AttentionKind.INPUT_REQUEST: INPUT,
    AttentionKind.FAILURE: FAILURE,
    AttentionKind.LAUNCH_FAILURE: FAILURE,
    AttentionKind.DISCONNECT: DISCONNECT,
    AttentionKind.COMPLETION: LONG_SUCCESS,
    AttentionKind.USAGE_LIMIT: LIMIT,
}

#: What each kind says in a notification's body.
_NEEDS = {
    APPROVAL: "needs approval",
    INPUT: "needs input",
    FAILURE: "failed",
    DISCONNECT: "disconnected",
    LONG_SUCCESS: "finished",
    LIMIT: "reached its usage limit",
}


@dataclass(frozen=True, slots=True)
class Notification:
    """One thing to tell the human; ``key`` is the event (or job) that caused it."""

    key: str
    kind: str
    surface_id: SurfaceId
    run_id: RunId
    provider: str
    message: str | None
    occurred_at: float
    #: An item of another host (mytty.daemon.hosts): its name, and the item's pane as that
    #: host's tmux names it and its job's label (the router has no pane of its own for it).
    host: str | None = None
    location: str | None = None
    label: str | None = None


def notification_for(
    event: AgentEvent,
    item: AttentionItem | None,
    run: AgentRun | None,
    long_success: float,
) -> Notification | None:
    """The notification an applied event asks for, or None.

    ``item`` is the attention item the event created (None if it created none), ``run`` the
    event's run after it was applied.
    """
    created = item is not None and item.id == event.id and item.kind in _ITEM_KINDS
    if created and item is not None and item.kind is not AttentionKind.COMPLETION:
        kind = _ITEM_KINDS[item.kind]
    elif event.kind is AgentEventKind.SUCCEEDED and _lasted(run, long_success):
        kind = LONG_SUCCESS
    else:
        return None
    return Notification(
        key=event.id,
        kind=kind,
        surface_id=event.surface_id,
        run_id=event.run_id,
        provider=event.provider.value,
        message=event.message,
        occurred_at=event.occurred_at,
    )


def notification_for_item(item: AttentionItem) -> Notification | None:
    """The notification of an item that no event created (a job's launch failure), if any."""
    kind = _ITEM_KINDS.get(item.kind)
    if kind is None:
        return None
    return Notification(
        key=item.id,
        kind=kind,
        surface_id=item.surface_id,
        run_id=item.run_id,
        provider=item.provider.value,
        message=item.message,
        occurred_at=item.created_at,
    )


def notification_for_remote(host: str, item: Mapping[str, object]) -> Notification | None:
    """The notification of an attention item new on host ``host`` (its ``attention`` entry,
    ids qualified), or None. Keyed by the host and the item, so an item seen again after the
    host was away does not notify twice; its ``createdAt`` counts as when it occurred, so one
    from before this controller started does not notify at all."""
    try:
        kind = _ITEM_KINDS.get(AttentionKind(str(item.get("kind"))))
        created = parse_timestamp(item.get("createdAt"))
    except ValueError:
        return None
    if kind is None:
        return None
    message, location, label = item.get("message"), item.get("location"), item.get("label")
    return Notification(
        key=f"{host}|{item.get('runID')}|{item.get('kind')}|{item.get('createdAt')}",
        kind=kind,
        surface_id=SurfaceId(str(item.get("paneID") or "")),
        run_id=RunId(str(item.get("runID") or "")),
        provider=str(item.get("provider") or ""),
        message=message if isinstance(message, str) else None,
        occurred_at=created,
        host=host,
        location=f"{host}:{location}" if isinstance(location, str) else None,
        label=label if isinstance(label, str) else None,
    )


def _lasted(run: AgentRun | None, seconds: float) -> bool:
    if run is None or run.state is not AgentRunState.SUCCEEDED:
        return False
    if run.started_at is None or run.updated_at is None:
        return False
    return run.updated_at - run.started_at >= seconds


def describe(n: Notification, where: str | None) -> tuple[str, str]:
    """The (title, body) of a notification; ``where`` names the pane for a human."""
    title = f"mytty: {where}" if where else "mytty"
    body = f"{n.provider} {_NEEDS.get(n.kind, n.kind)}"
    if n.message:
        body += f": {n.message}"
    return title, body


class Verdict(StrEnum):
    SEND = "send"
    KIND_OFF = "kind-off"
    BEFORE_START = "before-start"
    DUPLICATE = "duplicate"
    FOCUSED = "focused"
    COOLDOWN = "cooldown"


class NotifyGate:
    """The router's memory: which notifications went out, and when each pane last notified.

    Two steps, because whether a pane is being looked at must be asked of tmux in between:
    :meth:`claim` (synchronous, as the event arrives: kind, age, duplicates) and
    :meth:`admit` (once the daemon knows whether the pane is focused: focus, cooldown).
    """

    def __init__(self, *, started_at: float, kinds: tuple[str, ...], cooldown: float) -> None:
        self._started_at = started_at
        self._kinds = frozenset(kinds)
        self._cooldown = cooldown
        self._claimed: OrderedDict[str, None] = OrderedDict()
        self._last_sent: dict[tuple[SurfaceId, str], float] = {}

    def retune(self, *, kinds: tuple[str, ...], cooldown: float) -> None:
        """Other kinds or cooldown from now on; the memory of what was sent is kept, so a
        reload neither repeats a notification nor cuts a running cooldown short."""
        self._kinds = frozenset(kinds)
        self._cooldown = cooldown

    def claim(self, n: Notification) -> Verdict:
        if n.kind not in self._kinds:
            return Verdict.KIND_OFF
        if n.occurred_at < self._started_at:
            return Verdict.BEFORE_START
        if n.key in self._claimed:
            return Verdict.DUPLICATE
        self._claimed[n.key] = None
        if len(self._claimed) > REMEMBERED_KEYS:
            self._claimed.popitem(last=False)
        return Verdict.SEND

    def admit(self, n: Notification, *, focused: bool, now: float) -> Verdict:
        if focused:
            return Verdict.FOCUSED
        last = self._last_sent.get((n.surface_id, n.kind))
        if last is not None and now - last < self._cooldown:
            return Verdict.COOLDOWN
        self._last_sent[(n.surface_id, n.kind)] = now
        return Verdict.SEND

    def forget_pane(self, surface_id: SurfaceId) -> None:
        for key in [k for k in self._last_sent if k[0] == surface_id]:
            del self._last_sent[key]
