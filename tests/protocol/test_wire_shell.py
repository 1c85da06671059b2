"""The ``shell`` object mytty adds to ``list`` entries (not in the seed's shape)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from mytty.core.shell.events import ShellState, parse_line
from mytty.protocol import wire
from tests.protocol.test_wire import PANE, row


def test_a_pane_without_reports_has_no_shell_key_and_one_with_them_has_all_of_it() -> None:
    assert "shell" not in wire.pane_entry(PANE, row(), "bash", None, None)
    state = ShellState()
    event = parse_line(f"D 42 1764581234.5 {'AB' * 32} /tmp/a%20b".encode())
    assert event is not None
    state.apply(event, 1764581234.75)
    entry = wire.pane_entry(PANE, row(), "bash", None, None, state)
    assert list(entry)[-1] == "shell"
    assert entry["shell"] == {
        "lastExitStatus": 42,
        "lastExitAt": "2025-12-01T09:27:14.500Z",
        "cwd": "/tmp/a b",
        "commandCount": 1,
        "reportedAt": "2025-12-01T09:27:14.750Z",
    }
    prompt_only = ShellState(cwd="/", reported_at=1764581234.0)
    assert wire.shell_info(prompt_only)["lastExitStatus"] is None
    assert wire.shell_info(prompt_only)["lastExitAt"] is None


@given(st.binary(max_size=300))
def test_any_bytes_parse_to_an_event_or_nothing(data: bytes) -> None:
    event = parse_line(data)
    assert event is None or (event.cwd.startswith("/") and len(event.capability) == 64)
