"""Checks and choices the agent commands make before they act.

A wait that can never resolve, or a spawn into a broken integration, fails at once with a
code that says what to run; ``access_mode_flags`` applies the access policy of
:mod:`mytty.core.jobs.access` to the lead agent actually running in the anchor pane.
"""

from __future__ import annotations

import asyncio
import os
import shutil

from mytty.control.ports import PaneView
from mytty.core import vocab
from mytty.core.errors import ErrorCode, MyttyError
from mytty.core.events import WorkerProvider
from mytty.core.jobs.access import FixedAccess, plan_access
from mytty.core.jobs.launch import BINARIES
from mytty.core.jobs.tracker import AgentJob
from mytty.daemon import procfs
from mytty.daemon.agents import AgentHub
from mytty.daemon.integration_service import IntegrationService
from mytty.daemon.panes.service import PaneService


class AgentPreflight:
    def __init__(
        self, *, panes: PaneService, integrations: IntegrationService, hub: AgentHub
    ) -> None:
        self._panes = panes
        self._integrations = integrations
        self._hub = hub

    async def attention_preflight(self, pane: PaneView) -> None:
        """Fail at once when an attention wait can never resolve (agent without hooks)."""
        provider, _pid = self._panes.foreground_agent(pane)
        if provider is None:
            return
        if await self._integrations.status(provider) == vocab.NOT_INSTALLED:
            raise MyttyError(
                ErrorCode.PROVIDER_INTEGRATION_NOT_INSTALLED,
                f"{provider.value} runs in this pane without mytty's hooks, so it can never "
                f"report that it needs attention; run `mytty integrations enable {provider.value}`",
            )

    async def job_attention_preflight(self, job: AgentJob) -> None:
        provider = job.provider.agent_provider
        if await self._integrations.status(provider) == vocab.NOT_INSTALLED:
            raise MyttyError(
                ErrorCode.PROVIDER_INTEGRATION_NOT_INSTALLED,
                f"{provider.value} has no mytty hooks installed, so the job can never report that "
                f"it needs attention; run `mytty integrations enable {provider.value}`",
            )

    def binary_preflight(
        self, provider: WorkerProvider, anchor: PaneView | None, caller_pid: int
    ) -> None:
        """Fail at once when the worker's binary is on none of the PATHs it could run with.

        The worker's shell builds its PATH from its login profile, which mytty can't run in
        advance; so every PATH that shell could plausibly end up with counts: the caller's (the
        lead agent or shell that ran mytty-ctl), the anchor pane's shell and foreground process,
        and the environment mytty gives new panes. Only when the binary is in none of them is
        the spawn refused, rather than ending launch-failed 30 s later.
        """
        binary = BINARIES[provider]
        paths: list[str] = []
        pids = [caller_pid]
        if anchor is not None:
            pids += [anchor.pid, procfs.foreground_pid(anchor.pid) or 0]
        for pid in pids:
            value = procfs.environ_value(pid, "PATH") if pid > 0 else None
            if value is not None:
                paths.append(value)
        paths.append(os.environ.get("PATH", os.defpath))
        searched: list[str] = []
        for path in paths:
            if shutil.which(binary, path=path) is not None:
                return
            searched += [d for d in path.split(os.pathsep) if d and d not in searched]
        raise MyttyError(
            ErrorCode.PROVIDER_BINARY_NOT_FOUND,
            f"`{binary}` ({provider.value}) is not on the PATH the worker would run with "
            f"(searched {len(searched)} directories: {os.pathsep.join(searched)[:300]}); "
            f"install it or add its directory to PATH in your shell profile",
        )

    async def spawn_preflight(self, provider: WorkerProvider) -> None:
        agent = provider.agent_provider
        if await self._integrations.status(agent) == vocab.NEEDS_REPAIR:
            raise MyttyError(
                ErrorCode.PROVIDER_INTEGRATION_NEEDS_REPAIR,
                f"the {agent.value} hook integration needs repair; run "
                f"`mytty integrations repair {agent.value}`",
            )

    async def access_mode_flags(
        self, worker: WorkerProvider, access: str | None, anchor: PaneView | None
    ) -> list[str]:
        from mytty.daemon.jobs.inherit import inherited_mode_flags_for

        lead_provider, lead_pid = (
            (None, None) if anchor is None else self._panes.foreground_agent(anchor)
        )
        plan = plan_access(access, worker, lead_provider, lead_pid)
        if isinstance(plan, FixedAccess):
            return list(plan.flags)
        session = None
        if anchor is not None:
            run = self._hub.book.latest_run(anchor.surface_id, worker.agent_provider)
            session = run.session_id if run is not None else None
        try:
            return await asyncio.to_thread(
                inherited_mode_flags_for,
                worker,
                plan.lead_pid,
                home=os.path.expanduser("~"),
                session_id=session,
            )
        except MyttyError:
            if plan.fallback is None:
                raise
            return list(plan.fallback)
