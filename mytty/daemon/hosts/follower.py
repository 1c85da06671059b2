"""Following one host: a long poll of its ``events`` over the SSH link, and after each answer
a fresh look at its attention items and jobs.

Nothing polls on a timer: the host's controller answers the poll the moment it has a record
past the cursor (or after :data:`POLL_S`, which doubles as the sign of life that keeps
``lastSeen`` current). The link is the command line's (:mod:`mytty.cli.hosts.link`): the
follower connects to the local end of the forward itself, and when that does not answer it
runs ``mytty-ctl __connect NAME`` to make the link (the same handshake, master and forward a
``mytty-ctl --host`` call makes), so there is one implementation of SSH in mytty. Any failure
makes the host ``stale`` (its items kept with their last-seen time) and the follower tries
again with a back-off of 1, 2, 4 … 60 s; when the host answers again its items replace the old
ones, and only items that are new go to the notification router (``on_new_items``).

A host with ``transport = "exec"`` is asked through ``mytty-ctl __send NAME`` instead (the
link's ``mytty-ctl __relay`` there, one process per request).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import os
import time
from collections.abc import Callable, Mapping
from typing import Any

from mytty.control import agent_list, approval_list, attention, events
from mytty.core.errors import ErrorCode
from mytty.core.hosts import ids, links
from mytty.core.hosts.config import EXEC, HostSpec, HostsSettings
from mytty.core.hosts.state import HostState, lost, seen
from mytty.protocol.limits import MAX_CTL_RESPONSE_BYTES

#: The attention kind of an agent's permission request.
APPROVAL_ITEM = "approval-request"

log = logging.getLogger(__name__)

#: How long one long poll of the host's events waits for a record.
POLL_S = 30.0
#: Beyond the poll itself, how long its reply may take.
GRACE_S = 10.0
#: How long a plain request (attention items, jobs) may take.
REQUEST_S = 10.0
FIRST_BACKOFF_S = 1.0
MAX_BACKOFF_S = 60.0


class HostDown(Exception):
    """The host did not answer: ``code`` and ``message`` say why."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class HostFollower:
    def __init__(
        self,
        spec: HostSpec,
        settings: HostsSettings,
        *,
        ctl_bin: str,
        env: Mapping[str, str],
        home: str,
        now: Callable[[], float],
        on_new_items: Callable[[str, list[Mapping[str, object]]], None],
        on_change: Callable[[], None],
        backoff_max: float = MAX_BACKOFF_S,
    ) -> None:
        self.spec = spec
        self.settings = settings
        self._ctl_bin = ctl_bin
        self._env = dict(env)
        directory = links.link_dir(os.getuid(), home)
        self._socket = links.forward_socket(directory, spec.name)
        self._record = links.record_path(directory, spec.name)
        self._now = now
        self._on_new_items = on_new_items
        self._on_change = on_change
        self._backoff_max = backoff_max
        self.state = HostState(spec.name, spec.ssh, since=now())
        self._version: str | None = None
        #: Set to cut the current long poll short (``refresh``); the loop then reads again.
        self._wake = asyncio.Event()
        self.refreshed = asyncio.Condition()

    # -- the loop -------------------------------------------------------------------------------
    async def run(self) -> None:
        backoff = FIRST_BACKOFF_S
        while True:
            try:
                await self._follow()
            except HostDown as down:
                self._set(lost(self.state, self._now(), down.code, down.message))
                log.info("host %s: %s: %s", self.spec.name, down.code, down.message)
            except Exception as exc:  # a host's replies are input: never the controller's end
                log.exception("host %s: following failed", self.spec.name)
                self._set(lost(self.state, self._now(), ErrorCode.INTERNAL_ERROR.value, str(exc)))
            if self.state.state == "current":
                backoff = FIRST_BACKOFF_S
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), backoff)
            self._wake.clear()
            backoff = min(backoff * 2, self._backoff_max)

    async def _follow(self) -> None:
        await self._connect()
        tip = (await self._request({"type": events.COMMAND.wire}))["latestSequence"]
        await self._look()
        while True:
            page = await self._poll(int(tip))
            if page is not None:
                tip = page["latestSequence"]
            await self._look()

    async def _poll(self, after: int) -> dict[str, Any] | None:
        """The long poll, cut short by :meth:`wake` (None then)."""
        poll = asyncio.ensure_future(
            self._request(
                {
                    "type": events.COMMAND.wire,
                    events.AFTER.key: after,
                    events.TIMEOUT.key: POLL_S,
                },
                POLL_S + GRACE_S,
            )
        )
        woken = asyncio.ensure_future(self._wake.wait())
        try:
            await asyncio.wait({poll, woken}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            woken.cancel()
        if poll.done():
            return poll.result()
        poll.cancel()
        with contextlib.suppress(asyncio.CancelledError, HostDown):
            await poll
        self._wake.clear()
        return None

    async def _look(self) -> None:
        """Read the host's attention items and jobs: the host is current."""
        started = time.perf_counter()
        items = (await self._request({"type": attention.COMMAND.wire}))["items"]
        rtt_ms = round((time.perf_counter() - started) * 1000, 2)
        jobs = (
            await self._request({"type": agent_list.COMMAND.wire, agent_list.ALL_LEADS.key: True})
        )["jobs"]
        state, fresh = seen(
            self.state, self._now(), items=items, jobs=jobs, rtt_ms=rtt_ms, version=self._version
        )
        self._set(state)
        if fresh:
            self._on_new_items(self.spec.name, await self._with_requests(fresh))
        async with self.refreshed:
            self.refreshed.notify_all()

    async def _with_requests(self, fresh: list[Mapping[str, object]]) -> list[Mapping[str, object]]:
        """New items, an approval item with ``approvalID``: its run's open permission request
        on the host (qualified), so a notification can be answered with ``mytty approve``."""
        if not any(item.get("kind") == APPROVAL_ITEM for item in fresh):
            return fresh
        try:
            entries = (await self._request({"type": approval_list.COMMAND.wire}))["approvals"]
        except (HostDown, KeyError, ValueError):  # the items still notify, without the id
            return fresh
        by_run = {entry.get("runID"): entry.get("id") for entry in entries}  # newest wins
        return [
            {**item, "approvalID": by_run.get(item.get("runID"))}
            if item.get("kind") == APPROVAL_ITEM
            else item
            for item in fresh
        ]

    def _set(self, state: HostState) -> None:
        if state != self.state:
            self.state = state
            self._on_change()

    def wake(self) -> None:
        """Read the host again now (its current poll is cut short; a back-off too)."""
        self._wake.set()

    def settings_changed(self, settings: HostsSettings) -> None:
        self.settings = settings

    # -- the link -------------------------------------------------------------------------------
    async def _connect(self) -> None:
        """Make sure the link exists: the forward's local end answers, else ``__connect``."""
        if self.spec.transport == EXEC:
            return
        if await self._answers():
            if self._version is None:  # a link mytty-ctl made: its handshake is recorded
                self._version = self._recorded_version()
            return
        out = await self._run_ctl(["__connect", self.spec.name], self.settings.connect_timeout + 10)
        hello = json.loads(out).get("hello") or {}
        self._version = hello.get("mytty") if isinstance(hello, dict) else None
        if not await self._answers():
            raise HostDown(ErrorCode.HOST_UNREACHABLE.value, f"the forward {self._socket} is gone")

    def _recorded_version(self) -> str | None:
        try:
            with open(self._record, encoding="utf-8") as f:
                hello = json.load(f).get("hello") or {}
        except (OSError, ValueError, AttributeError):
            return None
        version = hello.get("mytty") if isinstance(hello, dict) else None
        return version if isinstance(version, str) else None

    async def _answers(self) -> bool:
        try:
            _, writer = await asyncio.wait_for(asyncio.open_unix_connection(self._socket), 5)
        except (OSError, TimeoutError):
            return False
        writer.close()
        with contextlib.suppress(OSError):
            await writer.wait_closed()
        return True

    async def _run_ctl(self, args: list[str], timeout: float, stdin: bytes = b"") -> bytes:
        """``mytty-ctl ARGS``: its stdout, or HostDown with its one failure line."""
        proc = await asyncio.create_subprocess_exec(
            self._ctl_bin,
            *args,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=self._env,
            start_new_session=True,
        )
        try:
            out, err = await asyncio.wait_for(proc.communicate(stdin), timeout)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, 9)
            await proc.wait()
            raise HostDown(
                ErrorCode.HOST_UNREACHABLE.value, f"no answer within {timeout:g} s"
            ) from None
        if proc.returncode != 0:
            line = err.decode("utf-8", "replace").strip().splitlines()
            text = line[-1] if line else f"mytty-ctl exited {proc.returncode}"
            _, code, message = [*text.split(": ", 2), "", ""][:3]
            raise HostDown(code or ErrorCode.HOST_UNREACHABLE.value, message or text)
        return out

    async def _request(
        self, request: dict[str, object], timeout: float = REQUEST_S
    ) -> dict[str, Any]:
        """One request to the host's controller; its reply with ids qualified."""
        if self.spec.transport == EXEC:
            args = ["__send", self.spec.name, str(math.ceil(timeout))]
            out = await self._run_ctl(args, timeout + 15, json.dumps(request).encode() + b"\n")
            answer: Any = json.loads(out)
        else:
            answer = await self._exchange(request, timeout)
        reply = ids.qualify_reply(answer, self.spec.name)
        if not isinstance(reply, dict):
            raise HostDown(ErrorCode.INVALID_RESPONSE.value, "the host's reply is not an object")
        return reply

    async def _exchange(self, request: dict[str, object], timeout: float) -> dict[str, Any]:
        try:
            reader, writer = await asyncio.wait_for(
                asyncio.open_unix_connection(self._socket, limit=MAX_CTL_RESPONSE_BYTES), 5
            )
        except (OSError, TimeoutError):
            raise HostDown(ErrorCode.HOST_UNREACHABLE.value, "the SSH link is down") from None
        try:
            writer.write(json.dumps(request).encode() + b"\n")
            writer.write_eof()
            line = await asyncio.wait_for(reader.readline(), timeout)
        except (OSError, TimeoutError, ValueError) as exc:
            raise HostDown(ErrorCode.HOST_UNREACHABLE.value, f"the link dropped ({exc})") from None
        finally:
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()
        if not line:
            raise HostDown(
                ErrorCode.CONTROLLER_NOT_RUNNING.value,
                "the SSH link answers, the controller there does not",
            )
        reply = json.loads(line)
        if not isinstance(reply, dict):
            raise HostDown(ErrorCode.INVALID_RESPONSE.value, "the host's reply is not an object")
        if reply.get("type") == "failure":
            raise HostDown(str(reply.get("code")), str(reply.get("message")))
        return reply
