"""``mytty-ctl completion bash|zsh|fish``: each script loads in the real shell and completes
commands, subcommands, options, option choices, pane ids and job ids (from a fake controller)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from .conftest import CTL_EXE, FakeController, ctl_env, run_ctl

PANE = "0F1E2D3C-4B5A-4978-8695-A4B3C2D1E0F9"
JOB = "11111111-2222-4333-8444-555555555555"


def _reply(body: bytes) -> bytes:
    kind = json.loads(body)["type"]
    if kind == "list":
        return json.dumps({"type": "list", "panes": [{"paneID": PANE}]}).encode() + b"\n"
    if kind == "listAgents":
        jobs = [{"jobID": {"rawValue": JOB}, "state": "running"}]
        return json.dumps({"type": "agentJobs", "jobs": jobs}).encode() + b"\n"
    return b'{"type":"failure","code":"invalid-request","message":"?"}\n'


@pytest.fixture
def server(workdir: Path) -> Iterator[FakeController]:
    fake = FakeController(workdir, _reply)
    yield fake
    fake.close()


def _env(server: FakeController) -> dict[str, str]:
    env = ctl_env(server.path)
    env["PATH"] = f"{Path(CTL_EXE).parent}:{env.get('PATH', '/usr/bin:/bin')}"
    return env


def _shell(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        pytest.fail(f"{name} is not installed (the completion tests need bash, zsh and fish)")
    return path


def _script(shell: str, env: dict[str, str]) -> str:
    ran = run_ctl("completion", shell, env=env)
    assert ran.returncode == 0, ran.stderr
    return ran.stdout


def _bash(script: str, words: list[str], env: dict[str, str]) -> list[str]:
    line = " ".join(f"'{w}'" for w in words)
    program = (
        f"{script}\nCOMP_WORDS=(mytty-ctl {line}); COMP_CWORD={len(words)}; _mytty_ctl\n"
        'printf "%s\\n" "${COMPREPLY[@]}"\n'
    )
    out = subprocess.run(
        [_shell("bash"), "-c", program], env=env, capture_output=True, text=True, timeout=30
    )
    assert out.returncode == 0, out.stderr
    return out.stdout.split()


def _zsh(script: str, words: list[str], env: dict[str, str]) -> list[str]:
    line = " ".join(f"'{w}'" for w in words)
    # Outside a completion widget compadd does not exist: a stand-in prints what it is given
    # that matches the word being completed, as compadd does with $PREFIX.
    program = (
        'autoload -Uz compinit && compinit -u -d "$TMPDIR/zcd"\n'
        f"{script}\n"
        "(( $+functions[_mytty_ctl] )) || exit 3\n"
        "[[ ${_comps[mytty-ctl]} == _mytty_ctl ]] || exit 4\n"
        'compadd() { [[ $1 == -- ]] && shift; local w; for w in "$@"; do '
        '[[ $w == "$PREFIX"* ]] && print -r -- "$w"; done; return 0 }\n'
        f"words=(mytty-ctl {line}); CURRENT={len(words) + 1}; PREFIX=$words[CURRENT]\n"
        "_mytty_ctl\n"
    )
    zenv = dict(env, TMPDIR=env.get("TMPDIR", "/tmp"))
    out = subprocess.run(
        [_shell("zsh"), "-f", "-c", program], env=zenv, capture_output=True, text=True, timeout=30
    )
    assert out.returncode == 0, out.stderr
    return out.stdout.split()


def _fish(script: str, words: list[str], env: dict[str, str], home: Path) -> list[str]:
    line = " ".join(["mytty-ctl", *words])
    program = f"{script}\ncomplete -C {json.dumps(line)}\n"
    fenv = dict(env, HOME=str(home), XDG_CONFIG_HOME=str(home / "cfg"))
    out = subprocess.run(
        [_shell("fish"), "--no-config", "-c", program],
        env=fenv,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert out.returncode == 0, out.stderr
    return [row.split("\t", 1)[0] for row in out.stdout.splitlines()]


CASES = [
    (["sp"], ["split"]),
    (["agent", ""], ["spawn", "wait", "result", "send", "focus", "close", "list", "resume"]),
    (["split", ""], [PANE]),
    (["split", PANE, ""], ["left", "right", "up", "down", "auto"]),
    (["split", PANE, "--c"], ["--cwd", "--command"]),
    (["wait", PANE, "--until", ""], ["idle", "attention"]),
    (["agent", "wait", ""], [JOB]),
    (["agent", "spawn", "--provider", ""], ["claude", "codex", "cursor"]),
    (["status", "x", "--pane", ""], [PANE]),
    (["completion", ""], ["bash", "zsh", "fish"]),
]


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_the_script_loads_and_completes(shell: str, server: FakeController, workdir: Path) -> None:
    env = _env(server)
    script = _script(shell, env)
    for words, expected in CASES:
        if shell == "bash":
            got = _bash(script, words, env)
        elif shell == "zsh":
            got = _zsh(script, words, env)
        else:
            got = _fish(script, words, env, workdir)
        assert sorted(set(got)) == sorted(expected), (shell, words, got)


def test_complete_offers_files_for_a_directory(server: FakeController) -> None:
    ran = run_ctl("__complete", "--", "new-tab", "--cwd", "", env=_env(server))
    assert ran.stdout == "\x01files\n"


def test_without_a_controller_no_ids_are_offered(workdir: Path) -> None:
    env = ctl_env(str(workdir / "absent.sock"))
    ran = run_ctl("__complete", "--", "read", "", env=env)
    assert ran.returncode == 0 and ran.stdout == "" and ran.stderr == ""


def test_an_unknown_shell_is_a_usage_error(server: FakeController) -> None:
    assert run_ctl("completion", "tcsh", env=_env(server)).code == "usage"
    assert os.path.exists(CTL_EXE)


def test_what_is_completed_follows_the_declared_kind(monkeypatch: pytest.MonkeyPatch) -> None:
    from mytty.cli import ctl_completion
    from mytty.control import spec

    asked: list[str] = []

    def ask(request: dict[str, object], key: str, field: str) -> list[str]:
        asked.append(str(request["type"]))
        return [f"<{key}>"]

    monkeypatch.setattr(ctl_completion, "_ask", ask)
    # The metavar's spelling no longer decides: a PANE_ID named WHERE completes panes, a text
    # named PANE or FILE completes nothing.
    where = spec.Option("--where", "WHERE", "paneID", "a pane", kind=spec.PANE_ID)
    assert ctl_completion._values(where) == ["<panes>"]
    assert ctl_completion._values(spec.Arg("WHICH", "jobID", "a job", kind=spec.JOB)) == ["<jobs>"]
    assert ctl_completion._values(spec.Option("--in", "X", "dir", "d", kind=spec.PATH)) == [
        ctl_completion.FILES
    ]
    assert ctl_completion._values(spec.Option("--p", "PANE", "p", "text")) == []
    assert ctl_completion._values(spec.Option("--f", "FILE", "f", "text")) == []
    assert asked == ["list", "listAgents"]
    # Every pane and job field of the real declarations says so by its kind.
    from mytty.control import registry

    for command in registry.declarations():
        for field in (*command.args, *command.options):
            if field.wire in ("paneID", "anchorPaneID"):
                assert field.kind == spec.PANE_ID, (command.wire, field.wire)
            if field.wire == "jobID":
                assert field.kind == spec.JOB, (command.wire, field.wire)
