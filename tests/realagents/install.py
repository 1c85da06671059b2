"""Install the pinned agent CLIs once, into a cache outside the repository.

``package.json`` and ``package-lock.json`` beside this file pin ``@anthropic-ai/claude-code`` and
``@openai/codex``; ``npm ci`` installs exactly the lockfile into
``${XDG_CACHE_HOME:-~/.cache}/mytty-realagents/<hash of the two files>``, so a changed pin gets a
fresh directory and an unchanged one is reused across sessions. A marker file is written only
after both binaries answered ``--version`` with the pinned versions.

Each pytest-xdist worker asks once (``agent_clis`` is per session, and a worker is a session);
an exclusive flock on the cache directory makes the first one install while the others wait,
then find the marker. The mock APIs and the proxy bind free ports, so workers never share one.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
LOCKFILES = ("package.json", "package-lock.json")
CLAUDE_VERSION = "2.1.332"
CODEX_VERSION = "0.171.0"
# Below pytest-timeout's 300 s per test (the first test's setup pays for the install), so a
# stuck registry is a skip with the reason, not a timeout failure.
INSTALL_TIMEOUT = 240.0


@dataclass(frozen=True)
class AgentCLIs:
    """Where the installed pinned binaries are (``node_modules/.bin`` entries)."""

    claude: Path
    codex: Path
    versions: dict[str, str]


class InstallUnavailable(Exception):
    """The pinned CLIs could not be installed here (no npm, no registry, a wrong version)."""


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    digest = hashlib.sha256()
    for name in LOCKFILES:
        digest.update((HERE / name).read_bytes())
    return Path(base) / "mytty-realagents" / digest.hexdigest()[:16]


def _version(binary: Path) -> str:
    proc = subprocess.run(
        [str(binary), "--version"], capture_output=True, text=True, timeout=60, check=False
    )
    return (proc.stdout or proc.stderr).strip()


def _check(target: Path) -> AgentCLIs:
    bin_dir = target / "node_modules" / ".bin"
    clis = AgentCLIs(bin_dir / "claude", bin_dir / "codex", {})
    for binary, pinned in ((clis.claude, CLAUDE_VERSION), (clis.codex, CODEX_VERSION)):
        if not binary.exists():
            raise InstallUnavailable(f"{binary} is missing after npm ci")
        seen = _version(binary)
        if pinned not in seen:
            raise InstallUnavailable(f"{binary.name} --version said {seen!r}, expected {pinned}")
        clis.versions[binary.name] = seen
    return clis


def install() -> AgentCLIs:
    """The pinned CLIs, installing them first when this lockfile has no complete cache yet."""
    npm = shutil.which("npm")
    if npm is None:
        raise InstallUnavailable("npm is not on PATH (install Node.js and npm to run this tier)")
    target = cache_dir()
    target.mkdir(parents=True, exist_ok=True)
    marker = target / ".installed"
    with open(target / ".lock", "w") as lock:  # one installer at a time
        fcntl.flock(lock, fcntl.LOCK_EX)
        if marker.exists():
            try:
                return _check(target)
            except (InstallUnavailable, OSError, subprocess.SubprocessError):
                marker.unlink()  # a broken cache: install again
        for name in LOCKFILES:
            shutil.copyfile(HERE / name, target / name)
        try:
            proc = subprocess.run(
                [npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"],
                cwd=target,
                capture_output=True,
                text=True,
                timeout=INSTALL_TIMEOUT,
                check=False,
            )
        except subprocess.TimeoutExpired as e:
            raise InstallUnavailable(f"npm ci took longer than {INSTALL_TIMEOUT:g}s") from e
        if proc.returncode != 0:
            tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
            raise InstallUnavailable(f"npm ci failed ({proc.returncode}): {' / '.join(tail)}")
        clis = _check(target)
        marker.write_text(f"{clis.versions}\n")
        return clis
