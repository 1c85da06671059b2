"""Hook events sent while no controller runs are kept and taken by the next one (the event spool).

Real tmux, a real controller killed with ``kill -9`` while its workers' turns end, stand-in
agents firing the installed hooks. Cursor and Claude: Cursor has no transcript that could tell
the next controller the turn ended, so only the spooled ``stop`` can; Claude's Stop carries
the answer ``agent result`` hands out.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator

import pytest

from tests.e2e.jobs_support import (
    agent_result,
    agent_wait,
    completed,
    job_id,
    new_anchor,
    pane_of,
    running_team,
    spawn,
)
from tests.support.harness import Mytty, wait_until

pytestmark = pytest.mark.tmux


@pytest.fixture(scope="module")
def m() -> Iterator[Mytty]:
    yield from running_team(providers=("claude", "cursor"))


def _spool(m: Mytty) -> str:
    return str(m.mytty_home / "event-spool")


@pytest.mark.parametrize("provider", ["cursor", "claude"])
def test_a_turn_that_ends_while_the_controller_is_down_ends_its_job(
    m: Mytty, provider: str
) -> None:
    job = spawn(
        m, "--provider", provider, "--task", "slow\n@standin: sleep 3", "--anchor", new_anchor(m)
    )
    assert agent_wait(m, job, "running", 30)["job"]["state"] == "running"
    target = m.tmux_id(pane_of(job))
    m.kill9()

    # The turn ends with no controller: its hook finds none and spools the event. (The pane
    # is read from tmux itself: no controller answers `read` now.)
    def ended() -> bool:
        return "STANDIN turn 1 done" in m.tmux("capture-pane", "-p", "-t", target)

    wait_until(ended, 20, message="the turn's end on the worker's screen")

    def spooled() -> list[str] | None:
        names = [n for n in os.listdir(_spool(m)) if n.endswith(".event")]
        return names or None

    names = wait_until(spooled, 10, message="a spooled event")
    st = os.stat(os.path.join(_spool(m), names[0]))
    assert stat.S_IMODE(st.st_mode) == 0o600
    assert stat.S_IMODE(os.stat(_spool(m)).st_mode) == 0o700
    m.start()
    done = completed(m, job)
    assert done["state"] == "succeeded", done
    expected = None if provider == "cursor" else "Stand-in finished turn 1."
    assert agent_result(m, job)["lastAssistantMessage"] == expected
    assert not [n for n in os.listdir(_spool(m)) if n.endswith(".event")]  # taken, then removed
    # The same job goes on as usual with the next controller.
    assert m.ctl("agent", "send", job_id(job), "again", "--enter").json == {"type": "ok"}
    assert completed(m, job)["state"] == "succeeded"


def test_a_spooled_event_of_another_pane_or_forged_is_refused_and_removed(m: Mytty) -> None:
    os.makedirs(_spool(m), mode=0o700, exist_ok=True)

    def land(name: str, body: bytes) -> str:
        # As the hook does: written under a dot name, renamed into place.
        partial = os.path.join(_spool(m), f".{name}.part")
        with open(partial, "wb") as f:
            f.write(body)
        final = os.path.join(_spool(m), name)
        os.rename(partial, final)
        return final

    forged = land("00000000000000000001-1.event", b'{"schemaVersion":1,"capability":"x"}\n')
    junk = land("00000000000000000002-1.event", b"\x00\xff not json at all #(touch PWNED)\n")
    # The running controller takes late files as they land (inotify): both go, nothing breaks.
    wait_until(
        lambda: (not os.path.exists(forged) and not os.path.exists(junk)) or None,
        10,
        message="the forged files removed",
    )
    assert m.ctl("list").json["type"] == "list"  # the controller serves on
    assert not (m.home / "PWNED").exists()
    log = m.log()
    assert "00000000000000000001-1.event refused" in log
    assert "00000000000000000002-1.event refused" in log
