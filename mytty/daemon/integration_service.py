"""The controller's side of hook integrations: status checks and human-approved installs."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from mytty.core import vocab
from mytty.core.errors import ErrorCode, MyttyError
from mytty.core.events import AgentProvider
from mytty.integrations import api
from mytty.protocol.limits import CONSENT_TIMEOUT_S
from mytty.protocol.replies import IntegrationStatusesReply
from mytty.tmux import ask, bootstrap
from mytty.tmux.port import TmuxPort

log = logging.getLogger(__name__)


class IntegrationService:
    def __init__(self, *, require_port: Callable[[], TmuxPort], tmux_socket: str) -> None:
        self._require_port = require_port
        self._tmux_socket = tmux_socket
        self._consent_lock = asyncio.Lock()

    async def status(self, provider: AgentProvider) -> str:
        st = await asyncio.to_thread(api.status_of, provider)
        return st.status

    async def wire(self) -> IntegrationStatusesReply:
        return await asyncio.to_thread(api.integrations_wire)

    async def repair_with_consent(self, provider: AgentProvider | None) -> IntegrationStatusesReply:
        if provider is not None:
            return await self.enable_with_consent([provider], repair=True)
        statuses = await asyncio.to_thread(api.list_statuses)
        broken = [s.provider for s in statuses if s.status == vocab.NEEDS_REPAIR]
        if not broken:
            return await self.wire()
        return await self.enable_with_consent(broken, repair=True)

    async def enable_with_consent(
        self, providers: list[AgentProvider], *, repair: bool
    ) -> IntegrationStatusesReply:
        todo = []
        for provider in providers:
            status = await self.status(provider)
            if status != vocab.INSTALLED:
                todo.append(provider)
        if not todo:
            return await self.wire()
        files: list[str] = []
        for provider in todo:
            files += await asyncio.to_thread(api.planned_changes, provider)
        names = ", ".join(p.value for p in todo)
        verb = "repair" if repair else "enable"
        hint = f"run `mytty integrations {verb} {todo[0].value}` yourself"
        clients = await self._require_port().human_clients()
        if not clients:
            raise MyttyError(
                ErrorCode.INTEGRATION_DECLINED,
                f"nobody is attached to tmux to approve installing the {names} hooks; {hint}",
            )
        body = (
            f"An agent asks mytty to {verb} the hook integration for: {names}.\n"
            "Hooks run mytty's helper inside that agent on every tool call.\n\n"
            "Files that will change:\n" + "\n".join(f"  {f}" for f in sorted(set(files))) + "\n"
        )
        async with self._consent_lock:
            approved = await asyncio.to_thread(
                ask.ask_yes_no,
                bootstrap.tmux_argv(self._tmux_socket),
                clients[0][0],
                " mytty: allow hook install? ",
                body,
                CONSENT_TIMEOUT_S,
            )
        if not approved:
            raise MyttyError(
                ErrorCode.INTEGRATION_DECLINED,
                f"the human declined (or did not answer) installing the {names} hooks; {hint}",
            )
        for provider in todo:
            if repair:
                await asyncio.to_thread(api.repair, provider)
            else:
                await asyncio.to_thread(api.enable, provider)
        return await self.wire()
