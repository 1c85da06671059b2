"""``spawnAgent``: start a worker agent in a new pane and return its job.

Checks run in a fixed order so the first problem is the one reported: anchor, task, label,
model, integration, the provider's binary on PATH, cwd, worktree, access. The worker is started
without typing anything: its argv goes into a private launch file that the pane's shell runs
once it is fully started, so the task arrives byte for byte and never lands in shell history.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Protocol

from mytty.control.spec import COUNT, PANE_ID, PATH, SECONDS, Command, Field, Option, Values
from mytty.core import codes
from mytty.core.vocab import ACCESS_MODES, APPROVERS, AUTO, DIRECTIONS, WORKER_PROVIDERS
from mytty.protocol.limits import MAX_REQUEST_BYTES

if TYPE_CHECKING:
    from mytty.control.base import Request
    from mytty.control.ports import (
        AdmissionSlot,
        Admitting,
        AgentChecks,
        ApprovalAccess,
        JobStore,
        PaneDirectory,
        PaneFactory,
        PaneFacts,
        PaneView,
        RunWaiter,
    )
    from mytty.core.errors import ErrorCode
    from mytty.core.events import WorkerProvider
    from mytty.core.ids import JobId, RunId
    from mytty.core.jobs.launch_record import JobLaunch
    from mytty.core.jobs.tracker import AgentJob, QueuedAs, SpawnTags
    from mytty.protocol.replies import AgentJobReply

    class SpawnContext(
        PaneDirectory,
        PaneFacts,
        PaneFactory,
        RunWaiter,
        JobStore,
        AgentChecks,
        ApprovalAccess,
        Admitting,
        Protocol,
    ):
        """What ``agent_spawn`` uses of the controller."""


#: The worker pane and its launch take a moment; the reply may take this long.
RECEIVE_TIMEOUT_S = 60.0


PROVIDER = Option(
    "--provider",
    "PROVIDER",
    "provider",
    "`claude` (Claude Code), `codex`, `cursor` (`cursor-agent`); not the event vocabulary "
    "(`claude` here, `claude-code` there)",
    choices=WORKER_PROVIDERS,
    required=True,
)
#: The task: ``_client`` sends --task or the text of --task-file under this key.
TASK = Option("--task", "TEXT", "task", "the prompt", group="task")
TASK_FILE = Option(
    "--task-file",
    "FILE",
    None,
    "a UTF-8 file holding the prompt; mytty-ctl reads it, the controller never sees the path",
    kind=PATH,
    group="task",
)
ANCHOR = Option(
    "--anchor",
    "PANE",
    "anchorPaneID",
    "the pane to split next to (default $MYTTY_SURFACE_ID); with no anchor at all the worker "
    "opens in a new window of the `mytty` session",
    kind=PANE_ID,
    env_default="MYTTY_SURFACE_ID",
)
DIRECTION = Option(
    "--direction",
    "D",
    "direction",
    "`auto` follows the layout policy below; `left`/`right`/`up`/`down` split the anchor "
    "itself on that side, as `split` does",
    choices=DIRECTIONS,
    default=AUTO,
)
CWD = Option(
    "--cwd", "DIR", "cwd", "the worker's directory (default: see Working directory)", kind=PATH
)
ACCESS = Option(
    "--access",
    "A",
    "access",
    "the worker's permission mode (default: see Access)",
    choices=ACCESS_MODES,
)
MODEL = Option(
    "--model",
    "M",
    "model",
    "passed as `-m M` (codex) or `--model M` (claude, cursor); default: the provider's",
)
LABEL = Option("--label", "L", "label", "a name shown in job snapshots")
WORKTREE = Option("--worktree", "BRANCH", "worktreeBranch", "run in a git worktree for BRANCH")
KEY = Option(
    "--key",
    "K",
    "key",
    "idempotency key: when this lead already has a job for K, return it "
    '(`"reused": true`) instead of starting another worker',
)
NOTIFY_LEAD = Option(
    "--notify-lead",
    None,
    "notifyLead",
    "tell the lead agent at its next turn when this job ends or needs attention "
    "(through the lead's own hooks)",
)
BUDGET_TOKENS = Option(
    "--budget-tokens",
    "N",
    "budgetTokens",
    "a token budget: an attention item at 80 % of N, Esc into the worker at 100 % "
    "(tokens as its transcript counts them; see Usage)",
    kind=COUNT,
)
APPROVER = Option(
    "--approver",
    "WHO",
    "approver",
    "who answers the worker's permission requests besides any person: `human` (only people, "
    "the default) or `lead` (you too, with `approval answer`; see Approvals)",
    choices=APPROVERS,
    default=APPROVERS[0],
)
#: The largest ``--budget-usd`` (a sanity bound, not a policy).
MAX_BUDGET_USD = 1_000_000.0
BUDGET_USD = Option(
    "--budget-usd",
    "USD",
    "budgetUsd",
    "a dollar budget: an attention item and a lead notice at 80 % of USD, Esc into the "
    "worker at 100 % (priced from its tokens; see Cost)",
    kind=SECONDS,  # a finite number from 0 to the maximum: the kind durations use
    maximum=MAX_BUDGET_USD,
)
NO_QUEUE = Option(
    "--no-queue",
    None,
    "noQueue",
    "fail with admission-refused instead of queueing when [admission] can't start the "
    "worker now (see Admission)",
)
#: ``_client`` adds mytty-ctl's own directory: the worker's with neither --cwd nor an anchor.
CALLER_CWD = Field(
    "callerWorkingDirectory", "mytty-ctl's working directory (None: it has none)", kind=PATH
)


def _client(request: dict[str, object], values: Values) -> None:
    """Read --task-file, check the task and branch, and add the caller's directory."""
    import json

    task, task_file = values.options.get(TASK.flag), values.options.get(TASK_FILE.flag)
    if task_file is not None:
        try:
            with open(task_file, encoding="utf-8") as f:
                task = f.read()
        except (OSError, UnicodeDecodeError) as exc:
            values.fail(codes.INVALID_TASK, f"couldn't read --task-file {task_file}: {exc}")
    assert task is not None
    if not task:
        values.fail(codes.INVALID_TASK, "the task is empty")
    request[TASK.key] = task
    branch = request.get(WORKTREE.key)
    if isinstance(branch, str):
        from mytty.core.validation import validate_worktree_branch

        problem = validate_worktree_branch(branch)
        if problem:
            values.fail(codes.INVALID_WORKTREE_BRANCH, problem)
    request[CALLER_CWD.key] = os.getcwd() if os.path.isdir(".") else None
    from mytty.core.jobs.launch import task_with_contract

    # The controller appends the worker contract; the whole request must still fit.
    with_contract = {**request, TASK.key: task_with_contract(task)}
    encoded = json.dumps(with_contract, ensure_ascii=False, separators=(",", ":")).encode()
    if len(encoded) > MAX_REQUEST_BYTES:
        values.fail(
            codes.INVALID_TASK,
            f"the task is too large: task plus worker contract must fit in "
            f"{MAX_REQUEST_BYTES // 1024} KiB (split it, or point the worker at a file)",
        )
    return None


COMMAND = Command(
    name="agent spawn",
    wire="spawnAgent",
    summary="start a worker agent in a new pane; prints its job",
    heading="agent spawn",
    options=(
        PROVIDER,
        TASK,
        TASK_FILE,
        ANCHOR,
        DIRECTION,
        CWD,
        ACCESS,
        MODEL,
        LABEL,
        WORKTREE,
        KEY,
        NOTIFY_LEAD,
        BUDGET_TOKENS,
        APPROVER,
        BUDGET_USD,
        NO_QUEUE,
    ),
    wire_fields=(CALLER_CWD,),
    wire_order=(
        "provider",
        "direction",
        "task",
        "anchorPaneID",
        "access",
        "model",
        "label",
        "worktreeBranch",
        "key",
        "notifyLead",
        "budgetTokens",
        "approver",
        "budgetUsd",
        "noQueue",
        "cwd",
        "callerWorkingDirectory",
    ),
    client=_client,
    receive_timeout=RECEIVE_TIMEOUT_S,
    errors=(
        codes.PANE_NOT_FOUND,
        codes.INVALID_TASK,
        codes.INVALID_LABEL,
        codes.INVALID_MODEL,
        codes.INVALID_CWD,
        codes.INVALID_WORKTREE_BRANCH,
        codes.NOT_A_GIT_REPOSITORY,
        codes.WORKTREE_CREATE_FAILED,
        codes.INHERIT_UNAVAILABLE,
        codes.PROVIDER_INTEGRATION_NEEDS_REPAIR,
        codes.PROVIDER_BINARY_NOT_FOUND,
        codes.SPAWN_FAILED,
        codes.TMUX_UNAVAILABLE,
        codes.INVALID_REQUEST,
        codes.ADMISSION_REFUSED,
        codes.PROVIDER_LIMITED,
    ),
    client_errors=(
        codes.USAGE,
        codes.INVALID_TASK,
        codes.INVALID_WORKTREE_BRANCH,
        codes.INVALID_REQUEST,
    ),
    guide="""\
agent spawn --provider claude|codex|cursor --task "..." [--label NAME]
Opens a new pane next to yours and starts the worker with the task as its prompt. With
--direction auto (the default) your pane keeps at least half its tab; once the tab has
no room for another 80x15 pane (or yours is zoomed, which stays so), workers open in a
"workers" window after yours and the reply says so in "placement". Prints
{"type":"agentJob","job":{...}}; keep job.jobID.rawValue. A short worker contract is
appended to every task.
--access: leave it out when the worker is the same provider as you, so the worker
  inherits your own permission mode (your flags, or for Claude Code your current mode).
  review = read-only/plan mode. workspace-write = may edit files (Claude workers then use
  acceptEdits and still stop for Bash approvals, which is narrower than many leads).
--model M passes the provider's own model flag.
--cwd: defaults to your pane's current directory as tmux reports it, not your process's
  cwd. If you moved (e.g. into a worktree), pass --cwd "$PWD".
--key K makes the spawn idempotent: if you (this pane) already spawned a job with key K,
  its job comes back with "reused": true and no new worker starts (after a context
  compaction, spawn again with the same key instead of guessing). The same key with a
  different task or provider is invalid-request. Keys are stored with the jobs. A job
  that is lost, launch-failed or closed (agent close) frees its key: a new job starts.
--notify-lead: when the job ends or needs attention, you are told at your next prompt
  (Claude Code, Codex: your UserPromptSubmit hook adds it to your context), once; no
  need to poll. agent list recovers your jobs after a context compaction.
--worktree BRANCH runs the worker in ../<repo>-worktrees/<branch> ("/" → "-")
  (created from HEAD, or an existing local branch; reused if already registered). Only
  worktrees mytty created are ever removed, by `mytty worktree gc` or agent close
  --remove-worktree, and only without unsaved work. Errors:
  invalid-worktree-branch, not-a-git-repository, worktree-create-failed.
Admission ([admission] in config.toml: max workers, free memory, per provider or lead):
  a spawn that can't start now is accepted as job.state "queued" (queuePosition,
  queuedBecause); it starts by itself, in order. agent wait waits through the queue,
  agent close cancels it. --no-queue fails instead (admission-refused).
  A spawn for a provider account whose workers are parked at their usage limit waits the
  same way (queuedBecause usage-limit) until they went on; --no-queue: provider-limited,
  naming the reset.
--budget-usd N: like --budget-tokens, in dollars (80 %: attention item and a notice to
  you; 100 %: Esc). job.costUsd is the cost so far (null for a model without a price).
--approver lead: you may answer the worker's permission requests yourself (approval list,
  approval answer ID allow|deny); the default, human, leaves them to people.""",
    doc="""
**Working directory**: `--cwd`; else the anchor pane's current directory as tmux reports it
(not the calling process's directory: if you `cd`'d elsewhere, pass `--cwd "$PWD"`); else,
with no anchor, the directory `mytty-ctl` was called from; else your home directory.

**Worktree**: `--worktree BRANCH` resolves the repository of that directory and runs the
worker in `<parent of repo>/<repo name>-worktrees/<BRANCH with / replaced by ->`. An already
registered worktree at that path is reused whatever it has checked out; otherwise an existing
local branch is checked out, or a new branch is created from HEAD. A worktree mytty created
(never one it reused) is recorded in `$MYTTY_HOME/worktrees.jsonl` with the job; only those are
ever removed, by `mytty worktree gc` or `agent close --remove-worktree`, and only when nothing
would be lost (see [worktrees](worktrees.md)). Branch names: at most 100 characters from
`A-Z a-z 0-9 . _ / -`, not starting with `-`, `.` or `/`, not ending with `/`, `.` or `.lock`,
no `..` or `//` (checked before connecting and again by the controller).

**Where workers go** (`--direction auto`, the default). The anchor is the *lead*, and its pane
must stay usable:

1. If the lead's window is zoomed, it stays zoomed: the worker opens in a `workers` window.
2. The first worker in the lead's tab splits the lead across its longer side, so the lead keeps
   half (for example 100 of 200 columns) — if the worker's half is at least 80 × 15 cells.
3. Later workers never split the lead again: they split the other panes of its tab (largest
   first, keeping an even grid), as long as each new pane is at least 80 × 15.
4. Past that, workers go to the window named `workers` right after the lead's window (several
   consecutive `workers` windows fill in order), or to a new one opened there. Creating it does
   not switch the session's current window.

When the worker did not land next to the lead (rules 1 and 4), the reply has an extra
`"placement"` string saying where and why, e.g. `"in window 'workers': the lead's window is
zoomed, and stays so"` (a mytty addition; the original always split the anchor's tab).

**Access**:

| `--access` | claude | codex | cursor |
|---|---|---|---|
| `review` | `--permission-mode plan` | `-s read-only -a never` | `--mode plan` |
| `workspace-write` | `--permission-mode acceptEdits` | `-s workspace-write -a never` | `--force --sandbox enabled` |
| `inherit` | the lead's flags (see below) | the lead's flags, plus `-a never` unless it chose an approval policy | the lead's flags |

Leaving `--access` out means `inherit` when the anchor pane's foreground agent is the same
provider as the worker, else `workspace-write` (unless `access` under `[spawn]` in config.toml
names a mode: [config.md](config.md#spawn)). `inherit` copies the permission flags from the
lead agent's command line (`--permission-mode`, `--dangerously-skip-permissions`; codex
`-s/--sandbox`, `-a/--ask-for-approval`, `--full-auto`, `--yolo`,
`--dangerously-bypass-approvals-and-sandbox`; cursor `--mode`, `--force`, `--sandbox`), stopping
at a bare `--`. Without such flags, a Claude lead's current mode is read from its session
transcript (so a mode switched with shift+tab is inherited too) and a Cursor lead's from its
conversation store; with nothing found, the worker gets the `workspace-write` flags. An explicit
`--access inherit` fails with `inherit-unavailable` when the anchor runs no agent or a different
provider. Note that `workspace-write` Claude workers still stop for Bash approvals.

**Launch**: the worker runs as `command <binary> [model flag] <mode flags> -- '<task>'`
(Claude workers also get `--teammate-mode in-process`, so Claude's own agent teams stay inside
the worker's pane, and `--session-id <UUID>`: a conversation id mytty chose, shown as the job's
`sessionID` from the spawn reply on, so the job binds only to that conversation's runs and
`mytty resume` can restart exactly it — a difference from the original, whose jobs learned the
session from their first event; Codex workers get `--no-daemon` first, so their hooks run as their own
children and not in a Codex background server that another pane's environment started — see
[integrations](integrations.md#codex-codex)). Nothing is typed: the line is handed to the new pane's shell through a
private launch file, so the task arrives byte for byte and never lands in shell history. A
worker contract is appended to every task: stay in the working directory, finish and run the
tests, no hidden sub-agents, decide routine questions yourself, report phases with
`mytty-ctl status`, end with a short on-screen summary. Task plus contract must fit in the 64 KiB
request; `mytty-ctl` checks this before connecting (`invalid-task`).

The controller checks, in this order: anchor, task, label, model, the provider's integration
(`needs-repair` is refused; `not-installed` is allowed), the provider's binary, cwd, worktree,
access. **Which PATH the worker runs with**: its own comes first, the one its login shell
really sets up — the controller starts the same launcher and the same login and rc files as
the worker's pane would (`/etc/profile`, then `~/.bash_profile`, `~/.bash_login` or
`~/.profile`, else `~/.bashrc`, for bash, and `~/.bashrc` after a `~/.profile` that holds only
mytty's line; zsh's and fish's own files) and reads the PATH they leave (kept until one of
those files changes). When the binary (`claude`, `codex`,
`cursor-agent`) is on it, nothing else counts. When it is not, but the PATH of the caller (the
lead agent or shell that ran `mytty-ctl`), or of the anchor pane's shell or foreground process,
has it, the worker is started with that directory first on its PATH
(`PATH=DIR:"$PATH" command <binary> …`), so a lead that found its own `claude` starts workers
that find the same one. On none of them, the spawn fails at once with
`provider-binary-not-found` and opens no pane. (A login shell that takes more than 5 s to start
is not waited for; then the controller's own PATH counts too.)

Request:

```json
{"type":"spawnAgent","provider":"claude","direction":"auto","task":"…","anchorPaneID"?:"<UUID>","access"?:"review","model"?:"sonnet","label"?:"scan-a","worktreeBranch"?:"feat/x","key"?:"scan-a","notifyLead":false,"budgetTokens"?:200000,"approver":"human","cwd"?:"/abs/dir","callerWorkingDirectory":"/abs/dir"}
```

Reply:

```json
{"job":{"jobID":{"rawValue":"04AA9DA1-F255-412D-808A-A53E2525DB4F"},"label":"scan-a","message":null,"paneID":{"rawValue":"201841B5-2A1E-41BE-93CD-775F48479797"},"provider":"claude","runID":null,"sessionID":null,"state":"launching"},"type":"agentJob"}
```

**Idempotent spawn** (`--key K`, a mytty addition). The key is scoped to the *lead*: the pane
of the process that ran `mytty-ctl agent spawn` (found from its process ancestry, like
`env`), or, when the caller runs in no mytty pane, the anchor pane; with neither, one shared
scope for callers outside mytty. When the lead already has a job with key `K`, that job's
snapshot comes back (reconciled now, whatever its state) with `"reused": true`, and nothing
else happens: no pane, no checks of provider, cwd or access. A new keyed spawn answers
`"reused": false`. The same key with a different task or provider is `invalid-request`
("key K already names job … with a different task"). A job there is nothing to go back to
frees its key: `lost` (its pane is gone), `launch-failed` (its agent never started) or closed
with `agent close`; the next spawn with the key starts a new worker. Keys are stored with the jobs: they hold
across controller restarts, and for finished jobs no longer kept in memory. Two spawns with
the same key at the same time make one worker (the second waits for the first and reuses
its job). A key is 1–100 characters without control characters (`invalid-request`).

**Results pushed to the lead** (`--notify-lead`, a mytty addition): when the job ends or needs
attention, its lead (the same pane as for `--key`) is told at its next turn, through its own
hooks, exactly once; see [Lead notices](#lead-notices). The flag is stored with the job.

**Usage and budgets** (mytty additions). Every job snapshot (`agent spawn`, `agent wait`,
`agent result`, `agent list`) carries `usage` once the worker's transcript shows tokens:
`{"inputTokens","outputTokens","cacheReadTokens","cacheWriteTokens","totalTokens","model"}`,
plus `"budgetTokens"` when the job has one (then `usage` is there from the spawn on, at 0).
The figures are read from the worker's own transcript (Claude's assistant `message.usage`,
one count per message id; Codex's running `token_count` totals), so they are what the
provider reported, not an estimate; `inputTokens` never includes cached tokens (for Codex
mytty subtracts `cached_input_tokens`), so `totalTokens` is the sum of the four. Cursor
workers have none. `agent list` adds a top-level `usage`: the listed jobs' figures added up
(one lead's by default). `--budget-tokens N` (N ≥ 1, else `invalid-request`) gives the job a
budget in those tokens: at 80 % of N a `budget` attention item is raised, at 100 % mytty
presses Esc in the worker's pane (as `send-key PANE Escape` does) and raises a second one;
the worker then stops its turn and the job ends `disconnected` with the interrupt's message.
A budget is checked as the transcript grows, so a turn may overshoot it by what one model
response adds.

**Approvals** (`--approver`, a mytty addition): who may answer the worker's permission requests
(Claude Code's and Codex's `PermissionRequest`) besides any person. `human`, the default: only
people (`mytty approve`, the attention popup). `lead`: also the lead (the same pane as for
`--key`), with [`approval answer`](#approval-answer); never any other agent. Stored with the job.
See [approvals](approvals.md).

**Admission** (a mytty addition; `[admission]` in [config.toml](config.md#admission)). Before
it starts a worker, the controller checks, in this order: the provider's account is not at a
usage limit (`usage-limit`), fewer than `max_workers` workers are live (`max-workers`), fewer
than the provider's `max_workers_per_provider` (`max-workers-per-provider`), fewer than
`max_workers_per_lead` of this lead's (`max-workers-per-lead`), and at least
`min_available_memory_mb` of memory stays available, less what workers still starting are
expected to take (`memory`). A worker is live from its start until its job ends. A spawn that
can't start now is accepted anyway: its pane opens at once, showing that it is queued and why,
and the reply's job is `"state":"queued"` with `"queuePosition"` (1: next) and
`"queuedBecause"` (the rule above); its launch window opens only when it starts. Queued jobs
start by themselves, in order, as soon as they are admitted (a worker ended, a pane closed,
memory was freed); jobs waiting for one provider's or lead's limit let others pass. `agent
wait` waits through the queue, `agent close` cancels a queued job (it becomes `lost`, its
worker never started), `agent list`, `mytty ls` and `@mytty_state` show `queued`, and a
controller restart keeps the queue in order. With `--no-queue` such a spawn fails instead,
with `admission-refused` naming the reason, and opens no pane. With
`worker_memory_max_mb` set, the reply has `"memoryCap":{"maxMB","enforced","method","detail"}`:
`enforced` is false where neither a user systemd nor a delegated cgroup v2 exists (the cap is
then not enforced, and `detail` says why); a worker killed by its cap ends `failed` with
`"reason":"memory-limit"`.

**Cost** (a mytty addition). Every snapshot with `usage` has `costUsd`: the worker's tokens
priced by the table shipped with mytty (dated; `[prices]` in config.toml adds or replaces
models), each reading at the model the transcript names. A model with no price makes it
`null`, never a guess. `--budget-usd N` (N > 0, dollars) works like `--budget-tokens`: at
80 % a `budget` attention item, and the lead is told at its next prompt (a lead notice, with or
without `--notify-lead`); at 100 % mytty presses Esc in the worker's pane and raises a second
item. `usage` then has `"budgetUsd"`. An unknown cost never counts as a spent budget.

`--label` is at most 100 characters without control characters (`invalid-label`); `--model`
is non-empty, at most 100 characters, without spaces or control characters (`invalid-model`).
A task that is empty, an unreadable `--task-file` and a task too large are `invalid-task`, a
bad branch name `invalid-worktree-branch`, all checked before connecting.
""",
)


class Params:
    """The request's fields, typed (read-only by convention)."""

    __slots__ = (
        "access",
        "anchor_id",
        "approver",
        "branch",
        "budget_tokens",
        "budget_usd",
        "caller_cwd",
        "cwd",
        "direction",
        "key",
        "label",
        "model",
        "no_queue",
        "notify_lead",
        "peer_pid",
        "provider",
        "task",
    )

    def __init__(
        self,
        peer_pid: int,
        provider: str,
        direction: str,
        access: str | None,
        anchor_id: str | None,
        task: str,
        label: str | None,
        model: str | None,
        cwd: str | None,
        caller_cwd: str | None,
        branch: str | None,
        key: str | None = None,
        notify_lead: bool = False,
        budget_tokens: int | None = None,
        approver: str = "human",
        budget_usd: float | None = None,
        no_queue: bool = False,
    ) -> None:
        self.peer_pid = peer_pid
        self.approver = approver
        self.provider = provider
        self.direction = direction
        self.access = access
        self.anchor_id = anchor_id
        self.task = task
        self.label = label
        self.model = model
        self.cwd = cwd
        self.caller_cwd = caller_cwd
        self.branch = branch
        self.key = key
        self.notify_lead = notify_lead
        self.budget_tokens = budget_tokens
        self.budget_usd = budget_usd
        self.no_queue = no_queue


def parse(request: Request) -> Params:
    return Params(
        request.peer_pid,
        request.choice(PROVIDER),
        request.choice(DIRECTION),
        request.optional_choice(ACCESS),
        request.optional_text(ANCHOR),
        request.text(TASK),
        request.optional_text(LABEL),
        request.optional_text(MODEL),
        request.optional_text(CWD),
        request.optional_text(CALLER_CWD),
        request.optional_text(WORKTREE),
        request.optional_text(KEY),
        request.flag(NOTIFY_LEAD),
        request.count(BUDGET_TOKENS),
        request.choice(APPROVER),
        request.seconds(BUDGET_USD) if request.has(BUDGET_USD) else None,
        request.flag(NO_QUEUE),
    )


def _dollars(amount: float | None) -> str | None:
    """A dollar amount as the exact decimal text it was written as (2.5 → "2.5")."""
    return None if amount is None else repr(amount)


def _check(problem: str | None, code: ErrorCode) -> None:
    from mytty.core.errors import MyttyError

    if problem is not None:
        raise MyttyError(code, problem)


async def handle(ctx: SpawnContext, params: Params) -> AgentJobReply:
    from mytty.core.errors import ErrorCode, MyttyError
    from mytty.core.events import WorkerProvider
    from mytty.core.jobs import tracker as core_jobs
    from mytty.core.validation import validate_key, validate_label, validate_model, validate_task
    from mytty.protocol import wire

    provider = WorkerProvider(params.provider)
    anchor = ctx.require_pane(params.anchor_id) if params.anchor_id else None
    _check(validate_task(params.task), ErrorCode.INVALID_TASK)
    if params.label is not None:
        _check(validate_label(params.label), ErrorCode.INVALID_LABEL)
    if params.model is not None:
        _check(validate_model(params.model), ErrorCode.INVALID_MODEL)
    # The lead: the caller's own pane; a caller outside mytty's panes leads from its anchor.
    lead = ctx.caller_surface(params.peer_pid) or (anchor.surface_id if anchor else None)
    digest = core_jobs.spawn_digest(provider, params.task)
    if params.budget_tokens == 0:
        raise MyttyError(ErrorCode.INVALID_REQUEST, "--budget-tokens must be at least 1")
    if params.budget_usd is not None and params.budget_usd <= 0:
        raise MyttyError(ErrorCode.INVALID_REQUEST, "--budget-usd must be more than 0")
    tags = core_jobs.SpawnTags(
        key=params.key,
        spawn_digest=digest,
        lead=lead,
        notify_lead=params.notify_lead,
        budget_tokens=params.budget_tokens,
        budget_usd=_dollars(params.budget_usd),
    )
    if params.key is None:
        return await _spawn_new(ctx, params, provider, anchor, tags)
    _check(validate_key(params.key), ErrorCode.INVALID_REQUEST)
    async with ctx.jobs.key_lock(lead, params.key):
        existing = ctx.jobs.keyed(lead, params.key)
        if existing is None:
            return await _spawn_new(ctx, params, provider, anchor, tags)
    if existing.spawn_digest != digest:
        label = f" ({existing.label})" if existing.label else ""
        raise MyttyError(
            ErrorCode.INVALID_REQUEST,
            f"key {params.key!r} already names job {existing.job_id}{label}, "
            f"{existing.state.value}, spawned with a different task or provider; "
            "use another key, or the same task to get that job back",
        )
    return wire.agent_job_reply(ctx.jobs.snapshot(existing), reused=True)


async def _spawn_new(
    ctx: SpawnContext,
    params: Params,
    provider: WorkerProvider,
    anchor: PaneView | None,
    tags: SpawnTags,
) -> AgentJobReply:
    from mytty.protocol import wire

    await ctx.spawn_preflight(provider)
    # The worker's login shell may lack the binary the caller's PATH has: then it gets that dir.
    path_first = await ctx.binary_preflight(provider, anchor, params.peer_pid)
    slot = ctx.admission.claim(provider, tags.lead)
    job: AgentJob | None = None
    try:
        _refuse_unqueued(slot, params)
        cwd, anchor = await _working_directory(ctx, params, anchor)
        launch, session_id = await _launch(ctx, params, provider, anchor, cwd, path_first)
        job_id, text, queued, cap = await _admitted_launch(ctx, slot, launch)
        pane, note = await _worker_pane(ctx, params, anchor, cwd, text)
        job = await _start_job(
            ctx, pane, params, provider, tags, session_id, launch, (job_id, queued, cap)
        )
    finally:
        ctx.admission.release(slot, job)
    await ctx.approvals.set_approver(job.job_id, params.approver)
    if params.branch is not None:
        await ctx.worktree_used(cwd, job.job_id)  # what `agent close --remove-worktree` finds
    reused = False if tags.key is not None else None
    return wire.agent_job_reply(
        ctx.jobs.snapshot(job),
        placement=note,
        reused=reused,
        cap=await ctx.admission.memory_cap_entry(),
    )


def _refuse_unqueued(slot: AdmissionSlot, params: Params) -> None:
    """``--no-queue``: a worker admission can't start now is refused (no pane, no worktree):
    ``provider-limited`` when its account is at its usage limit (the message names the reset),
    else ``admission-refused``."""
    from mytty.core.admission.rules import QueueReason, refusal
    from mytty.core.errors import ErrorCode, MyttyError

    if slot.waiting is not None and params.no_queue:
        limited = slot.waiting.reason is QueueReason.USAGE_LIMIT
        code = ErrorCode.PROVIDER_LIMITED if limited else ErrorCode.ADMISSION_REFUSED
        raise MyttyError(code, refusal(slot.waiting))


async def _admitted_launch(
    ctx: SpawnContext, slot: AdmissionSlot, launch: JobLaunch
) -> tuple[JobId, str, QueuedAs | None, tuple[int, str] | None]:
    """The new job's id and what its pane runs: the worker's launch (under the memory cap)
    when admission lets it start now, else the queued placeholder (and how it is queued)."""
    from mytty.core.admission.placeholder import queued_command
    from mytty.core.admission.rules import waiting_message
    from mytty.core.ids import JobId, format_uuid_bytes
    from mytty.core.jobs.tracker import QueuedAs

    job_id = JobId(format_uuid_bytes(os.urandom(16)))
    why = slot.waiting
    if why is None:
        from mytty.core.jobs.launch import with_path_first

        text, cap = await ctx.admission.worker_launch(job_id, 0, launch.argv)
        return job_id, with_path_first(text, launch.path_first), None, cap
    position = ctx.admission.position_hint(slot)
    text = queued_command(job_id, position, why.reason.value, why.detail)
    return job_id, text, QueuedAs(why.reason.value, waiting_message(why), slot.ticket), None


async def _working_directory(
    ctx: SpawnContext, params: Params, anchor: PaneView | None
) -> tuple[str, PaneView | None]:
    """The worker's directory (see the reference's Working directory and Worktree), and the
    anchor as tmux lists it now when that had to be looked up."""
    from mytty.core.errors import ErrorCode, MyttyError
    from mytty.core.validation import validate_worktree_branch

    cwd = params.cwd
    if cwd is not None:
        if not os.path.isabs(cwd) or not os.path.isdir(cwd):
            raise MyttyError(
                ErrorCode.INVALID_CWD, f"--cwd {cwd!r} is not an existing absolute directory"
            )
    else:
        if anchor is not None:
            # tmux sends no notification when a shell changes directory: look again now.
            await ctx.refresh_panes()
            anchor = ctx.require_pane(anchor.surface_id)
        anchor_dir = ctx.pane_directory(anchor) if anchor is not None else None
        if anchor_dir:
            cwd = anchor_dir
        else:
            caller_cwd = params.caller_cwd
            cwd = (
                caller_cwd if caller_cwd and os.path.isdir(caller_cwd) else os.path.expanduser("~")
            )
    if params.branch is not None:
        _check(validate_worktree_branch(params.branch), ErrorCode.INVALID_WORKTREE_BRANCH)
        cwd = await ctx.resolve_worktree(cwd, params.branch)
    return cwd, anchor


async def _launch(
    ctx: SpawnContext,
    params: Params,
    provider: WorkerProvider,
    anchor: PaneView | None,
    cwd: str,
    path_first: str | None = None,
) -> tuple[JobLaunch, str | None]:
    """How the worker starts (its argv, mode flags, directory) and its conversation id."""
    import uuid

    from mytty.core.jobs.launch import CHOOSES_SESSION_ID, build_launch_argv
    from mytty.core.jobs.launch_record import JobLaunch

    mode_flags = await ctx.access_mode_flags(provider, params.access, anchor)
    # The worker's conversation id, chosen here where the provider lets mytty choose it, so its
    # events bind exactly and `mytty resume` can restart that very conversation.
    session_id = str(uuid.uuid4()) if provider in CHOOSES_SESSION_ID else None
    argv = build_launch_argv(
        provider,
        model=params.model,
        mode_flags=mode_flags,
        task=params.task,
        session_id=session_id,
    )
    launch = JobLaunch(
        task=params.task,
        cwd=cwd,
        worktree_branch=params.branch,
        access=params.access,
        model=params.model,
        mode_flags=tuple(mode_flags),
        argv=tuple(argv),
        path_first=path_first,
    )
    return launch, session_id


async def _worker_pane(
    ctx: SpawnContext, params: Params, anchor: PaneView | None, cwd: str, launch_text: str
) -> tuple[PaneView, str | None]:
    """The worker's new pane, and where it went when that is not next to the lead.

    A pane that cannot be made is ``spawn-failed`` (``tmux-unavailable`` stays what it is).
    """
    from mytty.core.errors import ErrorCode, MyttyError

    worker_env = ctx.worker_environment()  # the worker mark and the kill-server guard
    try:
        if anchor is None:
            session = await ctx.ensure_user_session()
            pane = await ctx.create_pane(
                session=session, cwd=cwd, command=launch_text, extra_env=worker_env
            )
            return pane, None
        await ctx.refresh_panes()
        anchor = ctx.require_pane(anchor.surface_id)
        if params.direction != AUTO:
            pane = await ctx.create_pane(
                split_from=anchor,
                direction=params.direction,
                cwd=cwd,
                command=launch_text,
                extra_env=worker_env,
            )
            return pane, None
        return await _placed_pane(ctx, anchor, cwd, launch_text, worker_env)
    except MyttyError as exc:
        if exc.code is ErrorCode.TMUX_UNAVAILABLE:
            raise
        raise MyttyError(
            ErrorCode.SPAWN_FAILED, f"could not create the worker pane: {exc.message}"
        ) from None


async def _placed_pane(
    ctx: SpawnContext, anchor: PaneView, cwd: str, launch_text: str, worker_env: dict[str, str]
) -> tuple[PaneView, str | None]:
    """``--direction auto``: next to the lead while its tab has room, else a ``workers`` window."""
    from mytty.control.placement import place_worker_from
    from mytty.core.ids import SurfaceId
    from mytty.core.layout import WORKERS_WINDOW

    placement = place_worker_from(ctx, anchor)
    if placement.split is not None and placement.direction is not None:
        pane = await ctx.create_pane(
            split_from=ctx.panes.by_surface[SurfaceId(placement.split)],
            direction=placement.direction,
            cwd=cwd,
            command=launch_text,
            extra_env=worker_env,
        )
    else:
        pane = await ctx.create_pane(
            after_window=placement.after,
            window_name=WORKERS_WINDOW,
            cwd=cwd,
            command=launch_text,
            extra_env=worker_env,
        )
    note = None if placement.next_to_lead else f"in window {WORKERS_WINDOW!r}: {placement.reason}"
    return pane, note


async def _start_job(
    ctx: SpawnContext,
    pane: PaneView,
    params: Params,
    provider: WorkerProvider,
    tags: SpawnTags,
    session_id: str | None,
    launch: JobLaunch,
    admitted: tuple[JobId, QueuedAs | None, tuple[int, str] | None],
) -> AgentJob:
    """The worker's job, stored; a job that cannot be stored closes the worker's pane again.

    ``admitted``: the job's id, how it is queued (None: its worker started) and its cap."""
    from mytty.core.errors import MyttyError

    job_id, queued, cap = admitted
    # The pane is new and its agent is this worker: no run in it is older than the job. Its
    # first hook can arrive while the pane is still being set up (a loaded machine, many
    # spawns at once); taken as the baseline, that run would never be bound and the job
    # would end launch-failed while its worker works (found by scripts/bench/truth).
    baseline: list[RunId] = []
    try:
        return await ctx.jobs.spawn(
            pane.surface_id,
            provider,
            params.label,
            baseline,
            tags,
            session_id=session_id,
            launch=launch,
            job_id=job_id,
            queued=queued,
            memory_cap=cap,
        )
    except MyttyError as exc:
        # No half job: a worker nobody can reach by a job id is closed again.
        try:
            await ctx.close_pane(pane)
        except MyttyError:
            pass
        raise MyttyError(exc.code, f"{exc.message}; the worker's pane was closed") from None
