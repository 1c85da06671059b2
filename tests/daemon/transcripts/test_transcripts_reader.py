"""TranscriptReader: finding the agent's transcript from its environment, reading it a little at
a time, and the Claude interrupt event — on the real-format fixtures of tests/core."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from mytty.core.estimation.turn_observation import TurnObservation, TurnPhase, TurnTarget
from mytty.core.events import AgentEvent, AgentEventKind, AgentProvider
from mytty.core.ids import stable_uuid
from mytty.core.transcripts.usage import TokenUsage
from mytty.daemon.transcripts import reader as transcripts
from mytty.daemon.transcripts.reader import TranscriptReader, claude_slug

FIXTURES = Path(__file__).parents[2] / "core" / "transcripts" / "fixtures" / "transcripts"
SURFACE = "6F1C2E0A-0B1D-4C55-9B7E-0D1D2A3B4C5D"
PID = 4242


class World:
    """A temp HOME and a fake /proc holding one agent process."""

    def __init__(self, root: Path) -> None:
        self.home = root / "home"
        self.proc = root / "proc"
        self.cwd = str(root / "home" / "work_dir.x")
        (self.proc / str(PID) / "fd").mkdir(parents=True)
        (self.proc / str(PID) / "task" / str(PID)).mkdir(parents=True)
        (self.proc / str(PID) / "task" / str(PID) / "children").write_text("")
        self.environ(HOME=str(self.home))
        self.events: list[AgentEvent] = []
        self.reader = TranscriptReader(
            emit=self.events.append, clock=lambda: 1000.0, proc_root=str(self.proc)
        )

    def environ(self, **env: str) -> None:
        raw = b"".join(f"{k}={v}".encode() + b"\0" for k, v in env.items())
        (self.proc / str(PID) / "environ").write_bytes(raw)

    def claude_file(self, session: str) -> Path:
        path = self.home / ".claude" / "projects" / claude_slug(self.cwd) / f"{session}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        return path

    def target(
        self, provider: AgentProvider = AgentProvider.CLAUDE_CODE, session: str | None = None
    ) -> TurnTarget:
        return TurnTarget(SURFACE, provider, PID, self.cwd, session)

    def observe(self, **kw: object) -> TurnObservation | None:
        return self.reader.observe(self.target(**kw))  # type: ignore[arg-type]


@pytest.fixture
def world(tmp_path: Path) -> World:
    return World(tmp_path)


def fixture_lines(name: str) -> list[bytes]:
    return (FIXTURES / name).read_bytes().splitlines(keepends=True)


def append(path: Path, data: bytes) -> None:
    with open(path, "ab") as f:
        f.write(data)


def first_prompt(name: str) -> str:
    for line in fixture_lines(name):
        row = json.loads(line)
        if row.get("type") == "user" and row.get("promptId"):
            return str(row["promptId"])
    raise AssertionError("no prompt")


def test_claude_by_session_reads_only_what_was_appended(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    name = "claude_tool_turn_then_prompt.jsonl"
    path = world.claude_file("sess-1")
    data = fixture_lines(name)
    cut = next(i for i, line in enumerate(data) if b'"stop_reason":"end_turn"' in line)
    append(path, b"".join(data[:cut]))
    prompt = first_prompt(name)
    assert world.observe(session="sess-1") == TurnObservation(prompt, TurnPhase.ACTIVE)

    reads: list[int] = []
    real_split = transcripts._Tail._split

    def counting(self: transcripts._Tail, chunk: bytes) -> list[bytes]:
        reads.append(len(chunk))
        return real_split(self, chunk)

    monkeypatch.setattr(transcripts._Tail, "_split", counting)
    assert world.observe(session="sess-1") == TurnObservation(prompt, TurnPhase.ACTIVE)
    assert reads == []  # nothing new: nothing read
    rest = b"".join(data[cut : cut + 3])
    append(path, rest[:10])  # a torn write: half a line
    assert world.observe(session="sess-1") == TurnObservation(prompt, TurnPhase.ACTIVE)
    append(path, rest[10:])
    done = world.observe(session="sess-1")
    assert done is not None and (done.key, done.phase) == (prompt, TurnPhase.COMPLETED)
    assert done.answer  # the end_turn row's text came with it
    assert reads == [10, len(rest) - 10]  # each byte read once
    usage = world.reader.usage(SURFACE)
    assert usage is not None and usage.tokens == TokenUsage(input=20, output=10)
    assert usage.model == "claude-opus-5-5"


def test_first_read_tails_the_last_512_kib(world: World) -> None:
    path = world.claude_file("sess-big")
    name = "claude_tool_turn_then_prompt.jsonl"
    filler = json.dumps({"type": "file-history-snapshot", "pad": "x" * 1000}).encode() + b"\n"
    early = {"type": "user", "promptId": "early-prompt", "message": {"content": "old work"}}
    append(path, json.dumps(early).encode() + b"\n")
    append(path, filler * 700)  # ~700 KB: the early prompt is beyond the tail
    assert world.observe(session="sess-big") is None
    append(path, b"".join(fixture_lines(name)))
    assert world.observe(session="sess-big") == TurnObservation(_prompts(name)[1], TurnPhase.ACTIVE)


def _prompts(name: str) -> list[str]:
    seen: list[str] = []
    for line in fixture_lines(name):
        row = json.loads(line)
        if row.get("type") == "user" and row.get("promptId") and row["promptId"] not in seen:
            seen.append(row["promptId"])
    return seen


def test_a_replaced_file_is_read_again_from_its_start(world: World) -> None:
    path = world.claude_file("sess-r")
    name = "claude_esc_at_permission_dialog.jsonl"
    append(path, b"".join(fixture_lines("claude_tool_turn_then_prompt.jsonl")))
    assert world.observe(session="sess-r") is not None
    replacement = path.with_suffix(".tmp")
    replacement.write_bytes(b"".join(fixture_lines(name)))
    os.replace(replacement, path)
    assert world.observe(session="sess-r") == TurnObservation(first_prompt(name), TurnPhase.ACTIVE)


def test_claude_esc_note_appends_one_idle_event_on_the_hooks_run(world: World) -> None:
    name = "claude_esc_at_permission_dialog.jsonl"
    path = world.claude_file("sess-esc")
    data = fixture_lines(name)
    note_at = next(i for i, line in enumerate(data) if b'"rowSource":"harness"' in line)
    append(path, b"".join(data[:note_at]))
    world.observe(session="sess-esc")
    assert world.events == []
    append(path, b"".join(data[note_at:]))
    world.observe(session="sess-esc")
    world.observe(session="sess-esc")
    prompt = first_prompt(name)
    note = json.loads(data[note_at])
    assert len(world.events) == 1, world.events
    (event,) = world.events
    assert event.kind is AgentEventKind.IDLE and event.surface_id == SURFACE
    assert event.run_id == stable_uuid("run", "claude-code", prompt)
    assert event.id == stable_uuid("event", "claude-code", "interrupted", prompt, note["uuid"])
    assert event.session_id == note["sessionId"] and event.occurred_at == 1000.0


def test_claude_without_a_session_uses_the_live_registry_then_the_newest_file(
    world: World,
) -> None:
    older = world.claude_file("sess-old")
    append(older, b"".join(fixture_lines("claude_tool_turn_then_prompt.jsonl")))
    newer = world.claude_file("sess-new")
    append(newer, b"".join(fixture_lines("claude_esc_at_permission_dialog.jsonl")))
    os.utime(older, (1, 1))
    assert world.observe() == TurnObservation(
        first_prompt("claude_esc_at_permission_dialog.jsonl"), TurnPhase.ACTIVE
    )
    world.reader.forget(SURFACE)
    registry = world.home / ".claude" / "sessions" / f"{PID}.json"
    registry.parent.mkdir(parents=True)
    registry.write_text(json.dumps({"pid": PID, "sessionId": "sess-old", "status": "busy"}))
    assert world.observe() == TurnObservation(
        _prompts("claude_tool_turn_then_prompt.jsonl")[1], TurnPhase.ACTIVE
    )


def test_claude_config_dir_of_the_agent_wins(world: World, tmp_path: Path) -> None:
    config = tmp_path / "elsewhere"
    world.environ(HOME=str(world.home), CLAUDE_CONFIG_DIR=str(config))
    path = config / "projects" / claude_slug(world.cwd) / "s.jsonl"
    path.parent.mkdir(parents=True)
    path.write_bytes(b"".join(fixture_lines("claude_esc_at_permission_dialog.jsonl")))
    assert world.observe(session="s") is not None


def test_codex_rollout_the_process_holds_open(world: World) -> None:
    name = "codex_turn_then_esc.jsonl"
    codex_home = world.home / ".codex"
    folder = codex_home / "sessions" / "2026" / "12" / "01"
    folder.mkdir(parents=True)
    rollout = folder / "rollout-2026-12-01T12-19-14-01a2318b-7b16-7122-928b-44fbd98f7aa0.jsonl"
    rollout.write_bytes(b"".join(fixture_lines(name)))
    other = folder / "rollout-2026-12-01T12-00-00-someone-else.jsonl"
    other.write_bytes(b"")
    (world.proc / str(PID) / "fd" / "7").symlink_to(rollout)
    world.environ(HOME=str(world.home), CODEX_HOME=str(codex_home))
    obs = world.observe(provider=AgentProvider.CODEX)
    assert obs is not None and obs.phase is TurnPhase.INTERRUPTED
    usage = world.reader.usage(SURFACE)
    assert usage is not None and usage.tokens.total == 15 and usage.model == "gpt-mock"


def test_codex_rollout_by_session_id_when_a_shared_server_holds_it(world: World) -> None:
    folder = world.home / ".codex" / "sessions" / "2026" / "12" / "01"
    folder.mkdir(parents=True)
    rollout = folder / "rollout-2026-12-01T12-19-14-sid-9.jsonl"
    rollout.write_bytes(b"".join(fixture_lines("codex_turn_then_esc.jsonl")))
    assert world.observe(provider=AgentProvider.CODEX) is None  # no open file, no session
    obs = world.observe(provider=AgentProvider.CODEX, session="sid-9")
    assert obs is not None and obs.phase is TurnPhase.INTERRUPTED


def test_a_new_session_in_the_pane_adds_to_its_usage(world: World) -> None:
    first = world.claude_file("a")
    append(first, b"".join(fixture_lines("claude_tool_turn_then_prompt.jsonl")))
    world.observe(session="a")
    second = world.claude_file("b")
    append(second, b"".join(fixture_lines("claude_tool_error_turn.jsonl")))
    world.observe(session="b")
    world.observe(session="a")  # back to the first: not counted twice
    usage = world.reader.usage(SURFACE)
    assert usage is not None and usage.tokens == TokenUsage(input=40, output=20)


def test_missing_files_and_other_providers_read_as_nothing(world: World) -> None:
    assert world.observe(session="nope") is None
    assert world.observe(provider=AgentProvider.CURSOR) is None
    assert world.observe(provider=AgentProvider.OPENCODE) is None
    assert world.reader.usage("unknown") is None


def test_a_guessed_file_is_dropped_once_the_real_one_is_known(world: World) -> None:
    """Two Claudes in one directory: the newest-file guess read the other one's transcript."""
    other = world.claude_file("someone-else")
    append(other, b"".join(fixture_lines("claude_tool_turn_then_prompt.jsonl")))
    assert world.observe() is not None  # guessed: the only file there
    mine = world.claude_file("mine")
    append(mine, b"".join(fixture_lines("claude_esc_at_permission_dialog.jsonl")))
    world.observe(session="mine")
    usage = world.reader.usage(SURFACE)
    assert usage is not None and usage.tokens == TokenUsage(input=10, output=5), usage


def test_the_session_hint_finds_the_file_without_a_guess(tmp_path: Path) -> None:
    world = World(tmp_path)
    world.reader = TranscriptReader(
        emit=world.events.append,
        proc_root=str(world.proc),
        session_hint=lambda surface: "mine" if surface == SURFACE else None,
    )
    newer = world.claude_file("someone-else")
    mine = world.claude_file("mine")
    append(mine, b"".join(fixture_lines("claude_esc_at_permission_dialog.jsonl")))
    append(newer, b"".join(fixture_lines("claude_tool_turn_then_prompt.jsonl")))
    os.utime(mine, (1, 1))
    assert world.observe() == TurnObservation(
        first_prompt("claude_esc_at_permission_dialog.jsonl"), TurnPhase.ACTIVE
    )


def test_cursor_store_of_the_cwd_is_queried_at_most_every_5_s(world: World) -> None:
    import hashlib
    import sqlite3

    from tests.core.transcripts.test_transcript_cursor import ANSWER, CALL, ROOT, USER

    conversation = "f1ff7b74-0a28-4dd4-a452-e01ae080eb20"
    workspace = hashlib.md5(world.cwd.encode()).hexdigest()
    store = world.home / ".cursor" / "chats" / workspace / conversation / "store.db"
    store.parent.mkdir(parents=True)
    conn = sqlite3.connect(store)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("CREATE TABLE blobs (id TEXT PRIMARY KEY, data BLOB)")
    conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
    for n, data in enumerate((USER, ROOT, CALL)):
        conn.execute("INSERT INTO blobs VALUES (?, ?)", (f"id{n}", data))
    conn.commit()
    active = TurnObservation(f"{conversation}#1", TurnPhase.ACTIVE)
    assert world.observe(provider=AgentProvider.CURSOR) == active
    conn.execute("INSERT INTO blobs VALUES ('id9', ?)", (ANSWER,))
    conn.commit()
    assert world.observe(provider=AgentProvider.CURSOR) == active  # cached
    world.reader._cursor_cache.clear()  # 5 s later
    assert world.observe(provider=AgentProvider.CURSOR, session=conversation) == TurnObservation(
        f"{conversation}#1", TurnPhase.COMPLETED
    )
    conn.close()
