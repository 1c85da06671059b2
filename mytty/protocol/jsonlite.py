"""``json.loads``/``json.dumps`` for short-lived clients, without importing the ``json`` package.

``import json`` loads ``json.decoder`` and ``json.encoder``, which import and compile ``re``
(and with it ``enum``, ``functools``, ``collections``): about a third of the hook helper's
start-up on 2 vCPUs, for code it never runs; ``mytty-ctl`` pays the package's own share. The work is done by CPython's C accelerator
``_json`` either way (``json.loads``/``json.dumps`` call the very same ``make_scanner`` and
``make_encoder``), so this module drives ``_json`` directly and produces the same values and
the same bytes; tests hold it equal to ``json`` on generated documents. Where ``_json`` is
missing (another interpreter), or for the rare input the fast path does not cover (a UTF-16/32
or BOM-prefixed payload), it defers to ``json`` itself.
"""

try:
    import _json
except ImportError:  # pragma: no cover — CPython always has it
    _json = None  # type: ignore[assignment]

_INF = float("inf")
_CONSTANTS = {"-Infinity": -_INF, "Infinity": _INF, "NaN": _INF - _INF}
_WHITESPACE = " \t\n\r"
_BOMS = (b"\xff\xfe", b"\xfe\xff")


class _Context:
    """What ``_json.make_scanner`` reads from a ``json.JSONDecoder``: its default settings."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = _CONSTANTS.__getitem__


_scan = _json.make_scanner(_Context()) if _json is not None else None  # type: ignore[arg-type]


def _fallback_loads(raw: bytes | str) -> object:
    import json

    return json.loads(raw)


def loads(raw: bytes | str) -> object:
    """``json.loads(raw)``: the same value, the same ``ValueError`` subclasses on bad input."""
    if _scan is None:
        return _fallback_loads(raw)
    if isinstance(raw, bytes | bytearray):
        if raw[:2] in _BOMS or raw[:3] == b"\xef\xbb\xbf" or b"\x00" in raw[:4]:
            return _fallback_loads(raw)  # json.detect_encoding's cases: let json read them
        text = raw.decode("utf-8", "surrogatepass")  # what json.loads does for UTF-8
    else:
        text = raw
    if text.startswith("\ufeff"):
        return _fallback_loads(text)  # json's own error for a BOM in a str
    start = len(text) - len(text.lstrip(_WHITESPACE))
    try:
        value, end = _scan(text, start)
    except Exception:  # noqa: BLE001 — bad input: json raises (and words) its own error
        # (StopIteration for "Expecting value"; the scanner's JSONDecodeError needs json.decoder
        # loaded, and without it is a SystemError.) Bad payloads are rare: read them twice.
        return _fallback_loads(text)
    if len(text.rstrip(_WHITESPACE)) != end:
        return _fallback_loads(text)  # "Extra data"
    return value


def _not_serializable(value: object) -> object:
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


#: ``json.dumps``'s own separators (its default when ``indent`` is None).
SPACED = (", ", ": ")


def dumps(
    value: object,
    *,
    sort_keys: bool = False,
    ensure_ascii: bool = False,
    separators: tuple[str, str] = (",", ":"),
) -> str:
    """``json.dumps(value, separators=…, sort_keys=…, ensure_ascii=…)``, compact by default."""
    if _json is None:
        import json

        return json.dumps(
            value, separators=separators, sort_keys=sort_keys, ensure_ascii=ensure_ascii
        )
    quote = _json.encode_basestring_ascii if ensure_ascii else _json.encode_basestring
    if isinstance(value, str):
        return quote(value)
    item, key = separators
    encode = _json.make_encoder(
        {}, _not_serializable, quote, None, key, item, sort_keys, False, True
    )
    return "".join(encode(value, 0))
