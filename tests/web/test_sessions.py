"""Pairing codes, sessions, CSRF tokens and their private state file, with time as an input."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from mytty.web import sessions as s
from mytty.web.state import StateFile, WebState
from tests.web.conftest import START, Clock


def redeem(state: WebState, code: str, now: float = START) -> tuple[WebState, s.Paired | None]:
    return s.redeem(state, code, now, client="c", token="t" * 43, session_id="web-00000001")


def test_a_code_is_good_once_and_for_ten_minutes() -> None:
    state = s.add_code(WebState(), "code-1", START)
    state, paired = redeem(state, "code-1")
    assert paired is not None and paired.token == "t" * 43
    assert s.find(state, "t" * 43, START) == paired.record
    _, again = redeem(state, "code-1")
    assert again is None
    state = s.add_code(WebState(), "code-2", START)
    assert redeem(state, "code-2", START + s.CODE_TTL_S - 0.5)[1] is not None
    assert redeem(state, "code-2", START + s.CODE_TTL_S)[1] is None


def test_a_session_ends_after_its_lifetime_and_wrong_tokens_find_nothing() -> None:
    state, paired = redeem(s.add_code(WebState(), "c", START), "c")
    assert paired is not None
    assert s.find(state, "t" * 43, START + s.SESSION_TTL_S - 1) is not None
    assert s.find(state, "t" * 43, START + s.SESSION_TTL_S) is None
    assert s.find(state, "u" * 43, START) is None
    assert s.find(state, "", START) is None
    assert s.find(state, "t" * 43 + "<", START) is None  # not even hashed


def test_codes_are_capped_and_pruned() -> None:
    state = WebState()
    for n in range(s.MAX_CODES + 5):
        state = s.add_code(state, f"code-{n}", START)
    assert len(state.codes) == s.MAX_CODES
    assert redeem(state, "code-0")[1] is None  # the oldest went first
    assert s.prune(state, START + s.CODE_TTL_S).codes == ()


def test_the_csrf_token_belongs_to_one_session() -> None:
    one, other = s.new_token(), s.new_token()
    assert s.csrf_ok(one, s.csrf_token(one))
    assert not s.csrf_ok(one, s.csrf_token(other))
    assert not s.csrf_ok(one, None) and not s.csrf_ok(one, "")
    assert s.csrf_token(one) not in one and one not in s.csrf_token(one)


def test_the_state_file_is_private_whatever_the_umask(tmp_path: Path) -> None:
    old = os.umask(0)
    try:
        sessions = s.Sessions(StateFile(tmp_path / "web"), Clock())
        code = sessions.issue_code()
        assert sessions.redeem(code, "here") is not None
    finally:
        os.umask(old)
    directory = tmp_path / "web"
    assert stat.S_IMODE(directory.stat().st_mode) == 0o700
    for name in ("state.json", "state.lock"):
        assert stat.S_IMODE((directory / name).stat().st_mode) == 0o600, name
    text = (directory / "state.json").read_text()
    assert code not in text  # only its digest was ever stored


@pytest.mark.parametrize(
    "content", ["", "{", "[]", '{"version": 99}', '{"version": 1, "sessions": [{"id": 1}]}']
)
def test_a_damaged_state_file_reads_as_no_sessions(tmp_path: Path, content: str) -> None:
    file = StateFile(tmp_path)
    file.path.write_text(content)
    assert file.read() == WebState()


def test_another_process_sees_a_change_at_once(tmp_path: Path) -> None:
    clock = Clock()
    server = s.Sessions(StateFile(tmp_path), clock)
    code = server.issue_code()
    paired = server.redeem(code, "phone")
    assert paired is not None
    assert server.find(paired.token) == paired.record
    other = s.Sessions(StateFile(tmp_path), clock)
    assert other.revoke_all() == 1
    assert server.find(paired.token) is None
    data = json.loads((tmp_path / "state.json").read_text())
    assert data["sessions"] == [] and data["codes"] == []
