"""A job's (or an agent pane's) detail: its card, its last answer, its screen and its runs.

Read with ``agent result JOB`` (the snapshot, the screen as ``read`` returns it, the last
assistant message) and ``explain JOB`` (the runs and their newest stored events); a pane
without a job with ``read PANE`` and ``explain PANE``. Read-only: nothing here types into the
pane. The screen shows its last :data:`SCREEN_LINES` lines (a phone cannot scroll 10,000).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mytty.core.errors import MyttyError
from mytty.web.board import AgentCard, agent_of
from mytty.web.control import Controller, Snapshot
from mytty.web.html import esc, fingerprint
from mytty.web.render import age_tag, agent_card, epoch

SCREEN_LINES = 300


@dataclass(frozen=True, slots=True)
class Step:
    at: str
    kind: str
    what: str
    effect: str | None


@dataclass(frozen=True, slots=True)
class RunView:
    run_id: str
    state: str | None
    started_at: str | None
    steps: tuple[Step, ...]


@dataclass(frozen=True, slots=True)
class Detail:
    card: AgentCard | None
    result: str | None
    screen: str
    summary: str | None
    runs: tuple[RunView, ...]
    problem: str | None = None


def _runs(explanation: dict[str, Any]) -> tuple[RunView, ...]:
    shown = explanation.get("run") or {}
    order: list[str] = []
    steps: dict[str, list[Step]] = {}
    for item in explanation.get("evidence", []):
        run = str(item.get("runID", ""))
        if run not in steps:
            order.append(run)
            steps[run] = []
        steps[run].append(
            Step(
                str(item.get("occurredAt", "")),
                str(item.get("kind", "")),
                str(item.get("what", "")),
                item.get("effect") if isinstance(item.get("effect"), str) else None,
            )
        )
    shown_id = str(shown.get("runID", "")) if isinstance(shown, dict) else ""
    if shown_id and shown_id not in steps:
        order.append(shown_id)
        steps[shown_id] = []
    views = [
        RunView(
            run,
            str(shown.get("state")) if run == shown_id else None,
            str(shown.get("startedAt")) if run == shown_id and shown.get("startedAt") else None,
            tuple(steps[run]),
        )
        for run in order
    ]
    # Newest run first: the one whose newest step is latest.
    views.sort(key=lambda r: max((s.at for s in r.steps), default=r.started_at or ""), reverse=True)
    return tuple(views)


async def gather(controller: Controller, kind: str, ident: str, snapshot: Snapshot) -> Detail:
    """The detail of job ``ident`` (``kind`` ``job``) or pane ``ident`` (``pane``), its pane
    as ``snapshot`` (the board's last look) has it, if it is still there."""
    try:
        if kind == "job":
            result = await controller.ask("agent result", {"JOB": {"rawValue": ident}})
            job: dict[str, Any] | None = result.get("job")
            content = result.get("content") or {}
            answer = result.get("lastAssistantMessage")
        else:
            job = None
            content = (await controller.ask("read", {"PANE": ident})).get("content") or {}
            answer = None
        try:
            explanation = await controller.ask("explain", {"PANE|JOB": ident})
        except MyttyError:
            explanation = {}
    except MyttyError as exc:
        return Detail(None, None, "", None, (), problem=f"{exc.code.value}: {exc.message}")
    pane_id = ident if kind == "pane" else str((job or {}).get("paneID", {}).get("rawValue", ""))
    pane = next(
        (p for p in snapshot.panes if str(p.get("paneID", "")).upper() == pane_id.upper()), None
    )
    if pane is None and kind == "pane":
        pane = {"paneID": pane_id}  # newer than the board's last look
    return Detail(
        agent_of(pane, job, snapshot.places.get(pane_id.upper())),
        answer if isinstance(answer, str) else None,
        str(content.get("text", "")),
        explanation.get("summary") if isinstance(explanation.get("summary"), str) else None,
        _runs(explanation),
    )


def _screen(text: str) -> str:
    lines = text.split("\n")
    note = ""
    if len(lines) > SCREEN_LINES:
        note = f'<p class="hint">The last {SCREEN_LINES} of {len(lines)} lines.</p>'
        lines = lines[-SCREEN_LINES:]
    return f'{note}<pre class="screen">{esc(chr(10).join(lines))}</pre>'


def _run(run: RunView, now: float) -> str:
    head = f"run {esc(run.run_id[:8])}"
    if run.state:
        head += f" · {esc(run.state)}"
    started = age_tag(epoch(run.started_at), now)
    items = "".join(
        f"<li>{age_tag(epoch(s.at), now)} <b>{esc(s.kind)}</b> {esc(s.what)}"
        + (f' <span class="effect">{esc(s.effect)}</span>' if s.effect else "")
        + "</li>"
        for s in run.steps
    )
    return f'<h3>{head} {started}</h3><ol class="steps">{items}</ol>'


def detail_fragment(detail: Detail, now: float) -> str:
    back = '<p class="back"><a href="/">All agents</a></p>'
    if detail.problem is not None:
        return (
            f'<div class="detail" data-now="{now:.0f}">{back}'
            f'<p class="problem" role="alert">{esc(detail.problem)}</p></div>'
        )
    card = agent_card(detail.card, now, link=False) if detail.card else ""
    result = (
        f'<pre class="result">{esc(detail.result)}</pre>'
        if detail.result
        else '<p class="hint">No answer yet: the worker has not finished a turn.</p>'
    )
    summary = f'<p class="summary">{esc(detail.summary)}</p>' if detail.summary else ""
    runs = "".join(_run(r, now) for r in detail.runs) or '<p class="hint">No runs yet.</p>'
    return (
        f'<div class="detail" data-now="{now:.0f}">{back}{card}'
        f'<section id="result" data-v="{fingerprint(detail.result)}"><h2>Result</h2>{result}'
        "</section>"
        f'<section id="screen-section" data-v="{fingerprint(detail.screen)}"><h2>Screen</h2>'
        f"{_screen(detail.screen)}</section>"
        f'<section id="runs" data-v="{fingerprint(detail.runs, detail.summary)}"><h2>Runs</h2>'
        f"{summary}{runs}</section></div>"
    )
