"""``explain PANE|JOB``: a full id or a prefix only one pane or job starts with."""

from __future__ import annotations

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from mytty.core.explain.target import Target, Unresolved, resolve
from mytty.core.ids import JobId, SurfaceId, format_uuid_bytes

PANE = SurfaceId("201841B5-2A1E-41BE-93CD-775F48479797")
OTHER = SurfaceId("20AA0000-0000-4000-8000-000000000000")
JOB = JobId("04AA9DA1-F255-412D-808A-A53E2525DB4F")


def test_a_full_pane_id_in_any_case() -> None:
    assert resolve(PANE.lower(), [PANE, OTHER], [JOB]) == Target(surface_id=PANE)


def test_a_full_job_id_known_or_to_look_up_in_the_store() -> None:
    assert resolve(f"  {JOB.lower()} ", [PANE], [JOB]) == Target(job_id=JOB)
    stranger = "11111111-2222-4333-8444-555555555555"
    assert resolve(stranger, [PANE], [JOB]) == Target(job_id=JobId(stranger), stored=True)


def test_a_unique_prefix_names_one_pane_or_job() -> None:
    assert resolve("04aa9da1", [PANE, OTHER], [JOB]) == Target(job_id=JOB)
    assert resolve("2018", [PANE, OTHER], [JOB]) == Target(surface_id=PANE)


def test_an_ambiguous_prefix_names_the_candidates() -> None:
    with pytest.raises(Unresolved) as err:
        resolve("20", [PANE, OTHER], [JOB])
    assert err.value.candidates == tuple(sorted([PANE, OTHER]))
    assert "matches 2" in str(err.value)


@pytest.mark.parametrize("text", ["", "  ", "%3", "work:1.0", "zz", "0404-", "ffff"])
def test_nothing_matching(text: str) -> None:
    with pytest.raises(Unresolved) as err:
        resolve(text, [PANE], [JOB])
    assert err.value.candidates == ()


IDS = st.lists(st.binary(min_size=16, max_size=16).map(format_uuid_bytes), min_size=1, max_size=8)


@given(IDS, IDS, st.data())
def test_the_shortest_unique_prefix_of_any_id_finds_it(
    panes: list[str], jobs: list[str], data: st.DataObject
) -> None:
    everything = panes + jobs
    assume(len(set(everything)) == len(everything))
    chosen = data.draw(st.sampled_from(everything))
    n = next(
        n
        for n in range(1, 37)
        if sum(1 for other in everything if other.startswith(chosen[:n])) == 1
    )
    found = resolve(chosen[:n].lower(), map(SurfaceId, panes), jobs)
    assert (found.surface_id or found.job_id) == chosen
    if n > 1:
        with pytest.raises(Unresolved):
            resolve(chosen[: n - 1], map(SurfaceId, panes), jobs)
