"""Claude Code: handlers in ``~/.claude/settings.json`` plus the ``mytty-panes`` skill.

Handlers use the exec form: ``command`` is the helper's absolute path (unquoted) and
``args: ["claude-code"]``, so no shell parses the path. A handler written in the shell form
``'<path>' claude-code`` is also recognised as ours (and replaced by the exec form on repair).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mytty.core.events import AgentProvider
from mytty.core.vocab import INSTALLED, NEEDS_REPAIR
from mytty.integrations import hookconfig, pointers
from mytty.integrations.common import FileChange
from mytty.integrations.helper import helper_problem, invokes_helper
from mytty.integrations.installer import Context, ProviderState

EVENTS = (
    "SessionStart",
    "SessionEnd",
    "UserPromptSubmit",
    "PermissionRequest",
    "PostToolBatch",
    "Notification",
    "Stop",
    "StopFailure",
    # The parent turn's subagents: a live one keeps the turn (and its job) running.
    "SubagentStart",
    "SubagentStop",
)
NOTIFICATION_MATCHER = "permission_prompt|idle_prompt|agent_needs_input|elicitation_dialog"
TIMEOUT_SECONDS = 5


def spec(ctx: Context) -> hookconfig.HookFileSpec:
    provider = AgentProvider.CLAUDE_CODE.value

    def entry(event: str) -> dict[str, Any]:
        handler = {
            "type": "command",
            "command": str(ctx.helper),
            "args": [provider],
            "timeout": TIMEOUT_SECONDS,
        }
        if event == "Notification":
            return {"matcher": NOTIFICATION_MATCHER, "hooks": [handler]}
        return {"hooks": [handler]}

    def owns(handler: Mapping[str, Any]) -> bool:
        return invokes_helper(handler, ctx.helper, provider)

    return hookconfig.HookFileSpec(events=EVENTS, grouped=True, entry=entry, owns=owns)


@dataclass(frozen=True, slots=True)
class ClaudeInstaller:
    provider: AgentProvider = AgentProvider.CLAUDE_CODE

    def state(self, ctx: Context) -> ProviderState:
        _loaded, status, why = hookconfig.hooks_state(
            ctx.locations.claude_settings,
            spec(ctx),
            helper_problem(ctx.helper, ctx.env),
            self.provider.value,
        )
        if status != INSTALLED:
            return ProviderState(status, why)
        if pointers.skill_status(ctx.locations.claude_skill, ctx.locations.guide) != INSTALLED:
            return ProviderState(
                NEEDS_REPAIR,
                f"the mytty-panes skill {ctx.locations.claude_skill} is missing or points at "
                f"another guide than {ctx.locations.guide} (a different MYTTY_HOME?); run "
                "`mytty integrations repair claude-code`",
            )
        return ProviderState(INSTALLED)

    def plan_install(self, ctx: Context) -> list[FileChange]:
        loaded = hookconfig.load(ctx.locations.claude_settings, spec(ctx))
        return hookconfig.plan_install(loaded, spec(ctx)) + pointers.plan_skill_install(
            ctx.locations.claude_skill, ctx.locations.guide
        )

    def plan_remove(self, ctx: Context) -> list[FileChange]:
        loaded = hookconfig.load(ctx.locations.claude_settings, spec(ctx))
        return hookconfig.plan_remove(loaded, spec(ctx)) + pointers.plan_skill_remove(
            ctx.locations.claude_skill
        )

    def finish_install(self, ctx: Context, changed: list[str], warnings: list[str]) -> list[str]:
        return []
