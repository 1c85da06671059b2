"""Claims a trial found untrue stay out of the docs, the guide and the help (issue 26, item 13).

Each phrase below was true once and stopped being so: native estimation exists, jobs are
stored across a stop, and a running controller keeps its settings when config.toml breaks and
reads the file again when it is saved. ``mytty doctor`` says the same as the controller's log.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.support.harness import MYTTY, Mytty, wait_until

ROOT = Path(__file__).resolve().parent.parent

#: (a stale claim, what is true instead); matched case-insensitively, whitespace normalised.
STALE = (
    (
        "is not in this version",
        "native run estimation exists (docs/explanation/native-estimation.md)",
    ),
    ("job ids are forgotten", "jobs are stored: their ids answer after a restart"),
    ("ends `launch-failed` after 30 s", "an un-hooked worker's runs are estimated natively"),
    ("without hooks a job can only", "an un-hooked worker's runs are estimated natively"),
    ("then mytty stop; mytty up", "a running controller reads config.toml again when it is saved"),
)


def _texts() -> dict[str, str]:
    from mytty.control import registry
    from mytty.control.manual import guide_text, help_text, usage_text

    texts = {str(p.relative_to(ROOT)): p.read_text() for p in (ROOT / "docs").rglob("*.md")}
    texts = {k: v for k, v in texts.items() if not k.startswith("docs/dev/")}
    texts["README.md"] = (ROOT / "README.md").read_text()
    texts["mytty-ctl guide"] = guide_text()
    texts["mytty-ctl --help"] = usage_text()
    for command in registry.declarations():
        if command.name is not None:
            texts[f"mytty-ctl {command.name} --help"] = help_text(command.name)
    texts["mytty/cli/doctor.py"] = (ROOT / "mytty" / "cli" / "doctor.py").read_text()
    return texts


def test_no_known_stale_claim_is_left() -> None:
    found = []
    for where, text in _texts().items():
        flat = " ".join(text.split()).lower()
        for claim, truth in STALE:
            if claim.lower() in flat:
                found.append(f"{where}: {claim!r} (true: {truth})")
    assert found == []


@pytest.mark.tmux
def test_doctor_says_what_the_controller_does_with_a_broken_config(mytty: Mytty) -> None:
    config = mytty.mytty_home / "config.toml"
    config.write_text("[notify]\ncooldown = 5\nchannels = [bell\n")
    logged = wait_until(
        lambda: next((line for line in mytty.log().splitlines() if "not valid TOML" in line), None),
        message="the controller's warning about the broken file",
    )
    done = subprocess.run(
        [MYTTY, "doctor", "--json"], env=mytty.env, capture_output=True, text=True, timeout=60
    )
    found = next(f for f in json.loads(done.stdout)["findings"] if f["area"] == "config")
    assert found["status"] == "fail"
    assert found["detail"] in logged and found["detail"].endswith("keeping the settings in use")
    assert "reads it again when you save" in found["fix"] and "stop" not in found["fix"]

    mytty.stop()
    done = subprocess.run(
        [MYTTY, "doctor", "--json"], env=mytty.env, capture_output=True, text=True, timeout=60
    )
    found = next(f for f in json.loads(done.stdout)["findings"] if f["area"] == "config")
    assert found["detail"].endswith("using every default at the next start")
    assert found["fix"].endswith("then mytty up")
