"""Pane identity: surface ids, capabilities, and the live view of the bound tmux server.

A surface id is a UUID kept in the pane user option ``@mytty_surface`` so it survives a
controller restart. Capabilities are derived as HMAC(secret, surface id): random-looking,
per pane, never stored in tmux, still valid after a controller restart (the pane keeps its
environment), and revoked the moment the pane is gone because only live surfaces are checked.

A surface id is never issued twice. Each id is bound, in the store, to the one tmux pane it
was issued for (server identity + ``%N``); a pane that claims an id bound to another pane
(through the option or the environment, which any same-user process can set) gets a new one,
so a closed pane's capability never works again. An id with no binding (a store from before
bindings existed) is accepted once and bound.
"""

from __future__ import annotations

import hmac
import os
from collections.abc import Iterable
from dataclasses import dataclass, field

from mytty.core.ids import SurfaceId, TmuxPaneId, format_uuid_bytes, parse_surface_id
from mytty.daemon import procfs
from mytty.tmux.port import PRIVATE_SESSION, PaneRow


@dataclass
class Pane:
    surface_id: SurfaceId
    tmux_id: TmuxPaneId
    pid: int
    row: PaneRow | None = None
    option_written: bool = False
    created_by_us: bool = False
    #: The registry generation when the pane was registered (see ``PaneRegistry.generation``).
    generation: int = 0


@dataclass
class ReconcileResult:
    added: list[Pane] = field(default_factory=list)
    removed: list[Pane] = field(default_factory=list)


class PaneRegistry:
    def __init__(self, secret: bytes) -> None:
        self._secret = secret
        #: surface id → its capability, for live panes (see capability).
        self._capabilities: dict[str, str] = {}
        self.by_surface: dict[SurfaceId, Pane] = {}
        self.by_tmux: dict[TmuxPaneId, Pane] = {}
        #: Bumped whenever the controller registers a pane it just created. A listing taken
        #: before that cannot know the pane, so reconcile must not drop it as gone.
        self.generation = 0
        #: The identity of the tmux server the panes belong to (``TmuxPort.server_identity``).
        self.server = ""
        #: surface id → (tmux server, tmux pane) it was issued for; every id ever issued.
        self._bindings: dict[str, tuple[str, str]] = {}
        self._unsaved: list[tuple[str, str, str]] = []

    # -- capabilities -----------------------------------------------------------------------
    def set_secret(self, secret: bytes) -> None:
        """Key capabilities with the home's secret (read once the controller holds its lock)."""
        self._secret = secret
        self._capabilities.clear()

    def capability(self, surface_id: str) -> str:
        known = self._capabilities.get(surface_id)
        if known is not None:
            return known
        issued = hmac.digest(self._secret, surface_id.encode(), "sha256").hex().upper()
        # Remembered for live panes only (every hook event of a pane asks for the same one);
        # panes that went are dropped wholesale once they outnumber the live ones.
        if surface_id in self.by_surface:
            if len(self._capabilities) > 2 * len(self.by_surface) + 64:
                self._capabilities.clear()
            self._capabilities[surface_id] = issued
        return issued

    def authorize(self, surface_id: str, capability: str | None) -> bool:
        """True when ``capability`` is the one issued to the live pane ``surface_id``."""
        expected = self.capability(surface_id)
        given = (capability or "").encode("utf-8", "replace")
        ok = hmac.compare_digest(expected.encode(), given)
        return ok and surface_id in self.by_surface

    # -- lookups ------------------------------------------------------------------------------
    def get(self, surface_id: str | None) -> Pane | None:
        uuid = parse_surface_id(surface_id)
        return self.by_surface.get(uuid) if uuid else None

    def panes(self) -> list[Pane]:
        return list(self.by_surface.values())

    def pid_map(self) -> dict[int, SurfaceId]:
        return {p.pid: p.surface_id for p in self.by_surface.values() if p.pid > 0}

    # -- bindings -------------------------------------------------------------------------------
    def load_bindings(self, bindings: dict[str, tuple[str, str]]) -> None:
        self._bindings = dict(bindings)

    def take_unsaved_bindings(self) -> list[tuple[str, str, str]]:
        """The bindings made since the last call, as (surface, server, pane), for the store."""
        out, self._unsaved = self._unsaved, []
        return out

    def _may_hold(self, surface: SurfaceId, tmux_id: TmuxPaneId) -> bool:
        bound = self._bindings.get(surface)
        return bound is None or bound == (self.server, tmux_id)

    def _bind(self, surface: SurfaceId, tmux_id: TmuxPaneId) -> None:
        if surface not in self._bindings and self.server:
            self._bindings[surface] = (self.server, tmux_id)
            self._unsaved.append((surface, self.server, tmux_id))

    # -- changes --------------------------------------------------------------------------------
    @staticmethod
    def new_surface_id() -> SurfaceId:
        return SurfaceId(format_uuid_bytes(os.urandom(16)))

    def register_created(self, surface_id: SurfaceId, tmux_id: TmuxPaneId, pid: int) -> Pane:
        self.generation += 1
        pane = Pane(
            surface_id=surface_id,
            tmux_id=tmux_id,
            pid=pid,
            created_by_us=True,
            generation=self.generation,
        )
        self.by_surface[surface_id] = pane
        self.by_tmux[tmux_id] = pane
        self._bind(surface_id, tmux_id)
        return pane

    def reset(self) -> list[Pane]:
        """Forget every pane (the tmux server was replaced); return what was known."""
        gone = list(self.by_surface.values())
        self.by_surface.clear()
        self.by_tmux.clear()
        return gone

    def has_strangers(self, rows: Iterable[PaneRow]) -> bool:
        """True when ``rows`` hold a pane this registry has not seen yet."""
        return any(
            r.pane_id not in self.by_tmux and r.session_name != PRIVATE_SESSION for r in rows
        )

    def reconcile(
        self,
        rows: Iterable[PaneRow],
        inherited_surface: str | None = None,
        listed_at: int | None = None,
    ) -> ReconcileResult:
        """Bring the registry in line with a full ``list-panes -a`` listing.

        ``inherited_surface`` is a surface id every new pane of the server inherits (it is in
        tmux's global environment); it is never taken as a pane's own identity.
        """
        result = ReconcileResult()
        seen: set[str] = set()
        live_rows = [r for r in rows if r.session_name != PRIVATE_SESSION]
        for row in live_rows:
            seen.add(row.pane_id)
            # tmux only recycles %N after a server restart, and the controller calls reset()
            # when the server changes, so a known %N here is the same pane (maybe respawned).
            pane = self.by_tmux.get(row.pane_id)
            if pane is None:
                pane = self._adopt(row, parse_surface_id(inherited_surface))
                result.added.append(pane)
            pane.row = row
            pane.pid = row.pane_pid or pane.pid
            if row.surface == pane.surface_id:
                pane.option_written = True
        for tmux_id in [t for t in self.by_tmux if t not in seen]:
            pane = self.by_tmux[tmux_id]
            if listed_at is not None and pane.generation > listed_at:
                continue  # registered after this listing was requested: it is new, not gone
            result.removed.append(pane)
            self._drop(pane)
        return result

    def _adopt(self, row: PaneRow, inherited: str | None) -> Pane:
        surface = parse_surface_id(row.surface)
        if (
            surface is None
            or surface in self.by_surface
            or not self._may_hold(surface, row.pane_id)
        ):
            # A pane we created whose option was never written (e.g. a crash in between)
            # still carries its id in the environment tmux gave its first process.
            from_env = parse_surface_id(procfs.environ_value(row.pane_pid, "MYTTY_SURFACE_ID"))
            usable = (
                from_env
                and from_env != inherited
                and from_env not in self.by_surface
                and self._may_hold(from_env, row.pane_id)
            )
            surface = from_env if usable else None
        if surface is None:
            surface = self.new_surface_id()
        pane = Pane(surface_id=surface, tmux_id=row.pane_id, pid=row.pane_pid, row=row)
        self.by_surface[surface] = pane
        self.by_tmux[row.pane_id] = pane
        self._bind(surface, row.pane_id)
        return pane

    def _drop(self, pane: Pane) -> None:
        self.by_surface.pop(pane.surface_id, None)
        if self.by_tmux.get(pane.tmux_id) is pane:
            del self.by_tmux[pane.tmux_id]
