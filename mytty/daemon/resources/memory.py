"""The machine's memory, from psutil: its size (first-start defaults) and what is available.

``available`` is psutil's ``virtual_memory().available``: what can be given to new processes
without swapping (MemAvailable), the figure ``[admission] min_available_memory_mb`` is held
against. One reading is a read of ``/proc/meminfo``, about 25 µs, so it runs on the loop.
"""

from __future__ import annotations

import os

import psutil  # type: ignore[import-untyped]  # no stubs; two calls, typed below

from mytty.core.admission.defaults import Machine

MB = 1024 * 1024


def this_machine() -> Machine:
    """This machine's total memory and CPU count."""
    return Machine(total_memory_mb=psutil.virtual_memory().total // MB, cpus=os.cpu_count() or 1)


def available_mb() -> float:
    """Memory available for new processes now, in MB."""
    available: int = psutil.virtual_memory().available
    return available / MB
