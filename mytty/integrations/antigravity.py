"""Antigravity / Gemini CLI: a plugin folder, ``~/.gemini/config/plugins/mytty/``, owned whole.

Two files, pretty-printed JSON with sorted keys and a trailing newline: ``plugin.json`` (the
manifest) and ``hooks.json`` with one named hook set whose events hold flat handler lists.
Status compares both files byte for byte; removal deletes them and then the folder if empty.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mytty.core.errors import MyttyError
from mytty.core.events import AgentProvider
from mytty.core.vocab import INSTALLED, NEEDS_REPAIR, NOT_INSTALLED
from mytty.integrations.common import (
    PRIVATE_MODE,
    FileChange,
    planned_delete,
    planned_write,
    read_bytes,
)
from mytty.integrations.helper import helper_problem, shell_command
from mytty.integrations.installer import InstallContext, ProviderState

EVENTS = ("PreInvocation", "PostInvocation", "Stop")
HOOK_SET = "mytty-attention"
TIMEOUT_SECONDS = 5
SCHEMA = "https://antigravity.google/schemas/v1/plugin.json"


def _dump(value: Any) -> bytes:
    return (json.dumps(value, ensure_ascii=False, indent=2, sort_keys=True) + "\n").encode("utf-8")


def manifest() -> bytes:
    return _dump(
        {
            "$schema": SCHEMA,
            "name": "mytty",
            "version": "1.0.0",
            "description": "Reports Antigravity run activity to mytty.",
        }
    )


def hooks(helper: Path) -> bytes:
    handler = {
        "type": "command",
        "command": shell_command(helper, AgentProvider.ANTIGRAVITY.value),
        "timeout": TIMEOUT_SECONDS,
    }
    return _dump({HOOK_SET: {event: [dict(handler)] for event in EVENTS}})


def _files(ctx: InstallContext) -> dict[Path, bytes]:
    folder = ctx.locations.antigravity_dir
    return {folder / "plugin.json": manifest(), folder / "hooks.json": hooks(ctx.helper)}


@dataclass(frozen=True, slots=True)
class AntigravityInstaller:
    provider: AgentProvider = AgentProvider.ANTIGRAVITY

    def state(self, ctx: InstallContext) -> ProviderState:
        if not ctx.locations.antigravity_dir.is_dir():
            return ProviderState(NOT_INSTALLED)
        problem = helper_problem(ctx.helper, ctx.env)
        if problem:
            return ProviderState(NEEDS_REPAIR, problem)
        for path, expected in _files(ctx).items():
            try:
                current = read_bytes(path)
            except MyttyError:  # unreadable (say, a directory): not what we wrote
                current = None
            if current != expected:
                return ProviderState(NEEDS_REPAIR)
        return ProviderState(INSTALLED)

    def plan_install(self, ctx: InstallContext) -> list[FileChange]:
        changes: list[FileChange] = []
        for path, content in _files(ctx).items():
            changes += planned_write(path, content, PRIVATE_MODE)
        return changes

    def plan_remove(self, ctx: InstallContext) -> list[FileChange]:
        changes: list[FileChange] = []
        for path in _files(ctx):
            changes += planned_delete(path, prune_dir=True)
        return changes

    def finish_install(
        self, ctx: InstallContext, changed: list[str], warnings: list[str]
    ) -> list[str]:
        return []
