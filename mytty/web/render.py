"""The board as HTML: the fragment inside ``<main>``, the same for the first load and for every
server-sent update.

Each card has a stable ``id`` and a ``data-v`` fingerprint of what it shows: the page's script
keeps the DOM node of a card whose fingerprint did not change (a half-typed answer survives an
update) and replaces the others. Ages are the one thing that changes with time alone: the
server renders them against ``now`` and puts the moment in ``data-since``, and the script
counts on from there, so an age never makes a card look changed.
"""

from __future__ import annotations

from mytty.cli.ls import age, tokens
from mytty.core.events import parse_timestamp
from mytty.web.board import AgentCard, ApprovalCard, Board, Group, QuestionCard
from mytty.web.html import attr, esc, fingerprint, path_part


def epoch(text: str | None) -> float | None:
    try:
        return parse_timestamp(text) if text else None
    except ValueError:
        return None


def age_tag(since: float | None, now: float, prefix: str = "") -> str:
    """A ``<time>`` the script keeps counting (empty when the moment is unknown)."""
    if since is None:
        return ""
    return (
        f'<time class="age" data-since="{since:.0f}" data-prefix="{esc(prefix)}">'
        f"{esc(prefix)}{age(now - since)}</time>"
    )


def state_class(state: str) -> str:
    return "state-" + attr(state.lower())


def agent_href(card: AgentCard) -> str:
    if card.job_id:
        return f"/job/{path_part(card.job_id)}"
    return f"/pane/{path_part(card.pane_id)}"


def _who(label: str | None, location: str | None, provider: str) -> str:
    parts = [p for p in (label, location, provider) if p]
    return " · ".join(esc(p) for p in parts)


def agent_card(card: AgentCard, now: float, *, link: bool = True) -> str:
    title = esc(card.label or card.command or card.provider or "agent")
    heading = (
        f'<a class="title" href="{agent_href(card)}">{title}</a>'
        if link
        else (f'<span class="title">{title}</span>')
    )
    need = f'<span class="need">needs {esc(card.need)}</span>' if card.need else ""
    facts = [esc(card.location)] if card.location else []
    if card.tokens is not None:
        facts.append(f"{tokens(card.tokens)} tokens")
    if card.cost_usd is not None:
        facts.append(f"${card.cost_usd:.2f}")
    if card.job_id:
        facts.append(f"job {esc(card.job_id[:8])}")
    when = age_tag(card.since, now, "for ")
    if when:
        facts.append(when)
    note = f'<p class="note">{esc(card.note)}</p>' if card.note else ""
    message = (
        f'<p class="message">{esc(card.message)}</p>'
        if card.message and card.state not in ("running", "launching")
        else ""
    )
    return (
        f'<article class="card agent {state_class(card.state)}" id="agent-{attr(card.pane_id)}"'
        f' data-v="{fingerprint(card)}">'
        f'<div class="head"><span class="provider">{esc(card.provider or "?")}</span>'
        f'<span class="state">{esc(card.state)}</span>{need}</div>'
        f"{heading}{note}{message}"
        f'<p class="facts">{" · ".join(facts)}</p></article>'
    )


def _hold(card: ApprovalCard, now: float) -> str:
    until = epoch(card.hold_until)
    if card.state == "holding" and until is not None and until > now:
        left = f'<time class="countdown" data-until="{until:.0f}">{int(until - now)} s</time>'
        return (
            f'<p class="hold">The agent waits for this answer ({left} left); then it asks in '
            "its own dialog, and an answer here is typed there.</p>"
        )
    return '<p class="hold">The agent asks in its own dialog; an answer here is typed there.</p>'


def approval_card(card: ApprovalCard, now: float) -> str:
    action = card.command or card.action
    paths = "".join(f"<li><code>{esc(p)}</code></li>" for p in card.paths)
    diff = (
        f'<details class="diff" open><summary>Change</summary><pre>{esc(card.diff)}</pre></details>'
        if card.diff
        else ""
    )
    url = f"/approvals/{path_part(card.id)}"
    return (
        f'<article class="card approval" id="approval-{attr(card.id)}"'
        f' data-v="{fingerprint(card)}" data-card="approval">'
        f'<div class="head"><span class="kind">Approval</span>'
        f'<span class="who">{_who(card.label, card.location, card.provider)}</span>'
        f"{age_tag(epoch(card.requested_at), now)}</div>"
        f'<p class="tool">{esc(card.tool or "tool")}</p>'
        f'<pre class="action"><code>{esc(action)}</code></pre>'
        + (f'<ul class="paths">{paths}</ul>' if paths else "")
        + diff
        + (f'<p class="description">{esc(card.description)}</p>' if card.description else "")
        + (f'<p class="cwd">in <code>{esc(card.cwd)}</code></p>' if card.cwd else "")
        + (
            '<p class="hint">Only the start of a long action is shown: its pane has all of it.</p>'
            if card.truncated
            else ""
        )
        + ('<p class="hint">Its lead may answer it too.</p>' if card.approver == "lead" else "")
        + _hold(card, now)
        + f'<form class="answer" method="post" action="{url}" data-async>'
        '<input type="hidden" name="decision" value="allow">'
        '<button type="submit" class="approve">Approve</button></form>'
        f'<form class="answer deny" method="post" action="{url}" data-async>'
        '<input type="hidden" name="decision" value="deny">'
        "<label>Message to the agent (optional)"
        '<textarea name="message" maxlength="2000" rows="2"></textarea></label>'
        '<button type="submit" class="deny">Deny</button></form>'
        '<p class="error" role="alert" hidden></p></article>'
    )


def question_card(card: QuestionCard, now: float) -> str:
    question = esc(card.question) if card.question else "The agent waits for your answer."
    if card.answerable:
        answer = (
            f'<form class="answer" method="post" action="/questions/{path_part(card.run_id)}"'
            " data-async><label>Your answer"
            '<textarea name="answer" required maxlength="4000" rows="2"></textarea></label>'
            '<button type="submit" class="send">Send</button></form>'
        )
    else:
        answer = '<p class="hint">The agent is not waiting for input now.</p>'
    return (
        f'<article class="card question" id="question-{attr(card.run_id)}"'
        f' data-v="{fingerprint(card)}" data-card="question">'
        f'<div class="head"><span class="kind">Question</span>'
        f'<span class="who">{_who(card.label, card.location, card.provider)}</span>'
        f"{age_tag(epoch(card.asked_at), now)}</div>"
        f'<p class="question-text">{question}</p>{answer}'
        '<p class="error" role="alert" hidden></p></article>'
    )


def group_section(group: Group, now: float) -> str:
    cards = "".join(agent_card(a, now) for a in group.agents)
    return (
        f'<section class="group" id="group-{fingerprint(group.session)}">'
        f"<h2>{esc(group.session)}</h2>{cards}</section>"
    )


def summary(board: Board) -> str:
    agents = board.agent_count
    asks = len(board.approvals) + len(board.questions)
    parts = [f"{agents} agent{'s' if agents != 1 else ''}"]
    if board.waiting_count:
        parts.append(f"{board.waiting_count} waiting for you")
    if asks:
        parts.append(f"{asks} to answer")
    return " · ".join(parts)


def board_fragment(board: Board, now: float) -> str:
    """What ``<main>`` holds for ``board`` at ``now``."""
    if board.problem is not None:
        return (
            f'<div class="board" data-now="{now:.0f}">'
            f'<p class="problem" role="alert">{esc(board.problem)}</p></div>'
        )
    asks = [approval_card(a, now) for a in board.approvals]
    asks += [question_card(q, now) for q in board.questions]
    needs = (
        f'<section class="needs" id="needs"><h2>Needs you</h2>{"".join(asks)}</section>'
        if asks
        else ""
    )
    groups = "".join(group_section(g, now) for g in board.groups)
    if not board.groups:
        groups = (
            '<p class="empty">No agents yet. Spawn one with '
            "<code>mytty-ctl agent spawn</code>; it shows here at once.</p>"
        )
    return (
        f'<div class="board" data-now="{now:.0f}">'
        f'<p class="summary" id="summary">{esc(summary(board))}</p>'
        f"{needs}{groups}</div>"
    )
