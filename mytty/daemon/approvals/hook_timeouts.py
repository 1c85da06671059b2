"""How long the installed PermissionRequest hook of a provider may wait, read from its file.

A hold must end before the agent kills the hook at its handler's ``timeout`` (Claude Code then
keeps its dialog, Codex shows "Hook failed" first), so the broker cuts the hold to that timeout
minus :data:`~mytty.protocol.limits.APPROVAL_HOOK_MARGIN_S`. The file is parsed again only when
its size or mtime changed (one ``stat`` per held request otherwise). No handler found (the hook
ran from somewhere else) counts as the old 5 s, the shortest any mytty installed.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from mytty.core.events import AgentProvider
from mytty.integrations import api
from mytty.integrations.common import Locations, resolve_env

#: What an unknown install is taken for: the timeout mytty gave the handler before the broker.
FALLBACK_TIMEOUT_S = 5.0


class HookTimeouts:
    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        self._env = dict(resolve_env(env))
        self._cache: dict[str, tuple[tuple[int, int] | None, float]] = {}

    def _path(self, provider: str) -> str:
        loc = Locations.from_env(self._env)
        return str(
            loc.claude_settings if provider == AgentProvider.CLAUDE_CODE else loc.codex_hooks
        )

    def timeout(self, provider: str) -> float:
        """The provider's PermissionRequest handler timeout in seconds (see the docstring)."""
        try:
            st = os.stat(self._path(provider))
            stamp: tuple[int, int] | None = (st.st_mtime_ns, st.st_size)
        except OSError:
            stamp = None
        cached = self._cache.get(provider)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        found = api.permission_hook_timeout(provider, self._env) if stamp is not None else None
        value = found if found is not None else FALLBACK_TIMEOUT_S
        self._cache[provider] = (stamp, value)
        return value
