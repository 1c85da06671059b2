"""The access policy of agent spawn (mytty.core.jobs.access): fixed flags, inherit, fallbacks."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mytty.core.errors import ErrorCode, MyttyError
from mytty.core.events import AgentProvider, WorkerProvider
from mytty.core.jobs.access import FixedAccess, InheritAccess, plan_access
from mytty.core.jobs.launch import ACCESS_FLAGS

WORKERS = list(WorkerProvider)
LEADS = [None, *AgentProvider]


@pytest.mark.parametrize("worker", WORKERS)
@pytest.mark.parametrize("access", ["review", "workspace-write"])
@pytest.mark.parametrize("lead", LEADS)
def test_an_explicit_fixed_access_wins_over_any_lead(
    worker: WorkerProvider, access: str, lead: AgentProvider | None
) -> None:
    plan = plan_access(access, worker, lead, 123 if lead else None)
    assert plan == FixedAccess(ACCESS_FLAGS[(worker, access)])  # type: ignore[index]


@pytest.mark.parametrize("worker", WORKERS)
def test_omitted_access_inherits_from_a_same_provider_lead(worker: WorkerProvider) -> None:
    plan = plan_access(None, worker, worker.agent_provider, 4242)
    assert plan == InheritAccess(4242, ACCESS_FLAGS[(worker, "workspace-write")])


@pytest.mark.parametrize("worker", WORKERS)
def test_omitted_access_with_another_lead_is_workspace_write(worker: WorkerProvider) -> None:
    other = next(p for p in AgentProvider if p != worker.agent_provider)
    assert plan_access(None, worker, other, 7) == FixedAccess(
        ACCESS_FLAGS[(worker, "workspace-write")]
    )
    assert plan_access(None, worker, None, None) == FixedAccess(
        ACCESS_FLAGS[(worker, "workspace-write")]
    )


@pytest.mark.parametrize("worker", WORKERS)
def test_explicit_inherit_reads_the_lead_and_has_no_fallback(worker: WorkerProvider) -> None:
    assert plan_access("inherit", worker, None, 99) == InheritAccess(99, None)


@pytest.mark.parametrize("worker", WORKERS)
def test_explicit_inherit_without_a_lead_process_is_inherit_unavailable(
    worker: WorkerProvider,
) -> None:
    with pytest.raises(MyttyError) as err:
        plan_access("inherit", worker, None, None)
    assert err.value.code is ErrorCode.INHERIT_UNAVAILABLE


def test_unknown_access_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        plan_access("root", WorkerProvider.CLAUDE, None, None)


@given(
    st.sampled_from([None, "inherit", "review", "workspace-write"]),
    st.sampled_from(WORKERS),
    st.sampled_from(LEADS),
    st.one_of(st.none(), st.integers(min_value=2, max_value=2**22)),
)
def test_a_plan_always_has_flags_or_a_reason(
    access: str | None, worker: WorkerProvider, lead: AgentProvider | None, pid: int | None
) -> None:
    try:
        plan = plan_access(access, worker, lead, pid)
    except MyttyError as exc:
        assert (access, pid) == ("inherit", None) and exc.code is ErrorCode.INHERIT_UNAVAILABLE
        return
    if isinstance(plan, FixedAccess):
        assert plan.flags
    else:
        assert plan.lead_pid == pid
        assert (plan.fallback is None) == (access == "inherit")
