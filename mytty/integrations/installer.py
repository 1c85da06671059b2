"""What every provider installer module provides, and the context they all run in."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from mytty.core.events import AgentProvider
from mytty.integrations.codex_trust import AppServerHookSource, CodexHookSource
from mytty.integrations.common import FileChange, Locations, Status, resolve_env
from mytty.integrations.helper import helper_path

__all__ = ["InstallContext", "ProviderInstaller", "ProviderState", "Status"]


@dataclass(frozen=True, slots=True)
class InstallContext:
    """One environment's view: where files live, which helper to point at, how to ask Codex."""

    env: Mapping[str, str]
    locations: Locations
    helper: Path
    codex_hooks: CodexHookSource = field(default_factory=AppServerHookSource)

    @classmethod
    def create(
        cls, env: Mapping[str, str] | None = None, codex_hooks: CodexHookSource | None = None
    ) -> InstallContext:
        resolved = resolve_env(env)
        return cls(
            env=resolved,
            locations=Locations.from_env(resolved),
            helper=helper_path(resolved),
            codex_hooks=codex_hooks or AppServerHookSource(),
        )


@dataclass(frozen=True, slots=True)
class ProviderState:
    status: Status
    error: str | None = None
    #: Installed and usable, but from an older mytty: what ``repair`` would add (None: current).
    upgrade: str | None = None


class ProviderInstaller(Protocol):
    """One provider's installer. Plans are computed (and validated) before anything is written."""

    @property
    def provider(self) -> AgentProvider: ...

    def state(self, ctx: InstallContext) -> ProviderState:
        """The status derived from the files on disk right now (may raise invalid-configuration)."""
        ...

    def plan_install(self, ctx: InstallContext) -> list[FileChange]: ...

    def plan_remove(self, ctx: InstallContext) -> list[FileChange]: ...

    def finish_install(
        self, ctx: InstallContext, changed: list[str], warnings: list[str]
    ) -> list[str]:
        """Work after the files are written (Codex trust); returns further changed paths."""
        ...
