"""Sweeps: runs whose agent died unseen end as ``disconnected`` (synthesized, mytty.startupSweep).

At startup they are the runs whose agent died while no controller was watching; while running,
the runs of every pane of a tmux server that went away (issue 15 #4).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection

from mytty.core.runs.run import AgentRun
from mytty.core.runs.synthesized import startup_sweep_events
from mytty.daemon import procfs
from mytty.daemon.agents import AgentHub
from mytty.daemon.panes.identity import PaneRegistry

log = logging.getLogger(__name__)


async def startup_sweep(
    hub: AgentHub,
    panes: PaneRegistry,
    now: float,
    agent_alive: Callable[[AgentRun], bool] | None = None,
) -> None:
    """Record ``disconnected`` for every active run whose agent is gone.

    Runs after tmux is connected and every pane has its identity, before the sockets open.
    ``agent_alive`` (native run estimation's re-detection) says whether a run's pane still runs
    its agent; without it a run lives while anything but the pane's shell is in front.
    """

    def is_dead(run: AgentRun) -> bool:
        pane = panes.by_surface.get(run.surface_id)
        if pane is None:
            return True
        if agent_alive is not None:
            return not agent_alive(run)
        # tmux panes outlive the controller: a run is dead only when its pane is back at
        # its shell (nothing in the foreground).
        return procfs.foreground_pid(pane.pid) is None

    await _sweep(hub, now, is_dead)


async def sweep_gone_panes(hub: AgentHub, surfaces: Collection[str], now: float) -> None:
    """Record ``disconnected`` for every active run on ``surfaces`` (panes that are gone)."""
    if surfaces:
        await _sweep(hub, now, lambda run: run.surface_id in surfaces)


async def _sweep(hub: AgentHub, now: float, is_dead: Callable[[AgentRun], bool]) -> None:
    for event in startup_sweep_events(hub.book, now, is_dead):
        try:
            await hub.ingest(event)
        except Exception as exc:  # noqa: BLE001 - the store is down: the next start sweeps again
            log.error("sweep could not record %s: %s", event.run_id, exc)
