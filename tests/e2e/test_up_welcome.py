"""`mytty up` on a fresh machine: a welcome in the first pane, once; then `mytty doctor` is green."""

from __future__ import annotations

import json
import subprocess

import pytest

from tests.e2e.test_first_run import default_socket, fresh, run  # noqa: F401 - fixture by name
from tests.support.harness import TMUX, Mytty

pytestmark = pytest.mark.tmux


def test_the_first_up_welcomes_once_and_doctor_is_green(fresh: Mytty) -> None:  # noqa: F811
    m = fresh
    up = run(m, "up", "--no-attach")
    assert up.returncode == 0, up.stderr + m.log()
    (pane,) = [p["paneID"] for p in m.panes()]
    screen = m.wait_for_text(pane, "Welcome to mytty.")
    assert "mytty-ctl agent spawn --provider claude" in screen
    assert "prefix A opens the attention popup" in screen  # the default [tmux] popup_key
    assert "C-b d" in screen

    doctor = run(m, "doctor", "--json")
    report = json.loads(doctor.stdout)
    bad = [f for f in report["findings"] if f["status"] in ("warn", "fail")]
    assert doctor.returncode == 0 and bad == [], bad

    # The session is made again (it was closed): no second welcome for this home.
    sock = str(default_socket(m))
    subprocess.run([TMUX, "-S", sock, "kill-session", "-t", "=mytty"], env=m.env, check=True)
    assert run(m, "up", "--no-attach").returncode == 0
    (pane,) = [p["paneID"] for p in m.panes()]
    m.ctl("send", pane, "echo second-pane-ready", "--enter").ok()
    screen = m.wait_for_text(pane, "second-pane-ready\n")
    assert "Welcome" not in screen
