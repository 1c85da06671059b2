"""The turns of parallel workers: an ``alone`` holder excludes everyone, shared ones coexist."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import time
from pathlib import Path

from tests.support.harness import wait_until
from tests.support.parallel import WORKERS_PER_CPU, worker_count

# Prints the (system-wide) monotonic time it got its turn, holds it until told to let go.
HOLDER = r"""
import sys, time
from pathlib import Path
from tests.support.parallel import Turns
turns = Turns(Path(sys.argv[1]))
with turns.exclusive() if sys.argv[2] == "alone" else turns.shared():
    print(time.monotonic(), flush=True)
    sys.stdin.readline()
"""


class Holder:
    def __init__(self, directory: Path, kind: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", HOLDER, str(directory), kind],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=Path(__file__).resolve().parents[2],
        )

    def turn(self) -> float:
        """When it got its turn (blocks until it has)."""
        assert self.proc.stdout is not None
        return float(self.proc.stdout.readline())

    def release(self) -> float:
        released = time.monotonic()
        assert self.proc.stdin is not None
        self.proc.stdin.write("\n")
        self.proc.stdin.flush()
        assert self.proc.wait(10) == 0
        return released


def blocked(proc: subprocess.Popen[str]) -> bool:
    """Is ``proc`` waiting for a flock (``->`` lines of /proc/locks are the waiters)?"""
    for line in Path("/proc/locks").read_text().splitlines():
        fields = line.split()
        if fields[1:3] == ["->", "FLOCK"] and int(fields[5]) == proc.pid:
            return True
    return False


def locked(path: Path, mode: int) -> bool:
    """Would ``mode`` on ``path`` block now?"""
    with open(path, "a+b") as f:
        try:
            fcntl.flock(f, mode | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        fcntl.flock(f, fcntl.LOCK_UN)
        return False


def test_an_alone_turn_waits_for_the_running_ones_and_holds_back_the_new_ones(
    tmp_path: Path,
) -> None:
    first, second = Holder(tmp_path, "shared"), Holder(tmp_path, "shared")
    holders = [first, second]
    try:
        first.turn(), second.turn()  # both at once
        alone = Holder(tmp_path, "alone")
        holders.append(alone)
        wait_until(lambda: blocked(alone.proc), 10, message="the alone one to queue")
        late = Holder(tmp_path, "shared")  # arrives while the alone one waits
        holders.append(late)
        wait_until(lambda: blocked(late.proc), 10, message="the late one to queue")
        first.release()
        last_shared_end = second.release()
        assert alone.turn() > last_shared_end
        assert locked(tmp_path / "hold", fcntl.LOCK_SH)
        alone_end = alone.release()
        assert late.turn() > alone_end
        late.release()
    finally:
        for h in holders:
            h.proc.kill()
            h.proc.wait()


def test_worker_count_follows_the_environment_or_the_cores() -> None:
    assert worker_count({"PYTEST_XDIST_AUTO_NUM_WORKERS": "5"}) == 5
    assert worker_count({"PYTEST_XDIST_AUTO_NUM_WORKERS": "0"}) == 0
    assert worker_count({}) == WORKERS_PER_CPU * len(os.sched_getaffinity(0))


FAKE_NPM = """#!/bin/sh
# npm ci, slowly: records that it ran, then makes the two binaries answer the pinned versions.
echo ran >> "$NPM_LOG"
sleep 1
mkdir -p node_modules/.bin
printf '#!/bin/sh\\necho "{claude} (Claude Code)"\\n' > node_modules/.bin/claude
printf '#!/bin/sh\\necho "codex-cli {codex}"\\n' > node_modules/.bin/codex
chmod +x node_modules/.bin/claude node_modules/.bin/codex
"""


def test_workers_asking_for_the_agent_clis_at_once_install_them_once(tmp_path: Path) -> None:
    from tests.realagents.install import CLAUDE_VERSION, CODEX_VERSION

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    npm = bin_dir / "npm"
    npm.write_text(FAKE_NPM.format(claude=CLAUDE_VERSION, codex=CODEX_VERSION))
    npm.chmod(0o755)
    log = tmp_path / "npm.log"
    env = {
        **os.environ,
        "PATH": f"{bin_dir}:{os.environ['PATH']}",
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "NPM_LOG": str(log),
    }
    ask = "from tests.realagents.install import install; print(sorted(install().versions))"
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", ask],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=Path(__file__).resolve().parents[2],
        )
        for _ in range(3)
    ]
    for w in workers:
        out, err = w.communicate(timeout=60)
        assert (w.returncode, out) == (0, "['claude', 'codex']\n"), err
    assert log.read_text() == "ran\n"


def test_collect_only_with_workers_asked_for_collects_in_one_process() -> None:
    """.ci/run's setup step (--collect-only through scripts/test's -n auto): xdist then runs
    nothing on workers, and the controller collects every folder's conftest once (registering
    the summary conftests there too made collecting them an error)."""
    argv = ["-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "2", "--collect-only", "tests"]
    done = subprocess.run(
        [sys.executable, *argv],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert " collected in " in done.stdout.splitlines()[-1], done.stdout[-500:]
