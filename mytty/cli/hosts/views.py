"""Other hosts in the human views: ``mytty attention --hosts``, ``mytty ls --hosts``, the popup.

Attention items of other hosts come from this machine's controller, which follows each host
(``hosts`` request): the same items its notification router hears of, each with ``host`` and
qualified ids. A host that went away is ``stale``: its items are shown as of when it was last
seen, marked so, never as current. Panes of other hosts are asked of each host directly
(``mytty ls --json`` run there over the SSH master), since panes change without events.
"""

from __future__ import annotations

import json
from typing import Any

from mytty.cli.hosts import fanout
from mytty.core.errors import ErrorCode, MyttyError
from mytty.core.hosts.ids import split

STALE = "stale"


def followed(names: list[str], *, refresh: bool = False) -> list[dict[str, Any]]:
    """What this machine's controller last saw of each of ``names`` (``hosts`` entries)."""
    from mytty.cli import client

    values = {"refresh": True} if refresh else None
    entries = client.request("hosts", values, timeout=10.0).get("hosts", [])
    by_name = {e["name"]: e for e in entries}
    return [by_name.get(name) or _unfollowed(name) for name in names]


def _unfollowed(name: str) -> dict[str, Any]:
    # Configured after the controller last read config.toml (it reads it when it is saved).
    return {"name": name, "state": "connecting", "lastSeen": None, "items": [], "error": None}


def items_of(hosts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every host's open items, each marked ``stale`` when its host is."""
    return [
        {**item, "stale": host["state"] == STALE}
        for host in hosts
        for item in host.get("items", [])
    ]


def note(host: dict[str, Any]) -> str | None:
    """One line about a host that is not current (None when it is)."""
    if host["state"] == "current":
        return None
    error = host.get("error") or {}
    why = f" ({error['code']}: {error['message']})" if error else ""
    if host["state"] == STALE:
        return (
            f"{host['name']}: stale since {_clock(host.get('since'))}, last seen "
            f"{_clock(host.get('lastSeen'))}; its items are as of then{why}"
        )
    return f"{host['name']}: not reached yet{why}"


def _clock(stamp: object) -> str:
    if not isinstance(stamp, str):
        return "never"
    return stamp.replace("T", " ").split(".")[0].rstrip("Z") + " UTC"


def acknowledge(runs: list[str]) -> list[str]:
    """Acknowledge the items of qualified runs (``b:RUN`` or a unique prefix ``b:74C4``) on
    their hosts; returns the unqualified runs, for this machine's controller."""
    local: list[str] = []
    wanted: dict[str, list[str]] = {}
    for text in runs:
        host, run = split(text)
        if host is None:
            local.append(text)
        else:
            wanted.setdefault(host, []).append(run.strip().upper())
    fanout.selected(",".join(wanted))  # host-not-found for a name config.toml lacks
    for host, prefixes in wanted.items():
        there = fanout.request(host, "attention").get("items", [])
        runs_there = sorted({split(str(i["runID"]))[1] for i in there})
        full = []
        for prefix in prefixes:
            matches = [r for r in runs_there if r == prefix] or [
                r for r in runs_there if prefix and r.startswith(prefix)
            ]
            if len(matches) != 1:
                raise MyttyError(
                    ErrorCode.RUN_NOT_FOUND,
                    f"run {host}:{prefix} matches {len(matches)} runs with items there; "
                    "nothing was acknowledged on that host",
                )
            full.append(matches[0])
        fanout.request(host, "attention", {"acknowledge": full})
    return local


def remote_panes(names: list[str]) -> list[tuple[str, list[dict[str, Any]] | MyttyError]]:
    """Every host's ``mytty ls --json`` panes (ids qualified), or its error."""
    return fanout.each(names, _panes_of)


def _panes_of(name: str) -> list[dict[str, Any]]:
    from mytty.cli.hosts.link import Link, run_ssh
    from mytty.cli.transport import CtlError
    from mytty.core.hosts.ids import qualify
    from mytty.core.hosts.ssh import classify_failure, exec_argv

    link = Link(name, fanout.link_env())
    try:
        link.ensure()
        spec, settings = link.spec(), link.settings()
        hello = link.hello
        mytty = f"{hello.bin_dir}/mytty" if hello is not None and hello.bin_dir else "mytty"
        argv = exec_argv(settings, spec, link.dir, f"{mytty} ls --json")
        code, out, err = run_ssh(argv, settings.connect_timeout + 20, env=link.env)
    except CtlError as exc:
        raise MyttyError(_code(exc.code), exc.message) from None
    if code != 0:
        failed, message = classify_failure(name, spec, code, err, settings.connect_timeout)
        raise MyttyError(_code(failed), message)
    panes = json.loads(out)["panes"]
    for pane in panes:
        pane["host"] = name
        for key in ("paneID", "job"):
            if pane.get(key):
                pane[key] = qualify(name, pane[key])
        if pane.get("location"):
            pane["location"] = f"{name}:{pane['location']}"
    return list(panes)


def _code(text: str) -> ErrorCode:
    try:
        return ErrorCode(text)
    except ValueError:
        return ErrorCode.INTERNAL_ERROR


def approvals_of(names: list[str]) -> tuple[list[dict[str, Any]], list[tuple[str, str]]]:
    """Every host's open permission requests, asked of each host now (a request's hold runs
    out, so not as last seen): entries with ``host`` and qualified ids, and the hosts that
    could not be asked with why."""
    entries: list[dict[str, Any]] = []
    failures: list[tuple[str, str]] = []
    for name, answer in fanout.each(names, lambda h: fanout.request(h, "listApprovals")):
        if isinstance(answer, MyttyError):
            failures.append((name, f"{answer.code.value}: {answer.message}"))
        else:
            entries += [{**entry, "host": name} for entry in answer.get("approvals", [])]
    return entries, failures


def on_host(
    request_id: str, command: str, values: dict[str, object], *, timeout: float
) -> dict[str, Any] | None:
    """``command`` on the host a qualified ``request_id`` (``b:<id>``) names, with the id
    sent bare there; None when the id names no host (this host's controller answers it)."""
    host, bare = split(request_id)
    if host is None:
        return None
    fanout.selected(host)  # host-not-found for a name config.toml lacks
    return fanout.request(host, command, {**values, "id": bare}, timeout=timeout)
