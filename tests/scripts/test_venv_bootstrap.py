"""scripts/_venv.sh: what `scripts/up` and `scripts/test` do with whatever is at the venv path.

A fresh clone once carried a committed ``.venv`` symlink pointing at itself; the bootstrap then
failed with "File exists" before a single test ran. These run the real function in bash with the
suite's own Python.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.support.harness import TESTS_DIR

VENV_SH = TESTS_DIR.parent / "scripts" / "_venv.sh"


def make_venv(path: Path) -> subprocess.CompletedProcess[str]:
    script = 'set -euo pipefail; . "$1"; make_venv "$2" "$3"; echo made'
    return subprocess.run(
        ["bash", "-c", script, "bash", str(VENV_SH), sys.executable, str(path)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def works(venv: Path) -> bool:
    ran = subprocess.run(
        [str(venv / "bin" / "python"), "-c", "import sys; print(sys.prefix)"],
        capture_output=True,
        text=True,
        check=False,
    )
    return ran.returncode == 0 and Path(ran.stdout.strip()) == venv


def test_a_working_venv_is_left_alone_and_nothing_is_said(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    marker = venv / "mine"
    marker.write_text("keep")
    ran = make_venv(venv)
    assert (ran.returncode, ran.stdout, ran.stderr) == (0, "made\n", "")
    assert marker.read_text() == "keep"


def test_a_symlink_to_itself_is_replaced_by_a_working_venv(tmp_path: Path) -> None:
    venv = tmp_path / ".venv"
    venv.symlink_to(venv)
    ran = make_venv(venv)
    assert ran.returncode == 0, ran.stderr
    assert (
        ran.stderr.splitlines()[0] == f"mytty: {venv} is a broken symlink (-> {venv}); replacing it"
    )
    assert not venv.is_symlink() and works(venv)


def test_a_dangling_symlink_is_replaced(tmp_path: Path) -> None:
    venv = tmp_path / ".venv"
    venv.symlink_to(tmp_path / "gone" / ".venv")
    ran = make_venv(venv)
    assert ran.returncode == 0, ran.stderr
    assert "is a broken symlink" in ran.stderr
    assert not venv.is_symlink() and works(venv)


def test_a_venv_whose_python_is_gone_is_recreated(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    for name in ("python", "python3"):
        (venv / "bin" / name).unlink(missing_ok=True)
    ran = make_venv(venv)
    assert ran.returncode == 0, ran.stderr
    assert ran.stderr.splitlines()[0] == f"mytty: {venv} has no working Python; recreating it"
    assert works(venv)


def test_something_else_in_the_way_is_refused_and_kept(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    venv.mkdir()
    (venv / "notes.txt").write_text("the user's")
    ran = make_venv(venv)
    assert ran.returncode == 1 and "made" not in ran.stdout
    assert ran.stderr.splitlines() == [
        f"mytty: {venv} exists but is not a Python virtual environment; move it away or set MYTTY_VENV"
    ]
    assert os.listdir(venv) == ["notes.txt"] and (venv / "notes.txt").read_text() == "the user's"


def test_a_venv_that_cannot_be_made_says_why_and_leaves_nothing_half_made(tmp_path: Path) -> None:
    parent = tmp_path / "made-here"
    parent.mkdir()
    venv = parent / "venv"
    fake = tmp_path / "python"
    # An interpreter whose venv module fails for a reason other than a missing ensurepip.
    fake.write_text('#!/bin/sh\nmkdir -p "$3/bin"; echo "disk quota exceeded" >&2; exit 1\n')
    fake.chmod(0o755)
    ran = subprocess.run(
        [
            "bash",
            "-c",
            'set -euo pipefail; . "$1"; make_venv "$2" "$3"',
            "bash",
            str(VENV_SH),
            str(fake),
            str(venv),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert ran.returncode == 1
    assert (
        ran.stderr.splitlines()[-1] == f"mytty: '{fake} -m venv {venv}' failed: disk quota exceeded"
    )
    assert not venv.exists()
