"""Claude Code: handlers in ``~/.claude/settings.json`` plus the ``mytty-panes`` skill.

Handlers use the exec form: ``command`` is the helper's absolute path (unquoted) and
``args: ["claude-code"]``, so no shell parses the path. A handler written in the shell form
``'<path>' claude-code`` is also recognised as ours (and replaced by the exec form on repair).

``PermissionRequest`` gets a timeout of its own, above the longest ``[approvals]
hold_seconds`` (:data:`~mytty.protocol.limits.APPROVAL_HOOK_TIMEOUT_S`), since the hook may
wait there for a decision (the approvals broker); installs from before it (5 s) still count as
``installed`` and get it from ``repair``.

``PreToolUse`` (matcher ``Bash``) carries the kill-server guard of spawned workers
(:mod:`mytty.hook.guard`). Installs from before it existed lack that one entry; they still count
as ``installed`` (so ``agent spawn`` keeps working) and get it from ``mytty integrations repair
claude-code`` or ``enable``; until then their workers are not guarded.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mytty.core.events import AgentProvider
from mytty.core.vocab import INSTALLED, NEEDS_REPAIR
from mytty.integrations import hookconfig, pointers
from mytty.integrations.common import APPROVALS_UPGRADE, GUARD_UPGRADE, FileChange
from mytty.integrations.helper import helper_problem, invokes_helper
from mytty.integrations.installer import InstallContext, ProviderState
from mytty.protocol.limits import APPROVAL_HOOK_TIMEOUT_S

#: The kill-server guard's event (Bash tool calls only).
GUARD_EVENT = "PreToolUse"
GUARD_MATCHER = "Bash"
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
    GUARD_EVENT,
)
NOTIFICATION_MATCHER = "permission_prompt|idle_prompt|agent_needs_input|elicitation_dialog"
TIMEOUT_SECONDS = 5
#: The event whose handler may hold for a decision, and the timeout it had before that.
PERMISSION_EVENT = "PermissionRequest"
OLD_PERMISSION_TIMEOUT = TIMEOUT_SECONDS


def spec(
    ctx: InstallContext, *, guard: bool = True, permission_timeout: int = APPROVAL_HOOK_TIMEOUT_S
) -> hookconfig.HookFileSpec:
    """What settings.json must hold; ``guard=False``: as installed before the guard existed;
    ``permission_timeout``: the PermissionRequest handler's (5 before the approvals broker)."""
    provider = AgentProvider.CLAUDE_CODE.value

    def entry(event: str) -> dict[str, Any]:
        handler = {
            "type": "command",
            "command": str(ctx.helper),
            "args": [provider],
            "timeout": permission_timeout if event == PERMISSION_EVENT else TIMEOUT_SECONDS,
        }
        if event == "Notification":
            return {"matcher": NOTIFICATION_MATCHER, "hooks": [handler]}
        if event == GUARD_EVENT:
            return {"matcher": GUARD_MATCHER, "hooks": [handler]}
        return {"hooks": [handler]}

    def owns(handler: Mapping[str, Any]) -> bool:
        return invokes_helper(handler, ctx.helper, provider)

    events = EVENTS if guard else tuple(e for e in EVENTS if e != GUARD_EVENT)
    return hookconfig.HookFileSpec(events=events, grouped=True, entry=entry, owns=owns)


@dataclass(frozen=True, slots=True)
class ClaudeInstaller:
    provider: AgentProvider = AgentProvider.CLAUDE_CODE

    def state(self, ctx: InstallContext) -> ProviderState:
        problem = helper_problem(ctx.helper, ctx.env)
        _loaded, status, why, upgrade = hookconfig.hooks_state_or_legacy(
            ctx.locations.claude_settings,
            spec(ctx),
            [  # installs from before the broker, and from before the guard too
                (spec(ctx, permission_timeout=OLD_PERMISSION_TIMEOUT), APPROVALS_UPGRADE),
                (spec(ctx, guard=False, permission_timeout=OLD_PERMISSION_TIMEOUT), GUARD_UPGRADE),
            ],
            problem,
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
        return ProviderState(INSTALLED, upgrade=upgrade)

    def plan_install(self, ctx: InstallContext) -> list[FileChange]:
        loaded = hookconfig.load(ctx.locations.claude_settings, spec(ctx))
        return hookconfig.plan_install(loaded, spec(ctx)) + pointers.plan_skill_install(
            ctx.locations.claude_skill, ctx.locations.guide
        )

    def plan_remove(self, ctx: InstallContext) -> list[FileChange]:
        loaded = hookconfig.load(ctx.locations.claude_settings, spec(ctx))
        return hookconfig.plan_remove(loaded, spec(ctx)) + pointers.plan_skill_remove(
            ctx.locations.claude_skill
        )

    def finish_install(
        self, ctx: InstallContext, changed: list[str], warnings: list[str]
    ) -> list[str]:
        return []
