"""Hypothesis strategies for hostile input on both sockets (issue 15, the fuzz part).

Three layers, each also sent as raw bytes: JSON values that stress decoders (wrong types,
integers past 64 bits, NaN, deep nesting, NUL, lone surrogates), event envelopes that start
valid (the real pane's capability included) and are then mutated, and control requests over
the real command names and field names. ``encodings`` turns a value into bytes in hostile ways
(duplicate keys, deep nesting, no newline, garbage after the newline, invalid UTF-8).
"""

from __future__ import annotations

import json
import uuid
from typing import Any

from hypothesis import strategies as st

#: Control requests that would create panes, start agents or ask a human (integration
#: consent waits minutes) are left out: a fuzzer must not fill the tmux server or block.
UNSAFE_TYPES = frozenset(
    {"newTab", "ensureSession", "spawnAgent", "integrationEnable", "integrationRepair"}
)
#: Requests that may wait: their numeric timeouts are cut to 0 so a case never blocks (numbers
#: beyond what a timeout may be are still sent as drawn: they must be refused at once).
LONG_POLLS = frozenset({"wait", "waitAgent", "events"})

FIELD_NAMES = (
    "paneID",
    "text",
    "pressEnter",
    "key",
    "modifiers",
    "until",
    "timeoutSeconds",
    "afterSequence",
    "jobID",
    "status",
    "direction",
    "workingDirectory",
    "command",
    "provider",
    "task",
    "label",
    "model",
    "cwd",
    "access",
    "worktreeBranch",
    "anchorPaneID",
    "ack",
    "ackAll",
    "all",
)

HUGE = (2**63 - 1, 2**63, 2**64, -(2**63) - 1, 10**400, -(10**400), 10**20)
SPECIAL_TEXT = (
    "",
    "\x00",
    "a\x00b",
    "\ud800",
    "x\udfffy",
    "\ufeff",
    "\u202e",
    "\n",
    "\r\n",
    "%s%n",
    "'; DROP TABLE agent_event; --",
    "../../etc/passwd",
    "A" * 300,
)


def uuid_text() -> st.SearchStrategy[str]:
    return st.builds(lambda b: str(uuid.UUID(bytes=b)).upper(), st.binary(min_size=16, max_size=16))


TEXT = st.one_of(
    st.text(max_size=24),
    st.text(
        alphabet=st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF), min_size=1, max_size=3
    ),
    st.sampled_from(SPECIAL_TEXT),
    uuid_text(),
)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.sampled_from(HUGE),
    st.floats(allow_nan=True, allow_infinity=True),
    TEXT,
)
JSON = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.one_of(st.sampled_from(FIELD_NAMES), TEXT), inner, max_size=4),
    ),
    max_leaves=10,
)
WRAPPED_ID = st.one_of(st.builds(lambda u: {"rawValue": u}, uuid_text()), JSON)

KINDS = (
    "idle",
    "started",
    "running",
    "input-requested",
    "approval-requested",
    "succeeded",
    "failed",
    "disconnected",
)
PROVIDERS = ("codex", "claude-code", "opencode", "antigravity", "cursor")


@st.composite
def valid_event(draw: st.DrawFn, surface: str) -> dict[str, Any]:
    event: dict[str, Any] = {
        "schemaVersion": 1,
        "id": {"rawValue": draw(uuid_text())},
        "runID": {"rawValue": draw(uuid_text())},
        "surfaceID": {"rawValue": surface},
        # codex events are routed by session, not by capability: mostly the others.
        "provider": draw(st.sampled_from(PROVIDERS)),
        "kind": draw(st.sampled_from(KINDS)),
        "occurredAt": draw(
            st.sampled_from(
                ["2026-07-16T07:00:00Z", "2026-07-16T09:00:05.250+02:00", "0001-01-01T00:00:00Z"]
            )
        ),
    }
    for key in ("sessionID", "message", "hookName", "toolUseID", "toolName"):
        if draw(st.booleans()):
            event[key] = draw(TEXT)
    return event


@st.composite
def envelopes(draw: st.DrawFn, surface: str, capability: str) -> Any:
    """A valid envelope for the real pane, then 0-3 mutations anywhere in it."""
    envelope: dict[str, Any] = {
        "schemaVersion": 1,
        "capability": draw(st.sampled_from([capability, capability.lower(), "", "0" * 64])),
        "event": draw(valid_event(surface)),
    }
    for _ in range(draw(st.integers(0, 3))):
        target = envelope
        event = envelope.get("event")
        if isinstance(event, dict) and draw(st.booleans()):
            target = event
        op = draw(st.sampled_from(["drop", "set", "add", "wrap"]))
        keys = sorted(target)
        if op == "drop" and keys:
            del target[draw(st.sampled_from(keys))]
        elif op == "set" and keys:
            target[draw(st.sampled_from(keys))] = draw(st.one_of(JSON, WRAPPED_ID))
        elif op == "add":
            target[draw(TEXT)] = draw(JSON)
        elif op == "wrap":
            return [envelope] if draw(st.booleans()) else {"envelope": envelope}
    return envelope


#: Fields that name a pane: the fuzz pane's id is drawn for them too, except in requests that
#: would create or close panes.
PANE_FIELDS = frozenset({"paneID", "anchorPaneID"})
NO_REAL_PANE = frozenset({"split", "closePane"})


def _field_value(spec: Any, pane: str) -> st.SearchStrategy[Any]:
    """A value of the kind the declaration says (what a correct client would send)."""
    from mytty.control import spec as kinds

    if spec.wire in PANE_FIELDS:
        return st.one_of(st.just(pane), uuid_text())
    if spec.choices:
        return st.sampled_from(spec.choices)
    if spec.kind == kinds.JOB:
        return st.builds(lambda u: {"rawValue": u}, uuid_text())
    if spec.kind == kinds.SECONDS:
        return st.sampled_from([0, 0.0, -1, 0.01])
    if spec.kind == kinds.COUNT:
        return st.integers(0, 2**64)
    if spec.kind == kinds.LIST:
        return st.lists(TEXT, max_size=3)
    if getattr(spec, "metavar", "x") is None:  # a boolean flag
        return st.booleans()
    return TEXT


@st.composite
def well_formed(draw: st.DrawFn, command: Any, pane: str) -> dict[str, Any]:
    """A request a correct client could send for ``command``, optional fields or not."""
    request: dict[str, Any] = {"type": command.wire}
    for field in (*command.args, *command.options):
        if field.wire is None or (not getattr(field, "required", False) and draw(st.booleans())):
            continue
        request[field.wire] = draw(_field_value(field, pane))
    if command.wire in NO_REAL_PANE:
        for key in PANE_FIELDS & set(request):
            request[key] = draw(uuid_text())
    return request


@st.composite
def declared_requests(draw: st.DrawFn, commands: tuple[Any, ...], pane: str) -> Any:
    """A well-formed request for a declared command, then 0-2 hostile field changes."""
    request = draw(well_formed(draw(st.sampled_from(commands)), pane))
    for _ in range(draw(st.integers(0, 2))):
        op = draw(st.sampled_from(["drop", "set", "add"]))
        keys = sorted(k for k in request if k != "type")
        if op == "drop" and keys:
            del request[draw(st.sampled_from(keys))]
        elif op == "set" and keys:
            request[draw(st.sampled_from(keys))] = draw(st.one_of(JSON, WRAPPED_ID))
        elif op == "add":
            request[draw(st.one_of(st.sampled_from(FIELD_NAMES), TEXT))] = draw(JSON)
    if request["type"] in NO_REAL_PANE:
        for key in PANE_FIELDS & set(request):
            if request[key] == pane:
                request[key] = draw(uuid_text())
    _clamp_waits(request)
    return request


def _clamp_waits(request: dict[str, Any]) -> None:
    """A wait the controller would accept waits 0 s (its default when absent is 30-120 s)."""
    if request.get("type") in LONG_POLLS:
        value = request.get("timeoutSeconds", 0)
        if isinstance(value, int | float) and not isinstance(value, bool) and abs(value) < 2**64:
            request["timeoutSeconds"] = 0


@st.composite
def control_requests(draw: st.DrawFn, types: tuple[str, ...]) -> Any:
    """Real command names (or junk) with real field names (or junk) and hostile values."""
    kind = draw(st.one_of(st.sampled_from(types), TEXT, JSON))
    request: dict[str, Any] = {"type": kind}
    fields = draw(
        st.dictionaries(
            st.one_of(st.sampled_from(FIELD_NAMES), TEXT),
            st.one_of(JSON, WRAPPED_ID, uuid_text()),
            max_size=5,
        )
    )
    request.update(fields)
    request["type"] = kind
    if isinstance(kind, str) and kind in UNSAFE_TYPES:
        request["type"] = "list"
    if isinstance(kind, str):
        _clamp_waits(request)
    if draw(st.integers(0, 9)) == 0:
        return [request]
    return request


def _dump(value: Any) -> str:
    # ensure_ascii: lone surrogates travel as \\udXXX escapes, as a JSON client would send them.
    return json.dumps(value, allow_nan=True)


@st.composite
def encodings(draw: st.DrawFn, value: Any) -> bytes:
    """``value`` as request bytes, in one of several hostile forms."""
    form = draw(
        st.sampled_from(
            [
                "plain",
                "plain",
                "plain",
                "no-newline",
                "duplicate",
                "nested",
                "trailing",
                "raw-utf8",
                "bad-utf8",
            ]
        )
    )
    text = _dump(value)
    if form == "duplicate" and text.startswith("{") and text != "{}":
        key = draw(st.sampled_from(["schemaVersion", "type", "capability", "event", "paneID"]))
        text = "{" + _dump(key) + ":" + _dump(draw(JSON)) + "," + text[1:]
    elif form == "nested":
        depth = draw(st.sampled_from([2, 100, 1000, 20000]))
        text = "[" * depth + text + "]" * depth
    elif form == "trailing":
        text = text + "\n" + draw(st.text(max_size=20))
    if form == "raw-utf8":
        body = json.dumps(value, ensure_ascii=False, allow_nan=True).encode(
            "utf-8", "surrogatepass"
        )
    elif form == "bad-utf8":
        body = text.encode()
        cut = draw(st.integers(0, len(body)))
        body = (
            body[:cut]
            + draw(st.sampled_from([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\x00", b"\xc0\xaf"]))
            + body[cut:]
        )
    else:
        body = text.encode()
    return body if form == "no-newline" else body + b"\n"


RAW_BYTES = st.one_of(
    st.binary(max_size=200),
    st.builds(lambda n: b"[" * n, st.integers(1, 70_000)),
    st.builds(lambda n: b'{"a":' * n, st.integers(1, 20_000)),
    st.sampled_from(
        [
            b"",
            b"\n",
            b"\x00\n",
            b"{}\n",
            b"[]\n",
            b"null\n",
            b'"\\ud800"\n',
            b'{"type":"list"}\x00\n',
            b'{"type":"l\x00ist"}\n',
            b'\xef\xbb\xbf{"type":"list"}\n',
            b'{"schemaVersion":1e400}\n',
            b'{"schemaVersion":NaN}\n',
            b'{"type":"list","type":"read"}\n',
        ]
    ),
)
