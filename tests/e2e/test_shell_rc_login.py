"""``mytty shell-integration install`` reaches the login shells tmux starts (issue 26, item 9).

Before: on a machine with no ``~/.profile`` it changed ``~/.bashrc`` only, which a login bash
never reads, so panes opened with ``C-b %`` got no mytty identity; and ``mytty doctor`` could
not tell an rc line that login shells read from one they never see.
"""

from __future__ import annotations

import json
import subprocess

import pytest

from tests.support.harness import MYTTY, Mytty, wait_until

pytestmark = pytest.mark.tmux


def mytty_cli(m: Mytty, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [MYTTY, *args], env=m.env, capture_output=True, text=True, timeout=60, cwd=str(m.home)
    )


def shell_rc_finding(m: Mytty) -> dict[str, str]:
    done = mytty_cli(m, "doctor", "--json")
    findings = json.loads(done.stdout)["findings"]
    (found,) = [f for f in findings if f["area"] == "shell rc"]
    return found


def test_a_pane_opened_with_tmuxs_keys_gets_its_identity_without_a_profile(
    bare_mytty: Mytty,
) -> None:
    m = bare_mytty
    (m.home / ".profile").unlink()  # a fresh machine: nothing a login bash would read
    with (m.home / ".bashrc").open("a") as rc:  # where this user's PATH is set
        rc.write('export PATH="$HOME/rc-bin:$PATH"\n')
    m.start()
    installed = mytty_cli(m, "shell-integration", "install", "bash")
    assert installed.returncode == 0, installed.stderr
    assert f"{m.home / '.bashrc'}: changed" in installed.stdout
    assert f"{m.home / '.profile'}: changed" in installed.stdout
    assert shell_rc_finding(m)["status"] == "ok"
    # A POSIX sh login (a display manager, `sh -l`) reads ~/.profile too: the bash script
    # leaves before sh can choke on it.
    posix = subprocess.run(
        ["sh", "-c", '. "$HOME/.profile"; echo read'],
        env={**m.env, "TMUX": "/tmp/x,1,0"},
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert (posix.returncode, posix.stdout, posix.stderr) == (0, "read\n", "")

    # What C-b % does: the default command, a login shell.
    tmux_id = m.tmux("split-window", "-d", "-t", "base:", "-P", "-F", "#{pane_id}").strip()
    m.tmux("send-keys", "-t", tmux_id, "-l", 'echo "ID=[$MYTTY_SURFACE_ID]"')
    m.tmux("send-keys", "-t", tmux_id, "Enter")
    shown = wait_until(
        lambda: next(
            (
                line
                for line in m.tmux("capture-pane", "-p", "-t", tmux_id).splitlines()
                if line.startswith("ID=[")
            ),
            None,
        ),
        20,
        message="the pane's echo",
    )
    surface = m.tmux("display-message", "-p", "-t", tmux_id, "#{@mytty_surface}").strip()
    assert shown == f"ID=[{surface}]" and surface

    # The ~/.profile made for tmux's login shells does not hide ~/.bashrc from the shells of
    # panes mytty opens (they read it while there was no login file): its PATH is still there.
    pane = m.ctl("split", m.first_pane(), "right").json["paneID"]
    m.ctl("send", pane, 'echo "PATH=[$PATH]"', "--enter").ok()
    m.wait_for_text(pane, f"PATH=[{m.home}/rc-bin:")

    # Uninstall takes it out of both, and the ~/.profile it created goes again.
    removed = mytty_cli(m, "shell-integration", "uninstall", "bash")
    assert removed.returncode == 0, removed.stderr
    assert not (m.home / ".profile").exists()
    assert "mytty shell integration" not in (m.home / ".bashrc").read_text()


def test_doctor_tells_a_line_login_shells_never_read(bare_mytty: Mytty) -> None:
    m = bare_mytty
    (m.home / ".profile").write_text("export EDITOR=vi\n")  # does not run ~/.bashrc
    script = "/path/to/mytty/shell-integration/mytty.bash"
    (m.home / ".bashrc").write_text(
        f"if [ -n \"${{TMUX:-}}\" ]; then . '{script}'; fi  # mytty shell integration\n"
    )
    found = shell_rc_finding(m)
    assert found["status"] == "warn", found
    assert "login shells" in found["detail"] and str(m.home / ".profile") in found["detail"]
    assert found["fix"] == "mytty shell-integration install bash"
    # A ~/.profile that runs ~/.bashrc (Debian's default) is fine.
    (m.home / ".profile").write_text('if [ -f "$HOME/.bashrc" ]; then . "$HOME/.bashrc"; fi\n')
    assert shell_rc_finding(m)["status"] == "ok"
