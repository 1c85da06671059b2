"""Where the hook helper executable lives, and the command strings that invoke it.

The helper is the ``mytty-agent-hook`` console script. In a virtualenv it sits next to the
interpreter, which is the copy that belongs to *this* mytty; ``PATH`` is only a fallback.
``MYTTY_AGENT_HOOK_BIN`` overrides both (tests and stand-in agents use it).
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Mapping
from pathlib import Path

from mytty.integrations.common import resolve_env

HELPER_NAME = "mytty-agent-hook"
HELPER_OVERRIDE_ENV = "MYTTY_AGENT_HOOK_BIN"


def helper_path(env: Mapping[str, str] | None = None) -> Path:
    """The absolute path every installed hook invokes.

    Order: ``$MYTTY_AGENT_HOOK_BIN``; the script next to ``sys.executable``; ``PATH``. When none
    exists the interpreter-adjacent path is returned anyway so statuses can name what is missing.
    """
    env = resolve_env(env)
    override = env.get(HELPER_OVERRIDE_ENV)
    if override:
        return Path(os.path.abspath(override))
    # Not resolved: a venv's python is often a symlink to the base interpreter, whose directory
    # does not hold our script.
    beside = Path(os.path.abspath(sys.executable)).parent / HELPER_NAME
    if beside.exists():
        return beside
    found = shutil.which(HELPER_NAME, path=env.get("PATH"))
    if found:
        return Path(os.path.abspath(found))
    return beside


def helper_problem(path: Path) -> str | None:
    """Why the helper at ``path`` cannot run, or ``None`` when it can."""
    if not path.is_file():
        return f"the hook helper {path} does not exist (reinstall mytty)"
    if not os.access(path, os.X_OK):
        return f"the hook helper {path} is not executable (chmod +x it or reinstall mytty)"
    return None


def shell_command(path: Path, provider: str) -> str:
    """The shell-string form ``'<path>' <provider>``: POSIX single quotes, ``'`` as ``'\\''``."""
    quoted = "'" + str(path).replace("'", "'\\''") + "'"
    return f"{quoted} {provider}"


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
