"""Who asks, for an answer to another host's permission request.

Host b's approvals broker judges a caller by its process ancestry on b; a request that comes
over SSH reaches it from b's sshd, so b would take any answer sent from here for a person's.
Only a person may answer there, then: an answer (``answerApproval``, and the rule proposal
``mytty approve --always`` reads first) that leaves this host from a process under an agent
is refused here, with ``approval-not-yours``. The check is the one b's broker makes locally
(an agent among the ancestors, or ``CLAUDECODE=1`` / ``CODEX_SANDBOX`` in the environment),
and no stronger: an agent that can run ``ssh b`` itself is that SSH account's user there.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from mytty.cli.transport import CtlError
from mytty.core import codes

#: The requests that answer, or prepare an answer to, a permission request.
ANSWERS = frozenset({"answerApproval", "proposeApprovalRule"})
#: Variables the agents set for the commands they run.
AGENT_MARKS = (("CLAUDECODE", "1"), ("CODEX_SANDBOX", None))
MAX_DEPTH = 64


def under_agent(env: Mapping[str, str], pid: int, *, proc_root: str | None = None) -> bool:
    """Whether process ``pid`` (with environment ``env``) runs under an agent (``proc_root``:
    procfs's own unless a test gives another)."""
    if any(name in env and (want is None or env[name] == want) for name, want in AGENT_MARKS):
        return True
    from mytty.core.estimation.detect import classify_process
    from mytty.daemon import procfs

    if proc_root is None:
        proc_root = procfs.PROC

    current: int | None = pid
    depth = 0
    while current is not None and current > 1 and depth < MAX_DEPTH:
        exe = procfs.exe(current, proc_root=proc_root)
        if classify_process(exe, procfs.argv(current, proc_root=proc_root) or []) is not None:
            return True
        current = procfs.parent_pid(current, proc_root=proc_root)
        depth += 1
    return False


def refuse_agents(host: str, request: Mapping[str, Any]) -> None:
    """CtlError ``approval-not-yours`` when ``request`` answers a permission request of
    ``host`` and this process runs under an agent."""
    if request.get("type") not in ANSWERS or not under_agent(os.environ, os.getpid()):
        return
    raise CtlError(
        codes.APPROVAL_NOT_YOURS,
        f"host {host}: an agent does not answer another host's permission requests (that "
        "host's controller sees only its sshd, not which agent asks); a person answers it "
        f"with `mytty approve {host}:<id>` or `mytty deny {host}:<id>` from a terminal",
    )
