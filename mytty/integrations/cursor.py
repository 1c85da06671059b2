"""Cursor: handlers appended directly to the event arrays of ``~/.cursor/hooks.json``.

No matcher groups and no timeout (as the original writes). A new file starts as
``{"version": 1}``; an existing file is never given a ``version`` it did not have, so removing
mytty's handlers gives back the user's file unchanged. A file left as ``{"version": 1}`` (or
``{}``) by disable is deleted.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mytty.core.events import AgentProvider
from mytty.integrations import hookconfig
from mytty.integrations.common import FileChange
from mytty.integrations.helper import helper_problem, invokes_helper, shell_command
from mytty.integrations.installer import InstallContext, ProviderState

EVENTS = ("beforeSubmitPrompt", "preToolUse", "postToolUse", "postToolUseFailure", "stop")


def spec(ctx: InstallContext) -> hookconfig.HookFileSpec:
    provider = AgentProvider.CURSOR.value

    def entry(event: str) -> dict[str, Any]:
        return {"type": "command", "command": shell_command(ctx.helper, provider)}

    def owns(handler: Mapping[str, Any]) -> bool:
        return invokes_helper(handler, ctx.helper, provider)

    return hookconfig.HookFileSpec(
        events=EVENTS,
        grouped=False,
        entry=entry,
        owns=owns,
        new_file={"version": 1},
        empty_roots=({}, {"version": 1}),
    )


@dataclass(frozen=True, slots=True)
class CursorInstaller:
    provider: AgentProvider = AgentProvider.CURSOR

    def state(self, ctx: InstallContext) -> ProviderState:
        _loaded, status, why = hookconfig.hooks_state(
            ctx.locations.cursor_hooks,
            spec(ctx),
            helper_problem(ctx.helper, ctx.env),
            self.provider.value,
        )
        return ProviderState(status, why)

    def plan_install(self, ctx: InstallContext) -> list[FileChange]:
        return hookconfig.plan_install(
            hookconfig.load(ctx.locations.cursor_hooks, spec(ctx)), spec(ctx)
        )

    def plan_remove(self, ctx: InstallContext) -> list[FileChange]:
        return hookconfig.plan_remove(
            hookconfig.load(ctx.locations.cursor_hooks, spec(ctx)), spec(ctx)
        )

    def finish_install(
        self, ctx: InstallContext, changed: list[str], warnings: list[str]
    ) -> list[str]:
        return []
