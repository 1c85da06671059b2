"""The stand-ins' ``hold-memory`` directive: the memory is really resident while the agent runs."""

from __future__ import annotations

from tests.standins.test_standins import Sandbox, box, lib  # noqa: F401 - the fixture


def _rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def test_the_directive_parses() -> None:
    assert lib.parse_directives("@standin: hold-memory 300; sleep 2").hold_memory == 300
    assert lib.parse_directives("@standin: hold-memory lots").unknown == ["hold-memory lots"]


def test_the_agent_holds_the_memory_until_it_exits(box: Sandbox) -> None:
    proc = box.start("claude", "--", "work\n@standin: hold-memory 64; sleep 30")
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.startswith("STANDIN holding"):
                assert line.strip() == "STANDIN holding 64 MB"
                break
        else:
            raise AssertionError("the stand-in never said it holds the memory")
        assert _rss_mb(proc.pid) >= 64
    finally:
        proc.kill()
        proc.wait(10)
