"""The [admission] values first start writes, derived from the machine."""

from __future__ import annotations

import tomllib

from hypothesis import given
from hypothesis import strategies as st

from mytty.core.admission.defaults import Machine, machine_defaults
from mytty.core.config import DEFAULTS, default_text, defaults_for, settings_from


def test_the_documented_examples() -> None:
    assert machine_defaults(Machine(16384, 8)).max_workers == 12
    assert machine_defaults(Machine(16384, 8)).min_available_memory_mb == 1536
    assert machine_defaults(Machine(24576, 2)).max_workers == 8
    assert machine_defaults(Machine(24576, 2)).min_available_memory_mb == 2304
    # A small machine still runs two workers and keeps at least 1 GB free.
    small = machine_defaults(Machine(2048, 1))
    assert (small.max_workers, small.min_available_memory_mb) == (2, 1024)


@given(st.integers(0, 4 * 1024 * 1024), st.integers(1, 512))
def test_the_written_file_says_exactly_the_derived_defaults(total_mb: int, cpus: int) -> None:
    machine = Machine(total_mb, cpus)
    settings, warnings = settings_from(tomllib.loads(default_text(machine)))
    assert warnings == []
    assert settings == defaults_for(machine)
    derived = machine_defaults(machine)
    assert 2 <= derived.max_workers <= 4 * cpus or derived.max_workers == 2
    assert derived.min_available_memory_mb % 256 == 0


def test_without_a_machine_no_limit_is_set() -> None:
    settings, _ = settings_from(tomllib.loads(default_text(None)))
    assert settings == DEFAULTS
    assert settings.admission.limits().any is False
