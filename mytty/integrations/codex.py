"""Codex: groups in ``$CODEX_HOME/hooks.json``, trust in ``config.toml``, a block in ``AGENTS.md``.

Handlers are shell strings ``'<helper>' codex`` with ``timeout: 5``. After writing them, enable
asks Codex for each mytty hook's current hash and records it as trusted (``codex_trust``), since
Codex 0.171 silently skips hooks nobody trusted. When Codex cannot be asked, the status stays
``needs-repair`` with a hint naming the manual step (``/hooks`` in Codex).

``PermissionRequest`` gets a timeout of its own, above the longest ``[approvals]
hold_seconds`` (:data:`~mytty.protocol.limits.APPROVAL_HOOK_TIMEOUT_S`): the hook may wait there
for a decision. It is fixed, so a new hold never changes the handler, whose trust hash covers
its timeout. Installs from before it (5 s) still count as ``installed``; ``repair`` gives them
the new timeout and records the new hash.

``PreToolUse`` (matcher ``Bash``) carries the kill-server guard of spawned workers
(:mod:`mytty.hook.guard`). Installs from before it existed lack that entry (and its trust); they
still count as ``installed`` and get both from ``mytty integrations repair codex`` or ``enable``.
The same holds for the subagent hooks and for ``PostModelRequest`` (undocumented in 0.171.0 but
fired for every model request; the only hook of a turn that stops at a usage limit, which
fires no ``Stop``): each came later, and ``repair`` adds it with its trust.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mytty.core.events import AgentProvider
from mytty.core.vocab import INSTALLED, NEEDS_REPAIR
from mytty.integrations import codex_toml, hookconfig, pointers
from mytty.integrations.codex_trust import CodexUnavailable, find_codex
from mytty.integrations.common import (
    APPROVALS_UPGRADE,
    GUARD_UPGRADE,
    LIMIT_UPGRADE,
    PRIVATE_MODE,
    SUBAGENT_UPGRADE,
    FileChange,
    apply_changes,
    planned_emptying,
    planned_write,
    read_text,
)
from mytty.integrations.helper import helper_problem, invokes_helper, shell_command
from mytty.integrations.installer import InstallContext, ProviderState
from mytty.protocol.limits import APPROVAL_HOOK_TIMEOUT_S

#: A subagent's start and stop (codex-cli 0.171.0 fires them with the subagent's agent_id): a
#: turn that spawned one stays open until it stops (mytty.hook.adapters.codex).
SUBAGENT_EVENTS = ("SubagentStart", "SubagentStop")
#: The kill-server guard's event (shell tool calls, which Codex names Bash in hooks).
GUARD_EVENT = "PreToolUse"
GUARD_MATCHER = "Bash"
#: Codex 0.171.0 fires it after each model request (``status: "failed"`` with the error's
#: text when the turn stopped at its usage limit: mytty.hook.adapters.codex).
LIMIT_EVENTS = ("PostModelRequest",)
EVENTS = (
    "SessionStart",
    "UserPromptSubmit",
    "PermissionRequest",
    "PostToolUse",
    "Stop",
    "Interrupt",
    GUARD_EVENT,
    *SUBAGENT_EVENTS,
    *LIMIT_EVENTS,
)
TIMEOUT_SECONDS = 5
#: The event whose handler may hold for a decision, and the timeout it had before that.
PERMISSION_EVENT = "PermissionRequest"
OLD_PERMISSION_TIMEOUT = TIMEOUT_SECONDS


def spec(
    ctx: InstallContext,
    *,
    guard: bool = True,
    subagents: bool = True,
    limits: bool = True,
    permission_timeout: int = APPROVAL_HOOK_TIMEOUT_S,
) -> hookconfig.HookFileSpec:
    """What hooks.json must hold; ``guard=False`` / ``subagents=False`` / ``limits=False``: as
    installed before the guard / the subagent hooks / PostModelRequest existed;
    ``permission_timeout``: the PermissionRequest handler's (5 before the approvals broker)."""
    provider = AgentProvider.CODEX.value

    def entry(event: str) -> dict[str, Any]:
        command = shell_command(ctx.helper, provider)
        timeout = permission_timeout if event == PERMISSION_EVENT else TIMEOUT_SECONDS
        handler = {"type": "command", "command": command, "timeout": timeout}
        if event == GUARD_EVENT:
            return {"matcher": GUARD_MATCHER, "hooks": [handler]}
        return {"hooks": [handler]}

    def owns(handler: Mapping[str, Any]) -> bool:
        return invokes_helper(handler, ctx.helper, provider)

    left_out = (
        ({GUARD_EVENT} if not guard else set())
        | (set(SUBAGENT_EVENTS) if not subagents else set())
        | (set(LIMIT_EVENTS) if not limits else set())
    )
    events = tuple(e for e in EVENTS if e not in left_out)
    return hookconfig.HookFileSpec(events=events, grouped=True, entry=entry, owns=owns)


def snake_case(event: str) -> str:
    """``UserPromptSubmit`` -> ``user_prompt_submit`` (how Codex spells events in trust keys)."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", event).lower()


def trust_keys(ctx: InstallContext, data: Mapping[str, Any]) -> list[str]:
    """The trust key Codex gives each mytty handler in ``hooks.json``."""
    path = ctx.locations.codex_hooks
    return [
        f"{path}:{snake_case(pos.event)}:{pos.group}:{pos.handler}"
        for pos in hookconfig.owned_positions(data, spec(ctx))
    ]


def _same_file(a: str, b: Path) -> bool:
    return os.path.realpath(a) == os.path.realpath(b)


def _matching_key(key: str, hooks_path: Path, recorded: Mapping[str, str]) -> str | None:
    """The recorded key for ``key``: the same one, or one naming the same file another way."""
    if key in recorded:
        return key
    suffix = key[len(str(hooks_path)) :]
    for candidate in recorded:
        if candidate.endswith(suffix) and _same_file(candidate[: -len(suffix)], hooks_path):
            return candidate
    return None


def trust_hint(ctx: InstallContext) -> str:
    """What the human must do when mytty could not record Codex's trust itself."""
    hint = (
        "Codex skips mytty's hooks until they are trusted: run `mytty integrations repair codex`, "
        "or start Codex, type /hooks and trust each mytty-agent-hook entry"
    )
    if not find_codex(ctx.env):
        hint += " (the codex CLI is not on PATH, so mytty cannot record the trust itself)"
    return hint


def _config_text(ctx: InstallContext) -> str:
    text = read_text(ctx.locations.codex_config) or ""
    codex_toml.parse(text, ctx.locations.codex_config)
    return text


@dataclass(frozen=True, slots=True)
class CodexInstaller:
    provider: AgentProvider = AgentProvider.CODEX

    def state(self, ctx: InstallContext) -> ProviderState:
        problem = helper_problem(ctx.helper, ctx.env)
        loaded, status, why, upgrade = hookconfig.hooks_state_or_legacy(
            ctx.locations.codex_hooks,
            spec(ctx),
            [  # installs from before PostModelRequest, the broker, the subagent hooks, the guard
                (spec(ctx, limits=False), LIMIT_UPGRADE),
                (
                    spec(ctx, limits=False, permission_timeout=OLD_PERMISSION_TIMEOUT),
                    APPROVALS_UPGRADE,
                ),
                (
                    spec(
                        ctx,
                        subagents=False,
                        limits=False,
                        permission_timeout=OLD_PERMISSION_TIMEOUT,
                    ),
                    SUBAGENT_UPGRADE,
                ),
                (
                    spec(
                        ctx,
                        guard=False,
                        subagents=False,
                        limits=False,
                        permission_timeout=OLD_PERMISSION_TIMEOUT,
                    ),
                    GUARD_UPGRADE,
                ),
            ],
            problem,
            self.provider.value,
        )
        if status != INSTALLED:
            return ProviderState(status, why)
        if pointers.agents_status(ctx.locations.codex_agents_md, ctx.locations.guide) != INSTALLED:
            return ProviderState(
                NEEDS_REPAIR,
                f"the mytty block in {ctx.locations.codex_agents_md} is missing or points at "
                f"another guide than {ctx.locations.guide} (a different MYTTY_HOME?); run "
                "`mytty integrations repair codex`",
            )
        text = _config_text(ctx)
        recorded = codex_toml.trusted_hashes(codex_toml.parse(text, ctx.locations.codex_config))
        hooks_path = ctx.locations.codex_hooks
        if any(
            _matching_key(k, hooks_path, recorded) is None for k in trust_keys(ctx, loaded.data)
        ):
            return ProviderState(NEEDS_REPAIR, trust_hint(ctx))
        return ProviderState(INSTALLED, upgrade=upgrade)

    def plan_install(self, ctx: InstallContext) -> list[FileChange]:
        loaded = hookconfig.load(ctx.locations.codex_hooks, spec(ctx))
        _config_text(ctx)  # refuse early if the file trust goes into is malformed
        return hookconfig.plan_install(loaded, spec(ctx)) + pointers.plan_agents_install(
            ctx.locations.codex_agents_md, ctx.locations.guide
        )

    def plan_remove(self, ctx: InstallContext) -> list[FileChange]:
        loaded = hookconfig.load(ctx.locations.codex_hooks, spec(ctx))
        changes = hookconfig.plan_remove(loaded, spec(ctx))
        changes += pointers.plan_agents_remove(ctx.locations.codex_agents_md)
        text = _config_text(ctx)
        config = ctx.locations.codex_config
        recorded = codex_toml.trusted_hashes(codex_toml.parse(text, config))
        keys = [
            found
            for key in trust_keys(ctx, loaded.data)
            if (found := _matching_key(key, ctx.locations.codex_hooks, recorded))
        ]
        if keys:
            remaining = codex_toml.drop_trust(text, config, keys)
            if remaining.strip() == "" and text.strip() != "":
                changes += planned_emptying(config, b"")
            else:
                changes += planned_write(config, remaining.encode("utf-8"), PRIVATE_MODE)
        return changes

    def finish_install(
        self, ctx: InstallContext, changed: list[str], warnings: list[str]
    ) -> list[str]:
        """Record Codex's current hash for every mytty hook that is not trusted yet."""
        hooks_path = ctx.locations.codex_hooks
        loaded = hookconfig.load(hooks_path, spec(ctx))
        keys = trust_keys(ctx, loaded.data)
        if not keys:
            return []
        config = ctx.locations.codex_config
        text = _config_text(ctx)
        recorded = codex_toml.trusted_hashes(codex_toml.parse(text, config))
        all_recorded = all(_matching_key(k, hooks_path, recorded) for k in keys)
        if all_recorded and str(hooks_path) not in changed:
            return []
        try:
            listed = ctx.codex_hooks.list_hooks(ctx.env, ctx.locations.home)
        except CodexUnavailable as exc:
            warnings.append(f"could not record Codex hook trust: {exc}. {trust_hint(ctx)}")
            return []
        command = shell_command(ctx.helper, self.provider.value)
        ours = {
            hook.key: hook
            for hook in listed
            if hook.command == command and _same_file(hook.source_path, hooks_path)
        }
        missing = [k for k in keys if _matching_key(k, hooks_path, dict.fromkeys(ours, "")) is None]
        if missing:
            warnings.append(
                f"Codex did not list {len(missing)} of mytty's hooks. {trust_hint(ctx)}"
            )
        updates = {
            k: hook.current_hash for k, hook in ours.items() if hook.trust_status != "trusted"
        }
        if not updates:
            return []
        new = codex_toml.set_trust(text, config, updates)
        return apply_changes(planned_write(config, new.encode("utf-8"), PRIVATE_MODE))
