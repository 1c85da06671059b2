"""``[admission] worker_memory_max_mb``: a hard memory cap per worker, through cgroup v2.

Two ways, tried in this order when the controller starts:

1. **systemd-run**: a user systemd manager runs each worker in a transient scope with
   ``MemoryMax`` (``systemd-run --user --scope -p MemoryMax=…M -p MemorySwapMax=0 -- argv``).
   Probed for real: a scope running ``true`` under a 64 MB cap must start. A worker the kernel
   killed for its cap leaves the scope ``failed`` with ``Result=oom-kill``.
2. **a delegated cgroup**: a cgroup v2 directory this user may create children in, with the
   memory controller enabled for them (``$MYTTY_CGROUP``, else the parent of the controller's
   own cgroup). Each worker gets ``<base>/mytty-worker-…`` with ``memory.max``, and its
   launch moves itself in before it execs the agent; ``memory.events`` counts the kills.

Where neither exists (a container without a user systemd, cgroup v1), the cap is not enforced
and nothing pretends otherwise: ``mytty doctor`` says so, and every ``agent spawn`` reply says
so (``memoryCap.enforced: false``). A worker killed by its cap ends ``failed`` with
``reason: "memory-limit"`` (checked when its command ends in its pane).
"""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from mytty.daemon import procfs

log = logging.getLogger(__name__)

SYSTEMD = "systemd-run"
CGROUP = "cgroup"
CGROUP_ROOT = "/sys/fs/cgroup"
#: The environment variable naming a delegated cgroup v2 directory for workers.
CGROUP_ENV = "MYTTY_CGROUP"
MB = 1024 * 1024
_PROBE_TIMEOUT_S = 10.0

Runner = Callable[[Sequence[str]], "subprocess.CompletedProcess[str]"]


def _run(argv: Sequence[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        list(argv),
        capture_output=True,
        text=True,
        timeout=_PROBE_TIMEOUT_S,
        check=False,
        stdin=subprocess.DEVNULL,
    )


@dataclass(frozen=True, slots=True)
class CapSupport:
    """How worker caps can be enforced here: ``method`` None means not at all."""

    method: str | None
    #: The delegated cgroup directory (``cgroup`` only).
    base: str | None
    #: What was found, in a sentence (why not, when not).
    detail: str


def _first_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[0] if lines else "no output"


def probe_systemd(
    run: Runner = _run, which: Callable[[str], str | None] = shutil.which
) -> str | None:
    """None when ``systemd-run --user --scope`` with a MemoryMax works here; else why not."""
    if which(SYSTEMD) is None:
        return "systemd-run is not installed"
    try:
        done = run([SYSTEMD, "--user", "--scope", "--quiet", "-p", "MemoryMax=64M", "--", "true"])
    except (OSError, subprocess.SubprocessError) as exc:
        return f"systemd-run --user failed: {exc}"
    if done.returncode != 0:
        return f"no user systemd manager takes scopes: {_first_line(done.stderr)}"
    return None


def cgroup_candidates(
    env: Mapping[str, str], own: str | None, root: str = CGROUP_ROOT
) -> list[str]:
    """Where a delegated cgroup for workers may be: ``$MYTTY_CGROUP``, else the parent of the
    controller's own cgroup (never the root itself)."""
    if env.get(CGROUP_ENV):
        return [env[CGROUP_ENV]]
    if own is None or own in ("", "/"):
        return []
    parent = os.path.dirname(own.rstrip("/"))
    return [os.path.join(root, parent.lstrip("/"))] if parent not in ("", "/") else []


def probe_cgroup(base: str) -> str | None:
    """None when workers' cgroups can be made under ``base`` with a memory cap; else why not."""
    controllers = Path(base) / "cgroup.controllers"
    if not controllers.exists():
        return f"{base} is not a cgroup v2 directory"
    try:
        enabled = (Path(base) / "cgroup.subtree_control").read_text().split()
    except OSError as exc:
        return f"cannot read {base}/cgroup.subtree_control: {exc.strerror or exc}"
    if "memory" not in enabled:
        return f"the memory controller is not delegated to {base}'s children"
    child = Path(base) / f"mytty-probe-{os.getpid()}"
    try:
        child.mkdir()
    except OSError as exc:
        return f"cannot create a cgroup under {base}: {exc.strerror or exc}"
    try:
        if not (child / "memory.max").exists():
            return f"cgroups under {base} have no memory.max"
        return None
    finally:
        try:
            child.rmdir()
        except OSError:
            pass


def probe(
    *,
    env: Mapping[str, str] | None = None,
    run: Runner = _run,
    which: Callable[[str], str | None] = shutil.which,
    own_cgroup: Callable[[], str | None] = procfs.own_cgroup,
    root: str = CGROUP_ROOT,
) -> CapSupport:
    """Find how worker caps can be enforced on this machine (runs one ``systemd-run``)."""
    env = os.environ if env is None else env
    why_not_systemd = probe_systemd(run, which)
    if why_not_systemd is None:
        return CapSupport(SYSTEMD, None, "systemd-run --user --scope (MemoryMax) works")
    reasons = [why_not_systemd]
    candidates = cgroup_candidates(env, own_cgroup(), root)
    for base in candidates:
        why_not = probe_cgroup(base)
        if why_not is None:
            return CapSupport(CGROUP, base, f"a delegated cgroup v2 at {base}")
        reasons.append(why_not)
    if not candidates:
        reasons.append(f"no delegated cgroup v2 (set {CGROUP_ENV} to one)")
    return CapSupport(None, None, "; ".join(reasons))


def cap_name(job_id: str, resumed: int) -> str:
    """The scope unit or cgroup directory name of one start of a job's worker."""
    return f"mytty-worker-{job_id.lower()}-{resumed}"


def wrap_systemd(argv: Sequence[str], name: str, max_mb: int) -> list[str]:
    """``argv`` run in a transient systemd scope capped at ``max_mb`` (no swap to escape to)."""
    return [
        SYSTEMD,
        "--user",
        "--scope",
        "--quiet",
        f"--unit={name}",
        "-p",
        f"MemoryMax={max_mb}M",
        "-p",
        "MemorySwapMax=0",
        "--",
        *argv,
    ]


#: Moves the launching shell into the cgroup given as $1, then becomes the agent.
_ENTER_CGROUP = 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"'


def wrap_cgroup(argv: Sequence[str], directory: str) -> list[str]:
    """``argv`` started inside the cgroup ``directory`` (made by :func:`make_cgroup`)."""
    return ["/bin/sh", "-c", _ENTER_CGROUP, "mytty-memory-cap", directory, *argv]


def make_cgroup(base: str, name: str, max_mb: int) -> str:
    """A worker's cgroup under ``base`` capped at ``max_mb`` (raises OSError)."""
    directory = Path(base) / name
    directory.mkdir(exist_ok=True)
    (directory / "memory.max").write_text(str(max_mb * MB))
    swap = directory / "memory.swap.max"
    if swap.exists():
        swap.write_text("0")
    return str(directory)


def oom_killed_systemd(name: str, run: Runner = _run) -> bool:
    """Did the kernel kill a process of the scope for its cap? (its ``Result`` says so)."""
    unit = f"{name}.scope"
    try:
        done = run(["systemctl", "--user", "show", "-p", "Result", "--value", unit])
    except (OSError, subprocess.SubprocessError):
        return False
    killed = done.returncode == 0 and done.stdout.strip() == "oom-kill"
    if killed:
        try:
            run(["systemctl", "--user", "reset-failed", unit])
        except (OSError, subprocess.SubprocessError):
            pass
    return killed


def oom_killed_cgroup(directory: str) -> bool:
    """Did the kernel kill a process of the cgroup for its cap? (``memory.events``)."""
    try:
        events = (Path(directory) / "memory.events").read_text()
    except OSError:
        return False
    for line in events.splitlines():
        key, _, value = line.partition(" ")
        if key == "oom_kill" and value.strip().isdigit():
            return int(value) > 0
    return False


def remove_cgroup(directory: str) -> None:
    """Remove a worker's cgroup once its processes are gone (best effort)."""
    try:
        os.rmdir(directory)
    except OSError:
        pass
