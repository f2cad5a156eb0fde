"""The run's report (schema_version 1): a stable, machine-readable verdict, built once per run as the typed
:class:`~privaudit.plugin.result.Report` (:func:`report_of`) and written as JSON (:func:`render_json`).

The model states the keys: ``schema_version``, ``tool``, ``generated_at``, ``engine``, ``input``,
``original`` (or null), ``policy``, ``scope`` (columns by role, missing values, special categories, the
hierarchies' digests), ``summary``, ``checks`` (id, assessor, status, severity, value, threshold, params,
message, details; ``better`` and ``quasi_identifiers`` when the check has them), ``utility`` (what the release
keeps, :mod:`privaudit.utility`), ``series`` after ``--previous``, ``remediation`` after ``privaudit remediate``
and ``explore`` after ``remediate --explore`` (:mod:`privaudit.pipeline.explore`). Infinity is the string
``"inf"``. Same inputs and ``SOURCE_DATE_EPOCH`` give byte-identical output.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from privaudit import __version__
from privaudit.plugin.result import (
    SCHEMA_VERSION,
    ColumnLabelFacts,
    Explore,
    InputFacts,
    OriginalFacts,
    PolicyFacts,
    ReleaseContextFacts,
    Remediation,
    Report,
    ReportCheck,
    ReportColumn,
    ReportException,
    ReportSummary,
    Scope,
    Series,
    SpecialCategory,
    Tool,
    UtilityFigure,
)

__all__ = ["SCHEMA_VERSION", "build_report", "render_json", "report_of"]


def unknowable(policy: Any) -> dict[str, str]:
    """The columns the policy declares an intruder cannot know (role ``other`` with a ``reason``): column ->
    reason, printed beside the sign-off."""
    return {c: s.reason for c, s in policy.columns.items() if s.role == "other" and s.reason}


def found_identifiers(checks: list[Any], registry: Any) -> dict[str, str]:
    """Columns the checks found holding direct identifiers (their assessors' declared
    ``identifier_columns``): column -> kind (``email``, ``phone`` ...)."""
    found: dict[str, str] = {}
    for c in checks:
        assessor = registry.assessors.get(c.assessor)
        declared = getattr(assessor, "identifier_columns", None)
        if declared is not None and c.status != "error" and isinstance(c.details, dict):
            found.update(declared(c.details))
    return found


#: what a report prints for a special-category quasi-identifier's value in a class below the policy's largest k
NOT_PRINTED = "(not printed)"


def masked_details(
    details: Any, found: dict[str, str], sensitive: Any, special: Sequence[str] = (), below: int = 0
) -> Any:
    """``details`` with the values of ``found`` columns masked (:func:`privaudit.discovery.scan.mask`) in its
    ``worst_classes`` (and ``worst_cells``, the cells of combinations): a column the scan recognises as e-mail addresses or names, declared a
    quasi-identifier, would otherwise be printed in full, 20 rows per check. The sensitive values
    listed for a class are masked too when the check's sensitive column is such a column. The values of the
    ``special`` quasi-identifiers (a GDPR Art. 9 category: ethnicity, religion) of a class of fewer than
    ``below`` records are :data:`NOT_PRINTED`, as a sensitive value of such a class is not
    (:meth:`privaudit.core.context.AuditContext.worst_classes`): the key of a sample unique identifies its
    person, so its ethnicity beside it is that person's. A copy: the audit's own details are left as measured."""
    from privaudit.discovery.scan import mask

    if (not found and not special) or not isinstance(details, dict):
        return details
    names = sensitive if isinstance(sensitive, (list, tuple)) else [sensitive]
    kinds = [found[n] for n in names if isinstance(n, str) and n in found]
    masked_lists = {}
    for field in ("worst_classes", "worst_cells"):  # classes, and the cells of combinations (risky cells)
        rows = details.get(field)
        if not isinstance(rows, list):
            continue
        out = []
        for row in rows:
            if not isinstance(row, dict):
                out.append(row)
                continue
            row = dict(row)
            if isinstance(row.get("values"), dict):
                row["values"] = {
                    k: mask(v, found[k]) if k in found and v is not None else v for k, v in row["values"].items()
                }
                size = row.get("size")
                if special and isinstance(size, int) and size < below:
                    row["values"] = {k: NOT_PRINTED if k in special else v for k, v in row["values"].items()}
            if kinds and isinstance(row.get("sensitive_values"), dict):
                masked: dict[str, int] = {}
                for value, count in row["sensitive_values"].items():
                    key = mask(value, kinds[0])
                    masked[key] = masked.get(key, 0) + count
                row["sensitive_values"] = masked
            out.append(row)
        masked_lists[field] = out
    return {**details, **masked_lists} if masked_lists else details


def improves(params: Any) -> str | None:
    """Which way a check's value improves, ``"higher"`` or ``"lower"``, as its parameters declare it (a
    ``better`` class attribute or property of the assessor's ``Params``); None when they do not say.
    ``privaudit diff`` reads it to tell a worse value from a better one."""
    better = getattr(params, "better", None)
    return better if better in ("higher", "lower") else None


def series_of(audit: Any) -> dict[str, Any] | None:
    """The series of releases the audit composed (``--previous``): the releases and how people were linked;
    None without previous releases, or when no check read them."""
    context = getattr(audit, "context", None)
    if context is None or getattr(context, "series_inputs", None) is None or "series" not in context.__dict__:
        return None
    series = context.__dict__["series"]
    return series.describe() if series is not None else None


def _present(**values: Any) -> dict[str, Any]:
    """The keyword arguments that are not None: the keys a report writes only when the run set them."""
    return {k: v for k, v in values.items() if v is not None}


def _labels(table: Any) -> dict[str, ColumnLabelFacts] | None:
    """The labels the input file states (:attr:`privaudit.io.data.Table.labels`), by column; None without any."""
    found = getattr(table, "labels", None) or {}
    out = {
        str(c): ColumnLabelFacts(
            **_present(label=f.label or None, values=dict(f.values) or None, user_missing=list(f.missing) or None)
        )
        for c, f in found.items()
    }
    return out or None


def build_report(audit: Any) -> Report:
    """The typed report of an audit (:class:`~privaudit.plugin.result.Report`), which every renderer reads;
    built once per run (:func:`report_of`). Values of columns the scan found holding direct identifiers are
    masked in the lists of worst classes (:func:`masked_details`)."""
    table, original = audit.table, audit.original
    return Report(
        schema_version=SCHEMA_VERSION,
        tool=Tool(name="privaudit", version=__version__),
        generated_at=audit.generated_at,
        engine=audit.engine,
        input=InputFacts(
            path=str(table.path),
            sha256=table.sha256,
            **_present(fingerprint=None if table.fingerprint == "sha256" else table.fingerprint),
            size=table.size,
            rows=table.rows,
            columns=list(table.columns),
            **_present(labels=_labels(table)),
        ),
        original=None
        if original is None
        else OriginalFacts(path=str(original.path), sha256=original.sha256, rows=original.rows),
        policy=PolicyFacts(path=str(audit.policy.path), sha256=audit.policy.sha256, name=audit.policy.name),
        scope=scope_of(audit.policy),
        summary=ReportSummary(
            passed=audit.passed,
            checks_total=len(audit.checks),
            checks_failed=len(audit.failed),
            checks_warned=len(audit.warned),
            checks_errored=len(audit.errored),
            **_present(checks_excepted=len(getattr(audit, "excepted", None) or []) or None),
        ),
        **_present(
            remediation=None if audit.remediation is None else Remediation.model_validate(audit.remediation),
            series=None if (series := series_of(audit)) is None else Series.model_validate(series),
            explore=None if (ex := getattr(audit, "explore", None)) is None else Explore.model_validate(ex),
        ),
        checks=checks_of(audit),
        **_present(
            exceptions=[ReportException.model_validate(e) for e in getattr(audit, "exceptions", None) or []] or None,
            context=context_of(audit.policy),
        ),
        utility=[UtilityFigure.model_validate(u) for u in getattr(audit, "utility", None) or []],
    )


def context_of(policy: Any) -> ReleaseContextFacts | None:
    """The policy's ``context:`` block with its derived threshold (None: the policy has none)."""
    derived = getattr(policy, "threshold", None)
    if derived is None:
        return None
    return ReleaseContextFacts(
        spec=policy.model.context.model_dump(mode="json", exclude_none=True),
        threshold=derived.value,
        measure=derived.measure,
        steps=list(derived.steps),
        source=derived.source,
        findings=list(policy.context_findings),
    )


def scope_of(policy: Any) -> Scope:
    """What the policy audits, as the report states it."""
    from privaudit.discovery.special_categories import special_columns

    declared = {
        c: s.special_category for c, s in policy.columns.items() if s.role in ("quasi_identifier", "sensitive", "other")
    }
    return Scope(
        quasi_identifiers=policy.quasi_identifiers,
        sensitive=policy.sensitive,
        identifiers=policy.columns_with("identifier"),
        missing_qi=policy.data.missing_qi,
        missing_tokens=policy.missing_tokens,
        special_categories=[SpecialCategory.model_validate(s) for s in special_columns(declared)],
        hierarchies={column: h.digest for column, h in policy.hierarchies.items()},
        columns={
            column: ReportColumn(role=spec.role, type=spec.type, **_present(order=spec.order or None))
            for column, spec in policy.columns.items()
        },
        delimiter=policy.data.delimiter,
        **_present(unknowable=unknowable(policy) or None),
    )


def _special_keys(audit: Any) -> tuple[list[str], int]:
    """The quasi-identifiers of a special category whose values small classes do not print, and the class
    size from which they are printed (the policy's largest k); none when ``report.show_sensitive_values``."""
    policy = audit.policy
    if policy.report.show_sensitive_values:
        return [], 0
    special = [q for q in policy.quasi_identifiers if policy.columns[q].special_category]
    context = getattr(audit, "context", None)
    return special, int(getattr(context, "largest_k", 0) or 0) if special else 0


def checks_of(audit: Any) -> list[ReportCheck]:
    """The audit's checks as the report states them, each carrying the typed parameters it ran with
    (:attr:`~privaudit.plugin.result.ReportCheck.typed_params`)."""
    found = found_identifiers(audit.checks, audit.registry)
    # the sensitive columns whose values each check lists, as its assessor declares them (``Disclosure``);
    # checks the policy does not list (always run) list none
    shown = {c.id: c.assessor.capabilities.disclosure.sensitive_columns(c.params) for c in audit.policy.checks}
    special, below = _special_keys(audit)
    out: list[ReportCheck] = []
    for c in audit.checks:
        params = c.params.model_dump(mode="json")
        entry = ReportCheck(
            id=c.id,
            assessor=c.assessor,
            status=c.status,
            severity=c.severity,
            value=c.value,
            threshold=c.threshold,
            params=params,
            message=c.message,
            details=masked_details(c.details, found, shown.get(c.id), special, below),
            **_present(
                quasi_identifiers=list(c.quasi_identifiers or []) or None,
                better=improves(c.params),
                excepted=None if (e := getattr(c, "excepted", None)) is None else ReportException.model_validate(e),
            ),
        )
        out.append(entry.with_params(c.params))
    return out


def report_of(audit: Any) -> Report:
    """The typed report of ``audit``, built on first use and kept with it: every renderer of a run reads the
    same one. Built again only when the run's remediation or exploration, set after the audit, is replaced."""
    kept = audit.__dict__.get("_report")
    if kept is not None and kept[0] is audit.remediation and kept[1] is getattr(audit, "explore", None):
        cached: Report = kept[2]
        return cached
    report = build_report(audit)
    audit.__dict__["_report"] = (audit.remediation, getattr(audit, "explore", None), report)
    return report


def render_json(report: Report) -> str:
    """The JSON report's text: :meth:`Report.to_dict` written with ``json.dumps`` (Python's shortest float
    repr, non-ASCII as is, two-space indent): byte-identical for the same inputs."""
    return json.dumps(report.to_dict(), indent=2, ensure_ascii=False, allow_nan=False) + "\n"
