"""A surface id is never issued twice (issue 15 #11, second half).

A same-user process can read a pane's environment, so an old pane's id and capability are
not secret. Before, a new pane that claimed a closed pane's id (through the environment tmux
gave it, or the ``@mytty_surface`` option) was adopted under it, and the old capability
worked again. Each id is now bound to the one tmux pane it was issued for.
"""

from __future__ import annotations

import pytest

from tests.e2e.events_support import K, open_agent_pane, send_event, wait_for_pane_gone
from tests.support.harness import Mytty, wait_until

pytestmark = pytest.mark.tmux


def listed_ids(m: Mytty) -> set[str]:
    return {p["paneID"] for p in m.panes()}


@pytest.mark.parametrize("claim", ["environment", "option"])
def test_a_closed_panes_id_is_not_revived(mytty: Mytty, claim: str) -> None:
    old = open_agent_pane(mytty)
    mytty.ctl("close-pane", old.pane_id).ok()
    wait_for_pane_gone(mytty, old.pane_id)
    before = listed_ids(mytty)

    if claim == "environment":
        mytty.tmux("new-window", "-d", "-t", "base", "-e", f"MYTTY_SURFACE_ID={old.pane_id}")
    else:  # the option is what a restarted controller trusts: claim it while it is down
        mytty.stop()
        tmux_id = mytty.tmux("new-window", "-d", "-t", "base", "-P", "-F", "#{pane_id}").strip()
        mytty.tmux("set-option", "-p", "-t", tmux_id, "@mytty_surface", old.pane_id)
        mytty.start()
    new = wait_until(
        lambda: listed_ids(mytty) - before, timeout=10, message="the new window to be adopted"
    )
    assert old.pane_id not in new, "a closed pane's id was issued again"
    assert old.pane_id not in listed_ids(mytty)
    reply = send_event(mytty, old.event(K.STARTED), old.capability)
    assert reply == {"ok": False, "error": "unauthorized"}


def test_a_live_pane_keeps_its_id_across_a_controller_restart(mytty: Mytty) -> None:
    pane = open_agent_pane(mytty)
    mytty.stop()
    mytty.start()
    assert pane.pane_id in listed_ids(mytty)
    assert send_event(mytty, pane.event(K.STARTED), pane.capability)["ok"] is True


def test_a_pane_claiming_a_live_panes_id_after_a_restart_gets_its_own(mytty: Mytty) -> None:
    pane = open_agent_pane(mytty)
    mytty.stop()
    # While the controller is down, a pane of the "base" session (listed before the "mytty"
    # session's) claims the same id.
    claimant = mytty.tmux("new-window", "-d", "-t", "base", "-P", "-F", "#{pane_id}").strip()
    mytty.tmux("set-option", "-p", "-t", claimant, "@mytty_surface", pane.pane_id)
    mytty.start()

    def claimant_relabelled() -> bool:
        option = mytty.tmux("show-options", "-pv", "-t", claimant, "@mytty_surface").strip()
        return bool(option) and option != pane.pane_id

    wait_until(claimant_relabelled, timeout=10, message="the claimant to get its own id")
    assert pane.pane_id in listed_ids(mytty)
    assert send_event(mytty, pane.event(K.STARTED), pane.capability)["ok"] is True
