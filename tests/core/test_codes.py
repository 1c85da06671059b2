"""The string constants of mytty.core.codes are the ErrorCode enum's values."""

from __future__ import annotations

from mytty.core import codes
from mytty.core.errors import ErrorCode


def test_every_constant_is_the_enum_member_of_its_name() -> None:
    constants = {k: v for k, v in vars(codes).items() if k.isupper()}
    assert constants
    assert {k: ErrorCode[k].value for k in constants} == constants
