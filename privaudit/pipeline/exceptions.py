"""The policy's exceptions applied to an audit's checks: a failing check that an exception in force covers is
accepted on the record.

After ACRO's exception requests (Preen & Smith 2022, "ACRO: a tool for automating the disclosure control of
research outputs", SACRO project; github.com/AI-SDC/ACRO, ``add_exception(name, reason)`` and ``finalise``: an
output that fails a disclosure rule may still be released when the researcher's justification is accepted by
an output checker, and the request and its outcome are kept with the outputs). Here the justification, the approver and the period are written in the
policy (:class:`privaudit.core.policy.ExceptionSpec`); the audit keeps the check's status ``fail`` and adds the
exception to it, so the verdict no longer counts it, and the report lists every exception, in force or not,
beside the sign-off.

The day an exception is judged on is ``today`` (``--today``, ``today=``), else the day of ``SOURCE_DATE_EPOCH``
(as the report's ``generated_at``: reproducible runs judge the same), else today in UTC.
"""

from __future__ import annotations

import datetime
import math
from typing import Any

from privaudit.pipeline.audit import CheckResult, source_date_epoch


def audit_day(today: Any = None) -> datetime.date:
    """The day exceptions are judged on: ``today`` when given, else ``SOURCE_DATE_EPOCH``'s day, else today (UTC)."""
    if today is not None:
        from privaudit.pipeline.arguments import TODAY

        return TODAY.value(today)  # type: ignore[no-any-return]
    epoch = source_date_epoch()
    moment = (
        datetime.datetime.fromtimestamp(epoch, tz=datetime.UTC)
        if epoch is not None
        else datetime.datetime.now(datetime.UTC)
    )
    return moment.date()


def _figure(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    return {"inf": math.inf, "-inf": -math.inf}.get(value) if isinstance(value, str) else None


def within(value: Any, bound: float | None, better: Any) -> bool:
    """Whether ``value`` stays within an exception's ``max_value`` in the check's direction: at most the bound
    when lower is better, at least it when higher is better (no bound: always)."""
    if bound is None:
        return True
    figure = _figure(value)
    if figure is None or math.isnan(figure):
        return False
    return figure <= bound if better == "lower" else figure >= bound


def _state(spec: Any, result: CheckResult | None, day: datetime.date) -> tuple[bool, bool, str]:
    """(in force, applied, the note the report prints) of one exception on the day ``day``."""
    in_force = spec.date <= day <= spec.expires
    if not in_force:
        note = f"exception expired on {spec.expires}" if day > spec.expires else f"exception in force from {spec.date}"
        return False, False, note
    if result is None or result.status == "pass":
        return True, False, f"in force until {spec.expires}; not needed: the check passes"
    if result.status == "error":
        return True, False, f"in force until {spec.expires}; not applied: the check ended in error (nothing measured)"
    better = getattr(result.params, "better", None)
    if not within(result.value, spec.max_value, better):
        word = "at most" if better == "lower" else "at least"
        return True, False, f"not applied: it covers the check only while its value is {word} {spec.max_value:g}"
    return True, True, f"in force until {spec.expires}"


def record(spec: Any, in_force: bool, applied: bool, note: str) -> dict[str, Any]:
    """An exception as the report states it (:class:`privaudit.plugin.result.ReportException`)."""
    out: dict[str, Any] = {
        "check": spec.check,
        "justification": spec.justification,
        "approver": {"name": spec.approver.name, "role": spec.approver.role},
        "date": spec.date.isoformat(),
        "expires": spec.expires.isoformat(),
    }
    if spec.max_value is not None:
        out["max_value"] = int(spec.max_value) if float(spec.max_value).is_integer() else spec.max_value
    return {**out, "in_force": in_force, "applied": applied, "note": note}


def apply_exceptions(policy: Any, results: list[CheckResult], day: datetime.date) -> list[dict[str, Any]]:
    """Every exception of ``policy`` judged on ``day`` against the checks' ``results`` (in the policy's order):
    a failing check covered by one in force gets it as ``excepted`` (its status stays ``fail``); a failing
    check whose exception does not apply says why in its message (``exception expired on DATE``)."""
    by_id = {r.id: r for r in results}
    out = []
    for spec in getattr(policy, "exceptions", None) or []:
        result = by_id.get(spec.check)
        in_force, applied, note = _state(spec, result, day)
        entry = record(spec, in_force, applied, note)
        out.append(entry)
        if result is None or result.status != "fail":
            continue
        if applied:
            result.excepted = entry
        else:
            result.message = f"{result.message} ({note})" if result.message else note
    return out
