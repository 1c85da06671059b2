"""The ``[admission]`` values written on first start, derived from the machine (pure).

A Claude Code worker takes 0.4 to 2 GB and a busy one a good share of a core, so:

- ``max_workers`` = the memory left after a headroom for everything else (a quarter of the
  total, at least 2 GB), at one GB per worker, and at most four workers per CPU; never fewer
  than 2;
- ``min_available_memory_mb`` = a tenth of the total memory (at least 1 GB), rounded down to
  a multiple of 256 MB: a worker starts only while that much stays available;
- ``start_burst`` = 2 and ``start_interval_seconds`` = 10 for ``mytty resume``.

``max_workers_per_provider``, ``max_workers_per_lead`` and ``worker_memory_max_mb`` are left
unset (written commented out): they depend on the accounts and the work, not on the machine.
For example 16 GB and 8 CPUs give ``max_workers = 12``, ``min_available_memory_mb = 1536``;
24 GB and 2 CPUs give 8 and 2304.
"""

from __future__ import annotations

from dataclasses import dataclass

MB_PER_WORKER = 1024
MIN_HEADROOM_MB = 2048
WORKERS_PER_CPU = 4
MIN_WORKERS = 2
MIN_AVAILABLE_FLOOR_MB = 1024
START_BURST = 2
START_INTERVAL_S = 10.0


@dataclass(frozen=True, slots=True)
class Machine:
    """What the defaults are derived from (the controller measures it: psutil)."""

    total_memory_mb: int
    cpus: int


@dataclass(frozen=True, slots=True)
class MachineDefaults:
    max_workers: int
    min_available_memory_mb: int
    start_burst: int = START_BURST
    start_interval_seconds: float = START_INTERVAL_S


def machine_defaults(machine: Machine) -> MachineDefaults:
    """The values written on first start for ``machine`` (see the module docstring)."""
    total = max(0, machine.total_memory_mb)
    headroom = max(MIN_HEADROOM_MB, total // 4)
    by_memory = max(0, total - headroom) // MB_PER_WORKER
    by_cpu = WORKERS_PER_CPU * max(1, machine.cpus)
    workers = max(MIN_WORKERS, min(by_memory, by_cpu))
    available = max(MIN_AVAILABLE_FLOOR_MB, total // 10) // 256 * 256
    return MachineDefaults(max_workers=workers, min_available_memory_mb=available)
