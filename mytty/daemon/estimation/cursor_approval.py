"""Estimating Cursor approval prompts from its hooks.

Cursor's hooks never say "waiting for approval". A ``preToolUse`` that sees no matching
``postToolUse`` / ``postToolUseFailure`` / ``stop`` within 10 s is most likely waiting on the
human, so a synthesized ``approval-requested`` is recorded (its time is the
``preToolUse``'s plus the threshold; the timer runs on the controller's injected clock); the matching post event then moves
the run back to ``running``. Several tool calls may be pending at once (keyed by toolUseID).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from mytty.core.events import AgentEvent, AgentEventKind, AgentProvider
from mytty.core.ids import RunId, stable_uuid
from mytty.daemon.clock import CURSOR_APPROVAL_SECONDS, Clock, Timer

log = logging.getLogger(__name__)

PENDING_THRESHOLD_S = CURSOR_APPROVAL_SECONDS
HOOK_NAME = "mytty.cursorApprovalPending"


class CursorApprovalEstimator:
    def __init__(
        self,
        record: Callable[[AgentEvent], Awaitable[object]],
        clock: Clock,
        threshold: float = PENDING_THRESHOLD_S,
    ) -> None:
        self._clock = clock
        self._record_event = record
        self._threshold = threshold
        self._timers: dict[tuple[RunId, str], Timer] = {}
        #: Estimates whose timer fired and that are not recorded yet: a post event or the run's
        #: end arriving in between withdraws one (else it would put a run that went on, or
        #: ended, back in waiting-approval, where its Stop is then ignored).
        self._firing: set[tuple[RunId, str]] = set()
        # The loop keeps only a weak reference to a task: one nobody holds may vanish mid-write.
        self._recording: set[asyncio.Future[None]] = set()

    def observe(self, event: AgentEvent, inserted: bool) -> None:
        if event.provider is not AgentProvider.CURSOR or event.synthesized:
            return
        hook = event.hook_name or ""
        if hook == "preToolUse" and event.tool_use_id:
            key = (event.run_id, event.tool_use_id)
            if key in self._timers or not inserted:
                return
            self._timers[key] = self._clock.call_later(self._threshold, lambda: self._fire(event))
        elif hook in ("postToolUse", "postToolUseFailure") and event.tool_use_id:
            key = (event.run_id, event.tool_use_id)
            self._firing.discard(key)
            timer = self._timers.pop(key, None)
            if timer is not None:
                timer.cancel()
        elif hook == "stop" or event.kind in (
            AgentEventKind.SUCCEEDED,
            AgentEventKind.FAILED,
            AgentEventKind.DISCONNECTED,
        ):
            self._firing = {k for k in self._firing if k[0] != event.run_id}
            for key in [k for k in self._timers if k[0] == event.run_id]:
                self._timers.pop(key).cancel()

    def _fire(self, pre: AgentEvent) -> None:
        assert pre.tool_use_id is not None
        key = (pre.run_id, pre.tool_use_id)
        self._timers.pop(key, None)
        self._firing.add(key)
        synthesized = AgentEvent(
            id=stable_uuid("event", "cursor", "pending-approval", pre.run_id, pre.tool_use_id),
            run_id=pre.run_id,
            surface_id=pre.surface_id,
            provider=pre.provider,
            kind=AgentEventKind.APPROVAL_REQUESTED,
            occurred_at=pre.occurred_at + self._threshold,
            session_id=pre.session_id,
            # The same text a hook-reported approval request gets (providers.md §6.3).
            message=f"{pre.tool_name} requires approval" if pre.tool_name else None,
            hook_name=HOOK_NAME,
            tool_use_id=pre.tool_use_id,
            tool_name=pre.tool_name,
        )
        task = asyncio.ensure_future(self._record(synthesized, key))
        self._recording.add(task)
        task.add_done_callback(self._recording.discard)

    async def _record(self, event: AgentEvent, key: tuple[RunId, str]) -> None:
        if key not in self._firing:
            return  # the tool ran (or the run ended) after the timer fired: no estimate
        self._firing.discard(key)
        try:
            await self._record_event(event)
        except Exception as exc:  # noqa: BLE001 - an estimate is never worth the controller
            log.warning("could not record the Cursor approval estimate: %s", exc)

    def cancel_all(self) -> None:
        for timer in self._timers.values():
            timer.cancel()
        self._timers.clear()
        self._firing.clear()
