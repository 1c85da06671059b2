"""Checks and choices the agent commands make before they act.

A wait that can never resolve, or a spawn into a broken integration, fails at once with a
code that says what to run; ``access_mode_flags`` applies the access policy of
:mod:`mytty.core.jobs.access` to the lead agent actually running in the anchor pane.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile

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

    async def binary_preflight(
        self, provider: WorkerProvider, anchor: PaneView | None, caller_pid: int
    ) -> str | None:
        """Check that the worker will find its binary; the directory to put first on its PATH
        when only the caller's PATH has it (else None).

        The rule: the worker's own PATH comes first, the one its login shell really sets up
        (the same launcher and startup files as its pane: :func:`login_path`). Only when that
        PATH lacks the binary does the spawning side's count: the caller's (the lead agent or
        shell that ran mytty-ctl), then the anchor pane's shell and foreground process; the
        directory where one finds it is handed to the worker. Found nowhere is
        ``provider-binary-not-found`` at once, rather than ``command not found`` in the pane.
        """
        binary = BINARIES[provider]
        login = await asyncio.to_thread(login_path)
        if login is not None and shutil.which(binary, path=login) is not None:
            return None
        pids = [caller_pid]
        if anchor is not None:
            pids += [anchor.pid, procfs.foreground_pid(anchor.pid) or 0]
        searched = [d for d in (login or "").split(os.pathsep) if d]
        for pid in pids:
            path = procfs.environ_value(pid, "PATH") if pid > 0 else None
            found = shutil.which(binary, path=path) if path is not None else None
            if found is not None:
                return os.path.dirname(found)
            searched += [d for d in (path or "").split(os.pathsep) if d and d not in searched]
        if login is None and shutil.which(binary, path=os.environ.get("PATH", os.defpath)):
            return None  # the login shell could not be asked; the controller's PATH has it
        where = "the PATH a worker's login shell sets up" if login is not None else "any PATH"
        raise MyttyError(
            ErrorCode.PROVIDER_BINARY_NOT_FOUND,
            f"`{binary}` ({provider.value}) is on neither {where} nor yours "
            f"(searched {len(searched)} directories: {os.pathsep.join(searched)[:300]}); "
            f"install it, or add its directory to PATH in your login profile (~/.profile)",
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


#: A login shell that takes longer than this to start is not waited for (its PATH is unknown).
LOGIN_PROBE_TIMEOUT_S = 5.0
_login_cache: dict[tuple[object, ...], str | None] = {}


def _startup_files(home: str) -> tuple[tuple[str, int], ...]:
    """The files a pane's shell reads at start, with their mtimes (what the PATH depends on)."""
    names: tuple[str, ...] = (
        "/etc/profile",
        "/etc/bash.bashrc",
        "/etc/zsh/zprofile",
        "/etc/zsh/zshrc",
    )
    names += tuple(
        os.path.join(home, n)
        for n in (
            ".bash_profile",
            ".bash_login",
            ".profile",
            ".bashrc",
            ".zprofile",
            ".zshrc",
            ".zshenv",
            ".zlogin",
            ".config/fish/config.fish",
        )
    )
    out = []
    for name in names:
        try:
            out.append((name, os.stat(name).st_mtime_ns))
        except OSError:
            continue
    return tuple(out)


def login_path() -> str | None:
    """The PATH the shell of a new mytty pane ends up with, or None when it can't be told.

    ``mytty-shell`` runs as for a pane (the user's shell, its login and rc files), but with
    ``MYTTY_SHELL_PROBE=FILE`` it writes that PATH to FILE and exits. Kept while the shell, the
    environment's PATH and the startup files' mtimes stay the same. Blocking: run it in a
    thread.
    """
    import subprocess

    from mytty.integrations.shell_files import integration_dir

    env = {k: v for k, v in os.environ.items() if not k.startswith(("TMUX", "MYTTY_LAUNCH"))}
    home = env.get("HOME", os.path.expanduser("~"))
    key = (env.get("MYTTY_SHELL"), env.get("SHELL"), env.get("PATH"), _startup_files(home))
    if key in _login_cache:
        return _login_cache[key]
    with tempfile.TemporaryDirectory(prefix="mytty-path-") as private:  # 0700
        out = os.path.join(private, "path")
        env["MYTTY_SHELL_PROBE"] = out
        try:
            proc = subprocess.Popen(
                ["/bin/sh", str(integration_dir() / "mytty-shell")],
                env=env,
                cwd=home if os.path.isdir(home) else "/",
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,  # an interactive shell must not take our terminal
            )
        except OSError:
            return None
        try:
            proc.wait(LOGIN_PROBE_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 9)
            proc.wait()
            return None  # not cached: the next spawn asks again
        try:
            with open(out, encoding="utf-8", errors="replace") as f:
                value: str | None = f.read() or None
        except OSError:
            value = None
    _login_cache[key] = value
    return value
