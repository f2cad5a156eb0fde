"""The remediation engine: audit, transform, re-audit, and offer the output only if it passes.

``privaudit remediate RELEASED --policy P --method NAME`` runs here. The remediator's options come from
the policy's ``remediation:`` block and ``--option NAME=VALUE`` (the command line wins); the targets
(k, l, t ...) always come from the policy's checks. The re-audit uses the same policy and the same
assessors as the first audit, on the remediated table as it would be written.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from pydantic import ValidationError

from privaudit.common.formats import is_parquet
from privaudit.common.jsonable import jsonable
from privaudit.core.errors import PolicyError, PrivauditError, did_you_mean
from privaudit.core.hierarchy import Hierarchy
from privaudit.core.policy import Policy, format_validation_error, with_check_overrides, with_columns
from privaudit.io.data import Table
from privaudit.io.office_write import is_office
from privaudit.pipeline.audit import AuditResult, open_policy, run_audit
from privaudit.pipeline.plugins import Registry, get_registry
from privaudit.pipeline.side_files import side_files, side_location
from privaudit.plugin.remediator import Remediation
from privaudit.remediation.export import as_written, formula_like, guarded_values, safe_text, table_bytes
from privaudit.runtime import guard, memory


@dataclass
class RemediationOutcome:
    before: AuditResult
    after: AuditResult
    remediation: Remediation
    output: bytes
    offered: bool
    #: the files written beside the output when it is offered (built hierarchies, published matrices, the
    #: re-audit's policy), by path; empty for a stream or device output without a side folder
    side_files: list[tuple[str, bytes]] = field(default_factory=list)
    #: the written policy the output audits again with as it was re-audited (None: the same policy does)
    policy_file: str | None = None
    #: that audit needs --allow-outside-paths (the policy's other files are outside the side folder)
    outside_paths: bool = False
    #: that audit needs the input as --original (a check reads it, or the published parameters are judged by it)
    needs_original: bool = False
    #: the input already passes every check of error severity: it was not transformed, nothing is offered, and
    #: ``after`` is the input's own audit (as ``remediate --explore`` leaves a passing input alone)
    no_change_needed: bool = False


def resolve_method(policy: Policy, method: str | None, cli_options: dict[str, Any], registry: Registry):
    spec = policy.model.remediation
    name = method or (spec.method if spec else None)
    if not name:
        raise PrivauditError("no remediation method: give --method NAME or set remediation.method in the policy")
    remediator = registry.remediators.get(name) if isinstance(name, str) else None
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
    side_dir: str | Path | bool | None = None,
    even_if_passing: bool = False,
) -> RemediationOutcome:
    """Audit ``released``, transform it, re-audit the output as it will be written to ``out``; the files
    written beside it go to ``side_dir`` (default: beside ``out``; none for ``-`` or a device). An input that
    already passes every check of error severity is left alone (``no_change_needed``, nothing offered), as
    ``remediate --explore`` leaves it, unless ``even_if_passing``."""
    registry = registry or get_registry()
    policy = open_policy(policy, registry, allow_outside_paths)
    remediator, parsed = resolve_method(policy, method, options or {}, registry)
    before = run_audit(
        released,
        policy,
        original=own_original(released, policy),
        registry=registry,
        progress=progress,
        check_timeout=check_timeout,
        refuse_unreachable=True,
    )
    if before.passed and not even_if_passing:
        return _no_change(before, remediator, parsed)
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
        side_dir,
    )


def _no_change(before: AuditResult, remediator: Any, parsed: Any) -> RemediationOutcome:
    """The outcome for an input that already passes: nothing changed, nothing offered, and a remediation
    record that says so, so that every report format (JSON, HTML, PDF, Markdown) tells the reader why no
    table was written."""
    same = Remediation(before.table.frame, {}, {})
    after = dataclasses.replace(before)
    after.remediation = jsonable(
        {
            "method": remediator.name,
            "title": remediator.title,
            "options": parsed.model_dump(mode="json") if parsed is not None else {},
            "offered": False,
            "no_change_needed": True,
            "input": {"path": str(before.table.path), "sha256": before.table.sha256, "rows": before.table.rows},
            "before": _verdict(before),
            "after": _verdict(before),
            "changes": {},
            "loss": {},
            "notes": [
                "the input already passes every check of error severity: the method was not applied and no "
                "table was written (--even-if-passing applies it anyway)"
            ],
            "check_overrides": {},
        }
    )
    return RemediationOutcome(before, after, same, b"", False, no_change_needed=True)


def own_original(released: Any, policy: Policy) -> Any:
    """``released`` itself when a check compares a release with its original (record linkage, interval
    disclosure: ``needs`` names ``original``), else None: the input of a remediation is the original of its
    output, and the input unchanged is its own original (every record links to itself), so the input's audit
    measures that risk before the perturbation (sdcMicro's ``dRisk`` of an unperturbed ``sdcMicroObj``)."""
    return released if any("original" in c.assessor.needs for c in policy.checks) else None


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
    side_dir: str | Path | bool | None = None,
) -> RemediationOutcome:
    """The output of ``result`` as it will be written to ``out``, audited again with ``policy`` (the
    remediation's check and column overrides applied; the input as its original); offered iff it passes.

    The table audited is the one a reader gets back from the bytes written (:func:`as_written`: a CSV's
    formula-like text cells carry the writer's apostrophe), so ``privaudit audit`` of the file gives the same
    verdict and figures, with the policy written beside it when the remediation retyped columns or changed
    checks' parameters (:mod:`privaudit.pipeline.side_files`). A value the writer would change in a column
    that has a hierarchy is refused before any work: the file could not be audited again."""
    _refuse_reshaped(before, result, name)
    result = without_identifiers(result, policy)
    if not is_parquet(out) and not is_office(out):
        result = _guarded_built_hierarchies(result)
    reaudit_policy = with_check_overrides(with_columns(policy, result.column_overrides), result.check_overrides)
    _refuse_guarded_labels(result.table, reaudit_policy, out)
    if is_office(out):
        output, table, written_notes = _as_written_office(result, out, before, reaudit_policy)
        result = dataclasses.replace(result, notes=[*result.notes, *written_notes])
    else:
        output, table = _as_written_table(result, out, policy)
    # the remediation's input is the original of its output (same rows, same order, unless removed)
    original = before.original or (before.table if result.records_removed == 0 else None)
    after = run_audit(
        table, reaudit_policy, original=original, registry=registry, progress=progress, check_timeout=check_timeout
    )
    offered = after.passed
    side = side_files(policy, result, out, side_location(out, side_dir))
    lost = None
    if result.records_removed == 0:  # what each variable lost: the report's first table
        lost = lost_of(before.table.frame, result.table, reaudit_policy)
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
            "notes": list(result.notes)
            + (
                [
                    f"{Path(side.policy_file).name}, written beside it, is the policy it audits again with as it was re-audited"
                ]
                if side.policy_file
                else []
            ),
            "check_overrides": result.check_overrides,
            **({"built_hierarchies": side.built_hierarchies} if result.column_overrides else {}),
            **({"policy_file": side.policy_file} if side.policy_file else {}),
            **({"lost": lost} if lost is not None else {}),
            **({"files_written": _written(out, side.files)} if offered else {}),
        }
    )
    if result.column_overrides and isinstance(after.remediation["changes"].get("built_hierarchies"), dict):
        after.remediation["changes"]["built_hierarchies"] = after.remediation["built_hierarchies"]
    needs_original = bool(result.check_overrides) or any("original" in c.assessor.needs for c in reaudit_policy.checks)
    return RemediationOutcome(
        before, after, result, output, offered, side.files, side.policy_file, side.outside_paths, needs_original
    )


def without_identifiers(result: Remediation, policy: Policy) -> Remediation:
    """The remediation with the policy's declared ``identifier`` columns blanked: a direct identifier is never
    released, whatever the method (the ESSnet handbook, Hundepool et al. 2012, section 3.2, and sdcMicro's
    ``createSdcObj``, which leaves direct identifiers out of every method: remove them first). Said in the
    remediation's notes; a release whose identifier columns are already empty is unchanged."""
    import dataclasses

    table = result.table
    present = [
        c
        for c in policy.columns_with("identifier")
        if c in table.columns and (table[c].notna() & (table[c].astype("string").str.strip() != "")).any()
    ]
    if not present:
        return result
    table = table.copy()
    for column in present:
        table[column] = None
    names = ", ".join(repr(c) for c in present)
    note = (
        f"identifier column{'s' * (len(present) > 1)} {names} blanked: a direct identifier is never released, "
        "whatever the method"
    )
    return dataclasses.replace(result, table=table, notes=[note, *result.notes])


def _refuse_reshaped(before: AuditResult, result: Remediation, name: str) -> None:
    """One line when remediation ``name`` changed the table's columns, or returned other than the records in
    less those it says it removed."""
    columns = list(before.table.frame.columns)
    if list(result.table.columns) != columns:
        raise PrivauditError(f"remediation {name!r} changed the table's columns")
    if len(result.table) != len(before.table.frame) - result.records_removed:
        raise PrivauditError(
            f"remediation {name!r} returned {len(result.table)} records for "
            f"{len(before.table.frame)} in, {result.records_removed} removed"
        )


def _as_written_table(result: Remediation, out: str | Path, policy: Policy) -> tuple[bytes, Table]:
    """The bytes of ``result``'s table as written to ``out`` in the policy's dialect, and the table a reader
    gets back from them (:func:`as_written`)."""
    data = policy.data
    delimiter = data.delimiter or (";" if data.decimal == "," else ",")
    output = table_bytes(result.table, out, delimiter, decimal=data.decimal, encoding=data.encoding)
    table = Table(
        as_written(result.table, out).reset_index(drop=True),
        Path(out),
        hashlib.sha256(output).hexdigest(),
        len(output),
        "parquet" if is_parquet(out) else "csv",
    )
    return output, table


def _as_written_office(
    result: Remediation, out: str | Path, before: AuditResult, policy: Policy
) -> tuple[bytes, Table, list[str]]:
    """The bytes of ``result``'s table written as ``out``'s statistical package format, carrying the input's
    labels, missing codes, formats and measures (:mod:`privaudit.io.office_write`), the notes on what the
    format could not hold, and the table a reader gets back from those bytes: read again from them with
    ``policy``, as ``privaudit audit`` of the written file reads it."""
    import tempfile

    from privaudit.io.data import load_table
    from privaudit.io.office_write import Source, office_bytes

    source = Source(
        labels=before.table.labels,
        path=Path(before.table.path) if isinstance(before.table.path, (str, Path)) else None,
        file_format=before.table.file_format,
        suppression_codes=policy.suppression_codes(),
    )
    output, notes = office_bytes(result.table, out, source)
    with tempfile.TemporaryDirectory(prefix="privaudit-") as folder:
        written = Path(folder) / f"remediated{Path(str(out)).suffix.lower()}"
        written.write_bytes(output)
        table = load_table(written, policy)
    table.path = Path(out)
    return output, table, notes


def roots(policy: Policy) -> dict[str, set[str]]:
    """Per quasi-identifier, the labels that mean "any value": its hierarchy's root and ``*``."""
    return {
        c: {"*", *([h.root[1]] if (h := policy.hierarchies.get(c)) is not None else [])} for c in policy.hierarchies
    }


def lost_of(before: pd.DataFrame, after: pd.DataFrame, policy: Policy, cache: dict | None = None) -> dict:
    """What ``after`` lost from ``before`` (same records, same order): the quasi-identifiers, then any other
    column it changed (:func:`privaudit.utility.variable_loss.variable_changes`). Declared identifiers are not
    counted: they are never released (:func:`without_identifiers`; the remediation's notes say so)."""
    from privaudit.utility.variable_loss import variable_changes

    qi = list(policy.quasi_identifiers)
    identifiers = set(policy.columns_with("identifier"))
    others = [
        c
        for c in before.columns
        if c not in qi
        and c not in identifiers
        and c in after.columns
        and not before[c].reset_index(drop=True).equals(after[c].reset_index(drop=True))
    ]
    return variable_changes(before, after, [*qi, *others], roots(policy), cache)


def _guarded_built_hierarchies(result: Remediation) -> Remediation:
    """``result`` with the hierarchies it built (and writes beside a CSV output) holding their labels as the CSV
    holds them: a formula-like label (a leaf ``=x`` of a flat hierarchy) with the writer's apostrophe, in the
    file written and in the re-audit's hierarchy alike."""
    overrides, artefacts = dict(result.column_overrides), dict(result.artefacts)
    for column, change in result.column_overrides.items():
        key = "." + str(change["file"])
        data = artefacts.get(key)
        if data is None:
            continue
        rows = [line.split(";") for line in data.decode("utf-8").splitlines() if line]
        if not any(formula_like(cell) for row in rows for cell in row):
            continue
        rows = [[str(safe_text(cell)) for cell in row] for row in rows]
        artefacts[key] = "".join(";".join(row) + "\n" for row in rows).encode("utf-8")
        overrides[column] = {**change, "hierarchy": Hierarchy(rows, f"built for {column}")}
    if overrides == result.column_overrides:
        return result
    return dataclasses.replace(result, column_overrides=overrides, artefacts=artefacts)


def _refuse_guarded_labels(table: pd.DataFrame, policy: Policy, out: str | Path) -> None:
    """One line, before anything is written, when the CSV writer would prefix a value of a column that has a
    hierarchy with an apostrophe (a label such as ``-5--1`` or ``=x``): the written table would hold a value
    its hierarchy does not, and could not be audited again."""
    if is_parquet(out) or is_office(out):
        return
    for column, hierarchy in policy.hierarchies.items():
        if column not in table.columns:
            continue
        unknown = [v for v in guarded_values(table[column]) if hierarchy.level_of(str(safe_text(v))) is None]
        if unknown:
            value = unknown[0]
            raise PrivauditError(
                f"--out {out}: column {column!r}: the value {value!r} starts like a spreadsheet formula, so the CSV "
                f"would hold {chr(39) + value!r}, which the column's hierarchy does not; rename it in the hierarchy "
                "(an interval as [-5, -1]) or write Parquet (.parquet)"
            )


def _transform(remediator: Any, before: AuditResult, parsed: Any, registry: Registry) -> Remediation:
    """The remediator's run, guarded (:mod:`privaudit.runtime.guard`): whatever it raises (``SystemExit``
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


def _written(out: str | Path, side: list[tuple[str, bytes]]) -> list[str]:
    """The files an offered remediation is written to: the table (unless a stream), and the side files."""
    return [*([str(out)] if str(out) != "-" else []), *(path for path, _ in side)]


def _verdict(audit: AuditResult) -> dict:
    return {
        "passed": audit.passed,
        "checks_failed": len(audit.failed),
        "checks_errored": len(audit.errored),
        "checks": {c.id: {"status": c.status, "value": c.value} for c in audit.checks},
    }
