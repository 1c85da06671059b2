"""The texts ``mytty-ctl`` prints without a controller: the usage summary and the agent guide.

The guide is addressed to an AI agent running in a mytty pane. The controller also writes it
to ``$MYTTY_HOME/mytty-ctl.md`` on start, and the Claude Code / Codex pointers refer to it.
"""

from __future__ import annotations

USAGE = """\
usage: mytty-ctl <command> [arguments]

Pane commands:
  list                                         every pane (paneID, windowID, tabID, title, ...)
  new-tab [--cwd DIR] [--command TEXT]         open a tab (tmux window); TEXT runs there once
  split PANE [left|right|up|down|auto] [--cwd DIR] [--command TEXT]
                                               split a pane (direction defaults to auto)
  send PANE TEXT [--enter]                     type TEXT (a newline is Enter)
  send-key PANE KEY [--modifiers shift,control,option,command]
  read PANE                                    screen text and cursor position
  focus PANE                                   bring a pane to the front
  close-pane PANE                              close a pane without asking
  status TEXT [--pane PANE] | status --clear [--pane PANE]
                                               report your own progress (one line, <= 100 chars)
  wait PANE --until idle|attention [--timeout-seconds N]        (default 120)
  events [--after SEQ] [--timeout N]           long-poll agent events of every pane (default 30)
  env [--json|--fish]                          the mytty environment of the calling pane

Agent jobs (preferred for running workers):
  agent spawn --provider claude|codex|cursor (--task TEXT | --task-file FILE) [--anchor PANE]
              [--direction left|right|up|down|auto] [--cwd DIR]
              [--access inherit|review|workspace-write] [--model M] [--label L]
              [--worktree BRANCH]
  agent wait JOB --until running|attention|completed [--timeout-seconds N]
  agent result JOB | agent send JOB TEXT [--enter] | agent focus JOB | agent close JOB

Hook integrations (enable/repair ask the human first):
  integration list | integration enable PROVIDER | integration repair [PROVIDER]

  guide                                        the full manual for agents (no controller needed)

Success prints exactly one line of JSON and exits 0. Failure prints
"mytty-ctl: <code>: <explanation>" on stderr and exits 1.
"""


GUIDE = """\
MYTTY-CTL GUIDE FOR AGENTS

You are running in a pane of mytty, a tmux-based controller for coding agents. With
mytty-ctl you can start other agents (workers) in new panes, wait for the exact run you
started, read their screens and send them follow-ups. Every command prints one line of JSON
on success; on failure it prints "mytty-ctl: <code>: <explanation>" on stderr and exits 1.

ENVIRONMENT
  MYTTY_SURFACE_ID      your own pane id (the default anchor for new workers and for status)
  MYTTY_CONTROL_SOCKET  the controller's socket (mytty-ctl finds it by itself)
  MYTTY_CTL_BIN         the absolute path of mytty-ctl; it is also on PATH in every pane
  Outside a pane (scripts, SSH) mytty-ctl uses $MYTTY_HOME/control.sock
  (default ~/.config/mytty/control.sock). Workers started without an anchor open in a new
  tab of the "mytty" tmux session.

CODEX SANDBOX NOTE
  Codex may run shell commands in a sandbox that cannot connect to Unix sockets; mytty-ctl
  then fails with a permission error. Ask to run mytty-ctl outside the sandbox. Workers you
  spawn are not affected: they run in their own panes.

AGENT ORCHESTRATION API (preferred)
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
      --worktree BRANCH runs the worker in <repo parent>/<repo>-worktrees/<branch, "/" → "-"> (created from
        HEAD, or an existing local branch; reused if already registered). mytty never deletes
        worktrees: remove them yourself with git worktree remove. Errors:
        invalid-worktree-branch, not-a-git-repository, worktree-create-failed.
  agent wait JOB --until running|attention|completed [--timeout-seconds N]
      Waits for the run this job started (never an older run). Default timeout 120 s.
      completed = succeeded, failed, disconnected, launch-failed or lost. A worker that never
      reports a run becomes launch-failed within 30 s (its message says why; a provider CLI
      missing from PATH fails the spawn at once with provider-binary-not-found). Runs are reported by the provider's hook
      integration, so check `mytty-ctl integration list` first: without hooks a job can only
      end launch-failed (native run estimation is not in this version). attention (waiting for input or approval) needs
      the provider's hook integration and fails at once with
      provider-integration-not-installed when it is missing.
  agent result JOB     the job, the worker's last answer (.lastAssistantMessage, from its Stop
                       hook; null for cursor) and its current screen (.content.text).
  agent send JOB "follow-up" --enter
      Types into the worker. If the job had finished, it is re-armed so the next agent wait
      follows the run this follow-up starts.
  agent focus JOB      bring the worker's pane to the front.
  agent close JOB      close the worker's pane (a job that had not finished becomes lost; a
                       finished job keeps its final state).
  status "running tests"   report your own phase; it shows up as statusNote in list and jobs.
  Jobs live in the controller's memory: after a controller restart old job ids answer
  job-not-found (the panes keep running).

HOOK INTEGRATIONS
  Agents report their state through hooks that mytty installs into their configuration.
  mytty-ctl integration list shows installed / needs-repair / not-installed per provider.
  integration enable/repair asks the human at the tmux client to approve; you can ask, never
  approve. If it answers integration-declined, tell the user to run
  "mytty integrations enable <provider>" themselves instead of retrying.

STAGED EXAMPLE
  a=$(mytty-ctl agent spawn --provider codex --access review --label scan-a \\
        --task "Find why login times out under load. Report causes only." | jq -r .job.jobID.rawValue)
  b=$(mytty-ctl agent spawn --provider claude --access review --label scan-b \\
        --task "Review the session cache for races." | jq -r .job.jobID.rawValue)
  mytty-ctl agent wait "$a" --until completed --timeout-seconds 900
  mytty-ctl agent wait "$b" --until completed --timeout-seconds 900
  findings=$(mytty-ctl agent result "$a" | jq -r .lastAssistantMessage)
  printf '%s\\n' "$findings" > /tmp/findings.md
  fix=$(mytty-ctl agent spawn --provider claude --label fix \\
        --task-file /tmp/findings.md | jq -r .job.jobID.rawValue)
  mytty-ctl agent wait "$fix" --until completed --timeout-seconds 1800
  mytty-ctl agent send "$fix" "Also add a regression test." --enter
  mytty-ctl agent wait "$fix" --until completed
  # Stuck on an approval prompt? wait for attention, read the screen, answer with a key:
  #   mytty-ctl agent wait "$fix" --until attention
  #   pane=$(mytty-ctl agent result "$fix" | jq -r .job.paneID.rawValue)
  #   mytty-ctl send-key "$pane" 1
  mytty-ctl agent close "$a"; mytty-ctl agent close "$b"

LOW-LEVEL PANE COMMANDS (escape hatch)
  pane=$(mytty-ctl split "$MYTTY_SURFACE_ID" right --command 'make test' | jq -r .paneID)
  mytty-ctl wait "$pane" --until idle ; mytty-ctl read "$pane" ; mytty-ctl close-pane "$pane"
  --command text runs once in the new pane's shell after it has started; it is not typed and
  never lands in shell history. In send, a newline is Enter.

  TESTING A TUI APP FROM INSIDE A PANE
    Your own terminal is taken by your TUI. Open a sibling pane with
    split "$MYTTY_SURFACE_ID" right --command '<app>', drive it with send / send-key, check it
    with read, and close-pane it afterwards. That is not a sub-agent.

  PROVIDER LAUNCH COMMANDS (when you start agents yourself)
    claude --permission-mode acceptEdits -- "$(cat task.md)"   (approve Bash prompts with
           wait --until attention, read the screen, then send-key PANE with the option's number)
    codex -s workspace-write -a never -- "$(cat task.md)"       (wait --until idle is enough)
    cursor-agent --force -- "$(cat task.md)"                    (avoid --plan)

  WAIT PITFALLS
    wait --until idle only resolves after the pane's agent reported a run; a pane with no
    agent events waits until its timeout. Right after split --command the agent may not run
    yet. Cursor approvals are estimated about 10 s after a tool call stalls. After a
    controller restart, runs whose agent is gone are marked disconnected. Don't sleep and
    guess: wait, read, then decide.

  INSTRUCTIONS TO GIVE A SUB-AGENT
    Stay in the working directory. Keep going until done and run the relevant tests. Don't
    start hidden sub-agents. Decide routine questions yourself and note the decision. Report
    phases with mytty-ctl status. End with a short summary of findings, changes and tests.

  RUNNING SEVERAL WORKERS IN PARALLEL
    Give each writer its own --worktree. Requests are limited to 64 KiB: put long tasks in a
    file and use --task-file.

  WATCHING SEVERAL WORKERS AT ONCE
    cursor=$(mytty-ctl events | jq -r .latestSequence)
    while true; do
      r=$(mytty-ctl events --after "$cursor" --timeout 60)
      cursor=$(printf '%s' "$r" | jq -r .latestSequence)
      printf '%s' "$r" | jq -c '.records[]'
    done
    Omitting --after only establishes a cursor; --after 0 returns everything retained (the
    last 1000 events). The timeout defaults to 30 s (at most 600). A page that had to stop
    early reports its last record as latestSequence, so this loop never skips an event; a
    cursor that fell out of the retained window gets "truncated": true.
"""


def guide_text() -> str:
    return GUIDE


def usage_text() -> str:
    return USAGE
