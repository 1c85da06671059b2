"""What the books keep, and for how long.

Finished runs and resolved attention items are kept for :data:`RETENTION_SECONDS`, then pruned
(:mod:`mytty.core.runs.prune`). Independently of age, a pane keeps at most
:data:`MAX_RUNS_PER_PANE` runs in memory: a pane collects a run per prompt, and one pane's
capability could otherwise make thousands (issue 15 #6: 20,000 runs in 15 s made ``list`` 16x
slower).
"""

from __future__ import annotations

from collections.abc import Sequence

from mytty.core.ids import RunId
from mytty.core.runs.run import AgentRun

#: How long finished runs and resolved attention items are kept (seconds).
RETENTION_SECONDS = 86400.0
#: At most this many runs per pane are kept in memory. Past the bound the oldest run that is
#: not active goes (the oldest run of all when every one is active), with its attention items;
#: its events stay in the store.
MAX_RUNS_PER_PANE = 100


def overflow_victim(pane_runs: Sequence[AgentRun], newcomer: RunId) -> RunId:
    """The run that leaves a pane ``newcomer`` took past the bound (``pane_runs`` in creation
    order, the newcomer among them): the oldest other run not active, else the oldest of all."""
    for run in pane_runs:
        if run.id != newcomer and not run.is_active:
            return run.id
    return pane_runs[0].id
