"""What a check's result must be before the audit reports it: the assessor API's promise, checked on
every ``Measurement`` an assessor returns, built-in or plugin (a broken promise is that check's ``error``,
never a pass; :mod:`privaudit.runtime.guard` says how the call itself is guarded)."""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np

from privaudit.common.jsonable import jsonable
from privaudit.core.errors import first_line
from privaudit.plugin.assessor import Measurement


def _described(exc: BaseException) -> str:
    text = first_line(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _finite_or_infinite(value: Any) -> str | None:
    """Why ``value`` is not a figure a check may report, or None: a real number (inf allowed, NaN not)."""
    if value is None:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        return f"returned a value of type {type(value).__name__} (a number is expected)"
    if isinstance(value, (float, np.floating)) and math.isnan(value):
        return "returned NaN as its value"
    return None


def measurement_problem(m: Any, assessor: Any) -> str | None:
    """Why an assessor's result cannot be reported, or None. ``docs/plugins.md`` (step 3) is the
    contract: a ``Measurement``; ``passed`` a boolean; ``value`` a number (infinity allowed) or None;
    ``message`` text; ``details`` a JSON object (numpy scalars and arrays allowed), validated by the
    assessor's ``details`` model when it declares one."""
    if not isinstance(m, Measurement):
        return f"returned {type(m).__name__}, not a Measurement"
    if not isinstance(m.passed, (bool, np.bool_)):
        return f"returned a verdict (passed) of type {type(m.passed).__name__}, not a boolean"
    problem = _finite_or_infinite(m.value)
    if problem:
        return problem
    if not isinstance(m.message, str):
        return f"returned a message of type {type(m.message).__name__}, not text"
    if not isinstance(m.details, dict):
        return f"returned details of type {type(m.details).__name__}, not a dict"
    details = jsonable(m.details)
    try:
        json.dumps([details, jsonable(m.threshold)], allow_nan=False)
    except (TypeError, ValueError) as exc:
        return f"returned details or a threshold that are not JSON ({_described(exc)})"
    model = getattr(assessor, "details", None)
    if model is not None and hasattr(model, "model_validate"):
        try:
            model.model_validate(details)
        except Exception as exc:  # noqa: BLE001 - a pydantic ValidationError: its first problem, one line
            errors = getattr(exc, "errors", None)
            first = errors()[0] if callable(errors) else None
            where = ".".join(str(p) for p in first["loc"]) if first else ""
            why = first["msg"] if first else _described(exc)
            return f"returned details its model {model.__name__} rejects ({where}: {why})"
    return None
