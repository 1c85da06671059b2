"""`mytty up` on a fresh machine: a welcome in the first pane, once; then `mytty doctor` is green."""

from __future__ import annotations

import json
import subprocess

import pytest

from tests.e2e.test_first_run import default_socket, fresh, run  # noqa: F401 - fixture by name
from tests.support.harness import TMUX, Mytty, wait_until

pytestmark = pytest.mark.tmux


def test_the_first_up_welcomes_once_and_doctor_is_green(fresh: Mytty) -> None:
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


def test_doctor_is_green_inside_the_first_pane(fresh: Mytty) -> None:
    """Where the README leaves a new user: in the mytty session's first pane."""
    m = fresh
    assert run(m, "up", "--no-attach").returncode == 0
    (pane,) = [p["paneID"] for p in m.panes()]
    m.wait_for_text(pane, "Welcome to mytty.")
    out = m.root / "doctor.json"
    m.ctl("send", pane, f"mytty doctor --json > {out}.tmp; mv {out}.tmp {out}", "--enter").ok()
    wait_until(out.exists, 30, message="the doctor's report")
    findings = json.loads(out.read_text())["findings"]
    bad = [f for f in findings if f["status"] in ("warn", "fail")]
    assert bad == []
    ok = {f["area"] for f in findings if f["status"] == "ok"}
    assert {"this pane", "shell integration", "mytty-ctl"} <= ok
