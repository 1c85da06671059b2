"""Checks shared by the commands that create panes (``new-tab``, ``split``); controller side."""

from __future__ import annotations

import os

from mytty.core.errors import ErrorCode, MyttyError


def working_directory(cwd: str | None) -> str | None:
    if cwd is None:
        return None
    if not os.path.isabs(cwd):
        raise MyttyError(ErrorCode.INVALID_CWD, f"--cwd must be an absolute path, got {cwd!r}")
    if not os.path.isdir(cwd):
        raise MyttyError(ErrorCode.INVALID_CWD, f"--cwd {cwd!r} is not an existing directory")
    return cwd


def initial_command(command: str | None) -> str | None:
    if command is not None and command == "":
        raise MyttyError(ErrorCode.INVALID_COMMAND, "--command must not be empty")
    return command
