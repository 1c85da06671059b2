"""An agent's own permission dialog, read off its pane's screen, and the keys that answer it.

After the hold a request is answered in the agent's own dialog, and only once the screen shows
*that* request's dialog: :func:`find_dialog` must find the provider's question, its numbered
options, a "No" option and the request's own command (or file) between them, on the screen's
bottom lines. Nothing is ever typed on a guess. What the pinned versions draw
(docs/dev/research/approvals.md §1.7, §2.7):

Claude Code 2.1.332::

    Bash command
    <description>
    ╌╌╌╌
    touch /w/f
    ╌╌╌╌
    Do you want to proceed?                 (or "Do you want to create f?", …)
    > 1. Yes
      2. Yes, and always allow access to /w from this project
      4. No
    Esc to cancel · Tab to amend

A digit selects and confirms at once. Deny with a message: move the highlight to "No",
Tab (the label becomes "No, and tell Claude what to do differently"), type, Enter. (The
sketches draw the highlight marker as ``>``: Claude draws U+276F, Codex U+203A.)

Codex 0.171.0::

    Would you like to run the following command?
    Reason: …
    $ touch /w/f
    > 1. Yes, proceed (y)
      2. Yes, and don't ask again for commands that start with `touch /w/f` (p)
      3. No, and tell Codex what to do differently (esc)

``y`` approves once; ``n`` (or Esc) refuses, which interrupts the turn. Codex's dialog has no
way to hand the model a message (its option 3 only aborts), so a deny *with a message* after
the hold is refused (:class:`MessageUndeliverable`). Text typed into it would act as hotkeys,
so only single keys are ever sent to Codex.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mytty.core import vocab
from mytty.core.approvals.model import Action, Decision

#: How many of the screen's last lines the options must be within (the dialog is the newest
#: thing drawn; an older dialog left in the scrollback is not it).
OPTIONS_WITHIN_LAST = 14
#: How many lines above the question the request's command may start.
BODY_LINES = 240
#: How much of a command (non-blank characters) is compared at each end.
COMPARED_CHARS = 200

_CLAUDE_QUESTION = re.compile(r"Do you want to [^?]{1,400}\?")
_CODEX_QUESTION = re.compile(
    r"Would you like to (?:run the following command|make the following edits)\?"
)
#: An option row; the highlight marker is Claude's U+276F or Codex's U+203A.
_OPTION = re.compile(
    r"^[\s│┃|]*(?P<mark>[\u276f\u203a>])?\s*(?P<number>[1-9])\.\s+(?P<label>.*?)[\s│┃|]*$"
)
_HOTKEY = re.compile(r"\((?P<key>[a-z]+)\)\s*$")
_BLANKS = re.compile(r"\s+")
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")

#: Claude's "No" option once Tab turned it into a text field.
CLAUDE_AMEND_LABEL = "No, and tell Claude what to do differently"


class MessageUndeliverable(ValueError):
    """The provider's dialog cannot carry a deny message (Codex)."""


@dataclass(frozen=True, slots=True)
class Option:
    number: int
    label: str
    highlighted: bool


@dataclass(frozen=True, slots=True)
class DialogView:
    """The dialog found on the screen."""

    provider: str
    question: str
    options: tuple[Option, ...]

    @property
    def yes(self) -> Option | None:
        return next(
            (o for o in self.options if _plain_label(o.label) in ("Yes", "Yes, proceed")), None
        )

    @property
    def no(self) -> Option | None:
        return next((o for o in self.options if o.label.startswith("No")), None)

    @property
    def highlighted(self) -> Option | None:
        return next((o for o in self.options if o.highlighted), None)


def _plain_label(label: str) -> str:
    return _HOTKEY.sub("", label).strip()


def _squeezed(text: str) -> str:
    """``text`` without blanks and control characters: what survives the agent's wrapping."""
    return _BLANKS.sub("", _CONTROL.sub("", text))


#: How many characters an agent may draw for one control character of a command (``^[``,
#: ``\x1b``, a replacement character, or nothing at all).
CONTROL_DRAWN = 8


def _pattern(text: str) -> re.Pattern[str] | None:
    """What must be on the screen for ``text``: its printable runs, blanks aside, in order,
    each control character between them drawn as at most :data:`CONTROL_DRAWN` characters."""
    runs = [_squeezed(run) for run in _CONTROL.split(text)]
    runs = [run for run in runs if run]
    if not runs:
        return None
    return re.compile(f".{{0,{CONTROL_DRAWN}}}".join(re.escape(run) for run in runs), re.DOTALL)


def _needles(action: Action) -> list[re.Pattern[str]] | None:
    """What must all be on the screen for the dialog to be this request's."""
    if action.command is not None:
        command = action.command
        ends = (
            [command]
            if action.truncated or len(command) <= 2 * COMPARED_CHARS
            else [
                command[:COMPARED_CHARS],
                command[-COMPARED_CHARS:],
            ]
        )
        if action.truncated:
            ends = [command[:COMPARED_CHARS]]
        patterns = [_pattern(end) for end in ends]
        return None if any(p is None for p in patterns) else [p for p in patterns if p]
    if action.paths:
        # The dialog names the file by its name (Claude shows the basename, Codex the path).
        names = [_pattern(p.rstrip("/").rsplit("/", 1)[-1]) for p in action.paths]
        return [n for n in names if n is not None] or None
    return None


def find_dialog(provider: str, screen: list[str], action: Action) -> DialogView | None:
    """The dialog on ``screen`` (its visible lines, top to bottom) when it is ``action``'s."""
    needles = _needles(action)
    if needles is None:
        return None
    question_re = _CLAUDE_QUESTION if provider == vocab.CLAUDE_CODE else _CODEX_QUESTION
    if provider not in (vocab.CLAUDE_CODE, vocab.CODEX):
        return None
    question_at = None
    for index in range(len(screen) - 1, -1, -1):
        if question_re.search(screen[index]):
            question_at = index
            break
    if question_at is None:
        return None
    options: list[Option] = []
    option_rows: list[int] = []
    for index in range(question_at + 1, len(screen)):
        found = _OPTION.match(screen[index])
        if found is None:
            continue
        number = int(found.group("number"))
        if options and number != options[-1].number + 1:
            break
        options.append(Option(number, found.group("label"), found.group("mark") is not None))
        option_rows.append(index)
    if not options or options[0].number != 1 or option_rows[-1] < len(screen) - OPTIONS_WITHIN_LAST:
        return None
    view = DialogView(provider, question_re.search(screen[question_at]).group(0), tuple(options))  # type: ignore[union-attr]
    if view.no is None or view.yes is None:
        return None
    # Claude draws the command above its question, Codex below it (above the options).
    top = max(0, question_at - BODY_LINES)
    body = _squeezed("".join(screen[top : option_rows[0]]))
    if not all(needle.search(body) for needle in needles):
        return None
    return view


# -- the keys --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Step:
    """One step of an answer: press ``key`` (a tmux key name), type ``text``, or check that
    the screen shows ``expect`` (blank-insensitive) before going on."""

    key: str | None = None
    text: str | None = None
    expect: str | None = None


def key_plan(view: DialogView, decision: Decision, message: str | None) -> list[Step]:
    """The steps that give ``decision`` (and ``message``) in the dialog ``view`` shows.

    Raises :class:`MessageUndeliverable` for a deny message the dialog cannot carry.
    """
    yes, no = view.yes, view.no
    assert yes is not None and no is not None  # find_dialog checked both
    if view.provider == vocab.CODEX:
        if decision is Decision.ALLOW:
            return [Step(key="y")]
        if message:
            raise MessageUndeliverable(
                "Codex's own dialog cannot hand the model a message (its No only interrupts "
                "the turn): deny without --message, then type your instruction into the pane"
            )
        return [Step(key="n")]
    if decision is Decision.ALLOW:
        return [Step(key=str(yes.number))]
    if not message:
        return [Step(key=str(no.number))]
    current = view.highlighted.number if view.highlighted is not None else 1
    moves = no.number - current
    steps = [Step(key="Down" if moves > 0 else "Up") for _ in range(abs(moves))]
    steps += [
        Step(key="Tab"),
        Step(expect=CLAUDE_AMEND_LABEL),
        Step(text=message),
        Step(expect="No, " + message[:24]),
        Step(key="Enter"),
    ]
    return steps


def shows(screen: list[str], needle: str) -> bool:
    """Whether ``needle`` is on ``screen``, blanks and line breaks aside."""
    return _squeezed(needle) in _squeezed("".join(screen))
