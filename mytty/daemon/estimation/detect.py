"""Which agent runs in a pane's foreground, from ``/proc`` (semantics §9.1).

The start is the pane terminal's foreground process group (``tpgid`` of the pane's process):
its leader is the foreground process. When the pane's own shell is in front nothing runs
there. The leader is classified by :func:`~mytty.core.estimation.detect.classify_process` (its
executable, argv[0], argv[1]); failing that, its exec-time ``MYTTY_AGENT`` names the provider
(a hint that never overrides a real match, and that children never get). When the leader is
itself a shell (``sh -c 'claude …'``, a wrapper script), its children are searched breadth
first: depth 2, at most 8 processes visited and at most 4 argv reads in all, each child judged
by its executable first and its argv only when that fails.

A classification is cached by (pid, start time, executable), so a reused pid is never mistaken
for the process that had it; only the wrapper search is redone on each look, because a shell's
children come and go. What one look costs: one ``stat`` read of the pane's process when nothing
is in front (the common case), plus a few ``/proc`` reads when something new is.
"""

from __future__ import annotations

from collections import OrderedDict, deque
from dataclasses import dataclass

from mytty.core.estimation import detect as agents_detect
from mytty.core.events import AgentProvider
from mytty.daemon import procfs

WRAPPER_DEPTH = 2
WRAPPER_VISITS = 8
WRAPPER_ARGV_READS = 4
#: Classifications kept (LRU); far more than the processes of a few hundred panes.
CACHE_SIZE = 4096

_Identity = tuple[int, int, str | None]  # (pid, start time, exe)


@dataclass(frozen=True, slots=True)
class Detection:
    """A pane's foreground agent: ``provider`` None when no agent is in front.

    ``pid`` is the agent's own process (the wrapper's child when found through a shell);
    ``foreground`` the foreground process itself (None when the pane's shell is in front).
    """

    provider: AgentProvider | None
    pid: int | None
    foreground: int | None


NOTHING = Detection(None, None, None)


@dataclass(frozen=True, slots=True)
class _Class:
    provider: AgentProvider | None
    shell: bool


class AgentDetector:
    def __init__(self, proc_root: str = procfs.PROC) -> None:
        self._proc = proc_root
        self._cache: OrderedDict[_Identity, _Class] = OrderedDict()
        #: Panes whose own process was last seen in front and no agent: pid → (start, comm).
        self._quiet: dict[int, tuple[int, bytes]] = {}
        self.argv_reads = 0  # for tests and the bench: how much /proc the looks cost

    def detect(self, pane_pid: int) -> Detection:
        """The agent in the foreground of the pane whose process is ``pane_pid``."""
        brief = procfs.stat_brief(pane_pid, proc_root=self._proc)
        if brief is None or brief[1] <= 0:
            return NOTHING
        comm, fg, start = brief
        if fg != pane_pid:
            self._quiet.pop(pane_pid, None)
            return self.classify_foreground(fg)
        # The pane's own process is in front: its interactive shell (nothing runs), or an
        # agent it exec'd or tmux started directly (``exec claude``, ``new-window claude``).
        # An interactive shell's background jobs are not searched: they are not in front.
        # The common case, a shell at its prompt, costs this one ``stat`` read: the same
        # process (start time) under the same name (an exec renames it) is still no agent.
        if self._quiet.get(pane_pid) == (start, comm):
            return NOTHING
        # The stat just read gives the start time: the identity costs only the exe link.
        identity = (fg, start, procfs.exe(fg, proc_root=self._proc))
        found = self._classify(fg, hint=True, allow_argv=True, identity=identity)
        if found is None or found.provider is None:
            if identity in self._cache:  # a final answer
                if len(self._quiet) >= CACHE_SIZE:
                    self._quiet.clear()
                self._quiet[pane_pid] = (start, comm)
            return NOTHING
        self._quiet.pop(pane_pid, None)
        return Detection(found.provider, fg, fg)

    def classify_foreground(self, fg: int) -> Detection:
        found = self._classify(fg, hint=True, allow_argv=True)
        if found is None:
            return Detection(None, None, fg)
        if found.provider is not None:
            return Detection(found.provider, fg, fg)
        if found.shell:
            child = self._search_children(fg)
            if child is not None:
                return Detection(child[0], child[1], fg)
        return Detection(None, None, fg)

    # -- internals --------------------------------------------------------------------------
    def _identity(self, pid: int) -> _Identity | None:
        start = procfs.start_time(pid, proc_root=self._proc)
        if start is None:
            return None
        return (pid, start, procfs.exe(pid, proc_root=self._proc))

    def _classify(
        self, pid: int, *, hint: bool, allow_argv: bool, identity: _Identity | None = None
    ) -> _Class | None:
        """The cached class of ``pid``; None when the process is gone."""
        if identity is None:
            identity = self._identity(pid)
        if identity is None:
            return None
        cached = self._cache.get(identity)
        if cached is not None:
            self._cache.move_to_end(identity)
            return cached
        exe = identity[2]
        provider = agents_detect.classify_process(exe, [])
        args: list[str] | None = None
        if provider is None and allow_argv:
            args = procfs.argv(pid, proc_root=self._proc) or []
            self.argv_reads += 1
            provider = agents_detect.classify_process(exe, args)
        if provider is None and not allow_argv:
            return _Class(None, False)  # judged by its executable alone: not cached as final
        if provider is None and hint:
            value = procfs.environ_value(pid, "MYTTY_AGENT", proc_root=self._proc)
            provider = agents_detect.parse_agent_hint(value)
        names = [n for n in (exe, *(args or [])[:1]) if n]
        shell = provider is None and any(agents_detect.is_shell(n) for n in names)
        result = _Class(provider, shell)
        if args == []:
            # No argv: a zombie, or a process in the middle of exec (the kernel switches the
            # executable before the new arguments are in place). Judge it again next time.
            return result
        self._cache[identity] = result
        if len(self._cache) > CACHE_SIZE:
            self._cache.popitem(last=False)
        return result

    def _search_children(self, shell_pid: int) -> tuple[AgentProvider, int] | None:
        """Breadth first below a wrapper shell: depth 2, 8 visits, 4 argv reads."""
        queue: deque[tuple[int, int]] = deque(
            (c, 1) for c in procfs.children(shell_pid, proc_root=self._proc)
        )
        visits = reads = 0
        while queue and visits < WRAPPER_VISITS:
            pid, depth = queue.popleft()
            visits += 1
            found = self._classify(pid, hint=False, allow_argv=False)
            if found is None:
                continue
            if found.provider is None and reads < WRAPPER_ARGV_READS:
                identity = self._identity(pid)
                if identity is not None and identity not in self._cache:
                    reads += 1
                found = self._classify(pid, hint=False, allow_argv=True) or found
            if found.provider is not None:
                return found.provider, pid
            if depth < WRAPPER_DEPTH:
                queue.extend((c, depth + 1) for c in procfs.children(pid, proc_root=self._proc))
        return None
