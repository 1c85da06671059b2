"""``mytty-ctl`` on other hosts: which host a command goes to, and sending it there.

A command goes to host ``NAME`` when ``--host NAME`` is given (before the command or among
its arguments), when ``MYTTY_HOST`` is set, or when an id it names is qualified
(``NAME:<id>``, :mod:`mytty.core.hosts.ids`). Its reply comes back with every id qualified,
so it can be given to any later command as is. ``agent wait --any/--all`` may name jobs of
several hosts (and of this one): each host waits for its own jobs at once, and the answers
are combined (:mod:`mytty.core.hosts.waits`) as one controller would have answered.

Loaded by :mod:`mytty.cli.ctl` only for commands that name a host.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from mytty.cli import transport
from mytty.cli.hosts import link as hostlink
from mytty.control import spec
from mytty.core import codes
from mytty.core.hosts import ids

if TYPE_CHECKING:
    from collections.abc import Sequence

#: The route of an ``agent wait`` over jobs of several hosts.
MIXED = "\0mixed"
#: The kinds of the fields that name an id of the controller's host.
ID_KINDS = (spec.PANE_ID, spec.JOB)


def names_an_id(field: spec.Field) -> bool:
    """Whether a field holds an id of the controller's host: a pane or job id by its kind, or
    a key replies qualify (an approval's ``id``)."""
    return field.kind in ID_KINDS or field.wire in ids.ID_KEYS


def hosts_named(command: spec.Command, values: spec.Values) -> list[str | None]:
    """The host of every id the command line names (None: an unqualified one)."""
    named: list[str | None] = []
    args = list(command.args)
    for n, word in enumerate(values.positionals):
        arg = args[min(n, len(args) - 1)] if args else None
        if arg is not None and names_an_id(arg):
            named.append(_host_of(arg, word))
    for opt in command.options:
        text = values.options.get(opt.flag)
        if text is not None and names_an_id(opt):
            named.append(_host_of(opt, text))
    return named


_ID_CHARS = frozenset("0123456789abcdefABCDEF-")


def _host_of(field: spec.Field, word: str) -> str | None:
    """The host ``word`` names; None for tmux's own name of a pane (``work:1.0``, ``work:1``),
    which has a ``:`` too: after it comes no mytty id (4 or more hex digits and hyphens)."""
    host, rest = ids.split(word)
    tmux_name = len(rest) < 4 or not set(rest) <= _ID_CHARS
    if host is not None and field.kind == spec.PANE_ID and tmux_name:
        return None
    return host


def pick(command: spec.Command, values: spec.Values, explicit: str | None) -> str | None:
    """The command's route: a host name, :data:`MIXED`, or None (this host)."""
    named = hosts_named(command, values)
    qualified = {host for host in named if host is not None}
    if explicit is not None:
        others = sorted(qualified - {explicit})
        if others:
            values.fail(
                codes.USAGE,
                f"--host {explicit} (or MYTTY_HOST) but the ids name host {', '.join(others)}",
            )
        return explicit
    if not qualified:
        return None
    if len(qualified) == 1 and None not in named:
        return qualified.pop()
    if command.wire == "waitAgent" and len(named) > 1:
        return MIXED
    values.fail(codes.USAGE, "one command cannot name ids of several hosts (only agent wait can)")


def bare(text: str) -> str:
    return ids.split(text)[1]


def send(
    command: spec.Command, request: dict[str, Any], timeout: float, route: str
) -> dict[str, Any]:
    """Send a routed request; the reply with its ids qualified."""
    if request.get("type") == "spawnAgent" and request.get("approver") == "lead":
        # The host's broker would see its own sshd spawn the worker, not this lead's pane.
        raise CtlError(
            codes.USAGE,
            f"--approver lead is for workers on this host: host {route}'s controller cannot "
            "tell which lead asks over SSH; a person answers a worker there "
            f"(`mytty approve {route}:<id>`), or give it rules in that host's config.toml",
        )
    if route == MIXED:
        return wait_mixed(request)
    if command.wait_key is not None and command.wait_key in request:
        reply = hostlink.wait(route, request, command.wait_key)
    else:
        reply = hostlink.send(route, request, timeout)
    qualified = ids.qualify_reply(reply, route)
    assert isinstance(qualified, dict)
    return qualified


# -- agent wait over several hosts ------------------------------------------------------------
def _groups(jobs: Sequence[str]) -> dict[str | None, list[str]]:
    groups: dict[str | None, list[str]] = {}
    for job in jobs:
        host, job_id = ids.split(job)
        groups.setdefault(host, [])
        if job_id not in groups[host]:
            groups[host].append(job_id)
    return groups


def _sub_request(request: dict[str, Any], jobs: list[str], timeout_s: float) -> dict[str, Any]:
    """The wait for one host's jobs: the same request with only those (in the same order)."""
    sub = dict(request)
    sub["jobID"] = {"rawValue": jobs[0]}
    sub["jobIDs"] = [{"rawValue": job} for job in jobs]
    sub["timeoutSeconds"] = timeout_s
    return sub


def _ask(host: str | None, sub: dict[str, Any]) -> dict[str, Any]:
    if host is None:
        return transport.send(sub, math.ceil(sub["timeoutSeconds"]) + 5.0)
    reply = hostlink.wait(host, sub, "timeoutSeconds")
    qualified = ids.qualify_reply(reply, host)
    assert isinstance(qualified, dict)
    return qualified


def wait_mixed(request: dict[str, Any]) -> dict[str, Any]:
    """One ``agent wait`` over jobs of several hosts, each host waiting for its own at once."""
    import queue
    import threading

    from mytty.core.hosts.waits import deciding, satisfies

    order = [entry["rawValue"] for entry in request["jobIDs"]]
    groups = _groups(order)
    until, match = request["until"], request["match"]
    results: queue.Queue[tuple[str | None, dict[str, Any] | CtlError]] = queue.Queue()

    def run(host: str | None, jobs: list[str]) -> None:
        try:
            results.put((host, _ask(host, _sub_request(request, jobs, request["timeoutSeconds"]))))
        except CtlError as exc:
            results.put((host, exc))

    for host, jobs in groups.items():
        # Daemon threads: once the wait is decided the others are left to the process's exit,
        # which closes their connections (each controller then ends its wait at once).
        threading.Thread(target=run, args=(host, jobs), daemon=True).start()
    answers: dict[str | None, dict[str, Any]] = {}
    while len(answers) < len(groups):
        host, got = results.get()
        if isinstance(got, CtlError):
            raise got
        answers[host] = got
        met = [satisfies(job["state"], until) for job in got["jobs"]]
        if match == "any" and any(met):
            break
    for host, jobs in groups.items():  # the hosts still waiting: their jobs as they are now
        if host not in answers:
            answers[host] = _ask(host, _sub_request(request, jobs, 0))
    snapshots = {}
    for answer in answers.values():
        for job in answer["jobs"]:
            snapshots[_key(job["jobID"]["rawValue"])] = job
    ordered = [snapshots[key] for key in dict.fromkeys(_key(job) for job in order)]
    index, timed_out = deciding([job["state"] for job in ordered], until, match)
    reply = dict(next(iter(answers.values())))  # an agentWaitResult: the same keys
    reply.update(job=ordered[index], jobs=ordered, timedOut=timed_out)
    return dict(sorted(reply.items()))


def _key(job: str) -> tuple[str | None, str]:
    """A job as (host, id) in the letter case the controllers answer with."""
    host, job_id = ids.split(job)
    return host, job_id.upper()


CtlError = transport.CtlError
