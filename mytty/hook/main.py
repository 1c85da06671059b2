"""``mytty-agent-hook <provider>``: report one agent hook to the mytty controller.

Agents run this on every hook (for some, every tool call), so it must never get in their way:

- it prints the provider's neutral stdout reply first, whatever happens next (Cursor reads an
  empty reply to ``preToolUse`` as a denial; Antigravity expects a decision on Stop);
- outside a mytty pane (``MYTTY_EVENT_SOCKET`` unset or empty) it exits 0 without a word; when
  the controller is not running (restarting, stopped) it also exits 0, keeping the event in the
  home's spool for the next controller (:mod:`mytty.hook.spool`);
- otherwise a failure is one stderr line ``mytty-agent-hook: <reason>`` and exit 1 — never
  exit 2, which Claude Code and Codex read as "block this action";
- the whole run is bounded (:data:`DEADLINE_S`) even against a wedged controller;
- the capability is never printed;
- at a turn boundary (Claude Code's and Codex's ``UserPromptSubmit``/``SessionStart``) the
  envelope says ``leadNotices``, and a ``notice`` in the controller's reply (news of workers
  spawned with ``agent spawn --notify-lead``) is printed as the hook's
  ``hookSpecificOutput.additionalContext`` (mytty.hook.adapters.notice);
- in a worker mytty spawned with the guard on, a ``PreToolUse`` whose shell command would kill
  mytty's tmux server gets the provider's deny on stdout and exit 0 (:mod:`mytty.hook.guard`),
  decided locally, without the controller;
- a Claude Code or Codex ``PermissionRequest`` (not a question tool's) goes to the approvals
  broker and may wait for its decision, which is printed as the provider's reply
  (:mod:`mytty.hook.approval`); whatever goes wrong there, it prints nothing and exits 0, so
  the agent's own dialog decides, as without mytty.

Codex is routed by session id on the controller, not by surface (a daemon-hosted Codex hands
its hooks the environment of whichever pane started the daemon). So ``mytty-agent-hook codex``
sends ``MYTTY_SURFACE_ID``/``MYTTY_EVENT_CAPABILITY`` when the pane has them and otherwise still
delivers: surface ``00000000-0000-0000-0000-000000000000`` and no ``capability`` key. Every
other provider needs both and fails (exit 1) without them.

Start-up time matters as much as correctness: an ordinary event's run imports only builtin and
C stdlib modules (``os``, ``time``, ``select``, ``errno``, ``_json``, ``_socket``, ``_sha256``)
and a few small mytty modules; not the ``json`` or ``socket`` packages, ``re``, ``types`` or
``typing`` (:mod:`mytty.protocol.jsonlite`, :mod:`mytty.hook.client`).
``scripts/bench/hook_latency`` measures it against ``python -I -c 'import json, socket'``.
"""

import os
import sys
import time

from mytty.hook.mapping import APPROVAL_REQUESTED, PROVIDERS, HookMapping
from mytty.protocol.limits import MAX_HOOK_STDIN_BYTES, MAX_REQUEST_BYTES

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy knows the idiom)
if TYPE_CHECKING:
    from types import ModuleType

#: The providers whose PermissionRequest hook can take a decision (both read the same reply).
_DECIDING_PROVIDERS = frozenset({"claude-code", "codex"})

#: Everything — reading stdin, connecting, one retry, the reply — fits in this many seconds,
#: leaving headroom for interpreter start and exit within a 2 s budget.
DEADLINE_S = 1.75

USAGE = "usage: mytty-agent-hook <" + "|".join(PROVIDERS) + ">"
_PROGRAM = "mytty-agent-hook"


def _say(reason: str) -> None:
    """Write one stderr line, with the capability (should it ever appear) redacted."""
    capability = os.environ.get("MYTTY_EVENT_CAPABILITY")
    if capability:
        reason = reason.replace(capability, "<capability>")
    # One line, no terminal escapes: part of the text may come from the controller's reply.
    line = " ".join("".join(ch if ch.isprintable() else " " for ch in reason).split()) or "error"
    try:
        os.write(2, f"{_PROGRAM}: {line}\n".encode("utf-8", "replace"))
    except OSError:
        pass


def _write_stdout(data: bytes) -> None:
    try:
        while data:
            data = data[os.write(1, data) :]
    except OSError:
        pass  # the agent stopped listening; nothing useful left to do with the reply


def _read_stdin(deadline: float) -> tuple[bytes, str | None]:
    """All of stdin (at most the cap + 1 byte), or a reason why it could not be read."""
    import select

    chunks: list[bytes] = []
    size = 0
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([0], [], [], left)[0]:
                return b"", "timed out reading the hook payload from stdin"
            chunk = os.read(0, 65536)
            if not chunk:
                break
            size += len(chunk)
            # Past the cap, keep draining (until EOF or the deadline) so the agent's write does
            # not fail with EPIPE, but keep nothing.
            if size <= MAX_HOOK_STDIN_BYTES:
                chunks.append(chunk)
    except (OSError, ValueError):
        return b"", "cannot read the hook payload from stdin"
    if size > MAX_HOOK_STDIN_BYTES:
        return b"", "hook payload exceeds 1 MiB"
    return b"".join(chunks), None


def _parse(raw: bytes) -> tuple[dict[str, object] | None, str | None]:
    from mytty.protocol.jsonlite import loads

    try:
        payload = loads(raw)
    except (ValueError, RecursionError):  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        return None, "hook payload is not valid JSON"
    if not isinstance(payload, dict):
        return None, "hook payload is not a JSON object"
    return payload, None


def _credentials(provider: str) -> tuple[str, str | None] | str:
    """(surface id, capability) from the pane environment, or the reason they are unusable.

    Codex is routed by session id, not by surface (a daemon-hosted Codex hands its hooks the
    environment of another pane), so for codex missing values are replaced by the nil surface
    and no capability instead of failing.
    """
    from mytty.core.ids import normalize_uuid
    from mytty.hook.wire import NIL_SURFACE_ID

    surface = normalize_uuid(os.environ.get("MYTTY_SURFACE_ID", "").strip())
    capability = os.environ.get("MYTTY_EVENT_CAPABILITY") or None
    if provider == "codex":
        return surface or NIL_SURFACE_ID, capability
    if surface is None:
        return "MYTTY_SURFACE_ID is missing or not a UUID"
    if capability is None:
        return "MYTTY_EVENT_CAPABILITY is missing"
    return surface, capability


def _run(args: list[str], deadline: float) -> int:
    if args == ["--version"]:
        from mytty import __version__  # the package __init__ imports nothing

        _write_stdout(f"{_PROGRAM} {__version__}\n".encode())
        return 0
    provider = args[0] if args else ""
    if provider not in PROVIDERS:
        _say(f"unknown provider {provider!r}; {USAGE}" if args else USAGE)
        return 1
    from mytty.hook.adapters import load_adapter

    adapter = load_adapter(provider)
    payload, problem = _read_payload(adapter, deadline)
    if len(args) != 1:
        _say(USAGE)
        return 1
    if payload is not None and _guard_denied(provider, payload):
        return 0
    socket_path = os.environ.get("MYTTY_EVENT_SOCKET", "")
    if not socket_path:
        return 0  # a global hook firing outside mytty
    if problem is not None or payload is None:
        _say(problem or "hook payload is missing")
        return 1
    mapping = adapter.map_payload(payload)
    if mapping is None:
        return 0  # an event mytty does not follow
    if not mapping.run_key:
        _say(f"{provider} {mapping.hook_name or 'event'} payload has no run identifier")
        return 1
    if not socket_path.startswith("/"):
        _say("MYTTY_EVENT_SOCKET is not an absolute path")
        return 1
    credentials = _credentials(provider)
    if isinstance(credentials, str):
        _say(credentials)
        return 1
    # A hook at the agent's turn boundary (Claude's UserPromptSubmit/SessionStart) can hand it
    # the lead notices of `agent spawn --notify-lead`; the envelope says so, the reply brings them.
    if _asks_for_decision(provider, mapping):
        from mytty.hook.approval import approval_object

        approval = approval_object(payload)
        if approval is not None:
            return _decide(provider, payload, mapping, credentials, approval, socket_path, deadline)
    takes_notice = getattr(adapter, "takes_notice", None)
    lead_notices = bool(takes_notice(payload)) if takes_notice is not None else False
    line = _event_line(provider, payload, mapping, mapping.run_key, credentials, lead_notices)
    return _deliver(adapter, payload, line, lead_notices, socket_path, deadline)


def _asks_for_decision(provider: str, mapping: HookMapping) -> bool:
    """A PermissionRequest the broker may decide (a question tool's maps to input-requested)."""
    return (
        provider in _DECIDING_PROVIDERS
        and mapping.hook_name == "PermissionRequest"
        and mapping.kind == APPROVAL_REQUESTED
    )


def _decide(
    provider: str,
    payload: dict[str, object],
    mapping: HookMapping,
    credentials: tuple[str, str | None],
    approval: dict[str, object],
    socket_path: str,
    deadline: float,
) -> int:
    """Send the request with its ``approval``, wait for the decision, print it. Always 0."""
    try:
        return _decide_or_not(
            provider, payload, mapping, credentials, approval, socket_path, deadline
        )
    except Exception as exc:  # noqa: BLE001 — no decision, never "Hook failed" (exit 1)
        _say(f"internal error ({type(exc).__name__})")
        return 0


def _decide_or_not(
    provider: str,
    payload: dict[str, object],
    mapping: HookMapping,
    credentials: tuple[str, str | None],
    approval: dict[str, object],
    socket_path: str,
    deadline: float,
) -> int:
    from mytty.hook.approval import bare, decision_output
    from mytty.hook.client import ControllerNotRunning, DeliveryError, Kept, deliver, read_decision
    from mytty.protocol.limits import APPROVAL_HOLD_GRACE_S, MAX_APPROVAL_HOLD_S

    assert mapping.run_key is not None
    line = _event_line(provider, payload, mapping, mapping.run_key, credentials, False, approval)
    if len(line) - 1 > MAX_REQUEST_BYTES:
        line = _event_line(
            provider, payload, mapping, mapping.run_key, credentials, False, bare(approval)
        )
        if len(line) - 1 > MAX_REQUEST_BYTES:
            _say("permission request exceeds the 64 KiB request limit")
            return 0
    kept: Kept = []
    try:
        try:
            reply = deliver(socket_path, line, deadline=deadline, keep=kept)
        except ControllerNotRunning:
            # Nobody decides now (the agent's own dialog does), but the next controller should
            # still learn that the run waits: the event is spooled without its request.
            from mytty.hook.spool import spool

            spool(
                socket_path,
                _event_line(provider, payload, mapping, mapping.run_key, credentials, False),
            )
            return 0
        except DeliveryError as exc:
            _say(str(exc))
            return 0
        if reply.get("ok") is not True:
            code = reply.get("error")
            _say(f"mytty rejected the permission request: {str(code)[:64]}")
            return 0
        held = reply.get("approval")
        if not isinstance(held, dict):
            return 0  # a controller without the broker: the event is stored, no decision
        decision: object = held if "decision" in held else None
        hold = held.get("holdSeconds")
        if decision is None and kept and isinstance(hold, int | float) and hold > 0:
            sock, already = kept.pop()
            wait = min(float(hold), MAX_APPROVAL_HOLD_S) + APPROVAL_HOLD_GRACE_S
            decision = read_decision(sock, time.monotonic() + wait, already)
        output = decision_output(decision)
        if output is not None:
            _write_stdout(output)
        return 0
    finally:
        for sock, _rest in kept:
            sock.close()


def _read_payload(
    adapter: "ModuleType", deadline: float
) -> tuple[dict[str, object] | None, str | None]:
    """The hook's payload (or why there is none), after printing the provider's neutral reply.

    The reply goes out first, whatever happens next: some providers read silence as a denial.
    """
    raw, problem = _read_stdin(deadline)
    payload: dict[str, object] | None = None
    if problem is None:
        payload, problem = _parse(raw)
    neutral_reply = getattr(adapter, "neutral_reply", None)
    if neutral_reply is not None:
        reply_bytes = neutral_reply(payload)
        if reply_bytes:
            _write_stdout(reply_bytes)
    return payload, problem


def _guard_denied(provider: str, payload: dict[str, object]) -> bool:
    """True when the kill-server guard denied this tool call (the deny is on stdout).

    The guard of workers mytty spawned (core.kill_guard.GUARD_VAR) is decided here without the
    controller. Claude Code and Codex read a hook's JSON only after exit 0, so a deny ends the
    run at once (neither provider's PreToolUse is an event mytty follows).
    """
    if not os.environ.get("MYTTY_TMUX_GUARD") or payload.get("hook_event_name") != "PreToolUse":
        return False  # (the guard's own first test, made before importing it)
    from mytty.hook.guard import pre_tool_use_reply

    deny = pre_tool_use_reply(provider, payload, os.environ)
    if deny is None:
        return False
    _write_stdout(deny)
    return True


def _deliver(
    adapter: "ModuleType",
    payload: dict[str, object],
    line: bytes,
    lead_notices: bool,
    socket_path: str,
    deadline: float,
) -> int:
    """Send the event line to the controller; print a lead notice it brings back. The status."""
    if len(line) - 1 > MAX_REQUEST_BYTES:
        _say("event exceeds the 64 KiB request limit")
        return 1
    from mytty.hook.client import ControllerNotRunning, DeliveryError, deliver

    try:
        reply = deliver(socket_path, line, deadline=deadline)
    except ControllerNotRunning:
        # mytty is not running (restarting, or the pane outlived it): the next one takes it.
        from mytty.hook.spool import spool

        spool(socket_path, line)
        return 0
    except DeliveryError as exc:
        _say(str(exc))
        return 1
    if reply.get("ok") is True:
        notice = reply.get("notice")
        if lead_notices and isinstance(notice, str) and notice:
            _write_stdout(adapter.notice_output(payload, notice))
        return 0
    code = reply.get("error")
    if reply.get("ok") is False and isinstance(code, str) and code:
        _say(f"mytty rejected the event: {code[:64]}")
    else:
        _say("mytty's reply is not a valid event reply")
    return 1


def _event_line(
    provider: str,
    payload: dict[str, object],
    mapping: HookMapping,
    run_key: str,
    credentials: tuple[str, str | None],
    lead_notices: bool,
    approval: dict[str, object] | None = None,
) -> bytes:
    """The envelope of this hook's event, as one line for the event socket."""
    from mytty.hook.identity import hook_event_id, hook_run_id
    from mytty.hook.wire import encode_event_line, format_occurred_at

    surface_id, capability = credentials
    return encode_event_line(
        event_id=hook_event_id(provider, mapping.kind, payload),
        run_id=hook_run_id(provider, run_key),
        surface_id=surface_id,
        provider=provider,
        kind=mapping.kind,
        occurred_at=format_occurred_at(time.time()),
        capability=capability,
        session_id=mapping.session_id,
        message=mapping.message,
        hook_name=mapping.hook_name,
        tool_use_id=mapping.tool_use_id,
        tool_name=mapping.tool_name,
        last_assistant_message=mapping.last_assistant_message,
        lead_notices=lead_notices,
        approval=approval,
    )


def main(argv: list[str] | None = None) -> int:
    """Console entry point; returns the exit status (0 or 1, never anything else)."""
    deadline = time.monotonic() + DEADLINE_S
    try:
        return _run(sys.argv[1:] if argv is None else list(argv), deadline)
    except BaseException as exc:  # noqa: BLE001 — the agent must never see a traceback
        _say(f"internal error ({type(exc).__name__})")
        return 1


if __name__ == "__main__":
    sys.exit(main())
