"""The fixed prose of ``mytty-ctl guide``, the manual addressed to an AI agent in a mytty pane.

The command entries, the key table and the order come from the command declarations
(:func:`mytty.control.manual.guide_text` fills them in); this module holds only the text
around them. The controller also writes the guide to ``$MYTTY_HOME/mytty-ctl.md`` on start,
and the Claude Code / Codex pointers refer to it.
"""

from __future__ import annotations

from mytty.core import paths

_TEMPLATE = """\
MYTTY-CTL GUIDE FOR AGENTS

You are running in a pane of mytty, a tmux-based controller for coding agents.
With mytty-ctl you can start other agents (workers) in new panes, wait for the
exact run you started, read their screens and send them follow-ups. Every
command prints one line of JSON on success; on failure it prints
"mytty-ctl: <code>: <explanation>" on stderr and exits 1.

ENVIRONMENT
  MYTTY_SURFACE_ID      your own pane id (the default anchor for new workers
                        and for status)
  MYTTY_CONTROL_SOCKET  the controller's socket (mytty-ctl finds it by itself)
  MYTTY_CTL_BIN         the absolute path of mytty-ctl; it is also on PATH in
                        every pane
  Outside a pane (scripts, SSH) mytty-ctl uses $MYTTY_HOME/{control_socket}
  (default ~/{default_home}/{control_socket}). Workers started without an
  anchor open in a new tab of the "mytty" tmux session.
  A pane id is the UUID list shows, or tmux's name for the pane: %3,
  session:window.pane (as mytty ls prints it), @2 or $1 (the active pane there).

CODEX SANDBOX NOTE
  Codex may run shell commands in a sandbox that cannot connect to Unix
  sockets; mytty-ctl then fails with a permission error. Ask to run mytty-ctl
  outside the sandbox. Workers you spawn are not affected: they run in their
  own panes.

AGENT ORCHESTRATION API (preferred)
{agent}

HOOK INTEGRATIONS
{integration}

APPROVALS (workers you spawned with --approver lead)
  A worker's permission request (Claude Code, Codex) waits up to [approvals]
  hold_seconds (config.toml, default 15 s) for an answer before its own dialog
  takes over; rules there may decide it at once. You may answer only requests of
  workers you spawned with agent spawn --approver lead, and never your own. A
  person may always answer any request.
{approval}

STAGED EXAMPLE
  a=$(mytty-ctl agent spawn --provider codex --access review --label scan-a \\
        --task "Find why login times out under load. Report causes only." \\
      | jq -r .job.jobID.rawValue)
  b=$(mytty-ctl agent spawn --provider claude --access review --label scan-b \\
        --task "Review the session cache for races." \\
      | jq -r .job.jobID.rawValue)
  mytty-ctl agent wait "$a" --until completed --timeout-seconds 900
  mytty-ctl agent wait "$b" --until completed --timeout-seconds 900
  findings=$(mytty-ctl agent result "$a" | jq -r .lastAssistantMessage)
  printf '%s\\n' "$findings" > /tmp/findings.md
  fix=$(mytty-ctl agent spawn --provider claude --label fix \\
        --task-file /tmp/findings.md | jq -r .job.jobID.rawValue)
  mytty-ctl agent wait "$fix" --until completed --timeout-seconds 1800
  mytty-ctl agent send "$fix" "Also add a regression test." --enter
  mytty-ctl agent wait "$fix" --until completed
  # Stuck on an approval prompt? With --approver lead at spawn, answer it by id:
  #   mytty-ctl agent wait "$fix" --until attention
  #   id=$(mytty-ctl approval list | jq -r '.approvals[0].id')
  #   mytty-ctl approval answer "$id" allow
  #   (or: mytty-ctl approval answer "$id" deny --message "use the fixture")
  # Without it, read the screen and answer with a key: mytty-ctl send-key PANE 1
  mytty-ctl agent close "$a"; mytty-ctl agent close "$b"

PANE COMMANDS (the escape hatch; prefer the agent commands for delegating work)
{pane}

  pane=$(mytty-ctl split "$MYTTY_SURFACE_ID" right --command 'make test' \\
         | jq -r .paneID)
  mytty-ctl wait "$pane" --until idle; mytty-ctl read "$pane"
  mytty-ctl close-pane "$pane"
  --command text runs once in the new pane's shell after it has started; it is
  not typed and never lands in shell history. In send, a newline is Enter.

  TESTING A TUI APP FROM INSIDE A PANE
    Your own terminal is taken by your TUI. Open a sibling pane with
    split "$MYTTY_SURFACE_ID" right --command '<app>', drive it with send /
    send-key, check it with read, and close-pane it afterwards. That is not a
    sub-agent.

  PROVIDER LAUNCH COMMANDS (when you start agents yourself)
    claude --permission-mode acceptEdits -- "$(cat task.md)"
        approve Bash prompts with wait --until attention, read the screen,
        then send-key PANE with the option's number
    codex -s workspace-write -a never -- "$(cat task.md)"
        wait --until idle is enough
    cursor-agent --force -- "$(cat task.md)"
        avoid --plan

  WAIT PITFALLS
    wait --until idle only resolves after the pane's agent reported a run; a
    pane with no agent events waits until its timeout. Right after split
    --command the agent may not run yet. Cursor approvals are estimated about
    10 s after a tool call stalls. After a controller restart, runs whose agent
    is gone are marked disconnected. Don't sleep and guess: wait, read, then
    decide.

  INSTRUCTIONS TO GIVE A SUB-AGENT
    Stay in the working directory. Keep going until done and run the relevant
    tests. Don't start hidden sub-agents. Decide routine questions yourself and
    note the decision. Report phases with mytty-ctl status. End with a short
    summary of findings, changes and tests.

  RUNNING SEVERAL WORKERS IN PARALLEL
    Give each writer its own --worktree. Requests are limited to 64 KiB: put
    long tasks in a file and use --task-file.

  WATCHING SEVERAL WORKERS AT ONCE
    cursor=$(mytty-ctl events | jq -r .latestSequence)
    while true; do
      r=$(mytty-ctl events --after "$cursor" --timeout 60)
      cursor=$(printf '%s' "$r" | jq -r .latestSequence)
      printf '%s' "$r" | jq -c '.records[]'
    done
    Omitting --after only establishes a cursor; --after 0 returns everything
    retained (the last 1000 events). The timeout defaults to 30 s (at most
    600). A page that had to stop early reports its last record as
    latestSequence, so this loop never skips an event; a cursor that fell out
    of the retained window gets "truncated": true.

SEND-KEY NAMES
{keys}"""


def render(*, agent: str, integration: str, pane: str, keys: str, approval: str = "") -> str:
    """The whole guide, with each section's command entries filled in."""
    return (
        _TEMPLATE.format(
            agent=agent,
            integration=integration,
            approval=approval,
            pane=pane,
            keys=keys.rstrip("\n"),
            control_socket=paths.CONTROL_SOCKET,
            default_home=paths.DEFAULT_HOME,
        )
        + "\n"
    )
