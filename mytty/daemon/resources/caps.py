"""The per-worker memory cap in use: probed once, applied to each launch, checked at its end.

See :mod:`mytty.daemon.resources.memcap` for the two ways a cap is enforced. The probe runs
once, the first time a cap is configured (one ``systemd-run``, in a thread); a launch then gets
its argv wrapped and the job remembers the cap (MB and name). When a capped worker's command
ends in its pane (the shell integration reports it), :meth:`MemoryCaps.killed` asks whether
the kernel killed it for the cap.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence

from mytty.daemon.resources import memcap
from mytty.daemon.resources.memcap import CapSupport

log = logging.getLogger(__name__)


class MemoryCaps:
    def __init__(
        self,
        *,
        limit_mb: Callable[[], int | None],
        probe: Callable[[], CapSupport] = memcap.probe,
        run: memcap.Runner = memcap._run,
    ) -> None:
        self._limit_mb = limit_mb
        self._probe = probe
        self._run = run
        self._support: CapSupport | None = None
        self._lock = asyncio.Lock()

    async def support(self) -> CapSupport:
        """How caps are enforced here (probed on first use)."""
        if self._support is None:
            async with self._lock:
                if self._support is None:
                    self._support = await asyncio.to_thread(self._probe)
                    log.info("worker memory caps: %s", self._support.detail)
        return self._support

    def known_support(self) -> CapSupport | None:
        return self._support

    async def wrap(
        self, job_id: str, resumed: int, argv: Sequence[str]
    ) -> tuple[list[str], tuple[int, str] | None]:
        """``argv`` under the configured cap, and the cap (MB, name) when it is enforced."""
        limit = self._limit_mb()
        if limit is None:
            return list(argv), None
        support = await self.support()
        name = memcap.cap_name(job_id, resumed)
        if support.method == memcap.SYSTEMD:
            return memcap.wrap_systemd(argv, name, limit), (limit, name)
        if support.method == memcap.CGROUP and support.base is not None:
            try:
                directory = await asyncio.to_thread(memcap.make_cgroup, support.base, name, limit)
            except OSError as exc:
                log.warning("job %s runs without its memory cap: %s", job_id, exc)
                return list(argv), None
            return memcap.wrap_cgroup(argv, directory), (limit, directory)
        return list(argv), None

    async def killed(self, cap: str) -> bool:
        """Did the kernel kill the worker under the cap ``cap`` (a unit or cgroup) for it?"""
        support = await self.support()
        if support.method == memcap.SYSTEMD:
            return await asyncio.to_thread(memcap.oom_killed_systemd, cap, self._run)
        if support.method == memcap.CGROUP:
            killed = await asyncio.to_thread(memcap.oom_killed_cgroup, cap)
            await asyncio.to_thread(memcap.remove_cgroup, cap)
            return killed
        return False
