"""The environment of panes, read back from inside them: panes mytty creates, panes made
by hand (``mytty-ctl env``), and the first pane of ``mytty up``.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.harness import MYTTY, MYTTY_CTL, Mytty, wait_until

pytestmark = pytest.mark.tmux

UUID_RE = re.compile(r"^[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}$")
HEX_128_BITS_OR_MORE = re.compile(r"^[0-9A-F]{32,}$")
VARS = (
    "MYTTY_EVENT_SOCKET",
    "MYTTY_SURFACE_ID",
    "MYTTY_EVENT_CAPABILITY",
    "MYTTY_CONTROL_SOCKET",
    "MYTTY_CTL_BIN",
)

# One line of shell code that records, from inside a pane, what the pane's shell sees: each
# value on its own line as NAME=value; `command -v` shows how the bare name mytty-ctl resolves.
REPORT = (
    "{{ for v in MYTTY_EVENT_SOCKET MYTTY_SURFACE_ID MYTTY_EVENT_CAPABILITY MYTTY_CONTROL_SOCKET "
    'MYTTY_CTL_BIN PATH; do printf \'%s=%s\\n\' "$v" "$(printenv "$v")"; done; '
    "printf 'RESOLVED=%s\\n' \"$(command -v mytty-ctl)\"; "
    "printf 'LISTED=%s\\n' \"$(mytty-ctl list)\"; }} > {out}.tmp && mv {out}.tmp {out}"
)


def report_command(out: Path) -> str:
    return REPORT.format(out=shlex.quote(str(out)))


def read_report(out: Path) -> dict[str, str]:
    wait_until(out.exists, 20, message=f"{out.name} written from inside the pane")
    return dict(line.split("=", 1) for line in out.read_text().splitlines())


def reset_path_in_profile(m: Mytty) -> None:
    """A login profile that throws away the PATH it was given (like Debian's /etc/profile)."""
    marker = m.root / "profile-ran"
    (m.home / ".profile").write_text(
        f"PATH=/usr/bin:/bin; export PATH\ntouch {shlex.quote(str(marker))}\n"
    )


def assert_pane_environment(m: Mytty, report: dict[str, str], pane: str) -> None:
    assert report["MYTTY_SURFACE_ID"] == pane
    assert report["MYTTY_EVENT_SOCKET"] == m.event_socket
    assert report["MYTTY_CONTROL_SOCKET"] == m.control_socket
    ctl_bin = report["MYTTY_CTL_BIN"]
    assert os.path.isabs(ctl_bin) and os.access(ctl_bin, os.X_OK)
    assert HEX_128_BITS_OR_MORE.match(report["MYTTY_EVENT_CAPABILITY"])
    # The bare name works although the login profile reset PATH ...
    assert report["RESOLVED"] and os.path.samefile(report["RESOLVED"], ctl_bin)
    path = report["PATH"].split(":")
    assert path[:2] == ["/usr/bin", "/bin"]  # ... which really happened,
    assert path.count(os.path.dirname(ctl_bin)) == 1  # and mytty-ctl's directory is there once.
    listed = json.loads(report["LISTED"])
    assert pane in {p["paneID"] for p in listed["panes"]}


def test_created_panes_carry_the_environment(mytty: Mytty) -> None:
    reset_path_in_profile(mytty)
    first = mytty.first_pane()
    out_split = mytty.root / "split.env"
    out_tab = mytty.root / "tab.env"
    split = mytty.ctl("split", first, "--command", report_command(out_split)).json["paneID"]
    tab = mytty.ctl("new-tab", "--command", report_command(out_tab)).json["paneID"]
    a, b = read_report(out_split), read_report(out_tab)
    assert (mytty.root / "profile-ran").exists()
    assert_pane_environment(mytty, a, split)
    assert_pane_environment(mytty, b, tab)
    # One capability per pane.
    assert a["MYTTY_EVENT_CAPABILITY"] != b["MYTTY_EVENT_CAPABILITY"]
    # What tmux gave the pane's first process agrees (the variables do not come from the rc).
    first_process = mytty.pane_env(split)
    for name in VARS:
        assert first_process[name] == a[name]


def test_capabilities_differ_per_pane_and_per_home(mytty: Mytty) -> None:
    first = mytty.first_pane()
    panes = [mytty.ctl("split", first).json["paneID"] for _ in range(3)]
    caps = [mytty.pane_env(p)["MYTTY_EVENT_CAPABILITY"] for p in panes]
    assert len(set(caps)) == 3
    assert all(HEX_128_BITS_OR_MORE.match(c) for c in caps)
    other = Mytty()
    try:
        other.start()
        pane = other.ctl("split", other.first_pane()).json["paneID"]
        assert other.pane_env(pane)["MYTTY_EVENT_CAPABILITY"] not in caps
    finally:
        other.close()


def test_env_refuses_a_process_outside_any_pane(mytty: Mytty) -> None:
    ran = mytty.ctl("env")
    assert ran.code == "not-in-pane"
    assert mytty.ctl("env", "--json").code == "not-in-pane"
    # Claiming a pane in the environment changes nothing: identity comes from the process tree.
    claimed = mytty.ctl("env", env={"MYTTY_SURFACE_ID": mytty.first_pane()})
    assert claimed.code == "not-in-pane"


def hand_made_pane(m: Mytty) -> tuple[str, str]:
    """Split a pane with plain tmux; return (tmux id, surface id the controller gave it)."""
    tmux_id = m.tmux("split-window", "-d", "-t", "base:", "-P", "-F", "#{pane_id}").strip()
    surface = wait_until(
        lambda: m.tmux("display-message", "-p", "-t", tmux_id, "#{@mytty_surface}").strip(),
        10,
        message="the hand-made pane to be adopted",
    )
    return tmux_id, surface


def test_env_gives_a_hand_made_pane_its_own_identity(mytty: Mytty) -> None:
    reset_path_in_profile(mytty)
    first = mytty.first_pane()
    created = mytty.ctl("split", first).json["paneID"]
    panes = [hand_made_pane(mytty), hand_made_pane(mytty)]
    results = []
    for i, (tmux_id, surface) in enumerate(panes):
        pid = int(mytty.tmux("display-message", "-p", "-t", tmux_id, "#{pane_pid}").strip())
        first_env = dict(
            e.split("=", 1)
            for e in Path(f"/proc/{pid}/environ").read_text().split("\0")
            if "=" in e
        )
        assert "MYTTY_SURFACE_ID" not in first_env  # tmux gave it no identity
        assert os.path.isabs(first_env["MYTTY_CTL_BIN"])  # but it knows where mytty-ctl is
        out = mytty.root / f"hand{i}.env"
        json_out = mytty.root / f"hand{i}.json"
        fish_out = mytty.root / f"hand{i}.fish"
        line = (
            'PATH="$PATH:${MYTTY_CTL_BIN%/*}"; '
            f"mytty-ctl env --json > {shlex.quote(str(json_out))}; "
            f"mytty-ctl env --fish > {shlex.quote(str(fish_out))}; "
            'eval "$(mytty-ctl env)"; ' + report_command(out)
        )
        mytty.tmux("send-keys", "-t", tmux_id, "-l", line)
        mytty.tmux("send-keys", "-t", tmux_id, "Enter")
        report = read_report(out)
        assert_pane_environment(mytty, report, surface)
        reply = json.loads(json_out.read_text())
        assert set(reply) == {"type", "paneID", "environment"} and reply["type"] == "env"
        assert reply["paneID"] == surface
        env = reply["environment"]
        assert {k: env[k] for k in VARS} == {k: report[k] for k in VARS}
        fish = fish_out.read_text()
        assert f"set -gx MYTTY_SURFACE_ID '{surface}'" in fish.splitlines()
        results.append(report)
    a, b = results
    assert a["MYTTY_SURFACE_ID"] != b["MYTTY_SURFACE_ID"]
    assert a["MYTTY_EVENT_CAPABILITY"] != b["MYTTY_EVENT_CAPABILITY"]
    assert created not in (a["MYTTY_SURFACE_ID"], b["MYTTY_SURFACE_ID"])


def test_env_from_a_created_pane_matches_what_it_was_given(mytty: Mytty) -> None:
    first = mytty.first_pane()
    out = mytty.root / "given.json"
    pane = mytty.ctl(
        "split", first, "--command", f"mytty-ctl env --json > {shlex.quote(str(out))}"
    ).json["paneID"]
    wait_until(lambda: out.exists() and out.stat().st_size > 0, 20, message="env --json")
    reply = json.loads(out.read_text())
    given = mytty.pane_env(pane)
    assert reply["paneID"] == pane
    assert {k: reply["environment"][k] for k in VARS} == {k: given[k] for k in VARS}


def test_up_no_attach_creates_the_session_with_the_pane_environment() -> None:
    m = Mytty(start_tmux=False)  # no tmux server, no sessions
    try:
        reset_path_in_profile(m)
        up = subprocess.run(
            [MYTTY, "up", "--no-attach", "--tmux-socket", m.socket],
            env=m.env,
            capture_output=True,
            text=True,
            timeout=60,
            cwd=str(m.home),
            check=False,
        )
        assert up.returncode == 0, up.stderr
        assert f"tmux -S {m.socket} attach -t mytty" in up.stdout
        sessions = m.tmux("list-sessions", "-F", "#{session_name}").split()
        assert "mytty" in sessions
        panes = m.panes()
        assert len(panes) == 1
        pane = panes[0]["paneID"]
        assert UUID_RE.match(pane)
        assert m.tmux("display-message", "-p", "-t", "=mytty:", "#{@mytty_surface}").strip() == pane
        out = m.root / "up.env"
        m.ctl("send", pane, report_command(out), "--enter").ok()
        assert_pane_environment(m, read_report(out), pane)
        # Running it again changes nothing.
        again = subprocess.run(
            [MYTTY, "up", "--no-attach", "--tmux-socket", m.socket],
            env=m.env,
            capture_output=True,
            text=True,
            timeout=60,
            cwd=str(m.home),
            check=False,
        )
        assert again.returncode == 0, again.stderr
        assert [p["paneID"] for p in m.panes()] == [pane]
    finally:
        subprocess.run([MYTTY, "stop"], env=m.env, capture_output=True, timeout=30, check=False)
        m.close()


SHELL_INTEGRATION = Path(__file__).resolve().parents[2] / "shell-integration"


@pytest.mark.parametrize(
    ("shell", "script", "argv"),
    [
        ("bash", "mytty.bash", ["bash", "--norc", "--noprofile", "-c"]),
        ("zsh", "mytty.zsh", ["zsh", "-f", "-c"]),
        ("fish", "mytty.fish", ["fish", "--no-config", "-c"]),
    ],
)
def test_shell_integration_gives_a_hand_made_pane_its_identity(
    mytty: Mytty, shell: str, script: str, argv: list[str]
) -> None:
    if shutil.which(shell) is None:
        pytest.fail(f"{shell} is not installed (scripts/test installs it)")
    out = mytty.root / f"{shell}.out"
    body = (
        f"source {shlex.quote(str(SHELL_INTEGRATION / script))}; "
        f"printf '%s\\n' \"$MYTTY_SURFACE_ID\" (command -v mytty-ctl) > {shlex.quote(str(out))}"
        if shell == "fish"
        else f". {shlex.quote(str(SHELL_INTEGRATION / script))}; "
        f'printf \'%s\\n\' "$MYTTY_SURFACE_ID" "$(command -v mytty-ctl)" > {shlex.quote(str(out))}'
    )
    # A pane opened by hand (plain tmux), whose PATH lacks mytty-ctl, like a user's own shell.
    command = (
        shlex.join([*argv, f"PATH=/usr/bin:/bin; export PATH 2>/dev/null; {body}; sleep 60"])
        if shell != "fish"
        else shlex.join([*argv, f"set -gx PATH /usr/bin /bin; {body}; sleep 60"])
    )
    tmux_id = mytty.tmux(
        "split-window", "-d", "-t", "base:", "-P", "-F", "#{pane_id}", command
    ).strip()
    surface = wait_until(
        lambda: mytty.tmux("display-message", "-p", "-t", tmux_id, "#{@mytty_surface}").strip(),
        10,
        message="the hand-made pane to be adopted",
    )
    lines = wait_until(
        lambda: lines if out.exists() and len(lines := out.read_text().splitlines()) == 2 else None,
        20,
        message=f"{shell} to report",
    )
    assert lines[0] == surface
    assert lines[1] == str(Path(MYTTY_CTL))
