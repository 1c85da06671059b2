"""Foreground agent detection (§9.1) on a fake /proc tree: rules, hint, wrapper search, cache."""

from __future__ import annotations

from pathlib import Path

import pytest

from mytty.core.events import AgentProvider
from mytty.daemon.estimation.detect import NOTHING, AgentDetector, Detection

PANE = 100


class FakeProc:
    def __init__(self, root: Path) -> None:
        self.root = root

    def add(
        self,
        pid: int,
        *,
        exe: str,
        argv: list[str] | None = None,
        tpgid: int = 0,
        start: int = 1,
        env: dict[str, str] | None = None,
        children: list[int] = (),  # type: ignore[assignment]
        comm: str = "x",
    ) -> None:
        d = self.root / str(pid)
        if d.exists():
            for f in d.rglob("*"):
                if f.is_file() or f.is_symlink():
                    f.unlink()
        (d / "task" / str(pid)).mkdir(parents=True, exist_ok=True)
        fields = ["S", "1", str(pid), "1", "34816", str(tpgid)] + ["0"] * 13 + [str(start)]
        (d / "stat").write_bytes(f"{pid} ({comm}) {' '.join(fields)}\n".encode())
        (d / "exe").symlink_to(exe)
        (d / "cmdline").write_bytes(b"\0".join(a.encode() for a in (argv or [exe])) + b"\0")
        (d / "environ").write_bytes(b"".join(f"{k}={v}\0".encode() for k, v in (env or {}).items()))
        (d / "task" / str(pid) / "children").write_bytes(
            " ".join(str(c) for c in children).encode()
        )

    def remove(self, pid: int) -> None:
        d = self.root / str(pid)
        for f in sorted(d.rglob("*"), reverse=True):
            f.rmdir() if f.is_dir() and not f.is_symlink() else f.unlink()
        d.rmdir()


@pytest.fixture
def proc(tmp_path: Path) -> FakeProc:
    return FakeProc(tmp_path)


def detector(proc: FakeProc) -> AgentDetector:
    return AgentDetector(proc_root=str(proc.root))


def test_the_shell_in_front_is_nothing(proc: FakeProc) -> None:
    proc.add(PANE, exe="/usr/bin/bash", tpgid=PANE, children=[200])
    proc.add(200, exe="/usr/local/bin/claude")  # a background job is not in front
    assert detector(proc).detect(PANE) == NOTHING


def test_the_foreground_leader_is_classified(proc: FakeProc) -> None:
    proc.add(PANE, exe="/usr/bin/bash", tpgid=200)
    proc.add(200, exe="/usr/bin/node", argv=["node", "/x/@anthropic-ai/claude-code/cli.js"])
    assert detector(proc).detect(PANE) == Detection(AgentProvider.CLAUDE_CODE, 200, 200)


def test_an_agent_that_is_the_panes_own_process(proc: FakeProc) -> None:
    proc.add(PANE, exe="/usr/local/bin/codex", tpgid=PANE)
    assert detector(proc).detect(PANE) == Detection(AgentProvider.CODEX, PANE, PANE)


def test_the_hint_names_an_unknown_program_but_never_overrides(proc: FakeProc) -> None:
    proc.add(PANE, exe="/usr/bin/bash", tpgid=200)
    proc.add(200, exe="/opt/wrapper", env={"MYTTY_AGENT": "  Cursor "})
    assert detector(proc).detect(PANE).provider is AgentProvider.CURSOR
    proc.add(PANE, exe="/usr/bin/bash", tpgid=201)
    proc.add(201, exe="/usr/local/bin/claude", env={"MYTTY_AGENT": "codex"})
    assert detector(proc).detect(PANE).provider is AgentProvider.CLAUDE_CODE
    proc.add(PANE, exe="/usr/bin/bash", tpgid=202)
    proc.add(202, exe="/opt/wrapper", env={"MYTTY_AGENT": "gemini"})  # not a provider value
    assert detector(proc).detect(PANE) == Detection(None, None, 202)


def test_a_wrapper_shell_is_searched_two_levels_deep(proc: FakeProc) -> None:
    proc.add(PANE, exe="/usr/bin/bash", tpgid=200)
    proc.add(200, exe="/bin/sh", argv=["sh", "/opt/run-agent"], children=[300])
    proc.add(300, exe="/usr/bin/env", children=[400])
    proc.add(400, exe="/usr/bin/python3", argv=["python3", "/home/u/bin/claude", "--x"])
    assert detector(proc).detect(PANE) == Detection(AgentProvider.CLAUDE_CODE, 400, 200)


def test_the_wrapper_search_stops_at_depth_two(proc: FakeProc) -> None:
    proc.add(PANE, exe="/usr/bin/bash", tpgid=200)
    proc.add(200, exe="/bin/sh", children=[300])
    proc.add(300, exe="/usr/bin/env", children=[400])
    proc.add(400, exe="/usr/bin/env", children=[500])
    proc.add(500, exe="/usr/local/bin/claude")
    assert detector(proc).detect(PANE) == Detection(None, None, 200)


def test_the_wrapper_search_visits_at_most_eight(proc: FakeProc) -> None:
    kids = list(range(300, 309))  # the agent is the ninth child
    proc.add(PANE, exe="/usr/bin/bash", tpgid=200)
    proc.add(200, exe="/bin/sh", children=kids)
    for pid in kids[:-1]:
        proc.add(pid, exe="/usr/bin/sleep")
    proc.add(kids[-1], exe="/usr/local/bin/claude")
    assert detector(proc).detect(PANE).provider is None
    proc.add(200, exe="/bin/sh", children=kids[1:])  # now it is the eighth
    assert detector(proc).detect(PANE) == Detection(AgentProvider.CLAUDE_CODE, 308, 200)


def test_the_wrapper_search_reads_at_most_four_argvs(proc: FakeProc) -> None:
    kids = list(range(300, 306))
    proc.add(PANE, exe="/usr/bin/bash", tpgid=200)
    proc.add(200, exe="/bin/sh", children=kids)
    for pid in kids[:-1]:
        proc.add(pid, exe="/usr/bin/node", argv=["node", "/srv/other.js"])
    proc.add(kids[-1], exe="/usr/bin/node", argv=["node", "/x/@openai/codex/bin/codex.js"])
    d = detector(proc)
    assert d.detect(PANE).provider is None  # needs a fifth argv read
    # Children already classified are cached: the next look reads the remaining ones.
    assert d.detect(PANE) == Detection(AgentProvider.CODEX, 305, 200)


def test_a_reused_pid_is_classified_again(proc: FakeProc) -> None:
    d = detector(proc)
    proc.add(PANE, exe="/usr/bin/bash", tpgid=200)
    proc.add(200, exe="/usr/local/bin/claude", start=10)
    assert d.detect(PANE).provider is AgentProvider.CLAUDE_CODE
    proc.add(200, exe="/usr/local/bin/claude", start=10)
    assert d.detect(PANE).provider is AgentProvider.CLAUDE_CODE
    reads = d.argv_reads
    assert d.detect(PANE).provider is AgentProvider.CLAUDE_CODE and d.argv_reads == reads
    proc.add(200, exe="/usr/bin/vim", start=99)  # same pid, another process
    assert d.detect(PANE) == Detection(None, None, 200)


def test_a_vanished_process_is_nothing(proc: FakeProc) -> None:
    # A group whose leader is gone: something is in front, and it is no agent.
    proc.add(PANE, exe="/usr/bin/bash", tpgid=200)
    assert detector(proc).detect(PANE) == Detection(None, None, 200)
    proc.remove(PANE)
    assert detector(proc).detect(PANE) == NOTHING


def test_a_process_caught_mid_exec_is_judged_again(proc: FakeProc) -> None:
    # exec switches the executable before the new argv is readable: not a final answer.
    d = detector(proc)
    proc.add(PANE, exe="/usr/bin/bash", tpgid=200)
    proc.add(200, exe="/usr/bin/python3", argv=[])
    (proc.root / "200" / "cmdline").write_bytes(b"")
    assert d.detect(PANE).provider is None
    (proc.root / "200" / "cmdline").write_bytes(b"python3\0/home/u/bin/claude\0")
    assert d.detect(PANE).provider is AgentProvider.CLAUDE_CODE


def test_a_shell_at_its_prompt_costs_one_read_until_it_execs(proc: FakeProc) -> None:
    d = detector(proc)
    proc.add(PANE, exe="/usr/bin/bash", tpgid=PANE, comm="bash")
    assert d.detect(PANE) == NOTHING
    reads = d.argv_reads
    for _ in range(3):
        assert d.detect(PANE) == NOTHING
    assert d.argv_reads == reads  # answered from the pane's stat line alone
    # `exec claude`: same pid and start time, a new program (and so a new name).
    proc.add(PANE, exe="/usr/local/bin/claude", tpgid=PANE, comm="claude")
    assert d.detect(PANE) == Detection(AgentProvider.CLAUDE_CODE, PANE, PANE)
