"""The broker's daemon parts: who is calling (a fake /proc), the audit's tables and a restart,
the installed hook's timeout, and --always's edit of config.toml."""

from __future__ import annotations

import asyncio
import json
import os
import stat
import tomllib
from difflib import SequenceMatcher
from pathlib import Path

import pytest

from mytty.core.approvals.access import AGENT, HUMAN, Caller
from mytty.core.approvals.model import APPROVER_LEAD, Decision, decided
from mytty.core.approvals.rules import Rule
from mytty.core.config import DEFAULT_TEXT
from mytty.core.errors import MyttyError
from mytty.core.ids import JobId, SurfaceId
from mytty.daemon.approvals import callers
from mytty.daemon.approvals.hook_timeouts import FALLBACK_TIMEOUT_S, HookTimeouts
from mytty.daemon.approvals.rules_file import append_rule, with_rule
from mytty.daemon.store import EventStore
from tests.core.approvals.builders import request

PANE = SurfaceId("11111111-1111-4111-8111-111111111111")
OTHER = SurfaceId("22222222-2222-4222-8222-222222222222")


# -- callers -------------------------------------------------------------------------------------


def _process(
    root: Path,
    pid: int,
    parent: int,
    argv: list[str],
    env: dict[str, str] | None = None,
    exe: str | None = None,
) -> None:
    d = root / str(pid)
    d.mkdir()
    fields = ["S", str(parent), str(pid), str(pid), "0", "-1"] + ["0"] * 20
    (d / "stat").write_text(f"{pid} (x) " + " ".join(fields))
    (d / "cmdline").write_bytes(b"\0".join(a.encode() for a in argv) + b"\0")
    (d / "environ").write_bytes(b"\0".join(f"{k}={v}".encode() for k, v in (env or {}).items()))
    os.symlink(exe or argv[0], d / "exe")


def _classify(root: Path, peer: int, *, front: frozenset[SurfaceId] = frozenset()) -> Caller:
    return callers.classify(
        peer,
        {100: PANE},
        job_in_pane=lambda s: JobId("JOB-" + s[:4]),
        agent_in_front=lambda s: s in front,
        proc_root=str(root),
    )


def test_a_shell_in_a_pane_is_a_person(tmp_path: Path) -> None:
    _process(tmp_path, 100, 1, ["/bin/bash"])
    _process(tmp_path, 200, 100, ["/usr/bin/python3", "/x/mytty", "approve", "A"])
    assert _classify(tmp_path, 200) == Caller(HUMAN, PANE)


def test_a_process_under_an_agent_is_that_agents(tmp_path: Path) -> None:
    _process(tmp_path, 100, 1, ["/bin/bash"])
    _process(tmp_path, 110, 100, ["/opt/node", "/home/u/.npm/bin/codex"], exe="/opt/node")
    _process(tmp_path, 120, 110, ["/home/u/vendor/codex"], exe="/home/u/vendor/codex")
    _process(tmp_path, 130, 120, ["/bin/bash", "-lc", "mytty-ctl approval answer A allow"])
    _process(tmp_path, 140, 130, ["/usr/bin/python3", "/x/mytty-ctl"])
    assert _classify(tmp_path, 140) == Caller(AGENT, PANE, JobId("JOB-1111"))


def test_claudes_mark_makes_an_agent_even_outside_every_pane(tmp_path: Path) -> None:
    _process(tmp_path, 300, 1, ["/usr/bin/python3", "/x/mytty-ctl"], {"CLAUDECODE": "1"})
    assert _classify(tmp_path, 300) == Caller(AGENT, None, None)
    _process(tmp_path, 301, 1, ["/usr/bin/python3", "/x/mytty-ctl"], {"CODEX_SANDBOX": "seccomp"})
    assert _classify(tmp_path, 301).kind == AGENT


def test_a_detached_process_naming_an_agents_pane_is_that_agents(tmp_path: Path) -> None:
    _process(tmp_path, 400, 1, ["/usr/bin/python3", "/x/mytty-ctl"], {"MYTTY_SURFACE_ID": OTHER})
    assert _classify(tmp_path, 400, front=frozenset({OTHER})) == Caller(
        AGENT, OTHER, JobId("JOB-2222")
    )
    # The same variable in a pane with no agent in front: a person who left that pane.
    assert _classify(tmp_path, 400) == Caller(HUMAN, None)


# -- the store ------------------------------------------------------------------------------------


def test_requests_and_approvers_are_stored_and_read_back(tmp_path: Path) -> None:
    async def scenario() -> None:
        store = EventStore(tmp_path / "s.sqlite3")
        store.open()
        store.start_writer(asyncio.get_running_loop())
        try:
            first = request("a", requested_at=100.0)
            second = request("b", requested_at=200.0)
            await store.save_approval(first)
            await store.save_approval(second)
            done = decided(second, Decision.ALLOW, who="human:tty", at=201.0, delivered_by="hook")
            await store.save_approval(done)
            await store.set_approver(JobId("J"), APPROVER_LEAD)
            assert store.read_approvals(150.0, 10) == [done]
            assert store.read_approvals(0.0, 10) == [done, first]
            assert store.read_approvals(0.0, 1) == [done]
        finally:
            store.close()
        again = EventStore(tmp_path / "s.sqlite3")
        again.open()
        try:
            assert again.load_open_approvals() == [first]
            assert again.load_approvers() == {"J": APPROVER_LEAD}
        finally:
            again.close()
        mode = stat.S_IMODE((tmp_path / "s.sqlite3").stat().st_mode)
        assert mode == 0o600

    asyncio.run(scenario())


# -- the installed hook's timeout ------------------------------------------------------------------


def test_the_hold_reads_the_installed_timeout_and_notices_a_change(tmp_path: Path) -> None:
    env = {
        "HOME": str(tmp_path),
        "MYTTY_AGENT_HOOK_BIN": "/opt/mytty-agent-hook",
        "CODEX_HOME": str(tmp_path / ".codex"),
    }
    timeouts = HookTimeouts(env)
    assert timeouts.timeout("claude-code") == FALLBACK_TIMEOUT_S  # nothing installed
    settings = tmp_path / ".claude" / "settings.json"
    settings.parent.mkdir()
    handler = {
        "type": "command",
        "command": "/opt/mytty-agent-hook",
        "args": ["claude-code"],
        "timeout": 630,
    }
    settings.write_text(json.dumps({"hooks": {"PermissionRequest": [{"hooks": [handler]}]}}))
    assert timeouts.timeout("claude-code") == 630.0
    del handler["timeout"]
    settings.write_text(json.dumps({"hooks": {"PermissionRequest": [{"hooks": [handler]}]}}))
    assert timeouts.timeout("claude-code") == 600.0  # Claude's own default
    settings.write_text("{broken")
    assert timeouts.timeout("claude-code") == FALLBACK_TIMEOUT_S


# -- --always's edit ---------------------------------------------------------------------------


RULE = Rule("always 1234", "allow", provider="codex", tool="Bash", command='touch "[*]"\t\x7f')


def test_the_rule_is_appended_after_everything_the_user_wrote() -> None:
    out = with_rule(DEFAULT_TEXT, RULE, Path("c"))
    edits = SequenceMatcher(None, DEFAULT_TEXT.splitlines(), out.splitlines()).get_opcodes()
    assert {op for op, *_ in edits} == {"equal", "insert"}  # every line and comment kept
    (table,) = tomllib.loads(out)["approvals"]["rule"]
    assert table == {
        "name": "always 1234",
        "action": "allow",
        "provider": "codex",
        "tool": "Bash",
        "command": 'touch "[*]"\t\x7f',
    }
    twice = with_rule(out, RULE, Path("c"))
    assert len(tomllib.loads(twice)["approvals"]["rule"]) == 2


def test_a_file_that_is_not_toml_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("[approvals\n")
    with pytest.raises(MyttyError) as caught:
        append_rule(path, RULE)
    assert caught.value.code.value == "invalid-configuration"
    assert path.read_text() == "[approvals\n"
    path.write_text("[approvals]\nrule = 3\n")
    with pytest.raises(MyttyError):
        append_rule(path, RULE)


def test_the_new_file_is_private(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("# mine\n")
    os.chmod(path, 0o644)
    append_rule(path, RULE)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert path.read_text().startswith("# mine\n")
    assert [f.name for f in tmp_path.iterdir()] == ["config.toml"]  # no temporary file left
