"""Who sent an answer: a person, or an agent (and in which pane), from ``/proc``.

The caller's process ancestry decides, as for ``env``: the socket peer's parents are walked up
to a pane's shell; a process that is an agent (Claude Code, Codex, Cursor: judged by its
executable and argv as the detector does) on the way makes the caller that agent's. Two traces
that survive leaving the tree count too: ``CLAUDECODE=1`` or a ``CODEX_SANDBOX`` variable in the
caller's environment (Claude Code and Codex set them for the commands they run), and
``MYTTY_SURFACE_ID`` naming a pane whose foreground is an agent when the caller runs in no
pane at all (a command the agent detached, ``setsid``/``nohup``). A process that detaches *and*
clears its environment is not caught by this: the check is only as strong as ``env``'s.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from mytty.core.approvals.access import AGENT, HUMAN, Caller
from mytty.core.estimation.detect import classify_process
from mytty.core.ids import JobId, SurfaceId, parse_surface_id
from mytty.daemon import procfs

MAX_DEPTH = 64
#: Variables the agents set for the commands they run.
_AGENT_MARKS = (("CLAUDECODE", "1"), ("CODEX_SANDBOX", None))


def _marked(pid: int, proc_root: str) -> bool:
    for name, value in _AGENT_MARKS:
        found = procfs.environ_value(pid, name, proc_root=proc_root)
        if found is not None and (value is None or found == value):
            return True
    return False


def classify(
    peer_pid: int,
    pane_pids: Mapping[int, SurfaceId],
    *,
    job_in_pane: Callable[[SurfaceId], JobId | None],
    agent_in_front: Callable[[SurfaceId], bool],
    proc_root: str = procfs.PROC,
) -> Caller:
    """The caller behind ``peer_pid`` (``pane_pids``: each live pane's shell pid)."""
    surface: SurfaceId | None = None
    agent = False
    current: int | None = procfs.parent_pid(peer_pid, proc_root=proc_root) if peer_pid > 0 else None
    depth = 0
    while current is not None and current > 1 and depth < MAX_DEPTH:
        if current in pane_pids:
            surface = pane_pids[current]
            break
        exe = procfs.exe(current, proc_root=proc_root)
        argv = procfs.argv(current, proc_root=proc_root) or []
        if classify_process(exe, argv) is not None:
            agent = True
        current = procfs.parent_pid(current, proc_root=proc_root)
        depth += 1
    if peer_pid > 0 and not agent:
        agent = _marked(peer_pid, proc_root)
    if surface is None and peer_pid > 0:
        named = parse_surface_id(
            procfs.environ_value(peer_pid, "MYTTY_SURFACE_ID", proc_root=proc_root)
        )
        if named is not None and agent_in_front(named):
            surface, agent = named, True
    if agent:
        return Caller(AGENT, surface, job_in_pane(surface) if surface is not None else None)
    return Caller(HUMAN, surface)
