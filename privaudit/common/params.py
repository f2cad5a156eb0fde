"""The base of every parameter model (an assessor's ``Params``, a remediator's options): strict about
unknown keys, booleans given for numbers and numbers that are not finite."""

from __future__ import annotations

import math
import typing
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationInfo, field_validator

__all__ = ["Params"]


class Params(BaseModel):
    """Base of every assessor's parameter model: unknown keys are errors (a typo like ``kk: 5``), and so are
    a boolean where a number is expected (``k: true`` is not 1) and a number that is not finite (``l: .inf``
    would make any threshold pass)."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    @field_validator("*", mode="before")
    @classmethod
    def _numbers_are_numbers(cls, value: Any, info: ValidationInfo) -> Any:
        field = cls.model_fields.get(info.field_name)
        if isinstance(value, bool) and field is not None and _wants_number(field.annotation):
            raise ValueError(f"a number is expected, not {str(value).lower()}")
        if isinstance(value, float) and not math.isfinite(value):
            raise ValueError(f"{value} is not a finite number")
        return value


def _wants_number(annotation: Any) -> bool:
    """Whether a field's type admits int or float but not bool."""
    args = typing.get_args(annotation) or (annotation,)
    flat = [a for arg in args for a in (typing.get_args(arg) or (arg,))]
    return bool not in flat and any(a in (int, float) for a in flat)
