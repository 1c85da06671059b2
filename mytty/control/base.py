"""What the controller hands a command: the request, read field by field.

A command module's ``parse(request)`` turns a :class:`Request` into its typed ``Params``; every
problem with the request's shape is ``invalid-request``. The declaration side of a command lives
in :mod:`mytty.control.spec`.
"""

from __future__ import annotations

import builtins
import math
from collections.abc import Mapping

# Handlers import their context from here; the ports themselves live in mytty.control.ports.
from mytty.control.ports import Context
from mytty.core.errors import ErrorCode, MyttyError
from mytty.core.ids import normalize_uuid

__all__ = ["Context", "Request"]


class Request:
    """Typed access to a request object; every problem is ``invalid-request``."""

    def __init__(self, obj: Mapping[str, object], peer_pid: int = 0) -> None:
        self._obj = obj
        self.peer_pid = peer_pid

    def _bad(self, key: str, what: str) -> MyttyError:
        return MyttyError(ErrorCode.INVALID_REQUEST, f"field {key!r} {what}")

    def has(self, key: str) -> bool:
        return self._obj.get(key) is not None

    def str(self, key: str) -> str:
        value = self._obj.get(key)
        if not isinstance(value, str):
            raise self._bad(key, "must be a string")
        return value

    def opt_str(self, key: builtins.str) -> builtins.str | None:
        value = self._obj.get(key)
        if value is None:
            return None
        if not isinstance(value, str):
            raise self._bad(key, "must be a string")
        return value

    def choice(
        self, key: builtins.str, choices: tuple[builtins.str, ...], default: builtins.str | None
    ) -> builtins.str:
        """A string from ``choices`` (``default`` when absent; required when that is None)."""
        value = self.opt_str(key) if default is not None else self.str(key)
        if value is None or value == "":
            value = default
        if value not in choices:
            raise MyttyError(
                ErrorCode.INVALID_REQUEST, f"{key} must be one of {', '.join(choices)}"
            )
        return value

    def bool(self, key: builtins.str, default: builtins.bool | None = None) -> builtins.bool:
        value = self._obj.get(key, default)
        if not isinstance(value, bool):
            raise self._bad(key, "must be true or false")
        return value

    def number(self, key: builtins.str, default: float | None = None) -> float:
        value = self._obj.get(key, default)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self._bad(key, "must be a finite number")
        try:
            number = float(value)
        except OverflowError:  # an integer too large for a float
            raise self._bad(key, "must be a finite number") from None
        if not math.isfinite(number):
            raise self._bad(key, "must be a finite number")
        return number

    def seconds(self, key: builtins.str, default: float, maximum: float | None = None) -> float:
        """A timeout: a finite number, negative counting as 0, clamped to ``maximum``."""
        value = max(0.0, self.number(key, default))
        return value if maximum is None else min(value, maximum)

    def opt_int(self, key: builtins.str) -> int | None:
        value = self._obj.get(key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise self._bad(key, "must be a non-negative integer")
        return value

    def str_list(self, key: builtins.str) -> list[builtins.str]:
        value = self._obj.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self._bad(key, "must be a list of strings")
        return value

    def list(self, key: builtins.str) -> builtins.list[object]:
        value = self._obj.get(key)
        if not isinstance(value, builtins.list):
            raise self._bad(key, "must be a list")
        return value

    def raw_id(self, key: builtins.str) -> builtins.str:
        """A ``{"rawValue": UUID}`` id, returned as the uppercase UUID (or the raw text)."""
        return self.raw_id_of(key, self._obj.get(key))

    def raw_id_of(self, key: builtins.str, value: object) -> builtins.str:
        """:meth:`raw_id` of a value read from ``key`` (for instance, an item of a list)."""
        if isinstance(value, dict):
            value = value.get("rawValue")
        if not isinstance(value, str):
            raise self._bad(key, 'must be {"rawValue": <UUID>}')
        return normalize_uuid(value) or value
