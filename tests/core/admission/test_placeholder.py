"""A queued worker's pane text: says why it waits, then waits, in every shell."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from mytty.core.admission.placeholder import queued_command


@pytest.mark.parametrize("shell", ["sh", "bash", "zsh", "fish"])
def test_the_pane_says_it_is_queued_and_why(shell: str) -> None:
    path = shutil.which(shell)
    if path is None:
        pytest.skip(f"{shell} is not installed")
    text = queued_command("04AA9DA1-F255", 3, "memory", "1,200 MB available, below 2,048; it's ok")
    # Run only the printf part (the sleep would wait forever).
    head = text.rsplit("; command sleep", 1)[0]
    out = subprocess.run([path, "-c", head], capture_output=True, text=True, timeout=20, check=True)
    lines = out.stdout.splitlines()
    assert lines[0] == "mytty: worker 04AA9DA1 is queued (#3): memory"
    assert lines[1] == "  1,200 MB available, below 2,048; it's ok"
    assert "agent close 04AA9DA1-F255" in lines[3]
    assert text.endswith("; command sleep 2147483647")
