"""AgentHub: the controller's agent state (runs, attention, ledger, notes) behind the store.

Every event goes through ``ingest``: it is committed to the store first, then applied to the
pure books, then waiters are woken. Waiters never poll: ``wait_until`` sleeps on a change
signal that ``bump`` fires on every inserted event and every pane change.

Waiters are keyed by the pane whose state they read: an event wakes the waiters of its own
pane (plus those that watch every change, like ``events``), never the rest. Before, every event
re-ran every waiter's probe: ~30 µs per waiter per event, 30 ms of latency at 1,000 waiters.
Ledger waiters (``events``) are keyed by their cursor instead: woken once the tip passes it.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time
from collections.abc import Callable, Collection
from typing import TypeVar

from mytty.core.attention.items import AttentionBook
from mytty.core.errors import ErrorCode, MyttyError
from mytty.core.events import AgentEvent, AgentEventKind, AgentProvider
from mytty.core.ids import SurfaceId
from mytty.core.runs.book import RunBook
from mytty.core.runs.ledger import EventLedger
from mytty.core.runs.notes import StatusNotes
from mytty.core.runs.prune import prune_runs
from mytty.core.runs.synthesized import superseded_events
from mytty.daemon.events.sequence_waiters import SequenceWaiters
from mytty.daemon.server.scope import abandonable
from mytty.daemon.store import EventStore, StoredState, StoreError
from mytty.protocol.limits import MAX_WAIT_S

log = logging.getLogger(__name__)

T = TypeVar("T")

PRUNE_INTERVAL_S = 3600.0
#: Event-triggered prunes are at most this far apart (seconds).
PRUNE_MIN_GAP_S = 1.0
#: A snapshot of the books is stored after at least this many writes (see _snapshot_due).
SNAPSHOT_EVERY = 1000
#: Young-generation threshold for the controller's cyclic GC (CPython's default is 700).
GC_GEN0_THRESHOLD = 10_000


def settle_heap() -> None:
    """Keep the cyclic GC from pausing the event socket for tens of milliseconds.

    Called once the startup state is loaded: everything alive then (imported modules, the
    replayed history) lives as long as the process, so ``gc.freeze`` takes it out of every
    later collection, and a larger young generation makes full collections rare. Measured with
    scripts/bench/ingest: full collections of 20-60 ms set the p99 reply latency before this.
    """
    gc.freeze()
    gc.set_threshold(GC_GEN0_THRESHOLD, 20, 20)


class AgentHub:
    def __init__(self, store: EventStore, clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.clock = clock
        self.book = RunBook()
        self.attention = AttentionBook()
        self.ledger = EventLedger()
        self.notes = StatusNotes()
        self.version = 0
        #: Parked waiters by the pane they watch; the None key watches every change.
        self._waiters: dict[str | None, set[asyncio.Future[None]]] = {}
        #: Parked waiters by the ledger cursor they wait past (``events``).
        self.ledger_waiters = SequenceWaiters()
        self._observers: list[Callable[[AgentEvent, bool], None]] = []
        self._prune_pending = False
        self._last_prune = float("-inf")
        #: The store's sequence of the last applied event, and rowid of the last applied
        #: acknowledgement: what a snapshot taken now covers.
        self._event_mark = 0
        self._ack_mark = 0
        self._since_snapshot = 0
        self._snapshot_task: asyncio.Task[None] | None = None

    # -- startup ------------------------------------------------------------------------------
    def load(self, events: list[AgentEvent], acknowledgements: dict[str, float]) -> None:
        for event in events:
            result = self.book.apply(event)
            self.attention.observe(event, result)
        for item_id, at in acknowledgements.items():
            self.attention.acknowledge(item_id, at)

    def restore(self, state: StoredState) -> None:
        """Rebuild the books from the store's snapshot plus what was stored after it."""
        if state.snapshot is not None:
            for run in state.snapshot.runs:
                self.book.restore(run)
            for item in state.snapshot.items:
                self.attention.restore(item)
        self.load(state.events, state.acknowledgements)
        self._event_mark, self._ack_mark = state.event_upto, state.ack_upto
        self._since_snapshot = len(state.events) + len(state.acknowledgements)
        log.debug(
            "restored %d runs and %d attention items (%d rows read, %d events replayed)",
            len(self.book),
            len(self.attention),
            state.rows_read,
            len(state.events),
        )

    # -- snapshots ----------------------------------------------------------------------------
    def _snapshot_due(self) -> bool:
        # Every write costs a pass over the kept runs, so the interval grows with them: the
        # amortized cost per event stays constant, and a restart after a crash replays at most
        # about max(SNAPSHOT_EVERY, kept runs) events.
        return self._since_snapshot >= max(SNAPSHOT_EVERY, len(self.book))

    def _note_write(self) -> None:
        self._since_snapshot += 1
        if self._snapshot_due() and self._snapshot_task is None:
            # Held here: the loop keeps only a weak reference to a task.
            self._snapshot_task = asyncio.get_running_loop().create_task(
                self._background_snapshot()
            )

    async def _background_snapshot(self) -> None:
        try:
            await self.save_snapshot()
        except Exception as exc:  # noqa: BLE001 - the next one retries; a restart then replays a bit more
            log.warning("could not store the books' snapshot: %s", exc)
        finally:
            self._snapshot_task = None

    async def save_snapshot(self) -> None:
        """Store the books as of the last applied event and acknowledgement. Raises StoreError.

        The marks and the books are read together with no await between: every event up to
        the event mark is in the books (events are applied in commit order), none after it.
        """
        runs, items = self.book.all_runs(), self.attention.all_items()
        since = self._since_snapshot
        await self.store.save_snapshot(runs, items, self._event_mark, self._ack_mark)
        self._since_snapshot -= since

    def add_observer(self, fn: Callable[[AgentEvent, bool], None]) -> None:
        """``fn(event, inserted)`` sees every received event, duplicates included."""
        self._observers.append(fn)

    def now(self) -> float:
        """The controller's clock (wall-clock seconds): what handlers use for "now"."""
        return self.clock()

    # -- change signal ------------------------------------------------------------------------
    def bump(self, surface_id: str | None = None) -> None:
        """Wake the waiters of ``surface_id`` and those watching every change.

        No ``surface_id`` (a pane appeared or went, tmux reconnected, a deadline passed for
        an unknown pane) wakes every waiter.
        """
        self.version += 1
        if surface_id is None:
            woken = list(self._waiters.values())
            self._waiters = {}
        else:
            woken = [w for key in (surface_id, None) if (w := self._waiters.pop(key, None))]
        for waiters in woken:
            for fut in waiters:
                if not fut.done():
                    fut.set_result(None)

    def waiter_count(self) -> int:
        return sum(len(w) for w in self._waiters.values()) + len(self.ledger_waiters)

    async def wait_until(
        self,
        probe: Callable[[], T | None],
        timeout: float,
        *,
        surface_id: str | None = None,
        after_sequence: int | None = None,
        surface_ids: Collection[str] | None = None,
    ) -> tuple[T | None, bool]:
        """Re-evaluate ``probe`` on every change until it returns non-None or time runs out.

        ``surface_id`` says which pane's changes can alter ``probe``'s answer (None: any
        change); ``surface_ids``, when given instead, names several panes (a wait on many
        jobs), and the waiter is woken by a change of any of them only; ``after_sequence``
        says instead that only a ledger tip past it can. Returns (value, timed_out).
        ``probe`` may raise to end the wait with an error; a client that hangs up ends it too
        (the server cancels it). Whatever a command allows, no wait lasts longer than
        MAX_WAIT_S.
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + min(MAX_WAIT_S, max(0.0, timeout))
        keys: tuple[str | None, ...] = (
            tuple(dict.fromkeys(surface_ids)) if surface_ids else (surface_id,)
        )
        with abandonable():
            while True:
                value = probe()
                if value is not None:
                    return value, False
                remaining = deadline - loop.time()
                if remaining <= 0:
                    return None, True
                # Registered right after the probe, with no await between: no change is missed.
                fut: asyncio.Future[None] = loop.create_future()
                if after_sequence is not None:
                    self.ledger_waiters.add(after_sequence, fut)
                else:
                    for key in keys:
                        self._waiters.setdefault(key, set()).add(fut)
                try:
                    async with asyncio.timeout(remaining):
                        await fut
                except TimeoutError:
                    value = probe()
                    return (value, False) if value is not None else (None, True)
                finally:
                    if after_sequence is not None:
                        self.ledger_waiters.discard(after_sequence, fut)
                    else:
                        for key in keys:
                            waiters = self._waiters.get(key)
                            if waiters is not None:
                                waiters.discard(fut)
                                if not waiters:
                                    del self._waiters[key]

    # -- attention ------------------------------------------------------------------------------
    async def acknowledge(self, item_ids: Collection[str], now: float) -> None:
        """Acknowledge attention items: stored first, applied only once the store committed.

        Applied first, a failed write used to leave the item acknowledged until the next
        restart reopened it. Raises MyttyError(INTERNAL_ERROR) when the store fails.
        """
        if not item_ids:
            return
        ids = sorted(item_ids)
        try:
            mark = await self.store.acknowledge(ids, now)
        except StoreError as exc:
            log.error("could not store attention acknowledgements: %s", exc)
            raise MyttyError(
                ErrorCode.INTERNAL_ERROR,
                f"the store could not record the acknowledgement ({exc}); nothing was acknowledged",
            ) from None
        for item_id in ids:
            self.attention.acknowledge(item_id, now)
        self._ack_mark = max(self._ack_mark, mark)
        self._note_write()
        self.bump()

    async def retire_items(self, gone: Callable[[SurfaceId], bool]) -> int:
        """Acknowledge the open items of panes that are gone (``gone(surface)``): nothing there
        can be answered or jumped to any more, so they leave the list and every count (they
        stay under ``--all`` for 24 h). How many; a store failure leaves them open (logged)."""
        now = self.clock()
        ids = {i.id for i in self.attention.items(now) if i.actionable and gone(i.surface_id)}
        try:
            await self.acknowledge(ids, now)
        except MyttyError as exc:
            log.warning("the items of %d closed panes stay open: %s", len(ids), exc.message)
            return 0
        return len(ids)

    # -- ingestion ----------------------------------------------------------------------------
    async def ingest(self, event: AgentEvent) -> bool:
        """Store and apply one event (plus any runSuperseded sweep it causes).

        Returns True when the event was new. Raises StoreError when the store fails; then
        nothing was applied.
        """
        if self.book.seen(event.id):
            self._observe(event, False)
            return False
        if (
            event.kind is AgentEventKind.STARTED
            and event.provider is AgentProvider.CLAUDE_CODE
            and not event.synthesized
        ):
            sweeps = superseded_events(self.book, event)
            # The books know only the ids of events applied since the snapshot: a retried old
            # prompt must not close the runs started since, so ask the store.
            if sweeps and await self.store.contains(event.id):
                self._observe(event, False)
                return False
            for sweep in sweeps:
                await self._insert(sweep)
        return await self._insert(event)

    async def _insert(self, event: AgentEvent) -> bool:
        sequence = await self.store.insert(event)
        if not sequence or self.book.seen(event.id):
            self._observe(event, False)
            return False
        self._event_mark = max(self._event_mark, sequence)
        self._note_write()
        result = self.book.apply(event)
        self.attention.observe(event, result)
        self.notes.observe(event)
        self.ledger.append(event)
        self.ledger_waiters.advance(self.ledger.latest_sequence)
        self._observe(event, True)
        if result.run is not None and result.run.is_terminal:
            self.schedule_prune()
        self.bump(event.surface_id)
        return True

    def _observe(self, event: AgentEvent, inserted: bool) -> None:
        for fn in self._observers:
            try:
                fn(event, inserted)
            except Exception:  # pragma: no cover
                log.exception("event observer failed")

    # -- retention ------------------------------------------------------------------------------
    def schedule_prune(self) -> None:
        if self._prune_pending:
            return
        self._prune_pending = True
        # A pass scans every run, and nothing can become prunable faster than the 24 h
        # retention allows, so a burst of finishing runs shares one pass per PRUNE_MIN_GAP_S.
        delay = max(0.0, self._last_prune + PRUNE_MIN_GAP_S - time.monotonic())
        asyncio.get_running_loop().call_later(delay, lambda: asyncio.ensure_future(self.prune()))

    async def prune(self) -> None:
        self._prune_pending = False
        self._last_prune = time.monotonic()
        now = self.clock()
        self.attention.prune(now)
        pruned = prune_runs(self.book, self.attention, now)
        if pruned:
            try:
                await self.store.delete_runs(pruned.keys())
            except Exception as exc:  # noqa: BLE001 - the books already forgot them; the next start re-prunes
                log.warning("could not delete pruned runs from the store: %s", exc)

    async def prune_forever(self) -> None:
        while True:
            await asyncio.sleep(PRUNE_INTERVAL_S)
            await self.prune()
