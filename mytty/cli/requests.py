"""The requests the ``mytty`` commands send, built from the control commands' declarations.

``mytty-ctl`` turns a command line into a request by reading the command's ``COMMAND``
(:mod:`mytty.control.spec`). The human ``mytty`` holds its values already typed, so
:func:`build` takes them keyed by what the declaration names: an option's wire key
(``"dryRun"``) or flag (``"--dry-run"``), an argument's wire key or metavar (``"JOB"``). A
field with a wire key takes its wire value as is; a field without one (the command's
``client`` hook makes its wire value) takes the words ``mytty-ctl`` would have parsed. The
rest is filled as ``mytty-ctl`` fills it: a flag not given is ``false``, an option not given
its declared default (``[]`` for a list, the environment variable of ``env_default``), then
the command's ``client`` hook runs and the keys are put in the declared order.

A key the declaration does not have, a missing required field or a value outside the
declared choices is a programming error (:class:`RequestError`), so no ``mytty`` command can
send a field its command does not declare. A ``client`` hook that refuses the values (too
many job ids) raises :class:`Refused` with its error code.

Light like ``mytty-ctl``: the stdlib and the declaration modules only.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, NoReturn

from mytty.control import spec

_MISSING = object()


class RequestError(ValueError):
    """Values that do not fit the command's declaration (a bug in the caller)."""


class Refused(Exception):
    """The command's ``client`` hook refused the values: ``code`` is a wire error code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


def command(name: str) -> spec.Command:
    """The declaration of the command called ``name`` by ``mytty-ctl`` (``"agent resume"``)
    or on the wire (``"resumeJobs"``)."""
    from mytty.control import registry

    module = registry.module_for(name)
    if module is not None:
        found: spec.Command = module.COMMAND
        return found
    # A wire type usually names its module (ensureSession: ensure_session); trying that one
    # first spares the attention popup importing every command module.
    guess = "".join(f"_{c.lower()}" if c.isupper() else c for c in name)
    names = [m for _cli, m in registry.ENTRIES]
    for module_name in sorted(names, key=lambda m: m != guess):
        declared: spec.Command = registry.load(module_name).COMMAND
        if declared.wire == name:
            return declared
    raise RequestError(f"no control command is called {name!r}")


def _refuse(code: str, message: str) -> NoReturn:
    raise Refused(code, message)


class _Fields:
    """The caller's values, taken one declared field at a time."""

    def __init__(self, declared: spec.Command, values: Mapping[str, object]) -> None:
        self.declared = declared
        self.values = dict(values)
        self.positionals: list[str] = []
        self.options: dict[str, str] = {}
        self.flags: set[str] = set()
        self.given: set[str] = set()  # the flags of the options given (for groups)

    def take(self, *names: str | None) -> object:
        found = [name for name in names if name is not None and name in self.values]
        if len(found) > 1:
            raise RequestError(f"{self.declared.wire}: {' and '.join(found)} name one field")
        return self.values.pop(found[0]) if found else _MISSING

    def check_choice(self, choices: tuple[str, ...], label: str, value: object) -> None:
        if choices and value not in choices:
            raise RequestError(f"{self.declared.wire}: {label} must be one of {choices}")

    def left_over(self) -> None:
        if self.values:
            raise RequestError(f"{self.declared.wire} declares no {', '.join(sorted(self.values))}")


def _arguments(fields: _Fields, request: dict[str, Any]) -> None:
    for arg in fields.declared.args:
        value = fields.take(arg.wire, arg.metavar)
        if value is _MISSING:
            value = arg.default
        if value is None:
            if not arg.optional:
                raise RequestError(f"{fields.declared.wire} needs {arg.metavar}")
            continue
        words = value if arg.variadic and isinstance(value, list | tuple) else [value]
        for word in words:
            fields.check_choice(arg.choices, arg.metavar, word)
        if arg.wire is not None:
            request[arg.wire] = value
        # What mytty-ctl's hooks see: the words of the command line.
        fields.positionals += [word for word in words if isinstance(word, str)]


def _options(fields: _Fields, request: dict[str, Any]) -> None:
    for opt in fields.declared.options:
        value = fields.take(opt.wire, opt.flag)
        if not opt.takes_value:
            if value is not _MISSING and not isinstance(value, bool):
                raise RequestError(f"{fields.declared.wire}: {opt.flag} is a flag (true/false)")
            if value is True:
                fields.flags.add(opt.flag)
                fields.given.add(opt.flag)
            if opt.wire is not None:
                request[opt.wire] = value is True
            continue
        given = value is not _MISSING
        if not given and opt.env_default:
            value = os.environ.get(opt.env_default) or _MISSING
        if value is _MISSING:
            if opt.required:
                raise RequestError(f"{fields.declared.wire} needs {opt.flag}")
            if opt.wire is not None and opt.default is not None:
                request[opt.wire] = opt.default
            elif opt.wire is not None and opt.kind == spec.LIST:
                request[opt.wire] = []
            continue
        fields.check_choice(opt.choices, opt.flag, value)
        if given:  # as in mytty-ctl, a value from the environment is not a given option
            fields.given.add(opt.flag)
            if isinstance(value, str):
                fields.options[opt.flag] = value
        if opt.wire is not None:
            request[opt.wire] = value


def _wire_fields(fields: _Fields, request: dict[str, Any]) -> None:
    """Keys no command-line word fills (``spec.Field``): sent only when given; the controller
    reads the declared default otherwise."""
    for field in fields.declared.wire_fields:
        value = fields.take(field.wire)
        if value is _MISSING:
            continue
        if field.kind == spec.FLAG and not isinstance(value, bool):
            raise RequestError(f"{fields.declared.wire}: {field.key} is a flag (true/false)")
        if field.kind in (spec.LIST, spec.JOB_LIST) and not isinstance(value, list | tuple):
            raise RequestError(f"{fields.declared.wire}: {field.key} is a list")
        fields.check_choice(field.choices, field.key, value)
        request[field.key] = list(value) if isinstance(value, tuple) else value


def _groups(fields: _Fields) -> None:
    options = fields.declared.options
    for group in dict.fromkeys(o.group for o in options if o.group):
        members = [o.flag for o in options if o.group == group]
        given = [f for f in members if f in fields.given]
        if len(given) != 1:
            raise RequestError(f"{fields.declared.wire}: give exactly one of {members}")


def build(name: str, values: Mapping[str, object] | None = None) -> dict[str, Any]:
    """The request of the command ``name`` (its ``mytty-ctl`` words or its wire type) with
    ``values`` keyed by declared wire keys, flags or metavars (see the module docstring)."""
    return request_for(command(name), values)


def request_for(declared: spec.Command, values: Mapping[str, object] | None) -> dict[str, Any]:
    """The request of the declared command ``declared`` (see :func:`build`)."""
    fields = _Fields(declared, values or {})
    request: dict[str, Any] = {"type": declared.wire}
    _arguments(fields, request)
    _options(fields, request)
    _wire_fields(fields, request)
    fields.left_over()
    _groups(fields)
    if declared.client is not None:
        # Its receive timeout is not used: each mytty command chooses its own.
        declared.client(
            request, spec.Values(fields.positionals, fields.options, fields.flags, _refuse)
        )
    if declared.wire_order:
        order = {key: n for n, key in enumerate(("type", *declared.wire_order))}
        request = dict(sorted(request.items(), key=lambda kv: order.get(kv[0], len(order))))
    return request
