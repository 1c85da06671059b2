"""What the controller hands a command: the request, read field by declared field.

A command module's ``parse(request)`` turns a :class:`Request` into its typed ``Params``. Each
reader takes the field's declaration (:mod:`mytty.control.spec`): the key, the default, the
choices and the limits come from ``COMMAND``, so ``parse()`` spells none of them again. Every
problem with the request's shape is ``invalid-request``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

# Handlers import their context from here; the ports themselves live in mytty.control.ports.
from mytty.control.ports import Context
from mytty.control.spec import Field, out_of_range
from mytty.core.errors import ErrorCode, MyttyError
from mytty.core.ids import normalize_uuid

__all__ = ["Context", "Request"]


class Request:
    """A request object, read through the declarations of its keys.

    The readers are the only public way in, and none of them calls another (a test wraps each
    to record what ``parse()`` read); every key goes through :meth:`_get`.
    """

    def __init__(self, obj: Mapping[str, object], peer_pid: int = 0) -> None:
        self._obj = obj
        self.peer_pid = peer_pid

    def _get(self, key: str, default: object = None) -> object:
        """The value at ``key`` (``default`` when absent; an explicit null stays None)."""
        return self._obj.get(key, default)

    def _bad(self, key: str, what: str) -> MyttyError:
        return MyttyError(ErrorCode.INVALID_REQUEST, f"field {key!r} {what}")

    def _string(self, key: str, required: bool) -> str | None:
        value = self._get(key)
        if value is None and not required:
            return None
        if not isinstance(value, str):
            raise self._bad(key, "must be a string")
        return value

    def _choice(self, field: Field, required: bool) -> str | None:
        key = field.key
        default = field.default if isinstance(field.default, str) else None
        value = self._string(key, required and default is None)
        if value is None and not required:
            return None
        if value is None or value == "":
            value = default
        if value not in field.choices:
            raise MyttyError(
                ErrorCode.INVALID_REQUEST, f"{key} must be one of {', '.join(field.choices)}"
            )
        return value

    def _job_id(self, key: str, value: object) -> str:
        if isinstance(value, dict):
            value = value.get("rawValue")
        if not isinstance(value, str):
            raise self._bad(key, 'must be {"rawValue": <UUID>}')
        return normalize_uuid(value) or value

    # -- the readers ----------------------------------------------------------------------------
    def has(self, field: Field) -> bool:
        """Whether the request holds the field (an explicit null counts as absent)."""
        return self._get(field.key) is not None

    def text(self, field: Field) -> str:
        """A string the request must hold."""
        value = self._string(field.key, required=True)
        assert value is not None
        return value

    def optional_text(self, field: Field) -> str | None:
        """A string, or None when the request has none."""
        return self._string(field.key, required=False)

    def choice(self, field: Field) -> str:
        """One of ``field.choices``; absent or ``""``: the default (required without one)."""
        value = self._choice(field, required=True)
        assert value is not None
        return value

    def optional_choice(self, field: Field) -> str | None:
        """One of ``field.choices``, or None when the request has none."""
        return self._choice(field, required=False)

    def flag(self, field: Field) -> bool:
        """True or false; absent: false."""
        key = field.key
        value = self._get(key, False)
        if not isinstance(value, bool):
            raise self._bad(key, "must be true or false")
        return value

    def seconds(self, field: Field) -> float:
        """A duration: a finite number from 0 to ``field.maximum``; absent: the default."""
        key = field.key
        value = self._get(key, field.default)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self._bad(key, "must be a finite number")
        try:
            number = float(value)
        except OverflowError:  # an integer too large for a float
            raise self._bad(key, "must be a finite number") from None
        if not math.isfinite(number):
            raise self._bad(key, "must be a finite number")
        problem = out_of_range(field, number)
        if problem is not None:
            raise self._bad(key, problem)
        return number

    def count(self, field: Field) -> int | None:
        """A non-negative integer, or None when the request has none."""
        key = field.key
        value = self._get(key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise self._bad(key, "must be a non-negative integer")
        return value

    def items(self, field: Field) -> list[str]:
        """A list of strings; absent: empty."""
        key = field.key
        value = self._get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self._bad(key, "must be a list of strings")
        return value

    def job(self, field: Field) -> str:
        """A ``{"rawValue": UUID}`` id, returned as the uppercase UUID (or the raw text)."""
        key = field.key
        return self._job_id(key, self._get(key))

    def jobs(self, field: Field) -> list[str] | None:
        """A list of job ids as :meth:`job` reads one, at most ``field.maximum`` of them
        (``nonempty``: at least one); None when the request has none."""
        key = field.key
        value = self._get(key)
        if value is None:
            return None
        if not isinstance(value, list):
            raise self._bad(key, "must be a list")
        most = int(field.maximum) if field.maximum is not None else len(value)
        if field.nonempty and not 1 <= len(value) <= most:
            raise self._bad(key, f"must list 1 to {most} jobs")
        if len(value) > most:
            raise self._bad(key, f"lists over {most}")
        return [self._job_id(key, item) for item in value]
