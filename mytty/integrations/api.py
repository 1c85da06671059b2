"""The integrations facade shared by the human CLI (``mytty integrations``) and the controller.

Every function takes an optional environment mapping (``HOME``, ``CODEX_HOME``, …; default:
the process environment) and reads the files afresh: no status is cached anywhere. Mutating
functions plan every change first, so a malformed file aborts before anything is written.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from mytty.core.errors import ErrorCode, MyttyError
from mytty.core.events import PROVIDER_ORDER, AgentProvider
from mytty.core.vocab import INSTALLED, NEEDS_REPAIR
from mytty.integrations.antigravity import AntigravityInstaller
from mytty.integrations.claude import ClaudeInstaller
from mytty.integrations.codex import CodexInstaller
from mytty.integrations.codex_trust import CodexHookSource
from mytty.integrations.common import Status, apply_changes, atomic_write
from mytty.integrations.cursor import CursorInstaller
from mytty.integrations.helper import helper_problem, is_managed, launcher_text
from mytty.integrations.installer import InstallContext, ProviderInstaller
from mytty.integrations.opencode import OpenCodeInstaller
from mytty.protocol import wire
from mytty.protocol.replies import IntegrationEntry, IntegrationStatusesReply

_INSTALLERS: dict[AgentProvider, ProviderInstaller] = {
    AgentProvider.CODEX: CodexInstaller(),
    AgentProvider.CLAUDE_CODE: ClaudeInstaller(),
    AgentProvider.OPENCODE: OpenCodeInstaller(),
    AgentProvider.ANTIGRAVITY: AntigravityInstaller(),
    AgentProvider.CURSOR: CursorInstaller(),
}


@dataclass(frozen=True, slots=True)
class IntegrationStatus:
    """One provider's integration state, as ``integration list`` reports it."""

    provider: AgentProvider
    status: Status
    error: str | None = None
    #: Installed, but ``repair`` would add something newer (not on the wire: humans' output).
    upgrade: str | None = None

    def to_wire(self) -> IntegrationEntry:
        return wire.integration_entry(self.provider, self.status, self.error)


def parse_provider(value: str | AgentProvider) -> AgentProvider:
    """The provider named ``value``; anything else is ``invalid-provider`` (naming the event
    provider meant when ``value`` is the other vocabulary's word, ``claude``)."""
    from mytty.core.vocab import PROVIDERS, suggestion

    try:
        return AgentProvider(value)
    except ValueError:
        names = ", ".join(p.value for p in PROVIDER_ORDER)
        hint = suggestion(str(value), PROVIDERS)
        raise MyttyError(
            ErrorCode.INVALID_PROVIDER,
            f"unknown provider {value!r}{hint} (expected one of: {names})",
        ) from None


def _status(provider: AgentProvider, ctx: InstallContext) -> IntegrationStatus:
    try:
        state = _INSTALLERS[provider].state(ctx)
    except MyttyError as exc:
        if exc.code is not ErrorCode.INVALID_CONFIGURATION:
            raise
        # We cannot tell what is installed in a file we refuse to read; it needs the human.
        return IntegrationStatus(provider, NEEDS_REPAIR, exc.message)
    return IntegrationStatus(provider, state.status, state.error, state.upgrade)


def status_of(
    provider: str | AgentProvider, env: Mapping[str, str] | None = None
) -> IntegrationStatus:
    """The provider's status, derived from its files and the helper on disk right now."""
    return _status(parse_provider(provider), InstallContext.create(env))


def list_statuses(env: Mapping[str, str] | None = None) -> list[IntegrationStatus]:
    """Every provider's status, in the canonical order; malformed files set ``error``."""
    ctx = InstallContext.create(env)
    return [_status(provider, ctx) for provider in PROVIDER_ORDER]


def integrations_wire(env: Mapping[str, str] | None = None) -> IntegrationStatusesReply:
    """The ``integration list`` reply: ``{"type": "integrationStatuses", "integrations": […]}``."""
    return wire.integration_statuses(
        wire.integration_list_entry(status.to_wire()) for status in list_statuses(env)
    )


#: What a PermissionRequest handler without a ``timeout`` gets (both pinned CLIs: 600 s).
PROVIDER_DEFAULT_TIMEOUT_S = 600.0


def permission_hook_timeout(
    provider: str | AgentProvider, env: Mapping[str, str] | None = None
) -> float | None:
    """The ``timeout`` (seconds) of mytty's PermissionRequest handler in the provider's hook
    file (Claude Code, Codex), or None when none is installed there or the file can't be read.

    The approvals broker holds a request at most this long minus what the hook needs besides.
    """
    from mytty.integrations import claude, codex, hookconfig

    provider = parse_provider(provider)
    ctx = InstallContext.create(env)
    if provider is AgentProvider.CLAUDE_CODE:
        path, spec = ctx.locations.claude_settings, claude.spec(ctx)
    elif provider is AgentProvider.CODEX:
        path, spec = ctx.locations.codex_hooks, codex.spec(ctx)
    else:
        return None
    try:
        loaded = hookconfig.load(path, spec)
    except MyttyError:
        return None
    hooks = loaded.data.get("hooks") or {}
    for pos in hookconfig.owned_positions(loaded.data, spec):
        if pos.event != "PermissionRequest" or pos.group is None:
            continue
        handler = hooks[pos.event][pos.group]["hooks"][pos.handler]
        timeout = handler.get("timeout")
        if timeout is None:
            return PROVIDER_DEFAULT_TIMEOUT_S
        if isinstance(timeout, int | float) and not isinstance(timeout, bool) and timeout > 0:
            return float(timeout)
        return None
    return None


def planned_changes(
    provider: str | AgentProvider, env: Mapping[str, str] | None = None
) -> list[str]:
    """Absolute paths that enable/repair of ``provider`` would write (for a confirmation prompt)."""
    provider = parse_provider(provider)
    ctx = InstallContext.create(env)
    paths = [str(change.path) for change in _INSTALLERS[provider].plan_install(ctx)]
    if provider is AgentProvider.CODEX:
        # Trust goes into config.toml after Codex has been asked; name it whenever it may change.
        status = _status(provider, ctx)
        if paths or status.status != INSTALLED:
            paths.append(str(ctx.locations.codex_config))
    return paths


def _install(provider: AgentProvider, ctx: InstallContext, warnings: list[str] | None) -> list[str]:
    installer = _INSTALLERS[provider]
    plan = installer.plan_install(ctx)  # validates the provider's files before anything is written
    launcher: list[str] = []
    if is_managed(ctx.env) and helper_problem(ctx.helper, ctx.env) is not None:
        atomic_write(ctx.helper, launcher_text(), 0o755)
        os.chmod(ctx.helper, 0o755)
        launcher.append(str(ctx.helper))
    problem = helper_problem(ctx.helper, ctx.env)
    if problem:
        raise MyttyError(ErrorCode.INVALID_CONFIGURATION, problem)
    changed = launcher + apply_changes(plan)
    notes: list[str] = []
    for path in installer.finish_install(ctx, changed, notes):
        if path not in changed:
            changed.append(path)
    if warnings is not None:
        warnings.extend(notes)
    return changed


def enable(
    provider: str | AgentProvider,
    env: Mapping[str, str] | None = None,
    *,
    codex_hooks: CodexHookSource | None = None,
    warnings: list[str] | None = None,
) -> list[str]:
    """Install (or complete) the provider's integration; returns the paths that changed.

    ``codex_hooks`` replaces the real ``codex app-server`` query (tests); ``warnings`` collects
    steps that could not be finished (for example Codex trust) for the caller to show.
    """
    return _install(parse_provider(provider), InstallContext.create(env, codex_hooks), warnings)


def repair(
    provider: str | AgentProvider | None = None,
    env: Mapping[str, str] | None = None,
    *,
    codex_hooks: CodexHookSource | None = None,
    warnings: list[str] | None = None,
) -> list[str]:
    """Reinstall one provider (any status), or every provider that needs repair.

    Without a provider, each ``needs-repair`` integration, and each installed one from an older
    mytty (``upgrade``: e.g. without the kill-server guard), is repaired in turn; if one of them
    fails, the others are still repaired and the first error is raised at the end.
    """
    ctx = InstallContext.create(env, codex_hooks)
    if provider is not None:
        return _install(parse_provider(provider), ctx, warnings)
    changed: list[str] = []
    first_error: MyttyError | None = None
    for candidate in PROVIDER_ORDER:
        status = _status(candidate, ctx)
        if status.status != NEEDS_REPAIR and status.upgrade is None:
            continue
        try:
            changed += _install(candidate, ctx, warnings)
        except MyttyError as exc:
            first_error = first_error or exc
    if first_error:
        raise first_error
    return changed


def disable(provider: str | AgentProvider, env: Mapping[str, str] | None = None) -> list[str]:
    """Remove exactly what enable added; returns the paths that changed."""
    provider = parse_provider(provider)
    ctx = InstallContext.create(env)
    return apply_changes(_INSTALLERS[provider].plan_remove(ctx))
