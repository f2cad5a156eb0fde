"""The reports ``privaudit diff`` and ``audit --baseline`` compare, read and checked: a file that is not a JSON
report privaudit wrote (a NaN or a word where a figure belongs, a check id twice, a severity privaudit does not
know, parameters or hierarchy digests that are not mappings) is bad input, one line naming the file and the
field, never a comparison that reads "better" or an internal error.

Only what the comparison reads is checked: the checks' ids, statuses, severities, values, thresholds,
parameters, scenarios and directions, the scope that defines the design, and the utility figures. A report of
an older privaudit lacks the newer fields (``scope.columns``); a field that is present must have its shape."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

from privaudit.core.errors import DataError

STATUSES = ("pass", "fail", "error")
SEVERITIES = ("error", "warning")
INFINITIES = ("inf", "-inf")


def read_report(path: str | os.PathLike, label: str) -> dict:
    """A JSON report from a file, or one line naming the file and what is wrong with it."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise DataError(f"{path}: {label} report not found") from None
    except IsADirectoryError:
        raise DataError(f"{path}: is a directory, not a JSON report") from None
    except UnicodeDecodeError as exc:
        raise DataError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    except OSError as exc:
        raise DataError(f"{path}: cannot be read ({exc.strerror})") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise DataError(f"{path}: not JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    except RecursionError:
        raise DataError(f"{path}: JSON nested too deeply") from None
    return checked_report(data, str(path))


def checked_report(data: Any, name: str) -> dict:
    """``data`` if it is a privaudit audit report of a schema this version reads, else one line naming the
    field (:class:`DataError`, exit 2)."""
    tool = data.get("tool") if isinstance(data, dict) else None
    if not isinstance(tool, dict) or tool.get("name") != "privaudit":
        raise DataError(f"{name}: not a privaudit JSON report (privaudit audit --json OUT writes one)")
    if data.get("schema_version") != 1:
        raise DataError(f"{name}: report schema_version {data.get('schema_version')!r}; this privaudit reads 1")
    checks = data.get("checks")
    if not isinstance(checks, list):
        raise DataError(f"{name}: checks: not a list of checks with id and status")
    seen: set[str] = set()
    for index, check in enumerate(checks):
        _check_entry(check, f"{name}: checks[{index}]", seen)
    for key in ("scope", "input", "policy", "summary"):
        if not isinstance(data.get(key), dict):
            raise DataError(f"{name}: {key}: missing from the report")
    _scope(data["scope"], f"{name}: scope")
    if not isinstance(data["summary"].get("passed"), bool):
        raise DataError(f"{name}: summary.passed: not true or false")
    utility = data.get("utility")
    if utility is not None:
        if not isinstance(utility, list):
            raise DataError(f"{name}: utility: not a list of utility figures")
        for index, item in enumerate(utility):
            where = f"{name}: utility[{index}]"
            if not isinstance(item, dict) or not isinstance(item.get("measure"), str):
                raise DataError(f"{where}: not a utility figure with a measure")
            if item.get("column") is not None and not isinstance(item["column"], str):
                raise DataError(f"{where}.column: not a column name")
            _figure(item.get("value"), f"{where}.value")
    return data


def _check_entry(check: Any, where: str, seen: set[str]) -> None:
    if not isinstance(check, dict) or not isinstance(check.get("id"), str) or not check["id"]:
        raise DataError(f"{where}: not a check with an id and a status")
    if check["id"] in seen:
        raise DataError(f"{where}.id: {check['id']!r} appears twice (a report's check ids are unique)")
    seen.add(check["id"])
    if check.get("status") not in STATUSES:
        raise DataError(f"{where}.status: {check.get('status')!r} is not one of {', '.join(STATUSES)}")
    if check.get("severity", "error") not in SEVERITIES:
        raise DataError(f"{where}.severity: {check.get('severity')!r} is not one of {', '.join(SEVERITIES)}")
    if "assessor" in check and not isinstance(check["assessor"], str):
        raise DataError(f"{where}.assessor: not an assessor's name")
    _figure(check.get("value"), f"{where}.value")
    threshold = check.get("threshold")
    if isinstance(threshold, dict):
        for key, item in threshold.items():
            _figure(item, f"{where}.threshold.{key}")
    else:
        _figure(threshold, f"{where}.threshold")
    if "params" in check and not isinstance(check["params"], dict):
        raise DataError(f"{where}.params: not a mapping of the check's parameters")
    if check.get("details") is not None and not isinstance(check["details"], dict):
        raise DataError(f"{where}.details: not a mapping")
    if "quasi_identifiers" in check and not _names(check["quasi_identifiers"]):
        raise DataError(f"{where}.quasi_identifiers: not a list of column names")
    if "better" in check and check["better"] not in ("higher", "lower"):
        raise DataError(f"{where}.better: {check['better']!r} is not higher or lower")


def _figure(value: Any, where: str) -> None:
    """A figure as privaudit writes one: a finite number, ``"inf"``/``"-inf"`` or null."""
    if value is None or value in INFINITIES and isinstance(value, str):
        return
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise DataError(f'{where}: {_shown(value)} is not a figure (a number, "inf" or null)')
    if isinstance(value, float) and not math.isfinite(value):
        raise DataError(f'{where}: {value} is not a figure privaudit writes (infinity is "inf"; NaN is null)')


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, allow_nan=True)
    return text if len(text) <= 40 else text[:37] + "..."


def _names(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _scope(scope: dict, where: str) -> None:
    if not _names(scope.get("quasi_identifiers")):
        raise DataError(f"{where}.quasi_identifiers: not a list of column names")
    for key in ("sensitive", "identifiers", "missing_tokens"):
        if key in scope and not _names(scope[key]):
            raise DataError(f"{where}.{key}: not a list of names")
    if "missing_qi" in scope and not isinstance(scope["missing_qi"], str):
        raise DataError(f"{where}.missing_qi: not value or wildcard")
    hierarchies = scope.get("hierarchies")
    if hierarchies is not None and (
        not isinstance(hierarchies, dict) or not all(isinstance(v, str) for v in hierarchies.values())
    ):
        raise DataError(f"{where}.hierarchies: not a mapping of column to digest")
    columns = scope.get("columns")
    if columns is not None:
        if not isinstance(columns, dict) or not all(isinstance(v, dict) for v in columns.values()):
            raise DataError(f"{where}.columns: not a mapping of column to its role and type")
    if scope.get("delimiter") is not None and not isinstance(scope["delimiter"], str):
        raise DataError(f"{where}.delimiter: not a character")
