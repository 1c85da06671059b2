"""Where mytty's shell-integration scripts are: the checkout's ``shell-integration/`` or, in
an installed wheel, ``mytty/shell_integration/`` (pyproject force-includes it there)."""

from __future__ import annotations

from pathlib import Path

from mytty.core.errors import ErrorCode, MyttyError


def integration_dir() -> Path:
    package = Path(__file__).resolve().parent.parent  # mytty/
    for candidate in (package.parent / "shell-integration", package / "shell_integration"):
        if (candidate / "mytty-shell").exists():
            return candidate
    raise MyttyError(ErrorCode.INTERNAL_ERROR, "mytty's shell-integration files are missing")
