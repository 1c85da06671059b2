"""``mytty approve ID…`` and ``mytty deny ID``: a person's answer to a permission request.

An id or a unique prefix of it (as ``mytty attention --ack`` takes runs) names one request;
``--all`` answers every id given, never "whatever is pending". ``mytty approve ID --always``
shows the narrowest rule that would have allowed the request and, once confirmed, writes it
into config.toml (keeping its comments) and allows the request.
"""

from __future__ import annotations

from typing import Any

import typer

from mytty.cli import client
from mytty.cli.approvals.listing import printable, short_id
from mytty.core.errors import ErrorCode
from mytty.core.hosts.ids import split

#: An answer may type into a dialog and wait for it to close.
ANSWER_TIMEOUT_S = 30.0


def answer(
    request_id: str,
    decision: str,
    *,
    message: str | None = None,
    via: str = "tty",
    always: bool = False,
) -> dict[str, Any]:
    """``answerApproval`` for one id (prefix); the reply, or MyttyError. A qualified id
    (``b:<id>``) is answered by host ``b``'s controller."""
    values: dict[str, object] = {"id": request_id, "decision": decision, "via": via}
    if message is not None:
        values["message"] = message
    if always:
        values["always"] = True
    return _ask("answerApproval", values)


def _ask(command: str, values: dict[str, object]) -> dict[str, Any]:
    request_id = str(values["id"])
    if split(request_id)[0] is not None:
        from mytty.cli.hosts import views

        there = views.on_host(request_id, command, values, timeout=ANSWER_TIMEOUT_S)
        if there is not None:
            return there
    return client.request(command, values, timeout=ANSWER_TIMEOUT_S)


def _ids(ids: list[str], every: bool) -> list[str]:
    if not ids or any(not i.strip() or set(i.strip()) <= set("*?") for i in ids):
        client.fail(
            ErrorCode.APPROVAL_NOT_FOUND,
            "name each request by its id or a prefix of it (`mytty approvals` lists them); "
            "there is no wildcard",
        )
    if len(ids) > 1 and not every:
        client.fail(ErrorCode.USAGE, "several ids: add --all to answer every one of them")
    return ids


def _said(reply: dict[str, Any]) -> str:
    entry = reply["approval"]
    how = "in its dialog" if entry.get("deliveredBy") == "dialog" else "through its hook"
    return f"{entry['decision']} {short_id(entry['id'])} ({printable(entry['tool'])}: " + (
        f"{printable(str(entry['action']))[:80]}) {how}"
    )


def approve_command(
    ids: list[str] = typer.Argument(
        ..., metavar="ID...", help="Request ids or unique prefixes (HOST:ID for another host's)."
    ),
    every: bool = typer.Option(False, "--all", help="Answer every id given (never a wildcard)."),
    always: bool = typer.Option(
        False, "--always", help="Also write the narrowest rule that allows it into config.toml."
    ),
    yes: bool = typer.Option(False, "--yes", "-y", help="With --always: write without asking."),
) -> None:
    """Allow permission requests, by id (or a unique prefix of it)."""
    wanted = _ids(ids, every)
    if always and len(wanted) > 1:
        client.fail(ErrorCode.USAGE, "--always takes one request")
    failed = False
    for request_id in wanted:
        with client.exit_on_error():
            if always and not _confirm_rule(request_id, yes):
                client.die("nothing was written or answered")
        try:
            reply = answer(request_id, "allow", always=always)
        except Exception as exc:  # noqa: BLE001 - one failure line per id, then the next
            failed = True
            code = getattr(exc, "code", ErrorCode.INTERNAL_ERROR)
            typer.echo(f"mytty: {code}: {getattr(exc, 'message', exc)}", err=True)
            continue
        client.say(_said(reply))
    if failed:
        raise typer.Exit(1)


def _confirm_rule(request_id: str, yes: bool) -> bool:
    proposal = _ask("proposeApprovalRule", {"id": request_id})
    typer.echo(f"This rule goes into {proposal['configFile']}:\n")
    typer.echo(printable(proposal["toml"]).replace("\\x0a", "\n"))
    if yes:
        return True
    return typer.confirm("Write it and allow the request?", default=False)


def deny_command(
    request_id: str = typer.Argument(
        ..., metavar="ID", help="The request's id or a prefix (HOST:ID for another host's)."
    ),
    message: str | None = typer.Option(
        None, "--message", "-m", help="What the agent's model is told (it goes on)."
    ),
) -> None:
    """Deny a permission request, by id (or a unique prefix of it)."""
    _ids([request_id], False)
    with client.exit_on_error():
        reply = answer(request_id, "deny", message=message)
    client.say(_said(reply))
