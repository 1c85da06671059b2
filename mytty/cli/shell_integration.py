"""``mytty shell-integration install|uninstall [bash|zsh|fish]``: the one rc line for panes
you open yourself (panes mytty creates load the integration without it).

Install adds the line (or repairs it when the checkout moved) and says so; uninstall takes it
out byte for byte. The rc file keeps its permission bits and, when it is a symlink, stays one
(the target is rewritten). Failures are one ``mytty: <code>: <message>`` line, exit 1.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path

import typer

from mytty.cli import client
from mytty.core.errors import ErrorCode, MyttyError
from mytty.core.shell.rc import Shell, with_line, without_line
from mytty.integrations.common import atomic_write
from mytty.integrations.shell_files import integration_dir

app = typer.Typer(
    name="shell-integration",
    help="Add or remove the rc line that loads mytty's shell integration in your own panes.",
    no_args_is_help=True,
    add_completion=False,
)

_SHELLS = ", ".join(s.value for s in Shell)


def _shell(name: str | None) -> Shell:
    chosen = name or os.path.basename(os.environ.get("SHELL", ""))
    try:
        return Shell(chosen)
    except ValueError:
        what = f"unknown shell {chosen!r}" if name else f"$SHELL is {chosen or 'unset'!r}"
        raise MyttyError(ErrorCode.INVALID_SHELL, f"{what}; name one of {_SHELLS}") from None


def rc_file(shell: Shell, env: os._Environ[str] | dict[str, str] | None = None) -> Path:
    """The file each shell reads for every interactive shell."""
    env = os.environ if env is None else env
    home = Path(env.get("HOME") or os.path.expanduser("~"))
    if shell is Shell.BASH:
        return home / ".bashrc"
    if shell is Shell.ZSH:
        return Path(env.get("ZDOTDIR") or home) / ".zshrc"
    return Path(env.get("XDG_CONFIG_HOME") or home / ".config") / "fish" / "config.fish"


def _read(path: Path) -> bytes:
    try:
        st = os.stat(path)  # follows a symlink: the target is what gets rewritten
    except FileNotFoundError:
        return b""
    if not stat.S_ISREG(st.st_mode):
        raise MyttyError(ErrorCode.SHELL_RC_UNRECOGNIZED, f"{path} is not a regular file")
    return path.read_bytes()


def _change(shell_name: str | None, edit: Callable[[Shell, bytes, Path], bytes]) -> None:
    def change() -> None:
        shell = _shell(shell_name)
        path = rc_file(shell)
        old = _read(path)
        new = edit(shell, old, path)
        if new == old:
            typer.echo(f"{path}: unchanged")
            return
        atomic_write(path, new, default_mode=0o644)
        typer.echo(f"{path}: changed")

    with client.exit_on_error(os_errors=True):  # one `mytty: <code>: <message>` line, exit 1
        change()


def _add(shell: Shell, text: bytes, path: Path) -> bytes:
    script = integration_dir() / f"mytty.{shell.value}"
    return with_line(shell, text, str(script), str(path))


def _remove(shell: Shell, text: bytes, path: Path) -> bytes:
    return without_line(shell, text, str(path))


_SHELL_ARG = typer.Argument(None, help=f"One of {_SHELLS} (default: the one $SHELL names).")


@app.command()
def install(
    shell: str | None = _SHELL_ARG,
    uninstall: bool = typer.Option(False, "--uninstall", help="Remove the line instead."),
) -> None:
    """Add the line to ~/.bashrc, ${ZDOTDIR:-~}/.zshrc or ~/.config/fish/config.fish."""
    _change(shell, _remove if uninstall else _add)


@app.command("uninstall")
def uninstall_command(shell: str | None = _SHELL_ARG) -> None:
    """Remove the line again, leaving the file byte for byte as it was before install."""
    _change(shell, _remove)
