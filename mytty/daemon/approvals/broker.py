"""The approvals broker: permission requests from the event socket, decided once, audited.

A Claude Code or Codex ``PermissionRequest`` hook sends its event with an ``approval`` object
(:mod:`mytty.hook.approval`). The event socket hands the routed, authorised event here:

1. **Rules first** (``[[approvals.rule]]``, :mod:`mytty.core.approvals.rules`): an allow or a
   deny is the reply at once, and nothing else happens (no event is stored, so no attention
   item, no notification). ``ask`` (or no rule) goes on.
2. **The hold**: the event is stored as every hook's is (the run waits for approval; the
   attention item, ``@mytty_attention`` and the notification follow from it), the request gets
   its id, and the connection stays open for ``[approvals] hold_seconds`` (cut to what the
   installed hook's ``timeout`` allows). A decision meanwhile (:meth:`ApprovalBroker.answer`)
   is the hook's second reply line, which it prints as the provider's own reply.
3. **After the hold** the agent's own dialog decides; an answer then is typed into that dialog
   once the screen shows it (:mod:`.delivery`).

The first decision wins; every decision also stores a ``running`` event of the request's run
(hookName ``mytty.approvalDecided``), which resolves its attention item everywhere (the popup,
``mytty attention``, ``@mytty_attention``; a notification not sent yet is dropped). A request
also ends when the agent moves on without mytty: a ``PostToolUse``/``PostToolBatch`` of its
run (the human said yes in the pane: ``agent-dialog``, allow), its turn ending or being
interrupted (``agent-dialog``, deny), its pane closing (expired). A held hook is then told
"no decision" at once, so it never outlives the dialog it was for. A run waiting for approval
ignores a ``succeeded``/``failed`` (semantics §1.3), yet Claude's turn goes on and ends with a
Stop after a deny with a message, typed by mytty or by the human: such an event is preceded by
the request's ``running`` decision event (:meth:`ApprovalBroker.before_event`), so the turn
ends as it did instead of waiting for approval forever.

Every request and each change is one row of the store's ``approval`` table: ``mytty approvals
log``. Open requests survive a restart as long as their run still waits (the hold is over: the
dialog decides), others are expired.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import os
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Protocol

from mytty.control.ports import PaneView
from mytty.core.approvals import access
from mytty.core.approvals.access import Caller
from mytty.core.approvals.book import ApprovalBook
from mytty.core.approvals.dialog import MessageUndeliverable, key_plan
from mytty.core.approvals.model import (
    AGENT_DIALOG,
    APPROVER_HUMAN,
    APPROVERS,
    BY_DIALOG,
    BY_HOOK,
    BY_RULE,
    DECIDED_HOOK,
    IN_PANE,
    MAX_MESSAGE_CHARS,
    REQUESTED_HOOK,
    ApprovalRequest,
    ApprovalState,
    Decision,
    clean_message,
    decided,
    expired,
    held_again,
    hold_over,
    rule_who,
)
from mytty.core.approvals.propose import NoNarrowRule, narrowest_rule, rule_table
from mytty.core.approvals.rules import ALLOW, DENY, Rule, judge
from mytty.core.config import ApprovalSettings
from mytty.core.errors import ErrorCode, MyttyError
from mytty.core.events import AgentEvent, AgentEventKind, AgentProvider, AgentRunState
from mytty.core.ids import JobId, RunId, SurfaceId, format_uuid_bytes, stable_uuid
from mytty.core.jobs.tracker import AgentJob, is_terminal
from mytty.daemon.approvals import delivery
from mytty.daemon.approvals.rules_file import append_rule
from mytty.daemon.server.scope import abandonable
from mytty.daemon.server.sockets import HeldReply
from mytty.daemon.store import StoreError
from mytty.protocol import wire
from mytty.protocol.envelope import ApprovalAsk, encode_decision_line, encode_event_reply
from mytty.protocol.limits import APPROVAL_HOOK_MARGIN_S, MAX_APPROVAL_HOLD_S
from mytty.protocol.replies import ApprovalEntry
from mytty.tmux.port import TmuxPort

log = logging.getLogger(__name__)

#: Events of the run that mean the human allowed in the pane (the tool ran).
_TOOL_RAN_HOOKS = frozenset({"PostToolUse", "PostToolBatch"})
#: Events that say nothing about the request (its own, a subagent's activity, mytty's).
_NEUTRAL_KINDS = frozenset({AgentEventKind.APPROVAL_REQUESTED, AgentEventKind.INPUT_REQUESTED})
_SUBAGENT_HOOKS = frozenset({"SubagentStart", "SubagentStop"})
#: What a run waiting for approval ignores although the agent's turn really ended.
_TURN_ENDS = frozenset({AgentEventKind.SUCCEEDED, AgentEventKind.FAILED})
#: The model is told why a rule refused.
RULE_DENY_MESSAGE = "mytty: refused by the rule {name!r} of [approvals] in config.toml"
#: How long the log looks back when no ``--since`` is given, and the most it returns.
LOG_LIMIT = 1000


class Jobs(Protocol):
    def newest_in_pane(self, surface_id: SurfaceId) -> AgentJob | None: ...
    def current(self, job_id: str) -> AgentJob: ...


class Hub(Protocol):
    async def ingest(self, event: AgentEvent) -> bool: ...


class ApprovalStore(Protocol):
    """What the broker keeps in the store (:class:`~mytty.daemon.store.EventStore`)."""

    def save_approval_soon(self, request: ApprovalRequest) -> asyncio.Future[object]: ...
    async def set_approver(self, job_id: str, approver: str) -> None: ...
    def read_approvals(self, since: float, limit: int) -> list[ApprovalRequest]: ...


@dataclasses.dataclass(frozen=True, slots=True)
class _JobFacts:
    """What a request takes from the job of its pane (nothing for a pane without one)."""

    job_id: JobId | None = None
    label: str | None = None
    base_dir: str | None = None
    approver: str = APPROVER_HUMAN
    lead: SurfaceId | None = None


class Panes(Protocol):
    def get(self, surface_id: str | None) -> PaneView | None: ...


class ApprovalBroker:
    def __init__(
        self,
        *,
        hub: Hub,
        store: ApprovalStore,
        jobs: Jobs,
        panes: Panes,
        settings: Callable[[], ApprovalSettings],
        now: Callable[[], float],
        hook_timeout: Callable[[str], float],
        require_port: Callable[[], TmuxPort],
        pane_lock: Callable[[SurfaceId], AbstractAsyncContextManager[object]],
        run_state: Callable[[str], AgentRunState | None],
        config_file: Path,
        location: Callable[[SurfaceId], str | None],
        classify: Callable[[int], Caller],
    ) -> None:
        self.book = ApprovalBook()
        self._classify = classify
        self._hub = hub
        self._store = store
        self._jobs = jobs
        self._panes = panes
        self._settings = settings
        self._now = now
        self._hook_timeout = hook_timeout
        self._require_port = require_port
        self._pane_lock = pane_lock
        self._run_state = run_state
        self._config_file = config_file
        self._location = location
        self._approvers: dict[str, str] = {}
        #: The held hooks of each request: each waits on one future for its decision line.
        self._waiters: dict[str, set[asyncio.Future[bytes]]] = {}
        #: Requests whose answer is being typed into their dialog right now.
        self._delivering: set[str] = set()

    # -- startup ------------------------------------------------------------------------------
    def load(self, approvers: dict[str, str], open_requests: list[ApprovalRequest]) -> None:
        """What the store kept: ``--approver`` per job, and the requests left open."""
        self._approvers.update(approvers)
        for request in open_requests:
            self.book.put(request)

    def settle_restart(self) -> None:
        """After the restart's sweep: an open request whose run still waits for approval is
        the dialog's now (its hook is gone); any other has expired."""
        now = self._now()
        for request in self.book.open():
            waiting = self._run_state(request.run_id) is AgentRunState.WAITING_APPROVAL
            alive = self._panes.get(request.surface_id) is not None
            if waiting and alive:
                self._save(dataclasses.replace(request, state=ApprovalState.DIALOG))
            else:
                self._save(expired(request, now))

    # -- the job side ---------------------------------------------------------------------------
    async def set_approver(self, job_id: JobId, approver: str) -> None:
        """``agent spawn --approver``, stored before the spawn replies (``human``, the default,
        is not stored). A store that fails leaves it in memory only (logged): after a restart
        the job's requests are a person's again, the safe side."""
        if approver not in APPROVERS:
            raise MyttyError(ErrorCode.INVALID_REQUEST, f"approver must be one of {APPROVERS}")
        if approver == APPROVER_HUMAN:
            return
        self._approvers[job_id] = approver
        try:
            await self._store.set_approver(job_id, approver)
        except StoreError as exc:
            log.warning("could not store the approver of job %s: %s", job_id, exc)

    def _job_facts(self, surface: SurfaceId) -> _JobFacts:
        job = self._jobs.newest_in_pane(surface)
        if job is not None:
            try:
                job = self._jobs.current(job.job_id)
            except MyttyError:
                job = None
        if job is None or is_terminal(job.state):
            return _JobFacts()
        return _JobFacts(
            job_id=job.job_id,
            label=job.label,
            base_dir=job.launch.cwd if job.launch is not None else None,
            approver=self._approvers.get(job.job_id, APPROVER_HUMAN),
            lead=job.lead,
        )

    # -- requests (the event socket) -------------------------------------------------------------
    async def request(self, event: AgentEvent, ask: ApprovalAsk) -> bytes | HeldReply:
        """The reply to a PermissionRequest hook (see the module docstring). ``event`` is
        authorised (or routed, for codex) and carries its stored id. Raises StoreError when
        its event cannot be stored."""
        now = self._now()
        again = self.book.open_with_event(event.id)
        if again is not None:  # the hook's retry: the same request, the rest of its hold
            # Its first connection may have hung up already (the hook's first attempt gave up
            # on a slow answer) and ended the hold: the hold goes on unless its answer is
            # being typed into the dialog.
            resumed = held_again(again, now) if again.id not in self._delivering else None
            if resumed is not None:
                self._save(resumed)
                again = resumed
            return self._hold_reply(again, inserted=False)
        facts = self._job_facts(event.surface_id)
        request = ApprovalRequest(
            id=format_uuid_bytes(os.urandom(16)),
            event_id=event.id,
            surface_id=event.surface_id,
            run_id=event.run_id,
            provider=event.provider.value,
            action=ask.action,
            cwd=ask.cwd,
            requested_at=now,
            hold_until=None,
            job_id=facts.job_id,
            label=facts.label,
            base_dir=facts.base_dir,
            approver=facts.approver,
            lead=facts.lead,
        )
        settings = self._settings()
        verdict = judge(settings.rule, request)
        if verdict.action in (ALLOW, DENY):
            assert verdict.rule is not None
            message = (
                RULE_DENY_MESSAGE.format(name=verdict.rule) if verdict.action == DENY else None
            )
            request = decided(
                request,
                Decision(verdict.action),
                who=rule_who(verdict.rule),
                at=now,
                delivered_by=BY_RULE,
                message=message,
                rule=verdict.rule,
            )
            self._save(request)
            held = wire.held_approval(request.id, decision=verdict.action, message=message)
            return encode_event_reply(inserted=False, approval=held)
        hold = self.hold_seconds(request.provider, settings)
        request = dataclasses.replace(
            request,
            rule=verdict.rule,
            hold_until=now + hold if hold > 0 else None,
            state=ApprovalState.HOLDING if hold > 0 else ApprovalState.DIALOG,
        )
        inserted = await self._hub.ingest(event)
        if not inserted:
            # An identical call earlier in the run stored this very event: the run needs its
            # own approval-requested again for the attention item (a retried hook never gets
            # here: its open request is found above).
            again_event = self._event(
                request, AgentEventKind.APPROVAL_REQUESTED, REQUESTED_HOOK, now
            )
            await self._hub.ingest(again_event)
        self._save(request)
        return self._hold_reply(request, inserted=inserted)

    def hold_seconds(self, provider: str, settings: ApprovalSettings) -> float:
        """``[approvals] hold_seconds``, cut to what the provider's installed hook allows."""
        if settings.hold_seconds <= 0:
            return 0.0
        room = self._hook_timeout(provider) - APPROVAL_HOOK_MARGIN_S
        return round(max(0.0, min(settings.hold_seconds, room, MAX_APPROVAL_HOLD_S)), 3)

    def _hold_reply(self, request: ApprovalRequest, *, inserted: bool) -> bytes | HeldReply:
        left = 0.0
        if request.state is ApprovalState.HOLDING and request.hold_until is not None:
            left = round(max(0.0, request.hold_until - self._now()), 3)
        first = encode_event_reply(
            inserted=inserted, approval=wire.held_approval(request.id, hold_seconds=left)
        )
        if left <= 0:
            return first
        return HeldReply(first=first, rest=lambda: self._hold(request.id))

    async def _hold(self, request_id: str) -> bytes | None:
        """Wait for the decision of a held request: its line, or "none" at the hold's end."""
        request = self.book.get(request_id)
        if request is None or request.state is not ApprovalState.HOLDING:
            return self._line_for(request)
        loop = asyncio.get_running_loop()
        future: asyncio.Future[bytes] = loop.create_future()
        waiters = self._waiters.setdefault(request_id, set())
        waiters.add(future)
        assert request.hold_until is not None
        left = max(0.0, request.hold_until - self._now())
        try:
            with abandonable():
                async with asyncio.timeout(left):
                    return await future
        except TimeoutError:
            self._end_hold(request_id)
            return encode_decision_line(None)
        finally:
            waiters.discard(future)
            if not waiters:
                self._waiters.pop(request_id, None)
                # The hook went away before its hold ended (Esc, the agent's timeout): the
                # agent's own dialog is the way in now.
                self._end_hold(request_id)

    def _end_hold(self, request_id: str) -> None:
        request = self.book.get(request_id)
        if request is not None and request.state is ApprovalState.HOLDING:
            self._save(hold_over(request))

    def _line_for(self, request: ApprovalRequest | None) -> bytes:
        if request is None or request.decision is None or request.delivered_by != BY_HOOK:
            return encode_decision_line(None)
        return encode_decision_line(str(request.decision), request.message)

    # -- answers ---------------------------------------------------------------------------------
    def caller(self, peer_pid: int) -> Caller:
        """Who is asking, from the peer's process ancestry (:mod:`.callers`)."""
        return self._classify(peer_pid)

    def open_id_for_run(self, run_id: str) -> str | None:
        """The id of the run's newest open request (a notification names it)."""
        found = sorted(self.book.open_for_run(RunId(run_id)), key=lambda r: r.requested_at)
        return found[-1].id if found else None

    def find(self, text: str) -> ApprovalRequest:
        """The request an id or unique prefix names (``approval-not-found`` otherwise)."""
        matches = self.book.matching(text)
        if len(matches) == 1:
            return matches[0]
        why = (
            f"matches {len(matches)} requests; give more of it"
            if matches
            else "names no request (`mytty approvals` lists the open ones)"
        )
        raise MyttyError(ErrorCode.APPROVAL_NOT_FOUND, f"{text.strip()!r} {why}")

    def visible(self, caller: Caller) -> list[ApprovalRequest]:
        """The open requests ``caller`` may see (every one for a person), oldest first."""
        return [r for r in self.book.open() if access.may_see(caller, r)]

    def propose(self, text: str, caller: Caller) -> Rule:
        """``--always``'s rule for a request (``approval-rule-unavailable`` when none fits)."""
        request = self.find(text)
        if caller.is_agent:
            raise MyttyError(ErrorCode.APPROVAL_NOT_YOURS, "only a person may add a rule")
        try:
            return narrowest_rule(request)
        except NoNarrowRule as exc:
            raise MyttyError(
                ErrorCode.APPROVAL_RULE_UNAVAILABLE,
                f"no rule can allow exactly request {request.id[:8]}: {exc}",
            ) from None

    async def answer(
        self,
        text: str,
        decision: Decision,
        *,
        caller: Caller,
        channel: str,
        message: str | None = None,
        session: str | None = None,
        always: bool = False,
    ) -> tuple[ApprovalRequest, Rule | None]:
        """Decide the request ``text`` names (first decision wins). Returns it with the rule
        ``always`` wrote."""
        request = self._with_current_approver(self.find(text))
        why = access.refusal(caller, request)
        if why is not None:
            raise MyttyError(ErrorCode.APPROVAL_NOT_YOURS, why)
        note = self._message(decision, message)
        self._check_open(request)
        rule = self.propose(text, caller) if always else None
        if always and decision is not Decision.ALLOW:
            raise MyttyError(ErrorCode.INVALID_REQUEST, "--always goes with allow")
        if rule is not None:
            await asyncio.to_thread(append_rule, self._config_file, rule)
            request = self.find(request.id)  # another answer may have come meanwhile
            self._check_open(request)
        who = access.who(caller, channel)
        session = session if not caller.is_agent and channel == "web" else None
        if request.state is ApprovalState.HOLDING and self._waiters.get(request.id):
            done = self._decide_held(request, decision, note, who, session)
        else:
            done = await self._decide_in_dialog(request, decision, note, who, session)
        await self._resolve_attention(done)
        return done, rule

    def _with_current_approver(self, request: ApprovalRequest) -> ApprovalRequest:
        """The job's ``--approver`` as stored now (a request made in the spawn's first
        milliseconds may predate it)."""
        if request.job_id is None:
            return request
        approver = self._approvers.get(request.job_id, request.approver)
        return (
            request
            if approver == request.approver
            else dataclasses.replace(request, approver=approver)
        )

    def _message(self, decision: Decision, message: str | None) -> str | None:
        if message is None or not message.strip():
            return None
        if decision is not Decision.DENY:
            raise MyttyError(ErrorCode.INVALID_REQUEST, "a message goes with deny, not allow")
        if len(message) > MAX_MESSAGE_CHARS:
            raise MyttyError(
                ErrorCode.INVALID_REQUEST, f"the message is over {MAX_MESSAGE_CHARS} characters"
            )
        return clean_message(message) or None

    def _check_open(self, request: ApprovalRequest) -> None:
        if request.open and request.id not in self._delivering:
            return
        if request.id in self._delivering:
            why = "another answer is being typed into its dialog right now"
        elif request.state is ApprovalState.EXPIRED:
            why = "it expired (its pane or run went away, or the controller restarted meanwhile)"
        else:
            why = f"it was {request.decision or 'decided'} by {request.decided_by}"
        raise MyttyError(
            ErrorCode.APPROVAL_ALREADY_ANSWERED, f"request {request.id[:8]} is closed: {why}"
        )

    def _decide_held(
        self,
        request: ApprovalRequest,
        decision: Decision,
        message: str | None,
        who: str,
        session: str | None,
    ) -> ApprovalRequest:
        """A decision within the hold: the held hooks print it (no await: first one wins)."""
        done = decided(
            request,
            decision,
            who=who,
            at=self._now(),
            delivered_by=BY_HOOK,
            message=message,
            session=session,
        )
        self._save(done)
        line = encode_decision_line(str(decision), message)
        for future in self._waiters.pop(request.id, set()):
            if not future.done():
                future.set_result(line)
        return done

    async def _decide_in_dialog(
        self,
        request: ApprovalRequest,
        decision: Decision,
        message: str | None,
        who: str,
        session: str | None,
    ) -> ApprovalRequest:
        """A decision after the hold: typed into the agent's dialog, once the screen shows it."""
        pane = self._panes.get(request.surface_id)
        if pane is None:
            raise delivery.not_on_screen(request, "its pane is gone")
        port = self._require_port()
        self._delivering.add(request.id)
        try:
            async with self._pane_lock(request.surface_id):
                view = await delivery.find_on_screen(port, pane, request)
                try:
                    key_plan(view, decision, message)  # refuse before anything is typed
                except MessageUndeliverable as exc:
                    raise MyttyError(ErrorCode.APPROVAL_MESSAGE_UNDELIVERABLE, str(exc)) from None
                done = decided(
                    request,
                    decision,
                    who=who,
                    at=self._now(),
                    delivered_by=BY_DIALOG,
                    message=message,
                    session=session,
                )
                # Filed before the keys: what the agent does next is this answer, not one
                # given in the pane.
                self.book.put(done)
                try:
                    await delivery.type_answer(port, pane, request, view, decision, message)
                except MyttyError:
                    self.book.put(request)
                    raise
        finally:
            self._delivering.discard(request.id)
        self._save(done)
        return done

    # -- the agent moving on without mytty -------------------------------------------------------
    def observe(self, event: AgentEvent, inserted: bool) -> None:
        """Hub observer: a run's events end its open requests (see the module docstring)."""
        if not inserted or event.hook_name in (DECIDED_HOOK, REQUESTED_HOOK):
            return
        requests = self.book.open_for_run(event.run_id)
        if not requests or event.kind in _NEUTRAL_KINDS:
            return
        if event.kind is AgentEventKind.RUNNING:
            if event.hook_name not in _TOOL_RAN_HOOKS or (event.tool_use_id or "").startswith(
                "agent:"
            ):
                return  # a subagent's activity, a background wait: not this dialog's answer
            outcome = Decision.ALLOW
        elif event.hook_name in _SUBAGENT_HOOKS:
            return
        else:
            outcome = Decision.DENY
        for request in requests:
            if request.id in self._delivering:
                continue
            self._save(
                decided(
                    request,
                    outcome,
                    who=AGENT_DIALOG,
                    at=event.occurred_at,
                    delivered_by=IN_PANE,
                )
            )
            self._release(request.id)

    async def before_event(self, event: AgentEvent) -> None:
        """Before an agent's own event is stored: a turn that ends (``succeeded``/``failed``)
        while its run waits for approval with a request open answered that request in its
        dialog, so the request's decision event (``running``, the same id every path uses) is
        stored first; the run then ends as the agent says instead of ignoring the end."""
        if event.kind not in _TURN_ENDS or event.hook_name in _SUBAGENT_HOOKS:
            return
        if self._run_state(event.run_id) is not AgentRunState.WAITING_APPROVAL:
            return
        requests = self.book.open_for_run(event.run_id)
        if requests:
            decision = self._event(requests[-1], AgentEventKind.RUNNING, DECIDED_HOOK, self._now())
            await self._hub.ingest(decision)

    def pane_gone(self, surface: SurfaceId) -> None:
        """The pane closed: its open requests expire and their held hooks are let go."""
        now = self._now()
        for request in self.book.open():
            if request.surface_id == surface and request.id not in self._delivering:
                self._save(expired(request, now))
                self._release(request.id)

    def _release(self, request_id: str) -> None:
        line = encode_decision_line(None)
        for future in self._waiters.pop(request_id, set()):
            if not future.done():
                future.set_result(line)

    # -- the audit -------------------------------------------------------------------------------
    def _save(self, request: ApprovalRequest) -> None:
        self.book.put(request)
        try:
            self._store.save_approval_soon(request).add_done_callback(_log_failure)
        except StoreError as exc:
            log.warning("could not store approval %s: %s", request.id, exc)

    async def log(
        self, seconds: float | None, caller: Caller, limit: int = LOG_LIMIT
    ) -> list[ApprovalRequest]:
        """Every request of the last ``seconds`` (None: all) that ``caller`` may see, newest
        first. ``internal-error`` when the store cannot be read."""
        since = self._now() - seconds if seconds is not None else float("-inf")
        try:
            stored = await asyncio.to_thread(self._store.read_approvals, since, limit)
        except StoreError as exc:
            raise MyttyError(ErrorCode.INTERNAL_ERROR, str(exc)) from None
        merged = {r.id: r for r in stored}
        for request in self.book.all():
            if request.requested_at >= since:
                merged[request.id] = request
        visible = [r for r in merged.values() if access.may_see(caller, r)]
        visible.sort(key=lambda r: (r.requested_at, r.id), reverse=True)
        return visible[:limit]

    def entry(self, request: ApprovalRequest) -> ApprovalEntry:
        return wire.approval_entry(request, self._now(), self._location(request.surface_id))

    def rule_table(self, rule: Rule) -> dict[str, str]:
        return rule_table(rule)

    @property
    def config_file(self) -> str:
        return str(self._config_file)

    # -- events of mytty's own -------------------------------------------------------------------
    def _event(
        self, request: ApprovalRequest, kind: AgentEventKind, hook: str, at: float
    ) -> AgentEvent:
        return AgentEvent(
            id=stable_uuid("event", hook, request.id),
            run_id=request.run_id,
            surface_id=request.surface_id,
            provider=AgentProvider(request.provider),
            kind=kind,
            occurred_at=at,
            hook_name=hook,
            tool_name=request.action.tool,
            message=f"{request.action.tool} requires approval"
            if kind is AgentEventKind.APPROVAL_REQUESTED
            else None,
        )

    async def _resolve_attention(self, request: ApprovalRequest) -> None:
        """A ``running`` event of the request's run: its attention item resolves everywhere.

        Only while the run still waits for approval: after keys in the dialog the agent's own
        events may have come first (a Stop), and a ``running`` after them would reopen the run.
        The check and the store's queue are reached with no await between them, and events
        are applied in that queue's order.
        """
        if self._run_state(request.run_id) is not AgentRunState.WAITING_APPROVAL:
            return
        try:
            event = self._event(request, AgentEventKind.RUNNING, DECIDED_HOOK, self._now())
            await self._hub.ingest(event)
        except Exception:
            log.exception("could not store the decision event of approval %s", request.id)


def _log_failure(future: asyncio.Future[object]) -> None:
    if not future.cancelled() and future.exception() is not None:
        log.warning("could not store an approval: %s", future.exception())
