"""The hosts service: one :class:`~mytty.daemon.hosts.follower.HostFollower` per configured
host, started and stopped as ``config.toml``'s ``[hosts]`` changes, in one TaskGroup of its
own inside the controller's (a follower never ends the controller: it catches what its host
sends it). The ``hosts`` command reads :meth:`followed`, and the notification router hears of
each host's new attention items (``on_new_items``)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import Callable, Mapping

from mytty.core.hosts.config import HostsSettings
from mytty.core.hosts.state import CURRENT, HostState
from mytty.daemon.hosts.follower import HostFollower

log = logging.getLogger(__name__)


class HostsService:
    def __init__(
        self,
        settings: HostsSettings,
        *,
        ctl_bin: str,
        home: str,
        control_socket: str,
        now: Callable[[], float],
        on_new_items: Callable[[str, list[Mapping[str, object]]], None],
        backoff_max: float,
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.settings = settings
        self._ctl_bin = ctl_bin
        self._home = home
        # The followers' mytty-ctl resolves this controller's home from its socket.
        self._env = {**(os.environ if env is None else env), "MYTTY_CONTROL_SOCKET": control_socket}
        self._env.pop("MYTTY_HOST", None)
        self._now = now
        self._on_new_items = on_new_items
        self._backoff_max = backoff_max
        self._followers: dict[str, HostFollower] = {}
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._group: asyncio.TaskGroup | None = None
        self.changed = asyncio.Event()  # for tests: set whenever a host's state changes

    async def run(self) -> None:
        """Follow the configured hosts until cancelled."""
        async with asyncio.TaskGroup() as group:
            self._group = group
            self.update(self.settings)
            try:
                await asyncio.Event().wait()
            finally:
                self._group = None
                for task in self._tasks.values():
                    task.cancel()

    def update(self, settings: HostsSettings) -> None:
        """New ``[hosts]``: follow added hosts, stop removed ones, restart changed ones."""
        self.settings = settings
        if self._group is None:
            return
        wanted = {spec.name: spec for spec in settings.hosts}
        for name in list(self._followers):
            follower = self._followers[name]
            if wanted.get(name) != follower.spec:
                self._tasks.pop(name).cancel()
                del self._followers[name]
                log.info("host %s: no longer followed", name)
            else:
                follower.settings_changed(settings)
        for name, spec in wanted.items():
            if name in self._followers:
                continue
            follower = HostFollower(
                spec,
                settings,
                ctl_bin=self._ctl_bin,
                env=self._env,
                home=self._home,
                now=self._now,
                on_new_items=self._on_new_items,
                on_change=self.changed.set,
                backoff_max=self._backoff_max,
            )
            self._followers[name] = follower
            self._tasks[name] = self._group.create_task(follower.run(), name=f"host-{name}")
            log.info("host %s: following %s", name, spec.ssh)
        self.changed.set()

    def followed(self) -> list[HostState]:
        """Every configured host as last seen, in config order."""
        order = [spec.name for spec in self.settings.hosts]
        return [self._followers[n].state for n in order if n in self._followers]

    async def refresh(self, timeout: float) -> None:
        """Ask every current host again; return once each answered or ``timeout`` passed."""
        followers = [f for f in self._followers.values() if f.state.state == CURRENT]

        async def one(follower: HostFollower) -> None:
            async with follower.refreshed:
                follower.wake()
                await follower.refreshed.wait()

        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.gather(*(one(f) for f in followers)), timeout)
