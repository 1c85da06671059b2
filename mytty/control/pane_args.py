"""Validation shared by the commands that create panes (``new-tab``, ``split``)."""

from __future__ import annotations

import os

from mytty.control.base import Params
from mytty.core.errors import ErrorCode, MyttyError


def working_directory(params: Params) -> str | None:
    cwd = params.opt_str("workingDirectory")
    if cwd is None:
        return None
    if not os.path.isabs(cwd):
        raise MyttyError(ErrorCode.INVALID_CWD, f"--cwd must be an absolute path, got {cwd!r}")
    if not os.path.isdir(cwd):
        raise MyttyError(ErrorCode.INVALID_CWD, f"--cwd {cwd!r} is not an existing directory")
    return cwd


def initial_command(params: Params) -> str | None:
    command = params.opt_str("command")
    if command is not None and command == "":
        raise MyttyError(ErrorCode.INVALID_COMMAND, "--command must not be empty")
    return command
