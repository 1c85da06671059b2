"""Placing codex events on a pane by their sessionID.

Codex hooks can run inside a shared app-server process whose environment belongs to whichever
pane started it, so a codex event's own surfaceID and capability prove nothing. The controller
places it instead, and refuses to guess:

1. the pane whose own codex process has that session's rollout file open;
2. the pane an earlier event of the same session was placed on (while that pane's codex
   process is the same one).

The remaining rules of the protocol (``codex resume <id>``, matching working directories)
belong to native run estimation. No match, or more than one → ``unauthorized``.
"""

from __future__ import annotations

import collections
import dataclasses
import logging
import time
from collections.abc import Callable

from mytty.core.events import AgentEvent, AgentProvider
from mytty.core.ids import SurfaceId
from mytty.daemon import procfs
from mytty.daemon.panes import Pane, PaneRegistry

_MAX_DESCENDANTS = 16
#: Refusals remembered for launch-failed diagnostics (time of each refused event).
_MAX_REMEMBERED_REFUSALS = 256

log = logging.getLogger(__name__)


def _process_tree(root: int, session: int | None) -> list[int]:
    """``root`` and its descendants that stay in the pane's terminal session.

    Codex's app-server daemon is forked by the first TUI but starts its own session, and it
    serves every later TUI too: whatever it holds open belongs to no single pane.
    """
    out, frontier = [root], [root]
    while frontier and len(out) < _MAX_DESCENDANTS:
        nxt = [
            c
            for pid in frontier
            for c in procfs.children(pid)
            if session is None or procfs.session_id(c) == session
        ]
        out.extend(nxt)
        frontier = nxt
    return out[:_MAX_DESCENDANTS]


def _has_session_file_open(pid: int, session_id: str) -> bool:
    return any(session_id in t and t.endswith(".jsonl") for t in procfs.open_files(pid))


class CodexRouter:
    provider = AgentProvider.CODEX

    def __init__(
        self,
        *,
        panes: PaneRegistry,
        foreground_agent: Callable[[Pane], tuple[AgentProvider | None, int | None]],
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._clock = clock
        self._panes = panes
        self._foreground_agent = foreground_agent
        self._bindings: dict[str, tuple[SurfaceId, int]] = {}  # session → (surface, codex pid)
        self._refused: collections.deque[float] = collections.deque(maxlen=_MAX_REMEMBERED_REFUSALS)
        self._refused_sessions: set[str] = set()

    def unplaced_since(self, since: float) -> int:
        """How many codex events were refused as unplaceable at or after ``since``."""
        return sum(1 for at in self._refused if at >= since)

    def route(self, event: AgentEvent) -> AgentEvent | None:
        """The event placed on its pane, or None (refused, remembered and logged once)."""
        routed = self._route(event)
        if routed is None:
            self._refused.append(self._clock())
            session = event.session_id or "?"
            if session not in self._refused_sessions and len(self._refused_sessions) < 1024:
                self._refused_sessions.add(session)
                log.warning(
                    "refused codex events of session %s: no pane's own codex process has that "
                    "session open (its hooks run in a Codex background server, probably started "
                    "from another environment; codex --no-daemon avoids it)",
                    session,
                )
        return routed

    def _route(self, event: AgentEvent) -> AgentEvent | None:
        session = event.session_id
        if not session or event.provider is not AgentProvider.CODEX:
            return None
        candidates: list[tuple[SurfaceId, int]] = []
        for pane in self._panes.panes():
            provider, fg = self._foreground_agent(pane)
            if provider is not AgentProvider.CODEX or fg is None:
                continue
            tree = _process_tree(fg, procfs.session_id(pane.pid))
            if any(_has_session_file_open(pid, session) for pid in tree):
                candidates.append((pane.surface_id, fg))
        if len(candidates) > 1:
            return None
        if not candidates:
            bound = self._bindings.get(session)
            if bound is None:
                return None
            surface, pid = bound
            bound_pane = self._panes.by_surface.get(surface)
            if bound_pane is None or self._foreground_agent(bound_pane)[1] != pid:
                self._bindings.pop(session, None)
                return None
            candidates = [bound]
        surface, pid = candidates[0]
        self._bindings[session] = (surface, pid)
        return dataclasses.replace(event, surface_id=surface)
