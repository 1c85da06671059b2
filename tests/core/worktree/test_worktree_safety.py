"""The worktree removal rule and mytty's worktree record, as pure functions."""

from __future__ import annotations

import dataclasses

from hypothesis import given
from hypothesis import strategies as st

from mytty.core.worktree.record import (
    WorktreeEntry,
    created_line,
    fold,
    job_line,
    removed_line,
)
from mytty.core.worktree.safety import Merged, Reason, WorktreeFacts, archive_ref, judge

SAFE = WorktreeFacts(
    recorded=True,
    same_directory=True,
    exists=True,
    registered=True,
    is_main=False,
    locked=False,
    busy_pids=(),
    dirty=False,
    merged=Merged.SQUASHED,
    pushed=False,
)


def test_a_clean_merged_worktree_mytty_made_may_go() -> None:
    verdict = judge(SAFE)
    assert verdict.removable and verdict.reason is Reason.MERGED
    assert "squashed" in verdict.detail
    pushed = judge(dataclasses.replace(SAFE, merged=Merged.NONE, pushed=True))
    assert pushed.removable and pushed.reason is Reason.PUSHED


def test_each_failed_check_keeps_the_worktree_with_its_reason() -> None:
    cases = {
        Reason.NOT_CREATED_BY_MYTTY: {"recorded": False},
        Reason.MISSING: {"exists": False},
        Reason.REPLACED: {"same_directory": False},
        Reason.MAIN_WORKTREE: {"is_main": True},
        Reason.NOT_REGISTERED: {"registered": False},
        Reason.LOCKED: {"locked": True},
        Reason.IN_USE: {"busy_pids": (42,)},
        Reason.DIRTY: {"dirty": True},
        Reason.UNMERGED: {"merged": Merged.NONE},
        Reason.UNKNOWN: {"dirty": None},
    }
    for reason, change in cases.items():
        verdict = judge(dataclasses.replace(SAFE, **change))  # type: ignore[arg-type]
        assert (verdict.removable, verdict.reason) == (False, reason), reason
    busy = judge(dataclasses.replace(SAFE, busy_pids=(7, 3)))
    assert "3, 7" in busy.detail


_maybe_bool = st.one_of(st.none(), st.booleans())


@given(
    recorded=st.booleans(),
    same=_maybe_bool,
    exists=st.booleans(),
    registered=_maybe_bool,
    is_main=st.booleans(),
    locked=_maybe_bool,
    busy=st.lists(st.integers(1, 99999), max_size=3).map(tuple),
    dirty=_maybe_bool,
    merged=st.one_of(st.none(), st.sampled_from(Merged)),
    pushed=_maybe_bool,
)
def test_nothing_unsafe_or_unknown_is_ever_removable(
    recorded: bool,
    same: bool | None,
    exists: bool,
    registered: bool | None,
    is_main: bool,
    locked: bool | None,
    busy: tuple[int, ...],
    dirty: bool | None,
    merged: Merged | None,
    pushed: bool | None,
) -> None:
    facts = WorktreeFacts(
        recorded, same, exists, registered, is_main, locked, busy, dirty, merged, pushed
    )
    verdict = judge(facts)
    if verdict.removable:
        assert recorded and exists and same is True and registered is True
        assert not is_main and locked is False and not busy and dirty is False
        assert (merged not in (None, Merged.NONE)) or pushed is True


def _entry(path: str, token: str = "t") -> WorktreeEntry:
    return WorktreeEntry(path, "/r", "/r/.git", "feat/x", "main", True, 1, 2, 3.0, token)


def test_the_record_folds_creations_jobs_and_removals() -> None:
    lines = [
        created_line(_entry("/a")),
        job_line("/a", "J1", 1.0),
        "not json",
        '{"v":99,"event":"created","path":"/z"}',
        job_line("/a", "J1", 2.0),  # a job noted twice counts once
        created_line(_entry("/b")),
        job_line("/b", "J2", 2.0),
        job_line("/nowhere", "J3", 2.0),  # not a worktree mytty made: ignored
        removed_line("/b", archive_ref("feat/x"), "abc", 4.0),
        created_line(_entry("/b", token="second")),  # made again after the removal
        '{"v":1,"event":"created","path":"/c"}',  # torn: skipped
    ]
    entries = fold(lines)
    assert [(e.path, e.jobs, e.token) for e in entries] == [
        ("/a", ("J1",), "t"),
        ("/b", (), "second"),
    ]
    assert entries[0] == dataclasses.replace(_entry("/a"), jobs=("J1",))
    assert archive_ref("feat/x") == "refs/mytty/archive/feat/x"
