"""The audit driver: load -> validate -> class summary (lazily, once) -> assessors -> result.

Every check runs even when an earlier one fails or raises; an assessor that raises becomes status
``error`` with its message. Exit codes follow from the result: 0 every error-severity check passed,
1 at least one failed, 2 a check ended in ``error``.
"""

from __future__ import annotations

import math
import os
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pandas as pd

from privaudit.core.concurrency import WORKERS as CHECK_WORKERS
from privaudit.core.concurrency import ordered_map
from privaudit.core.context import AuditContext
from privaudit.core.data import Table, load_table
from privaudit.core.errors import DataError
from privaudit.core.plugins import Registry, get_registry
from privaudit.core.policy import Check, Policy, load_policy


@dataclass
class CheckResult:
    id: str
    assessor: str
    status: str  # pass | fail | error
    severity: str  # error | warning
    value: Any
    threshold: Any
    params: dict
    message: str
    details: dict
    seconds: float = 0.0


@dataclass
class AuditResult:
    policy: Policy
    table: Table
    checks: list[CheckResult]
    generated_at: str
    context: AuditContext = field(repr=False)
    original: Table | None = None
    engine: str = "in-process"
    remediation: dict | None = None  # set by `privaudit remediate`: before/after, changes, loss

    @property
    def failed(self) -> list[CheckResult]:
        return [c for c in self.checks if c.status == "fail" and c.severity == "error"]

    @property
    def warned(self) -> list[CheckResult]:
        return [c for c in self.checks if c.status == "fail" and c.severity == "warning"]

    @property
    def errored(self) -> list[CheckResult]:
        return [c for c in self.checks if c.status == "error"]

    @property
    def passed(self) -> bool:
        return not self.failed and not self.errored

    @property
    def exit_code(self) -> int:
        if self.errored:
            return 2
        return 1 if self.failed else 0


def generated_at() -> str:
    """ISO 8601 UTC time of the audit; ``SOURCE_DATE_EPOCH`` makes it reproducible."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    moment = datetime.fromtimestamp(int(epoch), tz=timezone.utc) if epoch and epoch.isdigit() else datetime.now(timezone.utc)
    return moment.replace(microsecond=0).isoformat().replace("+00:00", "Z")


def _jsonable(value: Any) -> Any:
    """numpy scalars -> Python, inf -> "inf", NaN -> None, recursively."""
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return [_jsonable(v) for v in value.tolist()]
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (np.floating, float)):
        value = float(value)
        if math.isnan(value):
            return None
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return value
    if isinstance(value, np.bool_):
        return bool(value)
    return value


def align_original(released: Table, original: Table, policy: Policy) -> pd.DataFrame:
    """The original's rows in the release's order: by the ``record_id`` column when the policy declares
    one, else row by row (the two files must then have the same number of rows)."""
    ids = policy.columns_with("record_id")
    if ids:
        rid = ids[0]
        left, right = released.frame[rid], original.frame[rid]
        if right.duplicated().any():
            raise DataError(f"{original.path}: column {rid!r} (record_id) has duplicate values")
        if released.frame[rid].duplicated().any():
            raise DataError(f"{released.path}: column {rid!r} (record_id) has duplicate values")
        position = pd.Index(right).get_indexer(left)
        if (position < 0).any():
            i = int(np.flatnonzero(position < 0)[0])
            raise DataError(f"{released.path}: {released.row_label(i)}: record_id {left.iloc[i]!r} is not in {original.path}")
        return original.frame.iloc[position].reset_index(drop=True)
    if original.rows != released.rows:
        raise DataError(
            f"{original.path}: has {original.rows} rows but the release has {released.rows}; same rows in the "
            "same order are needed, or a column with role 'record_id'"
        )
    return original.frame


def run_check(ctx: AuditContext, check: Check) -> CheckResult:
    params = check.params.model_dump(mode="json")
    started = time.perf_counter()
    try:
        m = check.assessor.run(ctx, check.params)
    except Exception as exc:  # an assessor that raises must not stop the audit
        text = str(exc).splitlines()[0] if str(exc) else ""
        return CheckResult(check.id, check.assessor.name, "error", check.severity, None, None, params,
                           f"{type(exc).__name__}: {text}", {}, time.perf_counter() - started)
    status = "pass" if m.passed else "fail"
    return CheckResult(check.id, check.assessor.name, status, check.severity, _jsonable(m.value),
                       _jsonable(m.threshold), params, m.message, _jsonable(m.details),
                       time.perf_counter() - started)


def checks_to_run(policy: Policy, registry: Registry) -> list[Check]:
    """The policy's checks plus the assessors that always run (added first, unless the policy names them)."""
    named = {c.assessor.name for c in policy.checks}
    implicit = [
        Check(a.name, a, "error", a.params())
        for a in registry.assessors.values()
        if a.always and a.name not in named and a.name not in {c.id for c in policy.checks}
    ]
    return implicit + list(policy.checks)


def run_audit(
    released: str | Path,
    policy: Policy | str | Path,
    original: str | Path | None = None,
    registry: Registry | None = None,
    progress: Callable[[str, int, int], None] | None = None,
    allow_outside_paths: bool = False,
    engine: str = "in-process",
) -> AuditResult:
    if engine != "in-process":  # the class summary by another engine (privaudit.engines)
        from privaudit.engines import run_engine_audit

        return run_engine_audit(released, policy, engine, original=original, registry=registry, progress=progress,
                                allow_outside_paths=allow_outside_paths)
    registry = registry or get_registry()
    if not isinstance(policy, Policy):
        policy = load_policy(policy, registry, allow_outside_paths=allow_outside_paths)
    table = load_table(released, policy)
    original_table = None
    if original is not None:
        original_table = load_table(original, policy, what="original table")
    return audit_table(table, policy, registry, original_table, progress)


def audit_table(table: Table, policy: Policy, registry: Registry | None = None, original: Table | None = None,
                progress: Callable[[str, int, int], None] | None = None) -> AuditResult:
    """Audit an already loaded table (the remediation engine re-audits its output this way)."""
    registry = registry or get_registry()
    ctx = AuditContext(policy, table.frame, progress=progress)
    if original is not None:
        ctx.original = align_original(table, original, policy)
    return audit_context(ctx, table, policy, registry, original)


def audit_context(ctx: AuditContext, table: Table, policy: Policy, registry: Registry,
                  original: Table | None = None, engine: str = "in-process") -> AuditResult:
    """Run every check on a prepared context (any engine)."""
    checks = checks_to_run(policy, registry)
    for check in checks:
        if "original" in check.assessor.needs and ctx.original is None:
            raise DataError(f"check {check.id!r} ({check.assessor.name}) needs the original table: pass --original FILE")
        if "table" in check.assessor.needs and ctx.table is None:
            raise DataError(f"check {check.id!r} ({check.assessor.name}) needs the whole table in memory: "
                            f"use --engine in-process (this audit uses {engine})")
    results = run_checks(ctx, checks)
    return AuditResult(policy, table, results, generated_at(), ctx, original, engine=engine)


def _summary_ready(ctx: AuditContext) -> bool:
    """Build the shared summary before any thread reads it. If building it fails, the checks run one by
    one and each reports the failure as its own ``error``, as they always have."""
    try:
        ctx.summary
    except Exception:
        return False
    return True


def run_checks(ctx: AuditContext, checks: list[Check], workers: int | None = None) -> list[CheckResult]:
    """Run ``checks``, results in their order. Checks whose assessor is ``concurrent`` run two at a time
    (``workers``; default :data:`CHECK_WORKERS`) after the shared summary is built; the others one by
    one, after them."""
    workers = CHECK_WORKERS if workers is None else workers
    results: list[CheckResult | None] = [None] * len(checks)
    side_by_side = [i for i, c in enumerate(checks) if c.assessor.concurrent]
    if workers > 1 and len(side_by_side) > 1 and _summary_ready(ctx):
        for i, result in zip(side_by_side, ordered_map(lambda i: run_check(ctx, checks[i]), side_by_side,
                                                        workers=workers, ahead=workers)):
            results[i] = result
    for i, check in enumerate(checks):
        if results[i] is None:
            results[i] = run_check(ctx, check)
    return results
