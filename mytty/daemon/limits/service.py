"""Parked workers: their parks filled in, their sends held, and each continued after its reset.

The job tracker parks a job whose run stopped at a usage limit (:mod:`mytty.core.jobs.tracker`);
this service does the rest, as the registry's ``after_reconcile`` and an observer of the hub:

- **A new park** gets what the provider said (the reset and window its transcript or rollout
  records, :meth:`~mytty.daemon.transcripts.reader.TranscriptReader.limit_facts`; the hooks give
  neither) and the account it applies to (:mod:`mytty.daemon.limits.accounts`). Facts read after
  the hook's event (the transcript is read right after it) are added when they come.
- **The plan** (:func:`mytty.core.limits.park.plan`): reset + margin, one account at a time
  stagger apart, doubling after a re-park, nothing for a held park or one without a reset. One
  timer on the controller's clock waits for the earliest slot; every change replans.
- **Continuing** a job: its park notes ``continued_at`` (stored first, so a restart does not
  send it twice), then, when its agent is still in its pane's foreground, the continuation
  prompt is typed into that live session (a limit dialog closed first:
  :mod:`mytty.daemon.limits.continuation`); when the process is gone, the worker is restarted
  on its own conversation in a new pane, as ``mytty resume`` does. The job's next run ends the
  park. If no new run starts within the launch window, the continuation counts as a re-park
  (it backs off), and a job held that way gets an attention item.
- **The agent's own continuation** (a subscriber's Claude goes on 30 to 90 s after the reset)
  starts that next run first: the park ends and mytty sends nothing.
- **Held sends** (``agent send`` to a parked job) are delivered in order once the job went on:
  each when the run before it ended, as a follow-up (the job re-armed first, so the lead's
  ``agent wait`` sees one job end, with the last answer).

A restart keeps all of it: parks, held sends and streaks are stored with the job, the plan is
made again from them (:meth:`LimitService.start`), and a continuation sent before the restart is
still waited for.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable, Coroutine, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any, Protocol

from mytty.core.admission.accounts import AccountLimit
from mytty.core.attention.items import AttentionItem
from mytty.core.config import LimitSettings
from mytty.core.errors import ErrorCode, MyttyError
from mytty.core.events import (
    AgentEvent,
    AgentEventKind,
    AgentProvider,
    WorkerProvider,
    format_timestamp,
)
from mytty.core.ids import JobId, RunId, SurfaceId, stable_uuid
from mytty.core.jobs.tracker import (
    REARMABLE_JOB_STATES,
    AgentJob,
    AgentJobState,
    is_terminal,
    prepare_for_follow_up,
)
from mytty.core.limits.account import Account
from mytty.core.limits.facts import LimitFacts
from mytty.core.limits.park import (
    HeldSend,
    LimitRules,
    Park,
    Slot,
    account_of_park,
    describe,
    held_by_streak,
    newest_until,
    plan,
)
from mytty.daemon.agents import AgentHub
from mytty.daemon.clock import Clock, Timer
from mytty.daemon.jobs.registry import JobRegistry
from mytty.daemon.limits.accounts import account_of_process
from mytty.daemon.limits.continuation import (
    DIALOG_CLOSE_S,
    ECHO_WAIT_S,
    ENTER_AFTER_ECHO_S,
    Dialog,
    DialogStuck,
    clear_dialogs,
    type_and_submit,
)
from mytty.daemon.panes.identity import Pane, PaneRegistry
from mytty.protocol import wire
from mytty.protocol.replies import LimitsReply, ResumeEntry
from mytty.tmux.port import TmuxPort

log = logging.getLogger(__name__)

_PARKED = AgentJobState.PARKED
#: A timer may fire a hair early; a slot this close to now counts as due.
_DUE_SLACK_S = 0.01
#: How long a park waits for the provider's record (the transcript or rollout row with the
#: reset) after the hook said "limit"; past it, the provider gave no reset.
FACTS_GRACE_S = 3.0


class LimitContext(Protocol):
    """What the limits service uses of the controller."""

    @property
    def jobs(self) -> JobRegistry: ...
    @property
    def hub(self) -> AgentHub: ...
    @property
    def panes(self) -> PaneRegistry: ...
    def require_port(self) -> TmuxPort: ...
    def pane_lock(self, surface_id: str) -> asyncio.Lock: ...
    def agent_in(self, pane: Pane) -> tuple[AgentProvider | None, int | None]: ...


class Restarter(Protocol):
    async def restart(self, job_id: str, prompt: str) -> ResumeEntry: ...


@dataclass(frozen=True, slots=True)
class LimitedAccount:
    """An account with parked jobs: what ``agent spawn`` for it is told (the admission check)."""

    account: Account
    #: The reset its newest park named (None: unknown), and when mytty next continues a job.
    until: float | None
    next_resume: float | None
    parked_jobs: int
    #: When its last parked job is planned to go on (a new worker of it starts after that,
    #: one stagger later); None: some wait for ``limits resume`` (no reset, held).
    clears_at: float | None = None

    @property
    def detail(self) -> str:
        """Why a new worker of this account waits, naming the reset (admission's message)."""
        if not self.parked_jobs and self.clears_at is not None:
            return (
                f"{self.account.label}'s parked workers went on from their usage limit; new "
                f"ones start a stagger later, at {format_timestamp(self.clears_at)}"
            )
        when = format_timestamp(self.until) if self.until is not None else "an unknown time"
        return (
            f"{self.account.label} is at its usage limit until {when} ({self.parked_jobs} "
            "parked worker(s) go on first)"
        )


class ParkedAccounts:
    """Admission's account port (:class:`~mytty.core.admission.accounts.AccountLimits`) as the
    parked jobs answer it: a provider whose account has parked jobs is limited, so a spawn for
    it is queued (``usage-limit``) or, with ``--no-queue``, refused (``provider-limited``).

    ``until`` is when the account's parked workers will all have gone on, plus a stagger (the
    new worker starts after them); None while one of them waits for ``limits resume``. For one
    stagger after the last one went on the account still counts as limited, so the queue does
    not burst back into the limit either.
    """

    __slots__ = ("_service",)

    def __init__(self, service: LimitService) -> None:
        self._service = service

    def limit(self, provider: WorkerProvider, now: float) -> AccountLimit | None:
        limited = self._service.limited(provider, now)
        return None if limited is None else AccountLimit(limited.clears_at, limited.detail)


class LimitService:
    def __init__(
        self,
        ctx: LimitContext,
        *,
        restarter: Restarter,
        clock: Clock,
        settings: Callable[[], LimitSettings],
        limit_facts: Callable[[SurfaceId, RunId], LimitFacts | None],
        notify_item: Callable[[AttentionItem], None],
        launch_window: float,
        environment: Mapping[str, str] | None = None,
        dialog_close_s: float = DIALOG_CLOSE_S,
        echo_s: float = ECHO_WAIT_S,
        settle_s: float = ENTER_AFTER_ECHO_S,
    ) -> None:
        self._ctx = ctx
        self._dialog_close_s = dialog_close_s
        #: Typing a prompt: how long it may take to show, and the wait before its Enter.
        self._echo_s = echo_s
        self._settle_s = settle_s
        self._restarter = restarter
        self._clock = clock
        self._settings = settings
        self._limit_facts = limit_facts
        self._notify_item = notify_item
        self._window = launch_window
        #: The environment a worker of this controller starts with (an account's fallback
        #: when its process cannot be read, and the account of a worker not spawned yet).
        self._environment = dict(os.environ if environment is None else environment)
        self._slots: dict[JobId, Slot] = {}
        self._last_continued: dict[str, float] = {}
        #: Accounts whose continuation is being typed or restarted now.
        self._typing: set[str] = set()
        self._timer: Timer | None = None
        self._timer_at: float | None = None
        self._replan_due = False
        self._started = False
        self._tasks: set[asyncio.Task[None]] = set()

    # -- lifecycle ------------------------------------------------------------------------------
    def start(self) -> None:
        """Plan from the stored parks (after the jobs' startup sweep); a continuation sent
        before a restart is waited for again."""
        self._started = True
        now = self._clock.now()
        for job in self._ctx.jobs.parked():
            if job.park is not None and not job.park.settled:  # stopped while it waited
                self._ctx.jobs.update(job.job_id, _with_park(replace(job.park, settled=True)))
                job = self._ctx.jobs.current(job.job_id)
            park = job.park
            if park is not None and park.continued_at is not None:
                delay = max(0.0, park.continued_at + self._window - now)
                self._check_taken_later(job.job_id, park.continued_at, delay)
        self._replan()

    def settings_changed(self) -> None:
        """``[limits]`` changed (config.toml saved): plan every parked job again."""
        self._replan_soon()

    async def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)

    async def wait_idle(self) -> None:
        """Until every continuation and delivery started so far is done (tests)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    # -- what the registry and the hub tell it ----------------------------------------------------
    def observe(self, event: AgentEvent, inserted: bool) -> None:
        """The hub's observer: a limit settles the pane's job at once (nobody may be waiting
        on it); any event of a parked job's pane may be its next run, and any of a job with
        held sends may end the turn the next one waits for."""
        if not inserted:
            return
        job = self._ctx.jobs.newest_in_pane(event.surface_id)
        if job is None or is_terminal(job.state):
            return
        if event.kind is AgentEventKind.LIMIT_REACHED or job.state is _PARKED or job.held_sends:
            current = self._ctx.jobs.current(job.job_id)
            if event.kind is AgentEventKind.LIMIT_REACHED and current.state is _PARKED:
                self._add_facts(current)

    def after_reconcile(self, before: AgentJob, after: AgentJob) -> AgentJob:
        """The registry's seam (see :attr:`JobRegistry.after_reconcile`)."""
        park = after.park
        if after.state is _PARKED and park is not None and park.account is None:
            after = self._fill(after)  # a park the tracker just made
            self._replan_soon()
        elif before.state is _PARKED and after.state is not _PARKED:
            self._park_ended(before, after)
            self._replan_soon()
        if after.held_sends and after.state in REARMABLE_JOB_STATES:
            after = self._deliver_next(after)
        return after

    def resumes_at(self, job: AgentJob) -> float | None:
        """When mytty plans to continue ``job`` (None: not planned)."""
        slot = self._slots.get(job.job_id)
        return slot.at if slot is not None and job.state is _PARKED else None

    # -- commands ---------------------------------------------------------------------------------
    def hold_send(self, job_id: str, text: str, press_enter: bool) -> bool:
        """``agent send`` to ``job_id``: held when the job is parked, or when earlier sends
        still wait (the order is kept); True when held."""
        job = self._ctx.jobs.current(job_id)
        if job.state is not _PARKED and not job.held_sends:
            return False
        send = HeldSend(text, press_enter)
        self._ctx.jobs.update(job_id, lambda j: replace(j, held_sends=(*j.held_sends, send)))
        log.info("job %s is parked: send held (%d waiting)", job_id, len(job.held_sends) + 1)
        return True

    def resume_now(self, job_ids: Iterable[str] | None) -> LimitsReply:
        """``limits resume``: the named parked jobs (None: every one) go on from now, one
        account at a time; a hold is lifted. Raises ``job-not-parked`` for a named job that is
        not parked (before changing anything)."""
        jobs = self._named(job_ids)
        now = self._clock.now()
        for job in jobs:
            park = job.park
            if park is None or park.continued_at is not None:
                continue
            resumed = replace(park, held=False, note=None, resume_now_at=now)
            self._ctx.jobs.update(job.job_id, _with_park(resumed))
        self._replan()
        self._fire()  # what is due now goes now (the stagger still applies)
        return self.report()

    def hold(self, job_ids: Iterable[str]) -> LimitsReply:
        """``limits hold``: the jobs stay parked until ``limits resume``."""
        for job in self._named(job_ids):
            if job.park is not None:
                held = replace(job.park, held=True, note=None, resume_now_at=None)
                self._ctx.jobs.update(job.job_id, _with_park(held))
        self._replan()
        return self.report()

    def _named(self, job_ids: Iterable[str] | None) -> list[AgentJob]:
        if job_ids is None:
            return [self._ctx.jobs.current(j.job_id) for j in self._ctx.jobs.parked()]
        named = [self._ctx.jobs.current(job_id) for job_id in job_ids]
        jobs = list({j.job_id: j for j in named}.values())  # by id and prefix: once
        for job in jobs:
            if job.state is not _PARKED:
                raise MyttyError(
                    ErrorCode.JOB_NOT_PARKED, f"job {job.job_id} is {job.state.value}, not parked"
                )
        return jobs

    def report(self) -> LimitsReply:
        """Every parked job and every account with one (``limits list``)."""
        parked = self._ctx.jobs.parked()
        entries = [wire.limit_job_entry(job, self.resumes_at(job)) for job in parked]
        by_account: dict[str, list[AgentJob]] = {}
        for job in parked:
            if job.park is not None:
                by_account.setdefault(account_of_park(job.job_id, job.park), []).append(job)
        accounts = []
        for key, members in by_account.items():
            parks = [j.park for j in members if j.park is not None]
            times = [s.at for j in members if (s := self._slots.get(j.job_id)) is not None]
            accounts.append(
                wire.limit_account_entry(
                    key,
                    parks[0].account_label if parks else None,
                    members[0].provider.agent_provider.value,
                    newest_until(parks),
                    min(times, default=None),
                    (j.job_id for j in members),
                )
            )
        return wire.limits_reply(accounts, entries)

    def limited(self, provider: WorkerProvider, now: float) -> LimitedAccount | None:
        """The parked account a new worker of ``provider`` would use, if its account has parked
        jobs (the worker environment's account), or had one go on less than a stagger before
        ``now``: what ``agent spawn`` waits for."""
        stagger = self._rules().stagger
        parked = [j for j in self._ctx.jobs.parked() if j.provider is provider]
        if not parked and all(now >= t + stagger for t in self._last_continued.values()):
            return None  # nothing to look at (the account is read from its config file)
        account = account_of_process(provider.agent_provider.value, None, self._environment)
        members = [j for j in parked if j.park is not None and j.park.account == account.key]
        if not members:
            last = self._last_continued.get(account.key)
            clears = last + stagger if last is not None else None
            if clears is None or now >= clears:
                return None
            return LimitedAccount(account, None, None, 0, clears)
        parks = [j.park for j in members if j.park is not None]
        times = [s.at for j in members if (s := self._slots.get(j.job_id)) is not None]
        planned = len(times) == len(members)
        clears = max(times) + stagger if times and planned else None
        return LimitedAccount(
            account, newest_until(parks), min(times, default=None), len(members), clears
        )

    # -- a new park -------------------------------------------------------------------------------
    def _fill(self, job: AgentJob) -> AgentJob:
        """The facts and the account of a park the tracker just made."""
        park = job.park
        assert park is not None
        facts = self._limit_facts(job.surface_id, park.run_id)
        account = self._account(job)
        park = replace(
            park,
            until=facts.resets_at if facts is not None else None,
            limit=facts.window if facts is not None else None,
            account=account.key,
            account_label=account.label,
            note="parked again right after it went on, too many times in a row"
            if park.held
            else None,
            settled=facts is not None,
        )
        if not park.settled:
            run = park.run_id
            self._clock.call_later(FACTS_GRACE_S, lambda: self._settle(job.job_id, run))
        log.info(
            "job %s (%s) parked at its usage limit: until %s, window %s, account %s, streak %d",
            job.job_id,
            job.provider.value,
            park.until,
            park.limit,
            account.label,
            park.streak,
        )
        if park.held:
            self._hold_item(job, park)
        return replace(job, park=park, message=self._describe(job.job_id, park, None))

    def _add_facts(self, job: AgentJob) -> None:
        """Facts that came after the park (the transcript is read right after the hook)."""
        park = job.park
        if park is None or park.settled:
            return
        facts = self._limit_facts(job.surface_id, park.run_id)
        if facts is None:
            return
        found = replace(park, until=facts.resets_at, limit=park.limit or facts.window, settled=True)
        self._ctx.jobs.update(job.job_id, lambda j: replace(j, park=found) if j.park == park else j)
        self._replan()

    def _settle(self, job_id: str, run_id: RunId) -> None:
        """No record came in time: the park stands as the provider left it (no reset)."""
        try:
            job = self._ctx.jobs.current(job_id)
        except MyttyError:
            return
        park = job.park
        if job.state is not _PARKED or park is None or park.run_id != run_id or park.settled:
            return
        self._add_facts(job)  # a last look
        job = self._ctx.jobs.current(job_id)
        if job.park is not None and not job.park.settled:
            settled = replace(job.park, settled=True)
            self._ctx.jobs.update(job_id, _with_park(settled))
            log.info("job %s: its provider gave no reset time; it waits for limits resume", job_id)
            self._replan()

    def _account(self, job: AgentJob) -> Account:
        pane = self._ctx.panes.by_surface.get(job.surface_id)
        provider = job.provider.agent_provider
        pid = None
        if pane is not None:
            found, agent_pid = self._ctx.agent_in(pane)
            pid = agent_pid if found is provider else None
        return account_of_process(provider.value, pid, self._environment)

    def _park_ended(self, before: AgentJob, after: AgentJob) -> None:
        park = before.park
        if park is None:
            return
        if park.continued_at is not None:
            account = account_of_park(before.job_id, park)
            self._last_continued[account] = max(
                self._last_continued.get(account, park.continued_at), park.continued_at
            )
            how = "on mytty's continuation"
        else:
            how = "by itself" if after.state is not AgentJobState.LOST else "(its pane is gone)"
        log.info("job %s went on %s: %s", before.job_id, how, after.state.value)

    # -- planning ---------------------------------------------------------------------------------
    def _rules(self) -> LimitRules:
        s = self._settings()
        return LimitRules(s.resume_margin_seconds, s.stagger_seconds, s.auto_resume)

    def _describe(self, job_id: str, park: Park, at: float | None) -> str:
        return describe(park, job_id, at, self._settings().auto_resume)

    def _replan_soon(self) -> None:
        if self._replan_due or not self._started:
            return
        self._replan_due = True
        try:
            asyncio.get_running_loop().call_soon(self._replan)
        except RuntimeError:  # no loop (unit tests of the rules): plan now
            self._replan()

    def _replan(self) -> None:
        self._replan_due = False
        if not self._started:
            return
        parked = [(j.job_id, j.park) for j in self._ctx.jobs.parked() if j.park is not None]
        slots = plan(parked, self._rules(), self._last_continued)
        self._slots = {slot.job_id: slot for slot in slots}
        for job_id, park in parked:
            slot = self._slots.get(job_id)
            message = self._describe(job_id, park, slot.at if slot is not None else None)
            self._ctx.jobs.update(job_id, _with_message(message))
        self._arm(min((slot.at for slot in slots), default=None))

    def _arm(self, at: float | None) -> None:
        if at == self._timer_at and self._timer is not None:
            return
        if self._timer is not None:
            self._timer.cancel()
        self._timer, self._timer_at = None, at
        if at is not None:
            delay = max(0.0, at - self._clock.now()) + _DUE_SLACK_S
            self._timer = self._clock.call_later(delay, self._fire)

    def _fire(self) -> None:
        self._timer = self._timer_at = None
        try:
            now = self._clock.now()
            for slot in sorted(self._slots.values(), key=lambda s: (s.at, s.job_id)):
                # One of its account is still being typed: the next goes a stagger after it.
                if slot.at <= now + _DUE_SLACK_S and slot.account not in self._typing:
                    self._continue(slot.job_id, now)
        except Exception:  # a timer callback: log it, plan again anyway
            log.exception("could not continue the parked jobs due now")
        self._replan()

    # -- continuing ---------------------------------------------------------------------------
    def _continue(self, job_id: str, now: float) -> None:
        job = self._ctx.jobs.current(job_id)
        park = job.park
        if job.state is not _PARKED or park is None or park.continued_at is not None:
            return
        continued = replace(park, continued_at=now, resume_now_at=None)
        self._ctx.jobs.update(job_id, lambda j: replace(j, park=continued))
        account = account_of_park(job.job_id, park)
        self._last_continued[account] = now
        self._typing.add(account)
        self._spawn(self._send_continuation_of(account, job_id, now))
        self._check_taken_later(job_id, now, self._window)

    async def _send_continuation_of(self, account: str, job_id: str, at: float) -> None:
        """Send it; the account's next continuation is planned a stagger after this one
        reached the agent (typing waits for the screen, which may take a while)."""
        try:
            await self._send_continuation(job_id, at)
        finally:
            self._typing.discard(account)
            now = self._clock.now()
            self._last_continued[account] = max(self._last_continued.get(account, now), now)
            self._replan_soon()

    async def _send_continuation(self, job_id: str, at: float) -> None:
        job = self._ctx.jobs.current(job_id)
        if job.state is not _PARKED or job.park is None or job.park.continued_at != at:
            return  # it went on meanwhile (by itself), or was held
        prompt = self._settings().continuation_prompt
        pane = self._ctx.panes.by_surface.get(job.surface_id)
        provider = job.provider.agent_provider
        alive = pane is not None and self._ctx.agent_in(pane)[0] is provider
        try:
            if pane is not None and alive:
                await self._type_continuation(pane, provider, prompt)
                log.info("job %s: continuation typed into pane %s", job_id, pane.tmux_id)
                return
            entry = await self._restarter.restart(job_id, prompt)
        except DialogStuck as exc:
            self._hold_now(job_id, f"{exc}; nothing was typed")
            return
        except MyttyError as exc:
            self._hold_now(job_id, f"mytty could not reach its pane: {exc.message}")
            return
        skipped = entry.get("skipped")
        if skipped is not None or not entry.get("resumed"):
            self._hold_now(job_id, f"its process is gone and mytty could not restart it: {skipped}")
            return
        log.info("job %s: its process was gone; restarted on its conversation", job_id)
        self._replan_soon()

    async def _type_continuation(self, pane: Pane, provider: AgentProvider, prompt: str) -> None:
        port = self._ctx.require_port()

        async def screen() -> str:
            return (await port.capture(pane.tmux_id)).text

        async def press(dialog: Dialog) -> None:
            if dialog.literal:
                await port.send_text(pane.tmux_id, dialog.key)
            else:
                await port.send_key(pane.tmux_id, dialog.key)

        async with self._ctx.pane_lock(pane.surface_id):
            closed = await clear_dialogs(provider, screen, press, close_s=self._dialog_close_s)
            if closed is not None:
                log.info("pane %s: closed the %s dialog before typing", pane.tmux_id, closed)
            await self._submit(pane, prompt)

    def _check_taken_later(self, job_id: str, at: float, delay: float) -> None:
        self._clock.call_later(delay + _DUE_SLACK_S, lambda: self._check_taken(job_id, at))

    def _check_taken(self, job_id: str, at: float) -> None:
        """The continuation sent at ``at`` started no run: it counts as a re-park."""
        try:
            job = self._ctx.jobs.current(job_id)
        except MyttyError:
            return
        park = job.park
        if job.state is not _PARKED or park is None or park.continued_at != at:
            return
        streak = park.streak + 1
        held = held_by_streak(streak)
        again = replace(
            park,
            continued_at=None,
            until=self._clock.now(),
            streak=streak,
            held=held,
            note="its continuations started no new turn, too many times in a row" if held else None,
        )
        log.warning("job %s: the continuation started no new turn; backing off", job_id)
        updated = self._ctx.jobs.update(
            job_id, lambda j: replace(j, park=again, limit_streak=streak)
        )
        if held:
            self._hold_item(updated, again)
        self._replan()

    def _hold_now(self, job_id: str, why: str) -> None:
        job = self._ctx.jobs.current(job_id)
        if job.state is not _PARKED or job.park is None:
            return
        held = replace(job.park, held=True, note=why, continued_at=None, resume_now_at=None)
        log.warning("job %s stays parked: %s", job_id, why)
        updated = self._ctx.jobs.update(job_id, lambda j: replace(j, park=held))
        self._hold_item(updated, held)
        self._replan()

    def _hold_item(self, job: AgentJob, park: Park) -> None:
        """One attention item when mytty stops continuing a parked job by itself."""
        item = self._ctx.hub.attention.add_limit_hold(
            stable_uuid("limit-hold", job.job_id, park.run_id, str(park.streak)),
            job.job_id,
            job.surface_id,
            job.provider.agent_provider,
            self._describe(job.job_id, park, None),
            self._clock.now(),
        )
        if item is not None:
            self._ctx.hub.bump()
            self._notify_item(item)

    # -- held sends -----------------------------------------------------------------------------
    def _deliver_next(self, job: AgentJob) -> AgentJob:
        """The first held send, as a follow-up of the run that just ended (re-armed first)."""
        send, rest = job.held_sends[0], job.held_sends[1:]
        now = self._clock.now()
        rearmed = prepare_for_follow_up(
            replace(job, held_sends=rest), self._ctx.jobs.run_ids(job), now, self._window
        )
        if rearmed.state is not AgentJobState.LAUNCHING:
            return job
        self._spawn(self._deliver(job.job_id, job.surface_id, send))
        return rearmed

    async def _deliver(self, job_id: str, surface_id: SurfaceId, send: HeldSend) -> None:
        pane = self._ctx.panes.by_surface.get(surface_id)
        if pane is None:
            log.warning("job %s: its pane went before a held send could be delivered", job_id)
            return
        async with self._ctx.pane_lock(surface_id):
            if send.press_enter:
                await self._submit(pane, send.text)
            else:
                await self._ctx.require_port().send_text(pane.tmux_id, send.text)
        log.info("job %s: a held send was delivered", job_id)

    async def _submit(self, pane: Pane, text: str) -> None:
        """Type ``text`` into the agent and press Enter once it shows (call under the pane's
        lock): an Enter hard on the text's heels is a newline to Codex (continuation)."""
        port = self._ctx.require_port()

        async def screen() -> str:
            return (await port.capture(pane.tmux_id)).text

        shown = await type_and_submit(
            screen,
            lambda: port.send_text(pane.tmux_id, text),
            lambda: port.send_key(pane.tmux_id, "Enter"),
            text,
            echo_s=self._echo_s,
            settle_s=self._settle_s,
        )
        if not shown:
            log.warning("pane %s: the typed text did not show; Enter pressed anyway", pane.tmux_id)

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop (unit tests of the rules): nothing to type into
            coro.close()
            return
        task = loop.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and (exc := task.exception()) is not None:
            log.error("a parked job's continuation or held send failed: %r", exc)


def _with_park(park: Park) -> Callable[[AgentJob], AgentJob]:
    return lambda job: replace(job, park=park)


def _with_message(message: str) -> Callable[[AgentJob], AgentJob]:
    return lambda job: replace(job, message=message) if job.state is _PARKED else job
