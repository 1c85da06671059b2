"""``mytty shell-integration install|uninstall [bash|zsh|fish]``: the one rc line for panes
you open yourself (panes mytty creates load the integration without it).

tmux starts login shells. zsh and fish read the same file for those as for any interactive
shell; bash does not: a login bash reads the first of ``~/.bash_profile``, ``~/.bash_login``,
``~/.profile`` and reads ``~/.bashrc`` only when that file sources it (Debian's default
``~/.profile`` does; a machine with no ``~/.profile`` reads nothing). So for bash the line goes
to ``~/.bashrc`` (the shells you start by hand) and, when the login file does not run
``~/.bashrc``, to that login file too (``~/.profile`` is created when there is none). Loading
it twice is harmless.

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
from mytty.core.shell.rc import (
    BASH_LOGIN_FILES,
    Shell,
    bash_login_file,
    sources_bashrc,
    with_line,
    without_line,
)
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


def login_file(env: os._Environ[str] | dict[str, str] | None = None) -> Path | None:
    """The file a login bash (a tmux pane's) reads when it does not run ~/.bashrc, else None:
    where the line must go too for panes opened with tmux's own keys."""
    bashrc = rc_file(Shell.BASH, env)
    home = bashrc.parent
    existing = {
        name for name in (".bash_profile", ".bash_login", ".profile") if (home / name).exists()
    }
    path = home / bash_login_file(existing)
    try:
        text = _read(path)
    except MyttyError:
        return path
    return None if sources_bashrc(text) else path


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
        rc = rc_file(shell)
        logins: list[Path] = []
        if shell is Shell.BASH and edit is _add:
            extra = login_file()
            logins = [extra] if extra is not None else []
        elif shell is Shell.BASH:  # wherever an install may have put it
            logins = [rc.parent / name for name in BASH_LOGIN_FILES]
        _edit_one(shell, rc, edit)
        for path in logins:
            _edit_one(shell, path, edit, login=True)

    with client.exit_on_error(os_errors=True):  # one `mytty: <code>: <message>` line, exit 1
        change()


def _edit_one(
    shell: Shell, path: Path, edit: Callable[[Shell, bytes, Path], bytes], *, login: bool = False
) -> None:
    """Edit one file and say so; a login file only when it changes (and is removed again when
    the line was all it held: install created it)."""
    if login and edit is _remove and not path.exists():
        return
    old = _read(path)
    new = edit(shell, old, path)
    why = " (read by tmux's login shells, which do not run ~/.bashrc)" if login else ""
    if new == old:
        if not login or edit is _add:
            typer.echo(f"{path}: unchanged{why}")
        return
    if login and not new:
        path.unlink()
    else:
        atomic_write(path, new, default_mode=0o644)
    typer.echo(f"{path}: changed{why}")


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
    """Add the line to ~/.bashrc (and the login file, when it does not run ~/.bashrc),
    ${ZDOTDIR:-~}/.zshrc or ~/.config/fish/config.fish."""
    _change(shell, _remove if uninstall else _add)


@app.command("uninstall")
def uninstall_command(shell: str | None = _SHELL_ARG) -> None:
    """Remove the line again, leaving the file byte for byte as it was before install."""
    _change(shell, _remove)
