"""``mytty shell-integration install|uninstall``, run as the real command against a HOME of
its own; the installed line is then sourced by the real shells."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

MYTTY = str(Path(sys.executable).with_name("mytty"))
MARKER = "# mytty shell integration"


def run(home: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    full = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("MYTTY_", "TMUX", "ZDOTDIR", "XDG_"))
    }
    full.update({"HOME": str(home), "SHELL": "/bin/bash", **env})
    return subprocess.run(
        [MYTTY, "shell-integration", *args], env=full, capture_output=True, text=True, timeout=60
    )


def code(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode == 1 and proc.stdout == "", proc
    line = proc.stderr.strip()
    assert "\n" not in line, line
    prefix, name, _ = line.split(": ", 2)
    assert prefix == "mytty"
    return name


RC = {"bash": ".bashrc", "zsh": ".zshrc", "fish": ".config/fish/config.fish"}


@pytest.mark.parametrize("shell", list(RC))
def test_install_is_idempotent_and_uninstall_restores_the_bytes(tmp_path: Path, shell: str) -> None:
    rc = tmp_path / RC[shell]
    rc.parent.mkdir(parents=True, exist_ok=True)
    original = b"# mine\nalias ll='ls -l'"  # no final newline on purpose
    rc.write_bytes(original)
    os.chmod(rc, 0o640)
    first = run(tmp_path, "install", shell)
    assert first.returncode == 0 and first.stdout.splitlines()[0] == f"{rc}: changed", first
    if shell == "bash":  # no ~/.profile here: tmux's login shells read no ~/.bashrc (issue 26)
        assert first.stdout.splitlines()[1].startswith(f"{tmp_path / '.profile'}: changed")
    installed = rc.read_bytes()
    assert installed.startswith(original + b"\n") and installed.count(MARKER.encode()) == 1
    again = run(tmp_path, "install", shell)
    assert again.stdout.splitlines()[0] == f"{rc}: unchanged" and rc.read_bytes() == installed
    assert stat.S_IMODE(rc.stat().st_mode) == 0o640
    assert run(tmp_path, "uninstall", shell).returncode == 0
    assert rc.read_bytes() == original
    assert run(tmp_path, "uninstall", shell).stdout.strip() == f"{rc}: unchanged"
    # The spelling works too.
    run(tmp_path, "install", shell)
    assert run(tmp_path, "install", "--uninstall", shell).returncode == 0
    assert rc.read_bytes() == original


def test_default_shell_comes_from_SHELL_and_a_symlinked_rc_stays_a_symlink(tmp_path: Path) -> None:
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    (dotfiles / "zshrc").write_text("PS1='> '\n")
    (tmp_path / ".zshrc").symlink_to(dotfiles / "zshrc")
    assert run(tmp_path, "install", SHELL="/usr/bin/zsh").returncode == 0
    assert (tmp_path / ".zshrc").is_symlink()
    assert MARKER in (dotfiles / "zshrc").read_text()
    assert run(tmp_path, "uninstall", SHELL="/usr/bin/zsh").returncode == 0
    assert (dotfiles / "zshrc").read_text() == "PS1='> '\n"


def test_zdotdir_and_xdg_config_home_are_honoured(tmp_path: Path) -> None:
    zdot, xdg = tmp_path / "zd", tmp_path / "xdg"
    zdot.mkdir()
    run(tmp_path, "install", "zsh", ZDOTDIR=str(zdot))
    run(tmp_path, "install", "fish", XDG_CONFIG_HOME=str(xdg))
    assert MARKER in (zdot / ".zshrc").read_text()
    assert MARKER in (xdg / "fish" / "config.fish").read_text()
    assert not (tmp_path / ".zshrc").exists()


def test_bad_input_has_a_code_and_leaves_the_file_alone(tmp_path: Path) -> None:
    assert code(run(tmp_path, "install", "tcsh")) == "invalid-shell"
    assert code(run(tmp_path, "install", SHELL="/bin/tcsh")) == "invalid-shell"
    edited = f"# . mytty.bash {MARKER}\n".encode()
    (tmp_path / ".bashrc").write_bytes(edited)
    assert code(run(tmp_path, "install", "bash")) == "shell-rc-unrecognized"
    assert code(run(tmp_path, "uninstall", "bash")) == "shell-rc-unrecognized"
    assert (tmp_path / ".bashrc").read_bytes() == edited
    (tmp_path / ".config" / "fish" / "config.fish").mkdir(parents=True)
    assert code(run(tmp_path, "install", "fish")) == "shell-rc-unrecognized"


@pytest.mark.parametrize(
    ("shell", "argv"),
    [
        ("bash", ["bash", "--norc", "--noprofile", "-c"]),
        ("zsh", ["zsh", "-f", "-c"]),
        ("fish", ["fish", "--no-config", "-c"]),
    ],
)
def test_the_installed_line_loads_the_script_in_tmux_only(
    tmp_path: Path, shell: str, argv: list[str]
) -> None:
    if shutil.which(shell) is None:
        pytest.fail(f"{shell} is not installed (scripts/test installs it)")
    run(tmp_path, "install", shell)
    rc = tmp_path / RC[shell]
    probe = (
        "set -q __mytty_fish_loaded; and echo loaded"
        if shell == "fish"
        else ('[ -n "${__mytty_' + shell + '_loaded-}" ] && echo loaded')
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MYTTY_", "TMUX"))}
    env["HOME"] = str(tmp_path)
    script = f"source {rc}; {probe}; true"
    outside = subprocess.run([*argv, script], env=env, capture_output=True, text=True, timeout=30)
    assert outside.returncode == 0 and outside.stdout == "" and outside.stderr == "", outside
    env["TMUX"] = "/nonexistent,1,0"  # "inside tmux": the script loads, silently (no controller)
    inside = subprocess.run([*argv, script], env=env, capture_output=True, text=True, timeout=30)
    assert inside.stdout == "loaded\n" and inside.stderr == "", inside
