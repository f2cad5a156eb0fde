"""``privaudit determination``: the figures a determination document states, from an audit run here or from
its JSON report, with the original table (``--original``).

The document itself (:mod:`privaudit.report.determination`) only presents; this driver supplies what a
report does not hold: the re-identification risk of the original (initial) and of the release (residual)
under the prosecutor (sample) and journalist (population) models, maximum and average (El Emam 2013,
ch. 16-18, as :func:`privaudit.risk.attacker_models.attacker_risks` computes them), and what became of each
quasi-identifier between the two (:func:`privaudit.pipeline.remediate.lost_of`), unless the report is a
remediation's, which holds it. Both risks come from class sizes only: one sort of packed keys per table,
the release's taken from the audit's shared class summary.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from privaudit.core.errors import DataError

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

    from privaudit.core.policy import Policy
    from privaudit.pipeline.audit import AuditResult


def risk_figures(sizes: np.ndarray, population: np.ndarray | None, source: str) -> dict[str, Any]:
    """Maximum and average risk of the prosecutor (sample: F_k = f_k) and journalist (population: F_k from the
    weights when the policy has a weight column, else the sample) models, and the sample uniques."""
    import numpy as np

    from privaudit.risk.attacker_models import attacker_risks

    risks = attacker_risks(sizes, population, 0.2)
    return {
        "prosecutor": {"maximum": float(risks.prosecutor.highest), "average": float(risks.prosecutor.average)},
        "journalist": {"maximum": float(risks.journalist.highest), "average": float(risks.journalist.average)},
        "classes": len(sizes),
        "records": int(np.sum(sizes)),
        "uniques": float(np.sum(sizes[sizes == 1]) / max(int(np.sum(sizes)), 1)),
        "population": source,
    }


def table_risk(frame: pd.DataFrame, policy: Policy) -> dict[str, Any]:
    """:func:`risk_figures` of a table on the policy's quasi-identifiers: its records grouped once by
    packed key (:mod:`privaudit.core.summary`), weights summed per class with one ``bincount``."""
    import numpy as np

    from privaudit.core.summary import column_codes, group, pack_keys

    qis = list(policy.quasi_identifiers)
    if not qis:
        raise DataError(f"{policy.path}: a determination needs at least one column with role quasi_identifier")
    key = pack_keys([column_codes(frame[q]) for q in qis], len(frame))
    grouping = group(key, consume=True)
    weights = policy.columns_with("weight")
    if not weights:
        return risk_figures(grouping.sizes, None, "sample")
    w = np.asarray(frame[weights[0]], dtype=float)
    sums = np.bincount(grouping.class_of, weights=np.nan_to_num(w), minlength=len(grouping.sizes))
    return risk_figures(grouping.sizes, np.maximum(sums, grouping.sizes), "weights")


def figures_of_audit(result: AuditResult) -> dict[str, Any]:
    """The report of an audit run here, with the initial and residual risk and the variables' changes."""
    import numpy as np

    from privaudit.report.json_report import report_of

    ctx = result.context
    if ctx.training is None:
        raise DataError("a determination compares the release with the original: pass --original FILE")
    s = ctx.summary
    weights = None if s.weight_sums is None else np.maximum(np.asarray(s.weight_sums, dtype=float), s.sizes)
    residual = risk_figures(np.asarray(s.sizes), weights, "sample" if weights is None else "weights")
    report = report_of(result).to_dict()
    if ctx.original is not None and not result.policy.columns_with("weight"):
        from privaudit.pipeline.derived import shared_utility_inputs
        from privaudit.utility.original_classes import original_class_sizes

        # the original's classes, grouped once per audit (the utility entries' AECS normaliser groups them too)
        initial = risk_figures(original_class_sizes(shared_utility_inputs(ctx)), None, "sample")
    else:
        initial = table_risk(ctx.training, result.policy)
    return {
        "report": report,
        "initial": initial,
        "residual": residual,
        "lost": _lost(report, ctx.original, ctx.table, result.policy),
    }


def _lost(report: dict, original: pd.DataFrame | None, release: pd.DataFrame | None, policy: Policy) -> dict | None:
    """What each variable lost: the remediation's record when the report is a remediation's, else measured
    between the aligned original and the release (None for a synthetic release: no record corresponds)."""
    held = (report.get("remediation") or {}).get("lost")
    if held:
        return dict(held)
    if original is None or release is None or policy.model.release == "synthetic":
        return None
    from privaudit.pipeline.remediate import lost_of

    return lost_of(original, release, policy)


def figures_of_report(
    report_path: str | Path,
    policy: Any,
    original: Any,
    released: Any = None,
    allow_outside_paths: bool = False,
) -> tuple[dict[str, Any], Policy]:
    """The same figures from a JSON report written earlier: the release (``released``, default the report's
    ``input.path``) must be the table the report audited (same SHA-256), the policy (default the report's)
    the one it was audited against (same SHA-256)."""
    from privaudit.io.data import load_input
    from privaudit.pipeline.audit import align_original, open_policy
    from privaudit.pipeline.plugins import get_registry
    from privaudit.report.diff_input import read_report

    report = read_report(report_path, "audit")
    policy = open_policy(policy or report["policy"]["path"], get_registry(), allow_outside_paths)
    if report["policy"].get("sha256") not in (None, policy.sha256):
        raise DataError(
            f"{report_path}: policy.sha256: the report was audited against another policy than {policy.path}"
        )
    released = released or report["input"]["path"]
    table = load_input(released, policy)
    if report["input"].get("sha256") not in (None, table.sha256):
        raise DataError(f"{released}: not the table {report_path} audited (input.sha256 differs)")
    original_table = load_input(original, policy, "original table")
    aligned = None if policy.model.release == "synthetic" else align_original(table, original_table, policy)
    from privaudit.core.context import AuditContext

    ctx = AuditContext(policy, table.frame)
    import numpy as np

    s = ctx.summary
    weights = None if s.weight_sums is None else np.maximum(np.asarray(s.weight_sums, dtype=float), s.sizes)
    figures = {
        "report": report,
        "initial": table_risk(original_table.frame, policy),
        "residual": risk_figures(np.asarray(s.sizes), weights, "sample" if weights is None else "weights"),
        "lost": _lost(report, aligned, table.frame, policy),
    }
    return figures, policy


class Determination:
    """A determination: its document (:class:`privaudit.report.determination.model.Document`) and what the
    PDF attaches; ``to_html()``, ``to_pdf()``, ``to_docx()`` render it, ``figures`` holds the headline figures
    (``very_small``: the residual risk within the threshold and the audit passed)."""

    def __init__(self, document: Any, report_json: bytes, policy_source: bytes, created: str) -> None:
        self.document = document
        self.report_json = report_json
        self.policy_source = policy_source
        self.created = created

    @property
    def figures(self) -> dict[str, Any]:
        return dict(self.document.figures)

    @property
    def very_small(self) -> bool:
        return bool(self.document.figures["very_small"])

    def to_html(self) -> str:
        from privaudit.report.determination.html import render_html

        return render_html(self.document, self.created)

    def to_pdf(self) -> bytes:
        from privaudit.report.determination.html import render_pdf

        return render_pdf(self.document, self.report_json, self.policy_source, self.created)

    def to_docx(self) -> bytes:
        from privaudit.report.determination.docx import render_docx

        return render_docx(self.document)


def signer_options(
    signer: str | None = None,
    role: str | None = None,
    conditions: Any = None,
    review_date: Any = None,
    date: Any = None,
) -> dict[str, Any]:
    """The signature block's options, checked: dates as ISO dates, conditions a list of text."""
    import datetime

    out: dict[str, Any] = {"signer": signer, "role": role}
    for name, value in (("review_date", review_date), ("date", date)):
        if value is not None and not isinstance(value, datetime.date):
            try:
                value = datetime.date.fromisoformat(str(value).strip())
            except ValueError:
                raise DataError(f"{name.replace('_', '-')}: expected a date YYYY-MM-DD, got {value!r}") from None
        out[name] = None if value is None else value.isoformat()
    if isinstance(conditions, str):
        conditions = [conditions]
    out["conditions"] = [str(c).strip() for c in (conditions or []) if str(c).strip()]
    return out


def determine(
    released: Any = None,
    policy: Any = None,
    original: Any = None,
    report: str | Path | None = None,
    options: dict[str, Any] | None = None,
    **audit_options: Any,
) -> Determination:
    """The determination of a release against its original: from the JSON report ``report`` (then
    ``released`` and ``policy`` default to the report's), or from an audit run here with ``audit_options``
    (:func:`privaudit.pipeline.audit.run_audit`'s)."""
    from privaudit.report.determination.build import build_document

    if original is None:
        raise DataError("a determination compares the release with the original: pass --original FILE")
    if report is not None:
        figures, opened = figures_of_report(
            report, policy, original, released, audit_options.get("allow_outside_paths", False)
        )
        registry = opened.registry
        report_json = Path(report).read_bytes()
        source = opened.source
    else:
        if released is None or policy is None:
            raise DataError("a determination needs RELEASED and --policy, or --report REPORT.json")
        from privaudit.pipeline.audit import run_audit
        from privaudit.report.json_report import render_json, report_of

        result = run_audit(released, policy, original=original, **audit_options)
        figures = figures_of_audit(result)
        registry = result.registry
        report_json = render_json(report_of(result)).encode("utf-8")
        source = result.policy.source
    document = build_document(figures, registry, options or {})
    return Determination(document, report_json, source, str(figures["report"]["generated_at"]))
