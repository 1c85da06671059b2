"""The declaration is read by both sides: for every control command, what ``mytty-ctl`` builds
from a command line, the controller's ``parse()`` reads back as the same values, and
``parse()`` reads every key the declaration names, no other, each by the reader its kind
calls for.

A command line is drawn from the declaration (a value of each field's kind, optional fields
given or not, ``--opt=v`` or ``--opt v``), built with ``mytty.cli.ctl.build_request``, sent
through JSON and parsed by the command's own ``parse()``. ``ATTRS`` names the ``Params``
attribute each wire key lands in; a command without an entry fails the test.
"""

from __future__ import annotations

import json
import os
import string
import tempfile
from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mytty.cli import ctl
from mytty.control import registry, spec
from mytty.control.base import Request
from mytty.core.ids import normalize_uuid
from mytty.core.validation import validate_status, validate_worktree_branch
from mytty.core.vocab import JOB_STATES

MODULES = registry.modules()
PEER_PID = 4242

#: Wire type → {wire key: the Params attribute holding its value}.
ATTRS: dict[str, dict[str, str]] = {
    "list": {},
    "newTab": {"workingDirectory": "cwd", "command": "command"},
    "split": {
        "paneID": "pane_id",
        "direction": "direction",
        "workingDirectory": "cwd",
        "command": "command",
    },
    "send": {"paneID": "pane_id", "text": "text", "pressEnter": "press_enter"},
    "sendKey": {"paneID": "pane_id", "key": "key", "modifiers": "modifiers"},
    "read": {"paneID": "pane_id"},
    "focus": {"paneID": "pane_id"},
    "closePane": {"paneID": "pane_id"},
    "setPaneStatus": {"paneID": "pane_id", "status": "status"},
    "wait": {"paneID": "pane_id", "until": "until", "timeoutSeconds": "timeout_s"},
    "events": {"afterSequence": "after", "timeoutSeconds": "timeout_s"},
    "env": {},
    "spawnAgent": {
        "provider": "provider",
        "task": "task",
        "anchorPaneID": "anchor_id",
        "direction": "direction",
        "cwd": "cwd",
        "access": "access",
        "model": "model",
        "label": "label",
        "worktreeBranch": "branch",
        "key": "key",
        "notifyLead": "notify_lead",
        "budgetTokens": "budget_tokens",
        "approver": "approver",
        "budgetUsd": "budget_usd",
        "noQueue": "no_queue",
        "callerWorkingDirectory": "caller_cwd",
    },
    "waitAgent": {
        "jobID": "job_id",
        "until": "until",
        "timeoutSeconds": "timeout_s",
        "jobIDs": "job_ids",
        "match": "match",
        "returnOnPark": "return_on_park",
    },
    "agentResult": {"jobID": "job_id"},
    "sendAgent": {"jobID": "job_id", "text": "text", "pressEnter": "press_enter"},
    "focusAgent": {"jobID": "job_id"},
    "closeAgent": {"jobID": "job_id", "removeWorktree": "remove_worktree"},
    "listAgents": {"states": "states", "label": "label", "allLeads": "all_leads"},
    "resumeJobs": {"jobIDs": "job_ids", "dryRun": "dry_run"},
    "listLimits": {},
    "resumeLimits": {"jobIDs": "job_ids", "all": "every"},
    "holdLimits": {"jobIDs": "job_ids"},
    "explain": {"target": "target"},
    "integrationList": {},
    "integrationEnable": {"provider": "provider"},
    "integrationRepair": {"provider": "provider"},
    "attention": {"acknowledge": "runs", "acknowledgeAll": "everything"},
    "ensureSession": {},
    "notifyTest": {},
    "listApprovals": {},
    "answerApproval": {
        "id": "id",
        "decision": "decision",
        "message": "message",
        "via": "via",
        "session": "session",
        "always": "always",
    },
    "approvalLog": {"sinceSeconds": "since"},
    "proposeApprovalRule": {"id": "id"},
    "hosts": {"refresh": "refresh"},
}
#: Params attributes that hold a wire value in another form.
TRANSFORMS: dict[tuple[str, str], Callable[[Any], Any]] = {
    ("listAgents", "states"): frozenset,
    ("attention", "acknowledge"): lambda runs: frozenset(r.upper() for r in runs),
}


def _ids(module: ModuleType) -> str:
    return module.__name__.rsplit(".", 1)[1]


def _declared(command: spec.Command) -> set[str]:
    return {field.key for field in command.fields()}


# -- values of each kind, as typed and as the controller should read them ---------------------
Drawn = tuple[str, object]
WORD = st.text(string.ascii_letters + string.digits + "_.-", min_size=1, max_size=12)
ANY_TEXT = st.text(st.characters(exclude_categories=["Cs"]), max_size=24)
UUID = st.uuids().map(str).flatmap(lambda u: st.sampled_from([u, u.upper()]))


def _text(field: spec.Field) -> st.SearchStrategy[Drawn]:
    nonempty = field.nonempty or (isinstance(field, spec.Option) and field.env_default is not None)
    texts = ANY_TEXT.filter(bool) if nonempty else ANY_TEXT
    return texts.map(lambda t: (t, t))


def _job(text: str) -> str:
    return normalize_uuid(text) or text


def _seconds(field: spec.Field) -> st.SearchStrategy[Drawn]:
    most = field.maximum if field.maximum is not None else 1e9
    floats = st.floats(0, most).map(lambda x: (repr(x), x))
    whole = st.integers(0, int(most)).map(lambda n: (str(n), float(n)))
    return st.one_of(floats, whole)


def _path(texts: list[str]) -> Drawn:
    text = os.path.join(*texts)
    return text, os.path.abspath(os.path.expanduser(text))


BY_KIND: dict[str, Callable[[spec.Field], st.SearchStrategy[Drawn]]] = {
    spec.TEXT: _text,
    spec.PANE_ID: lambda f: st.one_of(UUID, WORD).map(lambda t: (t, t)),
    spec.PATH: lambda f: st.lists(WORD, min_size=1, max_size=3).map(_path),
    spec.SECONDS: _seconds,
    spec.COUNT: lambda f: st.integers(0, 10**19 - 1).map(lambda n: (str(n), n)),
    spec.LIST: lambda f: st.lists(WORD, max_size=3).map(lambda ws: (",".join(ws), ws)),
    spec.JOB: lambda f: st.one_of(UUID, WORD).map(lambda t: (t, _job(t))),
}
#: Values a client hook checks before connecting: only ones it lets through.
HOOK_CHECKED: dict[tuple[str, str], st.SearchStrategy[Drawn]] = {
    ("setPaneStatus", "status"): ANY_TEXT.filter(lambda t: validate_status(t) is None).map(
        lambda t: (t, t)
    ),
    ("spawnAgent", "worktreeBranch"): WORD.filter(
        lambda b: validate_worktree_branch(b) is None
    ).map(lambda b: (b, b)),
    ("listAgents", "states"): st.lists(st.sampled_from(JOB_STATES), max_size=3).map(
        lambda ss: (",".join(ss), ss)
    ),
}


def _value(command: spec.Command, field: spec.Field) -> st.SearchStrategy[Drawn]:
    checked = HOOK_CHECKED.get((command.wire, field.key))
    if checked is not None:
        return checked
    if field.choices:
        return st.sampled_from(field.choices).map(lambda c: (c, c))
    return BY_KIND[field.kind](field)


def _absent(field: spec.Field) -> object:
    """What the controller reads for a field the command line left out."""
    if isinstance(field, spec.Option) and field.env_default is not None:
        return os.environ.get(field.env_default) or None
    if field.kind == spec.LIST:
        return []
    if field.kind == spec.FLAG:
        return False
    return field.default


class Line:
    """A drawn command line and the values ``parse()`` should read from it."""

    def __init__(self) -> None:
        self.options: list[str] = []
        self.positionals: list[str] = []
        self.expected: dict[str, object] = {}
        self.task_file: str | None = None  # agent spawn --task-file: the file's text
        self.raw: dict[str, object] = {}  # keys of a command without a mytty-ctl form

    def argv(self, task_file: str | None) -> list[str]:
        extra = ["--task-file", task_file] if task_file is not None else []
        return [*self.options, *extra, "--", *self.positionals]


def _option(draw: st.DrawFn, line: Line, opt: spec.Option, text: str) -> None:
    line.options += [f"{opt.flag}={text}"] if draw(st.booleans()) else [opt.flag, text]


def _generic(draw: st.DrawFn, command: spec.Command) -> Line:
    line = Line()
    for arg in command.args:
        if arg.wire is None:
            continue
        if arg.optional and not draw(st.booleans()):
            line.expected[arg.key] = _absent(arg)
            continue
        text, value = draw(_value(command, arg))
        line.positionals.append(text)
        line.expected[arg.key] = value
    for opt in command.options:
        if opt.wire is None or opt.group is not None:
            continue
        if not opt.takes_value:
            given = draw(st.booleans())
            line.options += [opt.flag] if given else []
            line.expected[opt.key] = given
        elif opt.required or draw(st.booleans()):
            text, value = draw(_value(command, opt))
            _option(draw, line, opt, text)
            line.expected[opt.key] = value
        else:
            line.expected[opt.key] = _absent(opt)
    return line


# -- what each client hook adds ----------------------------------------------------------------
def _several_jobs(draw: st.DrawFn, line: Line) -> None:
    more = draw(st.lists(st.one_of(UUID, WORD), max_size=3))
    match = draw(st.sampled_from(["any", "all"] if more else [None, "any", "all"]))
    line.positionals += more
    line.options += [f"--{match}"] if match else []
    jobs = [_job(j) for j in line.positionals]
    line.expected["jobIDs"] = jobs if match else None
    line.expected["match"] = match


def _resumed_jobs(draw: st.DrawFn, line: Line) -> None:
    jobs = draw(st.lists(st.one_of(UUID, WORD), max_size=3))
    line.positionals += jobs
    line.expected["jobIDs"] = [_job(j) for j in jobs] or None


def _limits_resume(draw: st.DrawFn, line: Line) -> None:
    jobs = draw(st.lists(st.one_of(UUID, WORD), max_size=3))
    line.options = [o for o in line.options if o != "--all"] + ([] if jobs else ["--all"])
    line.positionals += jobs
    line.expected["jobIDs"] = [_job(j) for j in jobs] or None
    line.expected["all"] = not jobs


def _limits_hold(draw: st.DrawFn, line: Line) -> None:
    jobs = draw(st.lists(st.one_of(UUID, WORD), min_size=1, max_size=3))
    line.positionals += jobs
    line.expected["jobIDs"] = [_job(j) for j in jobs]


def _status(draw: st.DrawFn, line: Line) -> None:
    if not line.positionals:
        line.options.append("--clear")  # no text: the hook wants --clear


def _spawn(draw: st.DrawFn, line: Line) -> None:
    task = draw(ANY_TEXT.filter(bool))
    if draw(st.booleans()):
        line.task_file = task  # read in text mode: \r\n and \r arrive as \n
        task = task.replace("\r\n", "\n").replace("\r", "\n")
    else:
        line.options += ["--task", task]
    line.expected["task"] = task
    line.expected["callerWorkingDirectory"] = os.getcwd()


def _env(draw: st.DrawFn, line: Line) -> None:
    line.options += draw(st.lists(st.sampled_from(["--json", "--fish"]), unique=True))


def _attention(draw: st.DrawFn, line: Line) -> None:
    runs = draw(st.lists(st.one_of(UUID, WORD), max_size=3))
    every = draw(st.booleans())
    line.raw = {"acknowledge": runs, "acknowledgeAll": every}
    line.expected.update(acknowledge=runs, acknowledgeAll=every)


def _approval_answer(draw: st.DrawFn, line: Line) -> None:
    """The keys only the human CLI and a web view send: the person's surface, a session
    label, ``--always``."""
    via = draw(st.sampled_from(["tty", "popup", "web"]))
    session = draw(st.one_of(st.none(), ANY_TEXT))
    always = draw(st.booleans())
    line.raw = {"via": via, "session": session, "always": always}
    line.expected.update(via=via, session=session, always=always)


def _approval_rule(draw: st.DrawFn, line: Line) -> None:
    ident = draw(st.one_of(UUID, WORD))
    line.raw = {"id": ident}
    line.expected["id"] = ident


HOOKS: dict[str, Callable[[st.DrawFn, Line], None]] = {
    "answerApproval": _approval_answer,
    "proposeApprovalRule": _approval_rule,
    "waitAgent": _several_jobs,
    "resumeJobs": _resumed_jobs,
    "resumeLimits": _limits_resume,
    "holdLimits": _limits_hold,
    "setPaneStatus": _status,
    "spawnAgent": _spawn,
    "env": _env,
    "attention": _attention,
}


@st.composite
def command_lines(draw: st.DrawFn, command: spec.Command) -> Line:
    line = _generic(draw, command)
    hook = HOOKS.get(command.wire)
    if hook is not None:
        hook(draw, line)
    return line


def _round_trip(module: ModuleType, line: Line) -> Any:
    command: spec.Command = module.COMMAND
    with tempfile.TemporaryDirectory() as scratch:
        path = None
        if line.task_file is not None:
            path = os.path.join(scratch, "task.txt")
            with open(path, "w", encoding="utf-8", newline="") as f:
                f.write(line.task_file)
        request, _, _ = ctl.build_request(command, line.argv(path))
    request.update(line.raw)
    wire = json.loads(json.dumps(request, ensure_ascii=False))
    return module.parse(Request(wire, PEER_PID))


@pytest.mark.parametrize("module", MODULES, ids=_ids)
def test_what_mytty_ctl_builds_parse_reads_back(module: ModuleType) -> None:
    command: spec.Command = module.COMMAND
    attrs = ATTRS[command.wire]  # a new command needs its line in ATTRS
    assert set(attrs) == _declared(command)

    @settings(
        max_examples=60,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )
    @given(line=command_lines(command))
    def case(line: Line) -> None:
        assert set(line.expected) == _declared(command)  # the drawing covers every key
        params = _round_trip(module, line)
        for key, expected in line.expected.items():
            transform = TRANSFORMS.get((command.wire, key), lambda v: v)
            assert getattr(params, attrs[key]) == transform(expected), key
        if "peer_pid" in getattr(type(params), "__slots__", ()):
            assert params.peer_pid == PEER_PID

    case()


# -- parse() reads every declared key, and only those, by the reader its kind calls for ----------
READERS = (
    "has",
    "text",
    "optional_text",
    "choice",
    "optional_choice",
    "flag",
    "seconds",
    "count",
    "items",
    "job",
    "jobs",
)
TEXTUAL = {"text", "optional_text"}
FITS: dict[str, set[str]] = {
    spec.TEXT: TEXTUAL,
    spec.PANE_ID: TEXTUAL,
    spec.PATH: TEXTUAL,
    spec.SECONDS: {"seconds"},
    spec.COUNT: {"count"},
    spec.LIST: {"items"},
    spec.JOB: {"job"},
    spec.JOB_LIST: {"jobs"},
    spec.FLAG: {"flag"},
}


class RecordingRequest(Request):
    """A :class:`Request` that notes every key asked for and the readers used on each field."""

    def __init__(self, obj: dict[str, object]) -> None:
        super().__init__(obj, PEER_PID)
        self.asked: set[str] = set()
        self.readers: dict[str, set[str]] = {}

    def _get(self, key: str, default: object = None) -> object:
        self.asked.add(key)
        return super()._get(key, default)


def _recording(name: str) -> Callable[..., object]:
    reader = getattr(Request, name)

    def read(self: RecordingRequest, field: spec.Field) -> object:
        self.readers.setdefault(field.key, set()).add(name)
        return reader(self, field)

    return read


for _name in READERS:
    setattr(RecordingRequest, _name, _recording(_name))


def test_the_recorder_wraps_every_reader() -> None:
    public = {n for n, v in vars(Request).items() if callable(v) and not n.startswith("_")}
    assert public == set(READERS)


#: Values parse() itself checks beyond their kind.
SAMPLES = {("listAgents", "states"): ["running"]}


def _sample(command: spec.Command, field: spec.Field) -> object:
    """A valid value of the field's kind, as a client sends it."""
    job = {"rawValue": "0F1E2D3C-4B5A-4978-8695-A4B3C2D1E0F9"}
    if (command.wire, field.key) in SAMPLES:
        return SAMPLES[command.wire, field.key]
    if field.choices:
        return field.choices[0]
    samples: dict[str, object] = {
        spec.SECONDS: 1.0,
        spec.COUNT: 3,
        spec.LIST: ["a"],
        spec.JOB: job,
        spec.JOB_LIST: [job],
        spec.FLAG: True,
        spec.PATH: "/tmp",
    }
    return samples.get(field.kind, "x")


@pytest.mark.parametrize("module", MODULES, ids=_ids)
def test_parse_reads_every_declared_key_and_no_other(module: ModuleType) -> None:
    command: spec.Command = module.COMMAND
    fields = command.fields()
    request = RecordingRequest(
        {"type": command.wire, **{f.key: _sample(command, f) for f in fields}}
    )
    module.parse(request)
    assert request.asked == _declared(command)
    for field in fields:
        used = request.readers.get(field.key, set()) - {"has"}
        fits = FITS[field.kind]
        if field.choices and field.code == spec.USAGE:
            fits = {"choice", "optional_choice"}  # the controller checks them too
        assert used and used <= fits, (field.key, used)


def test_the_recorder_notices_an_undeclared_key() -> None:
    # Guard against a vacuous pass: a parse() reading a key nobody declared is seen.
    stray = spec.Field("stray", "not in any declaration")
    request = RecordingRequest({"type": "x"})
    request.optional_text(stray)
    assert request.asked == {"stray"} and request.readers == {"stray": {"optional_text"}}


def test_every_key_a_declaration_orders_or_waits_on_is_declared() -> None:
    for command in registry.declarations():
        declared = _declared(command)
        assert set(command.wire_order) <= declared, command.wire
        assert command.wait_key is None or command.wait_key in declared


# -- a duration outside its range is refused by both sides, with the same words -----------------
DURATIONS = [
    (module, field)
    for module in MODULES
    for field in module.COMMAND.fields()
    if field.kind == spec.SECONDS
]


@pytest.mark.parametrize(
    ("module", "field"), DURATIONS, ids=[f"{_ids(m)}-{f.key}" for m, f in DURATIONS]
)
def test_a_duration_out_of_its_range_is_refused_on_both_sides(
    module: ModuleType, field: spec.Option
) -> None:
    from mytty.core.errors import ErrorCode, MyttyError

    command: spec.Command = module.COMMAND
    assert isinstance(field, spec.Option) and field.maximum is not None  # every one has a range
    most = field.maximum
    beyond = st.one_of(
        st.floats(max_value=-1e-9, allow_infinity=False),
        st.floats(min_value=most, exclude_min=True, allow_infinity=False),
        st.integers(max_value=-1, min_value=-(10**300)),
        st.integers(min_value=int(most) + 1, max_value=10**300),
    )

    @settings(max_examples=40, deadline=None, database=None)
    @given(line=command_lines(command), value=beyond)
    def case(line: Line, value: float) -> None:
        line.options.append(f"{field.flag}={value!r}")
        with pytest.raises(ctl.CtlError) as refused:
            _round_trip(module, line)
        assert refused.value.code == "invalid-request"
        assert refused.value.message == f"{field.flag} must be between 0 and {int(most)}"
        request = {"type": command.wire, **{f.key: _sample(command, f) for f in command.fields()}}
        request[field.key] = value
        with pytest.raises(MyttyError) as answered:
            module.parse(Request(request))
        assert answered.value.code is ErrorCode.INVALID_REQUEST
        assert answered.value.message == f"field {field.key!r} must be between 0 and {int(most)}"

    case()


def test_the_range_words_both_sides_use() -> None:
    week = spec.Option("--t", "N", "t", "h", kind=spec.SECONDS, maximum=604800.0)
    assert spec.out_of_range(week, 0) is None and spec.out_of_range(week, 604800) is None
    assert spec.out_of_range(week, -0.001) == "must be between 0 and 604800"
    assert spec.out_of_range(week, 604800.5) == "must be between 0 and 604800"
    half = spec.Option("--t", "N", "t", "h", kind=spec.SECONDS, maximum=0.5)
    assert spec.out_of_range(half, 1) == "must be between 0 and 0.5"
    unbounded = spec.Option("--t", "N", "t", "h", kind=spec.SECONDS)
    assert spec.out_of_range(unbounded, 1e300) is None
    assert spec.out_of_range(unbounded, -1) == "must not be negative"
