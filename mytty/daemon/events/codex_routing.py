"""Placing codex events on a pane by their sessionID.

Codex hooks can run inside a shared app-server process whose environment belongs to whichever
pane started it, so a codex event's own surfaceID and capability prove nothing. The controller
places it instead, among every pane whose foreground agent is codex, by these rules in order
(the original's order):

1. the pane whose own codex process has that session's rollout file open (its own: processes
   of the pane's terminal session, so not the shared server, which starts a session of its own);
2. the pane an earlier event of the same session was placed on, while that pane's codex
   process is the same one;
3. the pane whose codex was started as ``codex resume <session id>`` (its argv names it);
4. the one *unbound* codex pane whose working directory is the cwd the session's rollout
   records, and only when that rollout is an interactive TUI session (``originator``
   ``codex-tui``; never a subagent's thread, ``codex exec`` or a desktop-app thread);
5. for ``SessionStart`` and ``UserPromptSubmit`` only: the one pane in that cwd whose binding
   may be stale (``/new`` or a resume typed inside Codex starts another session in the same
   process).

A rule that matches more than one pane refuses the event instead of trying the next rule;
no match anywhere refuses it too. A refused event answers ``unauthorized``: never a guess.
So two unbound codex panes in one directory cannot be told apart until one of them is bound,
and an event that comes before Codex wrote the session's rollout (it does at the first
prompt) is refused.

A pane is *bound* when an earlier event was placed on it while its current codex process ran,
or when its own codex process holds a rollout of another session open. A binding ends when the
pane closes or its codex process is replaced.
"""

from __future__ import annotations

import collections
import dataclasses
import datetime as dt
import glob
import json
import logging
import os
import re
import time
from collections.abc import Callable, Iterable

from mytty.core.events import AgentEvent, AgentProvider
from mytty.core.ids import SurfaceId
from mytty.daemon import procfs
from mytty.daemon.panes.identity import Pane, PaneRegistry

_MAX_DESCENDANTS = 16
#: Refusals remembered for launch-failed diagnostics (time of each refused event).
_MAX_REMEMBERED_REFUSALS = 256
#: Rollout facts kept per session (a session's rollout path, cwd and origin never change).
_MAX_ROLLOUTS_CACHED = 1024
#: Bindings kept; the oldest go first once dead ones are dropped.
_MAX_BINDINGS = 4096
#: How much of a rollout's start is read for its ``session_meta`` line (its base instructions
#: can be long; nothing else is read).
_HEAD_BYTES = 256 * 1024
#: Only the events that start a session or a turn may move a session onto a bound pane.
_REBIND_HOOKS = frozenset({"SessionStart", "UserPromptSubmit"})
#: The TUI's ``originator``; ``codex_exec`` and the desktop app's threads never bind to a pane.
_INTERACTIVE_ORIGINATOR = "codex-tui"
_SAFE_SESSION = re.compile(r"^[0-9A-Za-z_-]{1,128}$")

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


def _is_rollout(path: str) -> bool:
    name = os.path.basename(path)
    return name.startswith("rollout-") and name.endswith(".jsonl")


def _has_session_file_open(pid: int, session_id: str) -> bool:
    return any(session_id in t and t.endswith(".jsonl") for t in procfs.open_files(pid))


def resumes_session(argv: list[str], session_id: str) -> bool:
    """Whether ``argv`` is ``codex … resume … <session_id>`` (the id among resume's arguments).

    Arguments after ``--`` are a prompt, never a command; ``--last`` names no session.
    """
    args = argv[1:]
    if "--" in args:
        args = args[: args.index("--")]
    if "resume" not in args:
        return False
    wanted = session_id.lower()
    return any(token.lower() == wanted for token in args[args.index("resume") + 1 :])


class ProcessView:
    """What the router reads about a pane's codex processes (``/proc``; a fake in tests)."""

    def tree(self, codex_pid: int, pane_pid: int) -> list[int]:
        return _process_tree(codex_pid, procfs.session_id(pane_pid))

    def open_files(self, pid: int) -> list[str]:
        return procfs.open_files(pid)

    def argv(self, pid: int) -> list[str]:
        return procfs.argv(pid) or []

    def cwd(self, pid: int) -> str | None:
        return procfs.cwd(pid)

    def codex_home(self, pid: int) -> str | None:
        """Where that codex keeps its sessions (``$CODEX_HOME``, else ``$HOME/.codex``)."""
        explicit = procfs.environ_value(pid, "CODEX_HOME")
        if explicit:
            return explicit
        home = procfs.environ_value(pid, "HOME")
        return os.path.join(home, ".codex") if home else None


@dataclasses.dataclass(frozen=True, slots=True)
class Rollout:
    """What a session's rollout file says about where and how it runs."""

    path: str
    cwd: str | None
    interactive: bool


def _uuid7_days(session_id: str) -> list[str]:
    """The local ``YYYY/MM/DD`` folders a UUIDv7 session was most likely created in."""
    digits = session_id.replace("-", "")
    if len(digits) != 32 or digits[12:13] != "7":
        return []
    try:
        created = dt.datetime.fromtimestamp(int(digits[:12], 16) / 1000)
    except (ValueError, OverflowError, OSError):
        return []
    return [(created + dt.timedelta(days=d)).strftime("%Y/%m/%d") for d in (0, -1, 1)]


def find_rollout(session_id: str, homes: Iterable[str]) -> str | None:
    """The rollout file of ``session_id`` under one of the codex homes, if it exists yet."""
    if not _SAFE_SESSION.match(session_id):
        return None
    name = f"rollout-*-{session_id}.jsonl"
    for home in dict.fromkeys(homes):
        sessions = os.path.join(home, "sessions")
        # A UUIDv7 says when it was made: look in that day's folder before all of them.
        for day in _uuid7_days(session_id):
            hits = glob.glob(os.path.join(glob.escape(sessions), day, name))
            if hits:
                return sorted(hits)[0]
        hits = glob.glob(os.path.join(glob.escape(sessions), "*", "*", "*", name))
        if hits:
            return sorted(hits)[0]
    return None


def read_rollout(path: str) -> Rollout | None:
    """The cwd and origin a rollout's ``session_meta`` line records (None: unreadable)."""
    try:
        with open(path, "rb") as f:
            head = f.read(_HEAD_BYTES)
    except OSError:
        return None
    for line in head.split(b"\n"):
        try:
            row = json.loads(line)
        except ValueError:
            continue  # blank, or cut off at the read limit
        if not isinstance(row, dict) or row.get("type") != "session_meta":
            continue
        meta = row.get("payload")
        if not isinstance(meta, dict):
            return None
        cwd = meta.get("cwd")
        source = meta.get("source")
        interactive = meta.get("originator") == _INTERACTIVE_ORIGINATOR and not (
            isinstance(source, dict) or source in ("exec", "subagent", "mcp")
        )
        return Rollout(
            path,
            os.path.realpath(cwd) if isinstance(cwd, str) and cwd else None,
            interactive,
        )
    return None


@dataclasses.dataclass(slots=True)
class _CodexPane:
    surface: SurfaceId
    pid: int  # the codex process in front: a binding's identity
    tree: list[int]
    open_rollouts: list[str]


class CodexRouter:
    provider = AgentProvider.CODEX

    def __init__(
        self,
        *,
        panes: PaneRegistry,
        foreground_agent: Callable[[Pane], tuple[AgentProvider | None, int | None]],
        clock: Callable[[], float] = time.time,
        processes: ProcessView | None = None,
        default_codex_home: str | None = None,
    ) -> None:
        self._clock = clock
        self._panes = panes
        self._foreground_agent = foreground_agent
        self._procs = processes if processes is not None else ProcessView()
        self._default_home = (
            default_codex_home
            if default_codex_home is not None
            else os.environ.get("CODEX_HOME") or os.path.expanduser("~/.codex")
        )
        self._bindings: dict[str, tuple[SurfaceId, int]] = {}  # session → (surface, codex pid)
        self._rollouts: dict[str, Rollout] = {}
        self._refused: collections.deque[float] = collections.deque(maxlen=_MAX_REMEMBERED_REFUSALS)
        self._refused_sessions: set[str] = set()

    def unplaced_since(self, since: float) -> int:
        """How many codex events were refused as unplaceable at or after ``since``."""
        return sum(1 for at in self._refused if at >= since)

    def session_of(self, surface: SurfaceId) -> str | None:
        """The session most recently placed on ``surface`` (None: none yet)."""
        found = None
        for session, (bound, _pid) in self._bindings.items():
            if bound == surface:
                found = session
        return found

    def route(self, event: AgentEvent) -> AgentEvent | None:
        """The event placed on its pane, or None (refused, remembered and logged once)."""
        routed = self._route(event)
        if routed is None:
            self._refused.append(self._clock())
            session = event.session_id or "?"
            if session not in self._refused_sessions and len(self._refused_sessions) < 1024:
                self._refused_sessions.add(session)
                log.warning(
                    "refused codex events of session %s: no single codex pane could be shown to "
                    "run it (two unbound codex panes in one directory, or no rollout yet; "
                    "codex --no-daemon lets each pane's own process prove it)",
                    session,
                )
        return routed

    # -- the rules ---------------------------------------------------------------------------
    def _codex_panes(self) -> list[_CodexPane]:
        out = []
        for pane in self._panes.panes():
            provider, fg = self._foreground_agent(pane)
            if provider is not AgentProvider.CODEX or fg is None:
                continue
            tree = self._procs.tree(fg, pane.pid)
            rollouts = [
                path
                for pid in tree
                for path in self._procs.open_files(pid)
                if path.startswith("/") and _is_rollout(path)
            ]
            out.append(_CodexPane(pane.surface_id, fg, tree, rollouts))
        return out

    def _route(self, event: AgentEvent) -> AgentEvent | None:
        session = event.session_id
        if not session or event.provider is not AgentProvider.CODEX:
            return None
        panes = self._codex_panes()
        chosen = self._choose(session, event.hook_name, panes)
        if chosen is None:
            return None
        self._bind(session, chosen.surface, chosen.pid)
        return dataclasses.replace(event, surface_id=chosen.surface)

    def _choose(
        self, session: str, hook_name: str | None, panes: list[_CodexPane]
    ) -> _CodexPane | None:
        live = {(p.surface, p.pid) for p in panes}
        self._forget_dead(live)
        # 1. The pane's own codex process has the session's rollout open.
        own = [p for p in panes if any(session in path for path in p.open_rollouts)]
        if own:
            return own[0] if len(own) == 1 else None
        # 2. An earlier event of the session was placed there (same codex process).
        bound = self._bindings.get(session)
        if bound is not None:
            return next(p for p in panes if (p.surface, p.pid) == bound)
        # 3. Started as `codex resume <session>`.
        resumed = [
            p
            for p in panes
            if any(resumes_session(self._procs.argv(pid), session) for pid in p.tree)
        ]
        if resumed:
            return resumed[0] if len(resumed) == 1 else None
        # 4./5. By the working directory the session's rollout records.
        rollout = self._rollout(session, panes)
        if rollout is None or rollout.cwd is None or not rollout.interactive:
            return None
        here = [p for p in panes if self._procs.cwd(p.pid) == rollout.cwd]
        taken = set(self._bindings.values())
        unbound = [p for p in here if (p.surface, p.pid) not in taken and not p.open_rollouts]
        if unbound:
            return unbound[0] if len(unbound) == 1 else None
        if hook_name not in _REBIND_HOOKS:
            return None
        # Its own codex holding other rollouts open proves the pane is on another session.
        stale = [p for p in here if not p.open_rollouts]
        return stale[0] if len(stale) == 1 else None

    def _rollout(self, session: str, panes: list[_CodexPane]) -> Rollout | None:
        cached = self._rollouts.get(session)
        if cached is not None:
            return cached
        homes = [h for p in panes if (h := self._procs.codex_home(p.pid))]
        path = find_rollout(session, [*homes, self._default_home])
        rollout = read_rollout(path) if path is not None else None
        if rollout is not None:  # a missing one may still be written: look again next time
            if len(self._rollouts) >= _MAX_ROLLOUTS_CACHED:
                self._rollouts.pop(next(iter(self._rollouts)))
            self._rollouts[session] = rollout
        return rollout

    # -- bindings ----------------------------------------------------------------------------
    def _bind(self, session: str, surface: SurfaceId, pid: int) -> None:
        self._bindings.pop(session, None)  # re-inserted last: the pane's newest session
        self._bindings[session] = (surface, pid)
        if len(self._bindings) > _MAX_BINDINGS:
            self._bindings.pop(next(iter(self._bindings)))

    def _forget_dead(self, live: set[tuple[SurfaceId, int]]) -> None:
        """Drop the bindings whose pane closed or whose codex process was replaced."""
        dead = [s for s, pair in self._bindings.items() if pair not in live]
        for session in dead:
            del self._bindings[session]
