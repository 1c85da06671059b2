"""Where provider files live, and how mytty writes them without damaging anything else.

Every location is resolved from an environment mapping at call time (``HOME``, ``CODEX_HOME``,
``XDG_CONFIG_HOME``, ``MYTTY_HOME``), so tests and the controller can point the installers at a
temporary home and the real one is never touched by accident.
"""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from mytty.core import paths
from mytty.core.errors import ErrorCode, MyttyError
from mytty.core.vocab import INTEGRATION_STATUSES

# The states integration list reports, spelled once in core.vocab (its Literal for the checker,
# its tuple at run time, where other modules introspect this type).
if TYPE_CHECKING:
    from typing import TypeAlias

    from mytty.core.vocab import IntegrationStatus

    Status: TypeAlias = IntegrationStatus
else:
    Status = Literal[INTEGRATION_STATUSES]

#: Default modes for files that did not exist before (an existing file keeps its own mode).
PRIVATE_MODE = 0o600
SHARED_MODE = 0o644


def resolve_env(env: Mapping[str, str] | None) -> Mapping[str, str]:
    """The mapping to read locations from: the given one, or the live process environment."""
    return os.environ if env is None else env


def _absolute(value: str) -> Path:
    return Path(os.path.normpath(os.path.abspath(os.path.expanduser(value))))


@dataclass(frozen=True, slots=True)
class Locations:
    """Every path the installers read or write, for one environment."""

    home: Path
    codex_home: Path
    config_home: Path
    mytty_home: Path

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Locations:
        """Resolve the locations from ``env`` (``os.environ`` when omitted)."""
        env = resolve_env(env)
        home_value = env.get("HOME") or os.path.expanduser("~")
        home = _absolute(home_value)
        codex = env.get("CODEX_HOME")
        xdg = env.get("XDG_CONFIG_HOME")
        config_home = _absolute(xdg) if xdg and os.path.isabs(xdg) else home / ".config"
        return cls(
            home=home,
            codex_home=_absolute(codex) if codex else home / ".codex",
            config_home=config_home,
            mytty_home=Path(paths.mytty_home(env)),
        )

    # -- provider files ------------------------------------------------------------------
    @property
    def codex_hooks(self) -> Path:
        return self.codex_home / "hooks.json"

    @property
    def codex_config(self) -> Path:
        return self.codex_home / "config.toml"

    @property
    def codex_agents_md(self) -> Path:
        return self.codex_home / "AGENTS.md"

    @property
    def claude_settings(self) -> Path:
        return self.home / ".claude" / "settings.json"

    @property
    def claude_skill(self) -> Path:
        return self.home / ".claude" / "skills" / "mytty-panes" / "SKILL.md"

    @property
    def cursor_hooks(self) -> Path:
        return self.home / ".cursor" / "hooks.json"

    @property
    def opencode_plugin(self) -> Path:
        # OpenCode resolves its global config directory through XDG_CONFIG_HOME.
        return self.config_home / "opencode" / "plugins" / "mytty.js"

    @property
    def antigravity_dir(self) -> Path:
        return self.home / ".gemini" / "config" / "plugins" / "mytty"

    @property
    def guide(self) -> Path:
        """The guide file the controller keeps current; both pointers name this path."""
        return self.mytty_home / paths.GUIDE_FILE


def invalid_configuration(path: Path, why: str) -> MyttyError:
    """The one error for a provider file mytty refuses to rewrite."""
    return MyttyError(ErrorCode.INVALID_CONFIGURATION, f"{path}: {why}")


def read_bytes(path: Path) -> bytes | None:
    """The file's bytes, or ``None`` when absent (a dangling symlink counts as absent)."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except IsADirectoryError as exc:
        raise invalid_configuration(path, "is a directory, expected a file") from exc
    except OSError as exc:
        raise invalid_configuration(path, f"cannot be read ({exc.strerror})") from exc


def read_text(path: Path) -> str | None:
    """The file decoded as UTF-8, or ``None`` when absent; undecodable bytes are a config error."""
    data = read_bytes(path)
    if data is None:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise invalid_configuration(path, "is not valid UTF-8") from exc


@dataclass(frozen=True, slots=True)
class FileChange:
    """One planned write (``content``) or deletion (``content is None``) of a file.

    ``prune_dir`` removes the file's directory afterwards if the deletion left it empty (used for
    directories mytty owns whole, like the skill folder and the Antigravity plugin).
    """

    path: Path
    content: bytes | None
    default_mode: int = PRIVATE_MODE
    prune_dir: bool = False


def atomic_write(path: Path, content: bytes, default_mode: int = PRIVATE_MODE) -> None:
    """Replace ``path`` with ``content`` atomically.

    A symlink is followed and its target replaced, so a symlinked dotfile stays a symlink. The
    target keeps its permission bits; a new file gets ``default_mode``.
    """
    target = Path(os.path.realpath(path))
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:
        mode = default_mode
    fd, tmp_name = tempfile.mkstemp(
        prefix=f".{target.name}.", suffix=".mytty-tmp", dir=target.parent
    )
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(content)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp_name, mode)
        os.replace(tmp_name, target)
    except BaseException:
        try:
            os.unlink(tmp_name)
        except FileNotFoundError:
            pass
        raise


def apply_changes(changes: list[FileChange]) -> list[str]:
    """Carry out planned changes in order; returns the absolute paths that changed."""
    changed: list[str] = []
    for change in changes:
        if change.content is None:
            try:
                os.unlink(change.path)
            except FileNotFoundError:
                continue
            if change.prune_dir:
                try:
                    change.path.parent.rmdir()
                except OSError:
                    pass  # not empty (the user keeps files there) or already gone
        else:
            atomic_write(change.path, change.content, change.default_mode)
        changed.append(str(change.path))
    return changed


def planned_write(path: Path, new: bytes, default_mode: int = PRIVATE_MODE) -> list[FileChange]:
    """A write of ``new`` to ``path``, or nothing when the file already holds exactly that."""
    if read_bytes(path) == new:
        return []
    return [FileChange(path, new, default_mode)]


def planned_delete(path: Path, prune_dir: bool = False) -> list[FileChange]:
    """A deletion of ``path``, or nothing when it is already absent."""
    if not os.path.lexists(path):
        return []
    return [FileChange(path, None, prune_dir=prune_dir)]


def planned_emptying(
    path: Path, empty: bytes, default_mode: int = PRIVATE_MODE
) -> list[FileChange]:
    """Delete a file mytty's removal left with nothing in it; a symlink's target is emptied to
    ``empty`` instead, so the user's link (and whatever manages it) keeps working."""
    if os.path.islink(path):
        return planned_write(path, empty, default_mode)
    return planned_delete(path)


#: What ``repair`` adds to a Claude Code or Codex install from before the kill-server guard
#: (``doctor`` and ``integrations list`` say it; the status stays ``installed``).
GUARD_UPGRADE = (
    "installed without the kill-server guard (an install from an older mytty): nothing stops "
    "a spawned worker from killing the tmux server mytty runs on"
)
#: What ``repair`` adds to a Codex install from before mytty installed SubagentStart and
#: SubagentStop (with the guard: an install from before both says GUARD_UPGRADE).
SUBAGENT_UPGRADE = (
    "installed without the subagent hooks (an install from an older mytty): a turn that "
    "starts a subagent reads finished while the subagent still works"
)
#: What ``repair`` adds to a Claude Code or Codex install from before the approvals broker: the
#: PermissionRequest handler's longer timeout (the old 5 s cuts every hold to 1 s).
APPROVALS_UPGRADE = (
    "installed with the PermissionRequest handler's old 5 s timeout (an install from an older "
    "mytty): a permission request waits at most 1 s for `mytty approve` or a lead"
)
#: What ``repair`` adds to a Codex install from before mytty installed PostModelRequest
#: (an install from before the broker too says APPROVALS_UPGRADE, from before the subagent
#: hooks SUBAGENT_UPGRADE).
LIMIT_UPGRADE = (
    "installed without the PostModelRequest hook (an install from an older mytty): a worker "
    "that stops at its usage limit is parked only once its rollout says so, not by its hook"
)
