"""Where the hook helper executable lives, and the command strings that invoke it.

Hooks run on every agent tool call, so enable installs a small launcher at
``$XDG_DATA_HOME/mytty/bin/mytty-agent-hook`` (default ``~/.local/share/…``) that starts this
mytty's Python with ``-I -S`` and imports the helper directly: pip's console-script wrapper
would pay for ``site`` on every call. The launcher's exact text names this installation, so a
moved or replaced mytty shows as needs-repair until ``repair`` rewrites it.
``MYTTY_AGENT_HOOK_BIN`` overrides the location and skips writing a launcher.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path

from mytty.core.hook_launcher import render_launcher
from mytty.core.quoting import shell_quote
from mytty.integrations.common import resolve_env

HELPER_NAME = "mytty-agent-hook"
HELPER_OVERRIDE_ENV = "MYTTY_AGENT_HOOK_BIN"


def helper_path(env: Mapping[str, str] | None = None) -> Path:
    """The absolute path every installed hook invokes (``$MYTTY_AGENT_HOOK_BIN`` or the launcher)."""
    env = resolve_env(env)
    override = env.get(HELPER_OVERRIDE_ENV)
    if override:
        return Path(os.path.abspath(override))
    data = env.get("XDG_DATA_HOME") or os.path.join(
        env.get("HOME") or os.path.expanduser("~"), ".local", "share"
    )
    return Path(os.path.abspath(data)) / "mytty" / "bin" / HELPER_NAME


def is_managed(env: Mapping[str, str] | None = None) -> bool:
    """Whether mytty writes the helper itself (no ``$MYTTY_AGENT_HOOK_BIN`` override)."""
    return not resolve_env(env).get(HELPER_OVERRIDE_ENV)


def launcher_text() -> bytes:
    """The launcher for *this* installation: its Python and the directory holding ``mytty``."""
    import mytty

    package_parent = str(Path(mytty.__file__).resolve().parent.parent)
    # Not resolved: a venv's python is a symlink whose own path selects the venv.
    return render_launcher(os.path.abspath(sys.executable), package_parent).encode("utf-8")


def helper_problem(path: Path, env: Mapping[str, str] | None = None) -> str | None:
    """Why the helper at ``path`` cannot run (or is not this mytty's), or ``None`` when fine."""
    if not path.is_file():
        return f"the hook helper {path} does not exist (run `mytty integrations repair`)"
    if not os.access(path, os.X_OK):
        return f"the hook helper {path} is not executable (run `mytty integrations repair`)"
    if is_managed(env):
        try:
            current = path.read_bytes()
        except OSError as exc:
            return f"the hook helper {path} cannot be read: {exc.strerror}"
        if current != launcher_text():
            return (
                f"the hook helper {path} belongs to another or an older mytty installation "
                "(run `mytty integrations repair`)"
            )
    return None


def shell_command(path: Path, provider: str) -> str:
    """The shell-string form ``'<path>' <provider>`` (see :mod:`mytty.core.quoting`)."""
    return f"{shell_quote(str(path))} {provider}"


def invokes_helper(handler: Mapping[str, object], path: Path, provider: str) -> bool:
    """Whether a hook handler runs *our* helper for ``provider``.

    Two spellings count: the shell string ``'<path>' <provider>`` and the exec form
    ``command = <path>, args = [<provider>]``. The path must match exactly; a handler pointing
    at another mytty installation is somebody else's.
    """
    if handler.get("type", "command") != "command":
        return False
    command = handler.get("command")
    if command == shell_command(path, provider) and "args" not in handler:
        return True
    return command == str(path) and handler.get("args") == [provider]
