"""What the human commands with ``--hosts`` share: which hosts, a request to one of them, and
the same request to several at once (one thread each, so a slow host costs its own time, not
the sum).

``--hosts all`` names every ``[hosts.NAME]`` of this home's ``config.toml``; ``--hosts a,b``
names those (an unknown one is ``host-not-found``). A reply comes back with its ids qualified
(``b:<id>``), a failure as a :class:`MyttyError` of that host.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from mytty.core.errors import ErrorCode, MyttyError

T = TypeVar("T")
ALL = "all"


def link_env() -> dict[str, str]:
    """The environment a link of this ``mytty``'s home sees (its control socket names the
    home whose ``config.toml`` lists the hosts)."""
    from mytty.cli import client

    return {**os.environ, "MYTTY_CONTROL_SOCKET": str(client.home().control_socket)}


def _error(exc: Exception) -> MyttyError:
    code = getattr(exc, "code", ErrorCode.INTERNAL_ERROR.value)
    try:
        return MyttyError(ErrorCode(code), getattr(exc, "message", str(exc)))
    except ValueError:
        return MyttyError(ErrorCode.INTERNAL_ERROR, str(exc))


def configured() -> list[str]:
    from mytty.cli.hosts.link import load_hosts
    from mytty.cli.transport import CtlError

    try:
        return load_hosts(link_env()).names()
    except CtlError as exc:  # config.toml unreadable
        raise _error(exc) from None


def selected(option: str | None) -> list[str]:
    """The hosts ``--hosts OPTION`` names ([] without the option)."""
    if not option:
        return []
    known = configured()
    if option == ALL:
        return known
    names = [name for name in option.split(",") if name]
    unknown = [name for name in names if name not in known]
    if unknown:
        raise MyttyError(
            ErrorCode.HOST_NOT_FOUND,
            f"no host {', '.join(unknown)} in config.toml (configured: "
            f"{', '.join(known) or 'none'}); `mytty hosts add NAME USER@HOST` adds one",
        )
    return names


def request(
    host: str,
    command: str,
    values: Mapping[str, object] | None = None,
    *,
    timeout: float = 10.0,
) -> dict[str, Any]:
    """Ask host ``host``'s controller (``command`` and ``values`` as
    :func:`mytty.cli.requests.build` takes them); the reply with its ids qualified."""
    from mytty.cli import requests, transport
    from mytty.cli.hosts import link
    from mytty.core.hosts.ids import qualify_reply

    try:
        reply = link.send(host, requests.build(command, values), timeout, link_env())
    except (transport.CtlError, requests.Refused) as exc:
        raise _error(exc) from None
    qualified = qualify_reply(reply, host)
    assert isinstance(qualified, dict)
    return qualified


def each(hosts: list[str], ask: Callable[[str], T]) -> list[tuple[str, T | MyttyError]]:
    """``ask(host)`` for every host at once; each answer or its MyttyError, in ``hosts``'s
    order."""
    import threading

    answers: dict[str, T | MyttyError] = {}

    def run(host: str) -> None:
        try:
            answers[host] = ask(host)
        except MyttyError as exc:
            answers[host] = exc
        except Exception as exc:  # noqa: BLE001 - a link's CtlError, or a bug: that host's error
            answers[host] = _error(exc)

    threads = [threading.Thread(target=run, args=(host,), daemon=True) for host in hosts]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return [(host, answers[host]) for host in hosts]
