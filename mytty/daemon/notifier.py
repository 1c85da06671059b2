"""The notification router: tells a human when an agent needs them, through every channel.

The policy (which transitions, once each, no storm after a restart, not for a pane being
looked at, a per-pane cooldown) is :mod:`mytty.core.attention.notify_policy`; this module hears the hub's
events, asks tmux what the attached clients show, and sends. Nothing here blocks the
controller: each notification is its own task, the user command is an asyncio subprocess
killed (with its process group) at ``[notify] timeout``, and tmux writes never wait on a
stopped terminal.

A notification about an item that is no longer actionable by the time it goes out (an approval
decided within its hold, a question answered) is dropped: the item resolved everywhere. One
about a permission request carries its ``approvalID`` for the ``command`` channel, so a phone
script can answer it (``mytty approve ID``).

Channels go out in this order: ``bell`` and ``osc`` (written to panes as their output),
``notify-send``, ``command``, and ``message`` last: while tmux shows a message on a client it
holds back that client's pane output, passthrough included, so a message shown first would
swallow the OSC notification. See docs/reference/config.md for each channel.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import shutil
import signal
import uuid
from collections.abc import Callable, Coroutine, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from mytty.core.attention.items import AttentionItem
from mytty.core.attention.notify_policy import (
    Notification,
    NotifyGate,
    Verdict,
    describe,
    notification_for,
    notification_for_item,
    notification_for_remote,
)
from mytty.core.config import (
    APPROVAL,
    BELL,
    COMMAND,
    MESSAGE,
    NOTIFY_SEND,
    OSC,
    NotifySettings,
)
from mytty.core.errors import MyttyError
from mytty.core.events import AgentEvent, format_timestamp
from mytty.core.ids import RunId, SurfaceId
from mytty.daemon.agents import AgentHub
from mytty.daemon.panes.identity import PaneRegistry
from mytty.protocol.replies import NotifyTestReply
from mytty.tmux.port import ClientView, TmuxPort, passthrough

log = logging.getLogger(__name__)

#: The order channels go out in (see the module docstring for why the message is last).
SEND_ORDER = (BELL, OSC, NOTIFY_SEND, COMMAND, MESSAGE)
#: After writing OSC output, how long to let tmux read it before a message freezes the client.
OSC_SETTLE_S = 0.1
#: The most of a command's stderr kept for the report (its tail).
STDERR_TAIL = 2048
#: The most other-host permission requests kept for ``approvalID`` (the oldest go first).
MAX_REMOTE_APPROVALS = 1000

Status = Literal["sent", "skipped", "failed"]


@dataclass(frozen=True, slots=True)
class ChannelResult:
    channel: str
    status: Status
    detail: str


def dbus_session_available(env: Mapping[str, str]) -> bool:
    """A D-Bus session bus notify-send could reach (its address, or the systemd user bus)."""
    if env.get("DBUS_SESSION_BUS_ADDRESS"):
        return True
    runtime = env.get("XDG_RUNTIME_DIR")
    return runtime is not None and os.path.exists(os.path.join(runtime, "bus"))


def osc_sequence(code: int, title: str, body: str) -> bytes:
    """The desktop-notification escape sequence (BEL-terminated), unwrapped."""
    title, body = _plain(title), _plain(body)
    if code == 777:
        return f"\x1b]777;notify;{title.replace(';', ',')};{body}\x07".encode()
    return f"\x1b]9;{title}: {body}\x07".encode()


def _plain(text: str, limit: int = 400) -> str:
    """One line without control characters (they would end an escape sequence early)."""
    clean = "".join(" " if ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0 else c for c in text)
    clean = clean.encode("utf-8", "replace").decode("utf-8")
    return clean if len(clean) <= limit else clean[: limit - 1] + "…"


class Notifier:
    def __init__(
        self,
        settings: NotifySettings,
        *,
        hub: AgentHub,
        panes: PaneRegistry,
        label_for_pane: Callable[[SurfaceId], str | None],
        port: Callable[[], TmuxPort | None],
        now: Callable[[], float],
        env: Mapping[str, str] | None = None,
        approval_for: Callable[[RunId], str | None] | None = None,
    ) -> None:
        #: The open permission request of a run (the approvals broker), for ``approvalID``.
        self._approval_for = approval_for
        #: Other hosts' open permission requests by their (qualified) run, oldest first.
        self._remote_approvals: dict[RunId, str] = {}
        self.settings = settings
        self._hub = hub
        self._panes = panes
        self._label_for_pane = label_for_pane
        self._port = port
        self._now = now
        self._env = dict(os.environ if env is None else env)
        self._gate: NotifyGate | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        #: What went out (key, channels), newest last: for tests and the log.
        self.sent: list[tuple[str, tuple[ChannelResult, ...]]] = []

    # -- listening ------------------------------------------------------------------------------
    def start(self) -> None:
        """Listen from now on. Call after the startup sweep: nothing before counts."""
        s = self.settings
        self._gate = NotifyGate(started_at=self._now(), kinds=s.on, cooldown=s.cooldown)
        self._hub.add_observer(self.observe)

    def update(self, settings: NotifySettings) -> None:
        """New settings (config.toml was saved): what was sent and when stays remembered."""
        self.settings = settings
        if self._gate is not None:
            self._gate.retune(kinds=settings.on, cooldown=settings.cooldown)

    def observe(self, event: AgentEvent, inserted: bool) -> None:
        if not inserted or self._gate is None:
            return
        n = notification_for(
            event,
            self._hub.attention.get(event.id),
            self._hub.book.get(event.run_id),
            self.settings.long_success,
        )
        if n is not None:
            self.offer(n)

    def observe_remote(self, host: str, items: Sequence[Mapping[str, object]]) -> None:
        """Attention items new on another host (mytty.daemon.hosts): each notifies once, as
        the host's own router would, prefixed with the host's name."""
        for item in items:
            n = notification_for_remote(host, item)
            if n is not None:
                request_id = item.get("approvalID")
                if isinstance(request_id, str):
                    self._remote_approvals[n.run_id] = request_id
                    while len(self._remote_approvals) > MAX_REMOTE_APPROVALS:
                        del self._remote_approvals[next(iter(self._remote_approvals))]
                self.offer(n)

    def observe_item(self, item: AttentionItem) -> None:
        """An attention item no event created (a job's launch failure)."""
        n = notification_for_item(item)
        if n is not None:
            self.offer(n)

    def offer(self, n: Notification) -> None:
        """Consider one notification (an item that no event created comes in here too)."""
        if self._gate is None:
            return
        verdict = self._gate.claim(n)
        if verdict is not Verdict.SEND:
            log.debug("notification %s for %s not sent: %s", n.key, n.surface_id, verdict)
            return
        self._spawn(self._deliver(n))

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def close(self) -> None:
        """Stop sending: cancel what is under way (its commands are killed)."""
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    async def wait_idle(self) -> None:
        """Return once every notification under way has gone out (tests, shutdown)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    # -- delivering -----------------------------------------------------------------------------
    async def _deliver(self, n: Notification) -> None:
        assert self._gate is not None
        views = await self._views()
        item = self._hub.attention.get(n.key)
        if item is not None and not item.actionable:
            log.debug("notification %s for %s not sent: resolved meanwhile", n.key, n.surface_id)
            return
        pane = self._panes.by_surface.get(n.surface_id)
        focused = pane is not None and any(v.pane_id == pane.tmux_id for v in views)
        verdict = self._gate.admit(n, focused=focused, now=self._now())
        if verdict is not Verdict.SEND:
            log.debug("notification %s for %s not sent: %s", n.key, n.surface_id, verdict)
            return
        results = await self.send(n, views)
        self.sent.append((n.key, tuple(results)))
        failed = [f"{r.channel}: {r.detail}" for r in results if r.status == "failed"]
        if failed:
            log.warning("notification %s: %s", n.key, "; ".join(failed))

    async def _views(self) -> list[ClientView]:
        port = self._port()
        if port is None:
            return []
        try:
            return await port.client_views()
        except MyttyError as exc:
            log.debug("could not list tmux clients: %s", exc.message)
            return []

    async def send(
        self,
        n: Notification,
        views: Sequence[ClientView] | None = None,
        *,
        test: bool = False,
    ) -> list[ChannelResult]:
        """Send ``n`` through every enabled channel now (no policy) and say how each went."""
        if views is None:
            views = await self._views()
        payload = self.payload(n, test=test)
        title, body = str(payload["title"]), str(payload["body"])
        enabled = set(self.settings.channels)
        results: list[ChannelResult] = []
        for channel in SEND_ORDER:
            if channel not in enabled:
                continue
            if channel == MESSAGE and any(r.channel == OSC and r.status == "sent" for r in results):
                await asyncio.sleep(OSC_SETTLE_S)
            try:
                result = await self._send_one(channel, n, views, title, body, payload)
            except MyttyError as exc:
                result = ChannelResult(channel, "failed", exc.message)
            except OSError as exc:
                result = ChannelResult(channel, "failed", str(exc))
            results.append(result)
        return results

    async def test(self, surface_id: SurfaceId | None) -> NotifyTestReply:
        """``mytty notify test``: one notification through every enabled channel, now."""
        n = Notification(
            key=f"test-{uuid.uuid4()}",
            kind=APPROVAL,
            surface_id=surface_id or SurfaceId(""),
            run_id=RunId(""),
            provider="mytty",
            message="a test notification (mytty notify test)",
            occurred_at=self._now(),
        )
        results = await self.send(n, test=True)
        return {
            "type": "notifyTest",
            "channels": [
                {"channel": r.channel, "status": r.status, "detail": r.detail} for r in results
            ],
            "notification": self.payload(n, test=True),
        }

    def payload(self, n: Notification, *, test: bool = False) -> dict[str, object]:
        """The JSON object a user command reads on stdin."""
        if n.host is not None:  # another host's item: its own pane and label
            location, label = n.location, n.label
            where = f"{n.host}:{label}" if label else location
        else:
            pane = self._panes.by_surface.get(n.surface_id)
            row = pane.row if pane is not None else None
            location = (
                None if row is None else f"{row.session_name}:{row.window_index}.{row.pane_index}"
            )
            label = self._label_for_pane(n.surface_id)
            where = label or location
        title, body = describe(n, where)
        return {
            "type": "notification",
            "kind": n.kind,
            "title": title,
            "body": body,
            "paneID": n.surface_id,
            "runID": n.run_id,
            "provider": n.provider,
            "message": n.message,
            "occurredAt": format_timestamp(n.occurred_at),
            "location": location,
            "label": label,
            "approvalID": self._approval_id(n),
            "host": n.host,
            "test": test,
        }

    def _approval_id(self, n: Notification) -> str | None:
        """The permission request an approval notification is about (another host's
        qualified, as its follower read it), or None."""
        if n.kind != APPROVAL:
            return None
        if n.host is not None:
            return self._remote_approvals.get(n.run_id)
        return self._approval_for(n.run_id) if self._approval_for is not None else None

    async def _send_one(
        self,
        channel: str,
        n: Notification,
        views: Sequence[ClientView],
        title: str,
        body: str,
        payload: Mapping[str, object],
    ) -> ChannelResult:
        port = self._port()
        if channel == BELL:
            pane = self._panes.by_surface.get(n.surface_id)
            if port is None or pane is None:
                why = "not run in a mytty pane" if not n.surface_id else "the pane is gone"
                if n.host is not None:
                    why = f"the pane is on host {n.host}"
                return ChannelResult(channel, "skipped", why)
            await port.write_pane_output(pane.tmux_id, b"\x07")
            return ChannelResult(channel, "sent", f"bell in {pane.tmux_id}")
        if channel == OSC:
            if port is None or not views:
                return ChannelResult(channel, "skipped", "no tmux client is attached")
            data = passthrough(osc_sequence(self.settings.osc, title, body))
            # tmux passes it to every client showing the pane it was written to: one pane per
            # window shown is enough.
            shown = {v.window_id: v.pane_id for v in views}
            for pane_id in shown.values():
                await port.write_pane_output(pane_id, data)
            return ChannelResult(
                channel,
                "sent",
                f"OSC {self.settings.osc} to {len(views)} client(s) (tmux passes it on only "
                "with allow-passthrough on)",
            )
        if channel == MESSAGE:
            if port is None or not views:
                return ChannelResult(channel, "skipped", "no tmux client is attached")
            text = _plain(f"{title}: {body}", 200)
            for view in views:
                await port.display_message(view.name, text)
            return ChannelResult(channel, "sent", f"shown on {', '.join(v.name for v in views)}")
        if channel == NOTIFY_SEND:
            return await self._notify_send(title, body)
        if channel == COMMAND:
            return await self._command(payload)
        return ChannelResult(channel, "skipped", "unknown channel")

    async def _notify_send(self, title: str, body: str) -> ChannelResult:
        program = shutil.which("notify-send", path=self._env.get("PATH"))
        if program is None:
            return ChannelResult(NOTIFY_SEND, "skipped", "notify-send is not installed")
        if not dbus_session_available(self._env):
            return ChannelResult(NOTIFY_SEND, "skipped", "no D-Bus session bus")
        argv = [program, "--app-name=mytty", _plain(title), _plain(body)]
        code, tail = await self._run(argv, b"")
        return _outcome(NOTIFY_SEND, code, tail, self.settings.timeout)

    async def _command(self, payload: Mapping[str, object]) -> ChannelResult:
        command = self.settings.command
        if not command:
            return ChannelResult(COMMAND, "skipped", "no [notify] command is configured")
        argv = ["/bin/sh", "-c", command] if isinstance(command, str) else list(command)
        data = (json.dumps(payload, ensure_ascii=False) + "\n").encode()
        code, tail = await self._run(argv, data)
        return _outcome(COMMAND, code, tail, self.settings.timeout)

    async def _run(self, argv: list[str], stdin: bytes) -> tuple[int | None, str]:
        """Run ``argv`` with ``stdin``; (exit code or None when killed at the timeout, stderr)."""
        try:
            proc = await asyncio.create_subprocess_exec(
                *argv,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.DEVNULL,
                stderr=asyncio.subprocess.PIPE,
                env=self._env,
                start_new_session=True,  # its own process group: a timeout kills its children
            )
        except OSError as exc:
            return -1, f"cannot start {argv[0]}: {exc.strerror or exc}"
        tail = bytearray()

        async def talk() -> None:
            assert proc.stdin is not None and proc.stderr is not None
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                proc.stdin.write(stdin)
                await proc.stdin.drain()
                proc.stdin.close()
            while chunk := await proc.stderr.read(4096):
                tail.extend(chunk)
                del tail[:-STDERR_TAIL]
            await proc.wait()

        try:
            async with asyncio.timeout(self.settings.timeout):
                await talk()
        except TimeoutError:
            _kill_group(proc.pid)
            await proc.wait()
            return None, tail.decode("utf-8", "replace")
        except asyncio.CancelledError:
            _kill_group(proc.pid)
            raise
        return proc.returncode, tail.decode("utf-8", "replace")


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def _outcome(channel: str, code: int | None, stderr: str, timeout: float) -> ChannelResult:
    last = stderr.strip().splitlines()[-1] if stderr.strip() else ""
    if code is None:
        return ChannelResult(channel, "failed", f"killed after {timeout:g} s")
    if code != 0:
        why = f"exited {code}" if code > 0 else (last or "failed")
        if code > 0 and last:
            why += f": {last}"
        return ChannelResult(channel, "failed", why)
    return ChannelResult(channel, "sent", "exited 0")
