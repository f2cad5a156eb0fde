"""The "Remediation" chapter of a report written by ``privaudit remediate ... --html/--pdf``.

The audit result of a remediation is the re-audit of the remediated table; its ``remediation`` dict
(see :func:`privaudit.pipeline.remediate.remediate`: method, title, options, offered, input, before/after
verdicts, changes, loss, notes, check_overrides) says what was done. :func:`remediation_view` turns
it into what the templates show: whether the output is offered, the method and its options, every
check's status and value before and after, what changed and the information lost, made readable.

Readability rules (no knowledge of a particular method is needed, a few labels aside):

* keys become words (``records_affected`` -> "records affected"; :data:`LABELS` names some better);
* a figure whose key says ``pct`` / ``percent`` is printed as a percentage as is; one whose key says
  ``share`` / ``rate`` / ``fraction`` / ``proportion`` is a proportion printed as a percentage (x 100);
  a nested mapping inherits its key's unit (``alteration_pct: {NLLM: 12.5}`` -> "NLLM: 12.5%");
* lists are joined with commas; a mapping of figures is a ``name: value`` cell; a mapping whose values
  are all mappings (per column: {generalized_values_pct, root_values_pct}) becomes a table of its own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any

from privaudit.plugin.chapter import (
    Badge,
    Bullets,
    Callout,
    Chapter,
    ChapterContent,
    ChapterInput,
    Code,
    Grid,
    Group,
    Heading,
    Pairs,
    Paragraph,
    Span,
    Table,
)
from privaudit.plugin.hookspecs import hookimpl
from privaudit.plugin.sections import DataTable, KeyValues
from privaudit.plugin.text import fmt, share

#: Better words for keys of the bundled remediators' ``options``, ``changes`` and ``loss``: key -> (label, unit),
#: unit "pct" (already a percentage), "share" (a proportion) or None.
LABELS: dict[str, tuple[str, str | None]] = {
    "rows_out": ("records in the output", None),
    "records_affected": ("records changed", None),
    "records_removed": ("records removed from the output", None),
    "records_changed": ("records changed", None),
    "records_suppressed": ("records suppressed", None),
    "cells_suppressed": ("cells suppressed", None),
    "max_suppression": ("largest share of records that may be suppressed", "share"),
    "columns": ("columns", None),
    "mode": ("mode", None),
    "alteration": ("alteration under the chosen metric (cost / cost of generalizing everything)", "pct"),
    "alteration_pct": ("alteration under each metric", "pct"),
    "generalized_values_pct": ("values generalized", "pct"),
    "root_values_pct": ("values generalized to the root (*)", "pct"),
    "per_column": ("per column", None),
    "levels": ("hierarchy level chosen per column", None),
    "heights": ("hierarchy height per column", None),
    "lattice_nodes": ("generalization lattice: nodes", None),
    "nodes_evaluated": ("lattice nodes evaluated", None),
    "nodes_passing": ("lattice nodes passing (evaluated, or implied by a finer passing node)", None),
    "suppression_budget": ("suppression budget (records)", None),
    "normalized_sse": ("normalized SSE (information loss of the centroids)", None),
    "sse": ("SSE (sum of squared errors)", None),
    "k_effective": ("cluster size used (k')", None),
    "randomized_columns": ("randomized columns", None),
    "keep_probabilities": ("keep probability per column", None),
    "values_changed": ("values changed by the randomization", None),
    "target_check": ("check whose bound was met", None),
    "utility_loss": ("utility loss Π‖P⁻¹‖²_F of the randomized columns", None),
    "utility_loss_full": ("utility loss over every column", None),
    "reconstruction_error": ("expected reconstruction error of the contingency table", None),
    "initial_risk": ("attribute-disclosure risk before", None),
    "achieved_risk": ("attribute-disclosure risk after", None),
    "max_cluster_emd": ("largest cluster EMD", None),
}
_PCT = re.compile(r"(^|_)(pct|percent|percentage)($|_)")
_SHARE = re.compile(r"(^|_)(share|rate|fraction|proportion)($|_)")
OUTCOME = {
    ("fail", "pass"): "fixed",
    ("pass", "pass"): "still passes",
    ("fail", "fail"): "still fails",
    ("pass", "fail"): "now fails",
    ("error", "pass"): "fixed",
    ("error", "fail"): "now fails",
}


def label(key: str) -> str:
    """The words for a key: :data:`LABELS`, else the key with underscores as spaces."""
    return LABELS[key][0] if key in LABELS else str(key).replace("_", " ")


def unit_of(key: str, inherited: str | None = None) -> str | None:
    """ "pct", "share" or None for a figure named ``key`` (see the module's rules)."""
    if key in LABELS and LABELS[key][1]:
        return LABELS[key][1]
    if _PCT.search(str(key).lower()):
        return "pct"
    if _SHARE.search(str(key).lower()):
        return "share"
    return inherited


def figure_text(value: Any, unit: str | None = None) -> str:
    """One value as text, a percentage when ``unit`` says so."""
    if isinstance(value, bool) or value is None:
        return fmt(value)
    if isinstance(value, (int, float)) and unit == "share":
        return share(value)
    if isinstance(value, (int, float)) and unit == "pct":
        text = fmt(float(value), 4)
        return f"{text}%"
    if isinstance(value, (list, tuple)):
        return ", ".join(figure_text(v, unit) for v in value) if value else "none"
    return fmt(value)


def _is_table(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and len(value) > 0
        and all(isinstance(v, dict) for v in value.values())
        and all(not isinstance(x, (dict, list)) for v in value.values() for x in v.values())
    )


def readable(mapping: dict, first_column: str = "what") -> tuple[list[list[Any]], list[DataTable]]:
    """Rows ``[label, value]`` for a ``changes`` / ``loss`` / ``options`` mapping, and a table for each
    entry that maps names to mappings of figures (see the module's rules)."""
    rows: list[list[Any]] = []
    tables: list[DataTable] = []
    for key, value in (mapping or {}).items():
        unit = unit_of(key)
        if _is_table(value):
            inner = list(dict.fromkeys(k for v in value.values() for k in v))
            tables.append(
                DataTable(
                    [first_column] + [label(k) for k in inner],
                    [[name] + [figure_text(v.get(k), unit_of(k, unit)) for k in inner] for name, v in value.items()],
                    caption=label(key)[:1].upper() + label(key)[1:],
                    numeric=frozenset(range(1, len(inner) + 1)),
                )
            )
        elif isinstance(value, dict) and value:
            rows.append(
                [
                    label(key),
                    KeyValues(tuple((str(k), _nested_text(v, unit_of(str(k), unit))) for k, v in value.items())),
                ]
            )
        elif isinstance(value, dict):
            rows.append([label(key), "none"])
        else:
            rows.append([label(key), figure_text(value, unit)])
    return rows, tables


def has_percentages(mapping: Any, inherited: str | None = None) -> bool:
    """Whether :func:`readable` prints any figure of ``mapping`` as a percentage (the chapter's note on
    percentages is shown only then)."""
    if not isinstance(mapping, dict):
        return False
    for key, value in mapping.items():
        unit = unit_of(str(key), inherited)
        if isinstance(value, dict):
            if has_percentages(value, unit):
                return True
        elif unit is not None and isinstance(value, (int, float, list, tuple)) and not isinstance(value, bool):
            return True
    return False


def _nested_text(value: Any, unit: str | None) -> str:
    if isinstance(value, dict):
        return (
            "; ".join(f"{label(str(k))}: {_nested_text(v, unit_of(str(k), unit))}" for k, v in value.items()) or "none"
        )
    return figure_text(value, unit)


@dataclass
class CheckChange:
    """One check's row of the before/after table."""

    id: str
    title: str
    severity: str
    threshold: str
    before_badge: str
    before_value: str
    after_badge: str
    after_value: str
    outcome: str


@dataclass
class RemediationView:
    """What the templates show about a remediation."""

    method: str
    title: str
    description: str
    offered: bool
    input_name: str
    input_sha256: str
    input_rows: int | None
    output_name: str
    output_rows: int | None
    before_passed: bool
    before_failed: int
    before_errored: int
    after_passed: bool
    after_failed: int
    after_errored: int
    headline: str
    no_change: bool = False
    options: list[list[Any]] = field(default_factory=list)
    checks: list[CheckChange] = field(default_factory=list)
    changes: list[list[Any]] = field(default_factory=list)
    change_tables: list[DataTable] = field(default_factory=list)
    loss: list[list[Any]] = field(default_factory=list)
    loss_tables: list[DataTable] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    overrides: list[list[Any]] = field(default_factory=list)
    percentages: bool = False  # some change or loss figure is printed as a percentage

    @property
    def before_verdict(self) -> str:
        return "PASS" if self.before_passed else "FAIL"

    @property
    def after_verdict(self) -> str:
        return "PASS" if self.after_passed else "FAIL"


def _badge(status: str | None, severity: str) -> str:
    if status is None:
        return "—"
    if status == "fail" and severity == "warning":
        return "WARN"
    return {"pass": "PASS", "fail": "FAIL", "error": "ERROR"}.get(status, status.upper())


def _value_like(raw: Any, after_raw: Any, after_text: str | None) -> str:
    """A raw check value formatted the way the check's section formats the remediated value: as a
    percentage when the section shows the value as one, with the section's unit word when it adds one
    ("0 columns"), else as a number. Both sides of the before/after table go through here, so they
    always read alike."""
    if raw is None:
        return "—"
    numeric = isinstance(raw, (int, float)) and not isinstance(raw, bool)
    after_numeric = isinstance(after_raw, (int, float)) and not isinstance(after_raw, bool)
    if numeric and after_numeric and after_text:
        if after_text == share(after_raw):
            return share(raw)
        unit = after_text[len(fmt(after_raw)) :] if after_text.startswith(fmt(after_raw) + " ") else ""
        if re.fullmatch(r" [^\W\d]+", unit):
            return fmt(raw) + unit
    return fmt(raw)


def _named_as_written(rem: dict) -> dict:
    """The remediation's changes, each built hierarchy's file named as written beside the output (or "not
    written"): a report names only files that exist."""
    changes = dict(rem.get("changes") or {})
    built = changes.get("built_hierarchies")
    if isinstance(built, dict):
        written = [PurePath(f).name for f in rem.get("files_written") or []]
        changes["built_hierarchies"] = {
            column: {
                **b,
                "file": next(  # the step's own name (hierarchy-age.csv) or the file's, as the side files name it
                    (
                        w
                        for w in written
                        if w == PurePath(str(b.get("file"))).name or w.endswith("." + str(b.get("file")))
                    ),
                    "not written",
                ),
            }
            if isinstance(b, dict)
            else b
            for column, b in built.items()
        }
    return changes


def _headline(rem: dict, after: dict, output_name: str) -> str:
    """The offer in one sentence: no change needed, written, or the best attempt's failures."""
    if rem.get("no_change_needed"):
        return (
            f"No change needed: {output_name} already passes the policy, so the method was not applied and no "
            "table was written."
        )
    if rem.get("offered"):
        return f"The remediated table passes the policy and was written to {output_name}."
    failing_after = after.get("checks_failed", 0) + after.get("checks_errored", 0)
    return (
        f"The best attempt still fails {failing_after} check{'s' if failing_after != 1 else ''} "
        f"of error severity: no file was written ({output_name} was not created)."
    )


def remediation_view(data: dict, views: list, registry: Any = None) -> RemediationView | None:
    """The remediation chapter's content, or None when the report is not a remediation's.

    ``data`` is the JSON report (the typed report's ``to_dict()``, :func:`privaudit.report.json_report.report_of`); ``views`` are the
    report's :class:`~privaudit.report.html.SectionView` objects of the remediated table (they give each
    check's title, severity, threshold and how its value is shown)."""
    rem = data.get("remediation")
    if not rem:
        return None
    before, after = rem.get("before") or {}, rem.get("after") or {}
    by_id = {v.check["id"]: v for v in views}
    ids = list(dict.fromkeys([*(before.get("checks") or {}), *(after.get("checks") or {}), *by_id]))
    checks = []
    for cid in ids:
        b = (before.get("checks") or {}).get(cid) or {}
        a = (after.get("checks") or {}).get(cid) or {}
        v = by_id.get(cid)
        severity = v.check["severity"] if v else "error"
        shown = v.value_text if v is not None and a.get("status") != "error" else None
        before_text = "—" if b.get("status") == "error" else _value_like(b.get("value"), a.get("value"), shown)
        after_text = "—" if a.get("status") == "error" else _value_like(a.get("value"), a.get("value"), shown)
        checks.append(
            CheckChange(
                id=cid,
                title=v.title if v else cid,
                severity=severity,
                threshold=v.threshold_text if v else "—",
                before_badge=_badge(b.get("status"), severity),
                before_value=before_text,
                after_badge=_badge(a.get("status"), severity),
                after_value=after_text,
                outcome=OUTCOME.get((b.get("status"), a.get("status")), "—"),
            )
        )
    remediator = getattr(registry, "remediators", {}).get(rem.get("method")) if registry is not None else None
    output_name = PurePath(data["input"]["path"]).name
    offered = bool(rem.get("offered"))
    headline = _headline(rem, after, output_name)
    options, _ = readable({k: ("default" if v is None else v) for k, v in (rem.get("options") or {}).items()})
    changes, change_tables = readable(_named_as_written(rem), "column")
    loss, loss_tables = readable(rem.get("loss") or {}, "column")
    overrides = [[cid, _nested_text(params, None)] for cid, params in (rem.get("check_overrides") or {}).items()]
    source = rem.get("input") or {}
    return RemediationView(
        method=rem.get("method", ""),
        title=rem.get("title") or rem.get("method", ""),
        description=getattr(remediator, "description", "") or "",
        offered=offered,
        input_name=PurePath(source.get("path") or "").name or "—",
        input_sha256=source.get("sha256") or "—",
        input_rows=source.get("rows"),
        output_name=output_name,
        output_rows=data["input"].get("rows"),
        before_passed=bool(before.get("passed")),
        before_failed=before.get("checks_failed", 0),
        before_errored=before.get("checks_errored", 0),
        after_passed=bool(after.get("passed")),
        after_failed=after.get("checks_failed", 0),
        after_errored=after.get("checks_errored", 0),
        headline=headline,
        no_change=bool(rem.get("no_change_needed")),
        options=options,
        checks=checks,
        changes=changes,
        change_tables=change_tables,
        loss=loss,
        loss_tables=loss_tables,
        percentages=has_percentages(rem.get("changes")) or has_percentages(rem.get("loss")),
        notes=[str(n) for n in rem.get("notes") or []],
        overrides=overrides,
    )


METHOD_TEXT = (
    ". The targets (k, l, t …) are the policy's checks; the remediated table was audited again against the same "
    "policy and is offered only when every check of error severity passes. The input file was not modified."
)
VALUES_NOTE = (
    "Values as each check measures them (its section below explains the remediated value). WARN: a check of "
    "severity “warning” that fails; it does not block the release."
)
PERCENT_NOTE = (
    "Percentages: shares of records or values (a key naming a share, rate or percentage). The other figures are "
    "in the method's own units."
)


def _pairs(rows: list[list[Any]], key: str, value: str, style: str) -> Pairs:
    return Pairs(tuple((str(r[0]), r[1]) for r in rows), key, value, style)


def _before_after(r: RemediationView) -> Group:
    """Every check's status and value before and after, kept on one page when it is short."""
    grid = Grid(
        ("check", "threshold", f"before ({r.input_name})", f"after ({r.output_name})", "outcome"),
        tuple(
            (
                (
                    Span(c.id, "cid"),
                    " ",
                    Span(c.title + (f", {c.severity}" if c.severity != "error" else ""), "muted title"),
                ),
                (c.threshold,),
                (Badge(c.before_badge), " ", Span(c.before_value, "value")),
                (Badge(c.after_badge), " ", Span(c.after_value, "value")),
                (c.outcome,),
            )
            for c in r.checks
        ),
        row_styles=tuple(f"{c.outcome.replace(' ', '-')} {c.severity}" for c in r.checks),
        style="beforeafter",
        widths=("c-check", "c-threshold", "c-before", "c-after", "c-outcome"),
    )
    heading = Heading("Checks before and after", "remediation-checks")
    return Group(
        (heading, grid, Paragraph((VALUES_NOTE,), style="note")), "keep short" if len(r.checks) <= 24 else "keep"
    )


def _figures(r: RemediationView) -> list[Any]:
    """What changed and the information lost, as the method reported them."""
    blocks: list[Any] = [Heading("What changed", "remediation-changes")]
    blocks.append(
        _pairs(r.changes, "change", "value", "changes")
        if r.changes
        else Paragraph(("The method reported no change figures.",))
    )
    blocks += [Table(t, "details-grid") for t in r.change_tables]
    blocks.append(Heading("Information loss", "remediation-loss"))
    blocks.append(
        _pairs(r.loss, "measure", "value", "loss")
        if r.loss
        else Paragraph(("The method reported no information-loss figures.",))
    )
    blocks += [Table(t, "details-grid") for t in r.loss_tables]
    if r.percentages:
        blocks.append(Paragraph((PERCENT_NOTE,), style="note"))
    return blocks


def remediation_blocks(r: RemediationView) -> tuple[Any, ...]:
    """The chapter's body: the offer, the verdicts before and after, the method, the checks, the figures, the
    parameters published with the output and the method's notes."""
    flow = (
        f"Input {r.input_name}: ",
        Badge(r.before_verdict),
        f" ({r.before_failed} failed, {r.before_errored} errored) ",
        Span("→", "arrow"),
        f" {r.title} ",
        Span("→", "arrow"),
        f" {r.output_name}: ",
        Badge(r.after_verdict),
        f" ({r.after_failed} failed, {r.after_errored} errored).",
    )
    blocks: list[Any] = [
        Callout(
            "NO CHANGE NEEDED" if r.no_change else "OFFERED" if r.offered else "NOT OFFERED",
            r.headline,
            f"offer big {'offered' if r.offered else 'not-offered'}",
            "remediation-offer",
        ),
        *(() if r.no_change else (Paragraph(flow, style="verdict-flow"),)),
        Heading("What was done", "remediation-method"),
        Paragraph(
            (
                "Method ",
                r.title,
                " (",
                Code(r.method),
                ")",
                *((": ", r.description) if r.description else ()),
                METHOD_TEXT,
            )
        ),
    ]
    if r.options:
        blocks.append(_pairs(r.options, "option", "value", "options"))
    blocks += [_before_after(r), *_figures(r)]
    if r.overrides:
        blocks += [
            Heading("Parameters published with the output", "remediation-overrides"),
            Paragraph(
                (
                    "The re-audit ran these checks with parameters the method publishes beside the output (the "
                    "randomization an intruder may know):",
                )
            ),
            _pairs(r.overrides, "check", "parameters", "overrides"),
        ]
    blocks.append(Heading("Notes", "remediation-notes"))
    blocks.append(Bullets(tuple(r.notes), "notes") if r.notes else Paragraph(("The method left no notes.",)))
    return tuple(blocks)


def build(report: ChapterInput) -> ChapterContent | None:
    """The chapter of a ``privaudit remediate`` report, with what the remediation lost on the first page."""
    from privaudit.report.lost_table import cover_blocks, lost_view

    data = dict(report.data)
    r = remediation_view(data, list(report.checks), report.registry)
    if r is None:
        return None
    explore = data.get("explore") or {}
    lost = data["remediation"].get("lost")
    cover = cover_blocks(lost_view(data)) if lost and not explore.get("no_change_needed") else ()
    return ChapterContent(blocks=remediation_blocks(r), style="remediation", cover=cover)


@hookimpl
def privaudit_report_chapters() -> list[Chapter]:
    return [Chapter("remediation", "Remediation", build, place="front", rank=10)]
