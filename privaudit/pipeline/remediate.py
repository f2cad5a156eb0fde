"""The remediation engine: audit, transform, re-audit, and offer the output only if it passes.

``privaudit remediate RELEASED --policy P --method NAME`` runs here. The remediator's options come from
the policy's ``remediation:`` block and ``--option NAME=VALUE`` (the command line wins); the targets
(k, l, t ...) always come from the policy's checks. The re-audit uses the same policy and the same
assessors as the first audit, on the remediated table as it would be written.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from pydantic import ValidationError

from privaudit.common.formats import is_parquet
from privaudit.common.jsonable import jsonable
from privaudit.core import guard, memory
from privaudit.core.data import Table
from privaudit.core.errors import PolicyError, PrivauditError, did_you_mean
from privaudit.core.policy import Policy, format_validation_error, with_check_overrides, with_columns
from privaudit.pipeline.audit import AuditResult, open_policy, run_audit
from privaudit.pipeline.plugins import Registry, get_registry
from privaudit.remediation.api import Remediation
from privaudit.remediation.export import table_bytes


@dataclass
class RemediationOutcome:
    before: AuditResult
    after: AuditResult
    remediation: Remediation
    output: bytes
    offered: bool


def resolve_method(policy: Policy, method: str | None, cli_options: dict[str, Any], registry: Registry):
    spec = policy.model.remediation
    name = method or (spec.method if spec else None)
    if not name:
        raise PrivauditError("no remediation method: give --method NAME or set remediation.method in the policy")
    remediator = registry.remediators.get(name)
    if remediator is None:
        raise PrivauditError(
            f"unknown remediation method {name!r}{did_you_mean(name, registry.remediators)} "
            f"(available: {', '.join(sorted(registry.remediators))})"
        )
    options = dict(spec.options) if spec and (spec.method in (None, name)) else {}
    options.update(cli_options)
    try:
        return remediator, remediator.options.model_validate(options)
    except ValidationError as exc:
        raise PolicyError(
            format_validation_error(exc, f"remediation {name!r} options", list(remediator.options.model_fields))
        ) from None


def remediate(
    released: Any,
    policy: Policy | str | Path | dict,
    out: str | Path,
    method: str | None = None,
    options: dict[str, Any] | None = None,
    registry: Registry | None = None,
    progress: Callable[[str, int, int], None] | None = None,
    allow_outside_paths: bool = False,
    check_timeout: float | None = None,
) -> RemediationOutcome:
    registry = registry or get_registry()
    policy = open_policy(policy, registry, allow_outside_paths)
    remediator, parsed = resolve_method(policy, method, options or {}, registry)
    before = run_audit(
        released, policy, registry=registry, progress=progress, check_timeout=check_timeout, refuse_unreachable=True
    )
    result = _transform(remediator, before, parsed, registry)
    return reaudit(
        before,
        policy,
        result,
        out,
        remediator.name,
        remediator.title,
        parsed.model_dump(mode="json"),
        registry,
        progress,
        check_timeout,
    )


def reaudit(
    before: AuditResult,
    policy: Policy,
    result: Remediation,
    out: str | Path,
    name: str,
    title: str,
    options: dict[str, Any],
    registry: Registry,
    progress: Callable[[str, int, int], None] | None = None,
    check_timeout: float | None = None,
) -> RemediationOutcome:
    """The output of ``result`` as it will be written to ``out``, audited again with ``policy`` (the
    remediation's check and column overrides applied; the input as its original); offered iff it passes."""
    columns = list(before.table.frame.columns)
    if list(result.table.columns) != columns:
        raise PrivauditError(f"remediation {name!r} changed the table's columns")
    if len(result.table) != len(before.table.frame) - result.records_removed:
        raise PrivauditError(
            f"remediation {name!r} returned {len(result.table)} records for "
            f"{len(before.table.frame)} in, {result.records_removed} removed"
        )
    data = policy.data
    delimiter = data.delimiter or (";" if data.decimal == "," else ",")
    output = table_bytes(result.table, out, delimiter, decimal=data.decimal, encoding=data.encoding)
    table = Table(
        result.table.reset_index(drop=True),
        Path(out),
        hashlib.sha256(output).hexdigest(),
        len(output),
        "parquet" if is_parquet(out) else "csv",
    )
    reaudit_policy = with_check_overrides(with_columns(policy, result.column_overrides), result.check_overrides)
    # the remediation's input is the original of its output (same rows, same order, unless removed)
    original = before.original or (before.table if result.records_removed == 0 else None)
    after = run_audit(
        table, reaudit_policy, original=original, registry=registry, progress=progress, check_timeout=check_timeout
    )
    offered = after.passed
    after.remediation = jsonable(
        {
            "method": name,
            "title": title,
            "options": options,
            "offered": offered,
            "input": {"path": str(before.table.path), "sha256": before.table.sha256, "rows": before.table.rows},
            "before": _verdict(before),
            "after": _verdict(after),
            "changes": result.changes,
            "loss": result.loss,
            "notes": list(result.notes),
            "check_overrides": result.check_overrides,
            **({"built_hierarchies": result.changes.get("built_hierarchies", {})} if result.column_overrides else {}),
        }
    )
    return RemediationOutcome(before, after, result, output, offered)


def _transform(remediator: Any, before: AuditResult, parsed: Any, registry: Registry) -> Remediation:
    """The remediator's run, guarded (:mod:`privaudit.core.guard`): whatever it raises (``SystemExit``
    included) or a result that is not the table it was given, transformed (same columns; as many rows as
    it says it kept), is one line naming the remediator and its package, and no output is written. It reads
    a read-only view of the audit's tables and summary."""
    origin = registry.origin.get(f"remediator:{remediator.name}")
    what = f"remediation {remediator.name!r}"
    named = f"{what} of {guard.plugin_label(origin)}"

    def attempt() -> Any:
        try:
            return remediator.run(guard.check_view(before.context), parsed)
        except ValueError as exc:  # option values that only the method can judge
            raise PrivauditError(f"{named}: {exc}") from None

    with guard.watch_interrupts(), guard.stdout_to_stderr(), memory.step(f"running {what}"):
        try:
            result = guard.call_plugin(attempt, what, origin)
        except guard.PluginFailure as exc:
            raise PrivauditError(str(exc)) from None
    if not isinstance(result, Remediation) or not isinstance(result.table, pd.DataFrame):
        raise PrivauditError(f"{named} returned {type(result).__name__}, not a Remediation holding a table")
    columns = list(before.table.frame.columns)
    if list(result.table.columns) != columns:
        raise PrivauditError(f"{named} changed the table's columns")
    removed = result.records_removed
    if (
        not isinstance(removed, (int, np.integer))
        or isinstance(removed, bool)
        or len(result.table) != len(before.table.frame) - removed
    ):
        raise PrivauditError(
            f"{named} returned {len(result.table)} records for {len(before.table.frame)} in, {removed!r} removed"
        )
    return result


def _verdict(audit: AuditResult) -> dict:
    return {
        "passed": audit.passed,
        "checks_failed": len(audit.failed),
        "checks_errored": len(audit.errored),
        "checks": {c.id: {"status": c.status, "value": c.value} for c in audit.checks},
    }
