"""What control handlers see of admission (``mytty.control.ports.AdmissionGate``)."""

from __future__ import annotations

from collections.abc import Sequence

from mytty.control.ports import AdmissionSlot
from mytty.core.events import WorkerProvider
from mytty.core.ids import SurfaceId
from mytty.core.jobs.tracker import AgentJob
from mytty.daemon.admission.controller import Admission, Slot
from mytty.daemon.admission.starter import WorkerStarter
from mytty.protocol.replies import MemoryCapEntry


class AdmissionGate:
    """A spawn's claim and release (:class:`Admission`), its launch line and what its reply
    says of the memory cap (:class:`WorkerStarter`)."""

    def __init__(self, admission: Admission, starter: WorkerStarter) -> None:
        self._admission = admission
        self._starter = starter

    def claim(
        self, provider: WorkerProvider, lead: SurfaceId | None, *, paced: bool = False
    ) -> Slot:
        return self._admission.claim(provider, lead, paced=paced)

    def resumption_started(self) -> None:
        self._admission.resumption_started()

    def release(self, slot: AdmissionSlot, job: AgentJob | None = None) -> None:
        self._admission.release(slot.ticket, job)

    def position_hint(self, slot: AdmissionSlot) -> int:
        return self._admission.position_hint(slot.ticket)

    async def worker_launch(
        self, job_id: str, resumed: int, argv: Sequence[str]
    ) -> tuple[str, tuple[int, str] | None]:
        return await self._starter.launch(job_id, resumed, argv)

    async def memory_cap_entry(self) -> MemoryCapEntry | None:
        return await self._starter.memory_cap_entry()
