"""How a worker agent is started: its argv per provider, and the contract appended to its task.

``agent spawn`` runs ``<binary> [<model flag> <model>] <mode flags> -- '<task + contract>'``
(:func:`build_launch_argv`). The controller does not type it: it writes the quoted line
(:func:`mytty.core.quoting.shell_line`) into a private launch file that the new pane's shell runs
once it has started (``shell-integration/mytty-shell``), so the task arrives byte for byte and
never lands in shell history.

Access modes map to fixed flags per provider (:data:`ACCESS_FLAGS`); ``inherit`` copies the lead's
flags instead (:mod:`mytty.core.jobs.inherit_flags`), and :mod:`mytty.core.jobs.access` decides which.
Codex workers also get :data:`CODEX_WORKER_FLAGS`, Claude workers :data:`CLAUDE_WORKER_FLAGS`.

Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from mytty.core.events import WorkerProvider
from mytty.core.quoting import shell_line
from mytty.core.vocab import REVIEW, WORKSPACE_WRITE

if TYPE_CHECKING:
    from mytty.core.vocab import FixedAccessMode as Access

# --------------------------------------------------------------------------------------------
# The worker contract
# --------------------------------------------------------------------------------------------

_CONTRACT_LINES: tuple[str, ...] = (
    "Ground rules for this run (you were started by mytty as a worker):",
    "- Work inside the current working directory unless the task above says otherwise.",
    "- Keep going until the task is finished; after changes, run the tests that cover them.",
    (
        "- Do not start hidden or built-in sub-agents: you are a worker that another pane is "
        "driving. Opening a sibling pane with `mytty-ctl split` to exercise a TUI program is fine."
    ),
    "- Settle routine implementation questions yourself, note what you decided, and continue.",
    '- At the start of each new phase, report it with `mytty-ctl status "<a few words>"`.',
    (
        "- End with a summary short enough to read on screen: what you found or which files "
        "you changed, the tests you ran and their results, and anything still open."
    ),
)


def worker_contract() -> str:
    """The standing instructions appended to every spawned task (heading + six rules)."""
    return "\n".join(_CONTRACT_LINES)


def task_with_contract(task: str) -> str:
    """The task followed by the worker contract, with no trailing newline."""
    return task + "\n" + worker_contract()


# --------------------------------------------------------------------------------------------
# Flags and argv
# --------------------------------------------------------------------------------------------

BINARIES: dict[WorkerProvider, str] = {
    WorkerProvider.CODEX: "codex",
    WorkerProvider.CLAUDE: "claude",
    WorkerProvider.CURSOR: "cursor-agent",
}

MODEL_FLAGS: dict[WorkerProvider, str] = {
    WorkerProvider.CODEX: "-m",
    WorkerProvider.CLAUDE: "--model",
    WorkerProvider.CURSOR: "--model",
}

ACCESS_FLAGS: dict[tuple[WorkerProvider, Access], tuple[str, ...]] = {
    (WorkerProvider.CODEX, REVIEW): ("-s", "read-only", "-a", "never"),
    (WorkerProvider.CODEX, WORKSPACE_WRITE): ("-s", "workspace-write", "-a", "never"),
    (WorkerProvider.CLAUDE, REVIEW): ("--permission-mode", "plan"),
    (WorkerProvider.CLAUDE, WORKSPACE_WRITE): ("--permission-mode", "acceptEdits"),
    (WorkerProvider.CURSOR, REVIEW): ("--mode", "plan"),
    (WorkerProvider.CURSOR, WORKSPACE_WRITE): ("--force", "--sandbox", "enabled"),
}

#: Always given to Codex workers, first. Codex's default shared background server
#: (``features.daemon_auto_start``) runs every later TUI's hooks as its own children, with the
#: environment of whichever codex process started it, so a worker's events would carry another
#: pane's identity and could not be placed (real-agents.md §3.5). Without it, the hooks are the
#: worker's own.
CODEX_WORKER_FLAGS: tuple[str, ...] = ("--no-daemon",)

#: Always given to Claude workers, after the mode flags. Inside tmux, Claude's agent teams would
#: otherwise open their teammates as extra tmux panes next to the worker, outside mytty's control;
#: in-process keeps every teammate inside the worker's own pane.
CLAUDE_WORKER_FLAGS: tuple[str, ...] = ("--teammate-mode", "in-process")

# Codex asks for approval unless told otherwise; any of these means the lead already chose.
_CODEX_APPROVAL_FLAGS = frozenset(
    {
        "-a",
        "--ask-for-approval",
        "--full-auto",
        "--yolo",
        "--dangerously-bypass-approvals-and-sandbox",
    }
)


def access_flags(provider: WorkerProvider, access: Access) -> list[str]:
    """The fixed mode flags for ``review`` or ``workspace-write`` access."""
    return list(ACCESS_FLAGS[(provider, access)])


def codex_inherited_flags(tokens: Sequence[str]) -> list[str]:
    """Codex mode flags with ``-a never`` appended unless an approval policy is already there.

    A worker must never stop at an approval prompt nobody is watching; but a lead that chose
    ``--full-auto``/``--yolo``/an explicit ``-a`` keeps its choice.
    """
    for token in tokens:
        name = token.split("=", 1)[0] if token.startswith("-") else token
        if name in _CODEX_APPROVAL_FLAGS:
            return list(tokens)
    return [*tokens, "-a", "never"]


#: Providers whose CLI takes a session id chosen by the caller (Claude ``--session-id <uuid>``),
#: so mytty knows a worker's conversation before its first event. Codex and Cursor choose
#: their own ids; mytty learns those from the worker's events.
CHOOSES_SESSION_ID: frozenset[WorkerProvider] = frozenset({WorkerProvider.CLAUDE})


def _agent_argv(
    provider: WorkerProvider,
    model: str | None,
    mode_flags: Sequence[str],
    session_id: str | None,
) -> list[str]:
    argv = [BINARIES[provider]]
    if provider is WorkerProvider.CODEX:
        argv += CODEX_WORKER_FLAGS
    if model is not None:
        argv += [MODEL_FLAGS[provider], model]
    if provider is WorkerProvider.CODEX:
        argv += codex_inherited_flags(mode_flags)
    else:
        argv += mode_flags
    if provider is WorkerProvider.CLAUDE:
        argv += CLAUDE_WORKER_FLAGS
        if session_id is not None:
            argv += ["--session-id", session_id]
    return argv


def build_launch_argv(
    provider: WorkerProvider,
    *,
    model: str | None,
    mode_flags: Sequence[str],
    task: str,
    session_id: str | None = None,
) -> list[str]:
    """The worker's argv: binary, model flag, mode flags, ``--``, task + worker contract.

    ``mode_flags`` is either :func:`access_flags` or what :func:`inherit_mode_flags` returned.
    For codex the approval rule of :func:`codex_inherited_flags` is applied here (a no-op for the
    fixed access flags, which already carry ``-a never``), and :data:`CODEX_WORKER_FLAGS` come
    right after the binary. Claude gets :data:`CLAUDE_WORKER_FLAGS` after the mode flags, then
    ``--session-id <session_id>`` when mytty chose one (:data:`CHOOSES_SESSION_ID`).
    """
    argv = _agent_argv(
        provider, model, mode_flags, session_id if provider in CHOOSES_SESSION_ID else None
    )
    return [*argv, "--", task_with_contract(task)]


#: The prompt a resumed worker gets: its task was cut off with its pane, so it carries on.
RESUME_PROMPT = (
    "mytty restarted you on this same conversation: your tmux pane was lost (the tmux server "
    "stopped or the machine rebooted) while you were working. Continue the task from where you "
    "stopped. If it was already done, say so and give your summary again."
)


def build_resume_argv(
    provider: WorkerProvider,
    *,
    model: str | None,
    mode_flags: Sequence[str],
    session_id: str,
    prompt: str = RESUME_PROMPT,
) -> list[str]:
    """The argv that restarts a worker on its own conversation ``session_id``.

    The same binary, worker flags, model and mode flags as its launch; then Claude
    ``--resume <id>``, Codex ``resume <id>`` (the subcommand after the options, which Codex
    applies to the resumed session), Cursor ``--resume <id>``; then ``--`` and ``prompt``
    (:data:`RESUME_PROMPT`). Never ``--continue`` or "the latest": that is whichever
    conversation was touched last, maybe another worker's.
    """
    argv = _agent_argv(provider, model, mode_flags, None)
    if provider is WorkerProvider.CODEX:
        return [*argv, "resume", session_id, "--", prompt]
    return [*argv, "--resume", session_id, "--", prompt]


def launch_command(argv: Sequence[str], *, path_first: str | None = None) -> str:
    """The text of the launch file: ``command`` (skips aliases and functions), then the argv.

    Quoted with :func:`~mytty.core.quoting.shell_line`, so sh, bash, zsh and fish all read the
    argv back byte for byte, newlines and control characters of the task included.
    """
    if not argv:
        raise ValueError("argv is empty")
    return with_path_first("command " + shell_line(argv), path_first)


def with_path_first(text: str, path_first: str | None) -> str:
    """A launch line with ``path_first`` put in front of its PATH (``PATH=DIR:"$PATH" …``,
    which sh, bash, zsh and fish all read the same way); ``text`` as it is without one."""
    return f'PATH={shell_line([path_first])}:"$PATH" {text}' if path_first else text
