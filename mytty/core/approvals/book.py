"""The requests the controller knows: every open one, and the newest finished ones.

In memory, no I/O (the daemon's broker stores each change as it happens). A finished request
stays here for a while so a late answer gets ``approval-already-answered`` instead of
``approval-not-found``; older ones are read back from the store by ``approvals log``.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable

from mytty.core.approvals.model import ApprovalRequest, resolve_prefix
from mytty.core.ids import RunId

#: Finished requests kept in memory (the store keeps them all).
FINISHED_KEPT = 500


class ApprovalBook:
    __slots__ = ("_finished", "_open")

    def __init__(self) -> None:
        self._open: dict[str, ApprovalRequest] = {}
        self._finished: OrderedDict[str, ApprovalRequest] = OrderedDict()

    def put(self, request: ApprovalRequest) -> ApprovalRequest:
        """Add or replace ``request`` (by id), filed as open or finished by its state."""
        if request.open:
            self._finished.pop(request.id, None)
            self._open[request.id] = request
        else:
            self._open.pop(request.id, None)
            self._finished.pop(request.id, None)
            self._finished[request.id] = request
            while len(self._finished) > FINISHED_KEPT:
                self._finished.popitem(last=False)
        return request

    def get(self, request_id: str) -> ApprovalRequest | None:
        return self._open.get(request_id) or self._finished.get(request_id)

    def open(self) -> list[ApprovalRequest]:
        """Every open request, oldest first."""
        return sorted(self._open.values(), key=lambda r: (r.requested_at, r.id))

    def open_for_run(self, run_id: RunId) -> list[ApprovalRequest]:
        return [r for r in self._open.values() if r.run_id == run_id]

    def open_with_event(self, event_id: str) -> ApprovalRequest | None:
        """The open request whose hook event is ``event_id`` (a retried hook)."""
        return next((r for r in self._open.values() if r.event_id == event_id), None)

    def matching(
        self, text: str, among: Iterable[ApprovalRequest] | None = None
    ) -> list[ApprovalRequest]:
        """The requests an id or unique prefix names (see :func:`resolve_prefix`)."""
        pool = {r.id: r for r in (among if among is not None else self.all())}
        return [pool[i] for i in resolve_prefix(list(pool), text)]

    def all(self) -> list[ApprovalRequest]:
        return [*self._open.values(), *self._finished.values()]

    def __len__(self) -> int:
        return len(self._open) + len(self._finished)
