"""Shell integration in real bash, zsh and fish, in real tmux panes, with a real controller.

What the pane's shell writes to the terminal is observed with ``pipe-pane -O`` (tmux 3.3a drops
OSC 133 before any outer terminal); what reaches the controller is read from ``list``.
"""

from __future__ import annotations

import re
import shlex
import shutil
import socket
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.support.harness import MYTTY, MYTTY_CTL, Mytty, wait_until

pytestmark = pytest.mark.tmux

SHELL_DIR = Path(__file__).resolve().parents[2] / "shell-integration"
SHELLS = ("bash", "zsh", "fish")
MARK = re.compile(rb"\x1b\]133;([ABCD](?:;[0-9]+)?)\x07")
# Lines a broken integration would leave on the screen.
ERRORS = re.compile(r"unbound variable|parameter not set|not found|No such file|rror", re.I)


def shell_path(shell: str) -> str:
    path = shutil.which(shell)
    if path is None:
        pytest.fail(f"{shell} is not installed (scripts/test installs it)")
    return path


def write_rc(m: Mytty, shell: str, text: str) -> None:
    """The user's own startup file for ``shell`` (what a pane mytty creates runs first)."""
    if shell == "bash":
        (m.home / ".bash_profile").write_text(". ~/.profile\n" + text)
    elif shell == "zsh":
        (m.home / ".zshrc").write_text(text)
    else:
        conf = m.home / ".config" / "fish"
        conf.mkdir(parents=True, exist_ok=True)
        (conf / "config.fish").write_text(text)


@contextmanager
def started(shell: str, rc: str) -> Iterator[Mytty]:
    m = Mytty(extra_env={"SHELL": shell_path(shell)})
    try:
        write_rc(m, shell, rc)
        m.start()
        yield m
    finally:
        m.close()


def shell_info(m: Mytty, pane: str) -> dict[str, Any] | None:
    for p in m.panes():
        if p["paneID"] == pane:
            info: dict[str, Any] | None = p.get("shell")
            return info
    return None


def type_line(m: Mytty, tmux_id: str, text: str) -> None:
    m.tmux("send-keys", "-t", tmux_id, "-l", text)
    m.tmux("send-keys", "-t", tmux_id, "Enter")


def run_and_wait(m: Mytty, pane: str, tmux_id: str, text: str, status: int) -> dict[str, Any]:
    """Type a command line; wait until the controller learned it finished with ``status``."""
    before = (shell_info(m, pane) or {}).get("commandCount", 0)
    type_line(m, tmux_id, text)
    return wait_until(
        lambda: (
            (s := shell_info(m, pane)) is not None
            and s["commandCount"] == before + 1
            and s["lastExitStatus"] == status
            and s
        ),
        15,
        message=f"{text!r} to be reported with exit {status}",
    )


def new_pane(m: Mytty, *args: str) -> tuple[str, str]:
    pane = m.ctl("split", m.first_pane(), *args).json["paneID"]
    tmux_id = m.tmux_id(pane)
    return pane, tmux_id


def wait_for_first_prompt(m: Mytty, pane: str) -> dict[str, Any]:
    return wait_until(lambda: shell_info(m, pane), 30, message="the shell's first report")


def pipe(m: Mytty, tmux_id: str, name: str) -> Path:
    out = m.root / name
    m.tmux("pipe-pane", "-O", "-t", tmux_id, f"cat >> {shlex.quote(str(out))}")
    return out


def marks(out: Path) -> list[str]:
    return [x.decode() for x in MARK.findall(out.read_bytes())] if out.exists() else []


def screen(m: Mytty, tmux_id: str) -> str:
    return m.tmux("capture-pane", "-p", "-J", "-t", tmux_id)


def source_line(shell: str) -> str:
    return f"source {shlex.quote(str(SHELL_DIR / f'mytty.{shell}'))}"


# The user's prompt shows the last status, so a hook that broke $? shows in the prompt.
PROMPTS = {
    "bash": "set -u\nPS1='mybash[$?]\\$ '\nsleep 1\n",  # a slow rc, with nounset
    "zsh": "setopt nounset\nPROMPT='myzsh[%?]%# '\nsleep 1\n",
    "fish": 'function fish_prompt; echo -n "myfish[$status]> "; end\nsleep 1\n',
}


@pytest.fixture(params=SHELLS)
def shell_mytty(request: pytest.FixtureRequest) -> Iterator[tuple[str, Mytty]]:
    shell = request.param
    with started(shell, PROMPTS[shell]) as m:
        yield shell, m


def test_marks_exit_codes_and_cwd_reach_the_controller(shell_mytty: tuple[str, Mytty]) -> None:
    shell, m = shell_mytty
    pane, tmux_id = new_pane(m)
    first = wait_for_first_prompt(m, pane)
    assert first["commandCount"] == 0 and first["lastExitStatus"] is None
    assert first["cwd"].startswith("/")
    out = pipe(m, tmux_id, "pipe.out")
    # Loading it again (the rc line plus the automatic load) changes nothing.
    run_and_wait(m, pane, tmux_id, source_line(shell), 0)
    m.tmux("send-keys", "-t", tmux_id, "Enter")  # an empty line: a new prompt, no command
    for text, status in (("true", 0), ("false", 1), ("sh -c 'exit 42'", 42), ("cd /tmp", 0)):
        info = run_and_wait(m, pane, tmux_id, text, status)
    assert info["cwd"] == "/tmp" and info["commandCount"] == 5
    assert info["lastExitAt"] and info["reportedAt"]
    # Exactly one C, D, A, B per command line, in that order: nothing emitted twice.
    wait_until(lambda: marks(out)[-2:] == ["A", "B"] and len(marks(out)) >= 20, 10)
    seq = marks(out)
    assert seq[seq.index("C") :] == ["C", "D;0", "A", "B", "A", "B"] + [
        x for st in (0, 1, 42, 0) for x in ("C", f"D;{st}", "A", "B")
    ]
    host = socket.gethostname()
    assert f"\x1b]7;file://{host}/tmp\x07".encode() in out.read_bytes()
    assert m.tmux("display-message", "-p", "-t", tmux_id, "#{pane_path}").strip() == (
        f"file://{host}/tmp"
    )
    # The user's prompt still renders, with the right status.
    text = screen(m, tmux_id)
    prompt = {"bash": "mybash[{}]", "zsh": "myzsh[{}]", "fish": "myfish[{}]"}[shell]
    for st in (0, 1, 42):
        assert prompt.format(st) in text, text
    assert not ERRORS.search(text), text


@pytest.mark.parametrize("shell", SHELLS)
def test_the_initial_command_of_a_pane_reports_its_exit(shell: str) -> None:
    with started(shell, "sleep 1\n") as m:  # slow rc: the command still runs once, after it
        pane, tmux_id = new_pane(m, "--command", "sh -c 'exit 3'")
        info = wait_until(lambda: (s := shell_info(m, pane)) and s["commandCount"] == 1 and s, 30)
        assert info["lastExitStatus"] == 3
        run_and_wait(m, pane, tmux_id, "false", 1)  # then the shell's own prompts follow


# -- other prompt tools -----------------------------------------------------------------------
# Stand-ins written from how those tools hook in (not their code): a bash-preexec-like layer
# (DEBUG trap for preexec; installed lazily at the first prompt, first in PROMPT_COMMAND,
# rewriting it) and a starship-like prompt (rebuilds PS1 from $? in its precmd, appended to
# PROMPT_COMMAND; the array form of bash 5.1 in one variant).
BASH_HOOKS = r"""
__hooklog=$HOME/hooks.log
__bp_interactive=
__bp_precmd() { local s=$?; echo "precmd $s" >> "$__hooklog"; return $s; }
__bp_in_prompt_command() {
  local IFS=$'\n;' c
  local -a cmds
  read -rd '' -a cmds <<< "${PROMPT_COMMAND[*]}"
  for c in "${cmds[@]}"; do [[ $c == "$1" ]] && return 0; done
  return 1
}
__bp_preexec() {
  [ -n "$__bp_interactive" ] || return 0
  __bp_in_prompt_command "$BASH_COMMAND" && return 0
  __bp_interactive=
  echo "preexec $BASH_COMMAND" >> "$__hooklog"
}
__bp_mode() { __bp_interactive=1; }
__bp_install() {
  trap '__bp_preexec' DEBUG
  if [[ ${PROMPT_COMMAND@a} == *a* ]]; then
    local kept=() c
    for c in "${PROMPT_COMMAND[@]}"; do [[ $c == __bp_install ]] || kept+=("$c"); done
    PROMPT_COMMAND=(__bp_precmd "${kept[@]}" __bp_mode)
  else
    local rest=${PROMPT_COMMAND//__bp_install;/}
    PROMPT_COMMAND=$'__bp_precmd\n'"${rest//__bp_install/}"$'\n__bp_mode'
  fi
  __bp_mode  # like bash-preexec, it runs its hooks itself this first time
}
starship_precmd() { local STATUS=$?; PS1="star[$STATUS]\$ "; }
"""
BASH_STRING = BASH_HOOKS + 'PROMPT_COMMAND="__bp_install;starship_precmd;"\n'
BASH_ARRAY = BASH_HOOKS + "PROMPT_COMMAND=(__bp_install starship_precmd)\n"
ZSH_HOOKS = r"""
__hooklog=$HOME/hooks.log
setopt prompt_subst
theme_precmd() { local s=$?; echo "precmd $s" >> $__hooklog; PROMPT="star[$s]%# "; }
theme_preexec() { echo "preexec $1" >> $__hooklog; }
precmd_functions+=(theme_precmd)
preexec_functions+=(theme_preexec)
"""
FISH_HOOKS = r"""
set -g __hooklog $HOME/hooks.log
function fish_prompt; echo -n "star[$status]> "; end
function theme_post --on-event fish_postexec; echo "precmd $status" >> $__hooklog; end
function theme_pre --on-event fish_preexec; echo "preexec $argv" >> $__hooklog; end
"""


@pytest.mark.parametrize(
    ("shell", "rc"),
    [("bash", BASH_STRING), ("bash", BASH_ARRAY), ("zsh", ZSH_HOOKS), ("fish", FISH_HOOKS)],
    ids=["bash-string", "bash-array", "zsh", "fish"],
)
def test_prompt_tools_and_the_integration_both_keep_working(shell: str, rc: str) -> None:
    with started(shell, rc) as m:
        pane, tmux_id = new_pane(m)
        wait_for_first_prompt(m, pane)
        out = pipe(m, tmux_id, "pipe.out")
        for text, status in (("false", 1), ("sh -c 'exit 42'", 42), ("true", 0)):
            run_and_wait(m, pane, tmux_id, text, status)
        log = m.home / "hooks.log"
        wait_until(lambda: log.exists() and "precmd 0" in log.read_text(), 10)
        lines = log.read_text().splitlines()
        # The tool's hooks saw every command and the right status after each.
        assert [x for x in lines if x.startswith("preexec")] == [
            "preexec false",
            "preexec sh -c 'exit 42'",
            "preexec true",
        ]
        assert [x for x in lines if x.startswith("precmd")][-3:] == [
            "precmd 1",
            "precmd 42",
            "precmd 0",
        ]
        # Its prompt renders with the status, and the end-of-prompt mark survived its rebuild.
        wait_until(lambda: "star[0]" in screen(m, tmux_id), 10)
        text = screen(m, tmux_id)
        assert "star[1]" in text and "star[42]" in text and not ERRORS.search(text), text
        wait_until(lambda: marks(out)[-2:] == ["A", "B"], 10)
        seq = marks(out)
        assert seq[seq.index("C") :] == [x for st in (1, 42, 0) for x in ("C", f"D;{st}", "A", "B")]
        if rc is BASH_ARRAY:
            probe = m.root / "form"
            type_line(m, tmux_id, f"echo ${{PROMPT_COMMAND@a}} > {probe}")
            wait_until(lambda: probe.exists() and probe.read_text().strip() == "a", 10)


@pytest.mark.parametrize(
    ("shell", "rc"),
    [
        ("bash", "PS1='\\[\\e]133;A\\a\\]own\\$ '\n"),  # the user's rc marks prompts itself
        ("zsh", "POWERLEVEL9K_TERM_SHELL_INTEGRATION=true\n"),  # p10k would mark them
    ],
)
def test_marks_already_there_are_not_emitted_twice(shell: str, rc: str) -> None:
    with started(shell, rc) as m:
        pane, tmux_id = new_pane(m)
        wait_for_first_prompt(m, pane)
        out = pipe(m, tmux_id, "pipe.out")
        run_and_wait(m, pane, tmux_id, "false", 1)  # the events still flow
        run_and_wait(m, pane, tmux_id, "true", 0)
        type_line(m, tmux_id, "echo sentinel-$((6*7))")
        wait_until(lambda: out.exists() and b"sentinel-42" in out.read_bytes(), 10)
        before = out.read_bytes().split(b"sentinel-42")[0]  # the two prompts and the echo
        own = ["A", "A"] if shell == "bash" else []  # only the user's own marks
        assert [x.decode() for x in MARK.findall(before)] == own


# -- no fork per prompt -----------------------------------------------------------------------
# A child process the shell waits for adds its page faults to the shell's `cminflt`
# (/proc/<pid>/stat); threads (fish runs some for highlighting) do not, and neither does anything
# done with builtins. So over N command lines of the builtin `true` the pane shell's cminflt must
# not move; the same count with a hook that forks shows the method sees forks.
BARE = {
    "bash": "bash --norc --noprofile -i",
    "zsh": "zsh -f -i",
    "fish": "fish --no-config -i",
}
FORKING_HOOK = {
    "bash": "PROMPT_COMMAND+=$'\\n''__x=$(:)'",
    "zsh": "__fork() { __x=$(:) }; precmd_functions+=(__fork)",
    "fish": "function __fork --on-event fish_prompt; set -g __x (command true); end",
}
SIMPLE_PROMPT = {
    "bash": "PS1='$ '",
    "zsh": "PROMPT='%# '",
    "fish": "function fish_prompt; echo -n '> '; end",  # fish's default prompt runs git
}
PROMPTS_COUNTED = 10


def children_faults(pid: int) -> int:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[8])  # cminflt: minor faults of the children it waited for


def faults_over_prompts(m: Mytty, pane: str, tmux_id: str, pid: int) -> int:
    before = children_faults(pid)
    for _ in range(PROMPTS_COUNTED):
        run_and_wait(m, pane, tmux_id, "true", 0)
    return children_faults(pid) - before


@pytest.mark.parametrize("shell", SHELLS)
def test_no_process_is_forked_per_prompt(shell: str) -> None:
    with started(shell, SIMPLE_PROMPT[shell] + "\n") as m:
        pane, tmux_id = new_pane(m)
        wait_for_first_prompt(m, pane)
        pid = int(m.tmux("display-message", "-p", "-t", tmux_id, "#{pane_pid}").strip())
        assert Path(f"/proc/{pid}/exe").resolve() == Path(shell_path(shell)).resolve()
        run_and_wait(m, pane, tmux_id, "true", 0)  # past the first prompt's one-time work
        assert faults_over_prompts(m, pane, tmux_id, pid) == 0
        run_and_wait(m, pane, tmux_id, FORKING_HOOK[shell], 0)
        assert faults_over_prompts(m, pane, tmux_id, pid) > 0


# -- no controller ----------------------------------------------------------------------------
@pytest.mark.parametrize("shell", SHELLS)
def test_no_controller_is_silent(bare_mytty: Mytty, shell: str) -> None:
    m = bare_mytty  # a tmux server, no controller ever started
    gone = m.root / "gone"
    env = {
        "MYTTY_SURFACE_ID": "11111111-2222-3333-4444-555555555555",
        "MYTTY_EVENT_CAPABILITY": "AB" * 32,
        "MYTTY_EVENT_SOCKET": str(gone / "events.sock"),
        "MYTTY_CTL_BIN": MYTTY_CTL,
    }
    args = ["new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "base:"]
    for k, v in env.items():
        args += ["-e", f"{k}={v}"]
    tmux_id = m.tmux(*args, f"{shell_path(shell)} {BARE[shell].split(' ', 1)[1]}").strip()
    # A pane with no identity at all asks mytty-ctl, which finds nobody: also silent.
    nameless = m.tmux(
        "new-window",
        "-d",
        "-P",
        "-F",
        "#{pane_id}",
        "-t",
        "base:",
        "-e",
        f"MYTTY_CTL_BIN={MYTTY_CTL}",
        f"{shell_path(shell)} {BARE[shell].split(' ', 1)[1]}",
    ).strip()
    for target in (tmux_id, nameless):
        type_line(m, target, f"{SIMPLE_PROMPT[shell]}; {source_line(shell)}")
        for text in (
            "false",
            "true",
            "echo done-$((1+1))" if shell != "fish" else "echo done-(math 1+1)",
        ):
            type_line(m, target, text)

        def shown(t: str = target) -> bool:
            return "done-2" in screen(m, t)

        wait_until(shown, 15)
        text = screen(m, target)
        assert not ERRORS.search(text) and "mytty" not in text.replace(source_line(shell), ""), text
    assert not gone.exists()


def test_what_finished_while_the_controller_was_down_is_read_on_restart() -> None:
    with started("bash", "") as m:
        pane, tmux_id = new_pane(m)
        wait_for_first_prompt(m, pane)
        run_and_wait(m, pane, tmux_id, "false", 1)
        m.stop()
        type_line(m, tmux_id, "sh -c 'exit 5'")  # reported to the file while nobody reads it
        events = m.mytty_home / "shell" / f"{pane}.ev"
        wait_until(lambda: events.read_text().splitlines()[-1].startswith("D 5 "), 10)
        m.start()
        info = wait_until(lambda: shell_info(m, pane), 20, message="the report read back")
        assert info["lastExitStatus"] == 5
        run_and_wait(m, pane, tmux_id, "true", 0)  # and it follows the file from there
        m.ctl("close-pane", pane).ok()
        wait_until(lambda: not events.exists(), 10, message="the closed pane's file removed")


@pytest.mark.parametrize("shell", SHELLS)
def test_a_pane_opened_by_hand_reports_through_the_installed_line(shell: str) -> None:
    with started(shell, SIMPLE_PROMPT[shell] + "\n") as m:
        installed = subprocess.run(
            [MYTTY, "shell-integration", "install", shell],
            env=m.env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert installed.returncode == 0, installed.stderr
        # Plain tmux, an interactive shell that reads the rc file the line went to.
        tmux_id = m.tmux(
            "split-window", "-d", "-t", "base:", "-P", "-F", "#{pane_id}", f"{shell_path(shell)} -i"
        ).strip()
        pane = wait_until(
            lambda: m.tmux("display-message", "-p", "-t", tmux_id, "#{@mytty_surface}").strip(),
            10,
            message="the hand-made pane to be adopted",
        )
        wait_for_first_prompt(m, pane)
        run_and_wait(m, pane, tmux_id, "sh -c 'exit 9'", 9)


@pytest.mark.parametrize(
    ("shell", "wipe"),
    [("bash", "PROMPT_COMMAND="), ("zsh", "precmd_functions=(); preexec_functions=()")],
)
def test_sourcing_again_puts_back_hooks_something_removed(shell: str, wipe: str) -> None:
    with started(shell, "") as m:
        pane, tmux_id = new_pane(m)
        wait_for_first_prompt(m, pane)
        run_and_wait(m, pane, tmux_id, "false", 1)
        type_line(m, tmux_id, wipe)
        run_and_wait(m, pane, tmux_id, source_line(shell), 0)  # the wipe itself went unreported
        run_and_wait(m, pane, tmux_id, "sh -c 'exit 4'", 4)


@pytest.mark.parametrize("shell", SHELLS)
def test_real_direnv_hook_and_the_integration_both_work(shell: str) -> None:
    direnv = shutil.which("direnv")
    if direnv is None:
        pytest.fail("direnv is not installed (scripts/test installs it)")
    hook = f'eval "$({direnv} hook {shell})"' if shell != "fish" else f"{direnv} hook fish | source"
    with started(shell, SIMPLE_PROMPT[shell] + "\n" + hook + "\n") as m:
        project = m.home / "project"
        project.mkdir()
        (project / ".envrc").write_text("export MYTTY_DIRENV_PROBE=loaded\n")
        allowed = subprocess.run(
            [direnv, "allow", str(project)], env=m.env, capture_output=True, text=True, timeout=30
        )
        assert allowed.returncode == 0, allowed.stderr
        pane, tmux_id = new_pane(m)
        wait_for_first_prompt(m, pane)
        info = run_and_wait(m, pane, tmux_id, f"cd {project}", 0)
        assert info["cwd"] == str(project)
        probe = m.root / "probe"
        run_and_wait(m, pane, tmux_id, f"echo $MYTTY_DIRENV_PROBE > {probe}; false", 1)
        assert probe.read_text().strip() == "loaded"  # direnv's hook ran at the prompt
        run_and_wait(m, pane, tmux_id, "sh -c 'exit 42'", 42)
