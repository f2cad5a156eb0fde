"""Figure and table builders shared by report sections: the generic section, the details table, the
worst-classes table, and the class-size and value histograms."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from privaudit.plugin import charts
from privaudit.plugin.binning import bin_failing_counts, integer_bins
from privaudit.plugin.sections import CheckEntry, DataTable, Figure, KeyValues, ReportSection
from privaudit.plugin.text import MISSING, fmt, value_counts_text


# ---------------------------------------------------------------------------------- shared content
def _flatten(prefix: str, value: Any, out: list[tuple[str, str]], max_items: int) -> None:
    if isinstance(value, dict) and value:
        for k, v in value.items():
            _flatten(f"{prefix}.{k}" if prefix else str(k), v, out, max_items)
        return
    if isinstance(value, list) and len(value) > max_items:
        shown = ", ".join(fmt(v) if not isinstance(v, (dict, list)) else "…" for v in value[:max_items])
        out.append((prefix, f"[{shown}, … ({fmt(len(value))} items)]"))
        return
    if isinstance(value, list):
        out.append((prefix, "[" + ", ".join(_short(v) for v in value) + "]"))
        return
    out.append((prefix, fmt(value)))


def _short(value: Any, limit: int = 80) -> str:
    text = fmt(value) if not isinstance(value, (dict, list)) else repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def details_table(details: dict, max_rows: int = 60, max_items: int = 10) -> DataTable | None:
    """The ``details`` mapping as a two-column key/value table (nested keys dotted, long lists cut)."""
    pairs: list[tuple[str, str]] = []
    _flatten("", details or {}, pairs, max_items)
    if not pairs:
        return None
    note = f"first {max_rows} of {len(pairs)} entries" if len(pairs) > max_rows else ""
    return DataTable(["detail", "value"], [[k, _short(v, 200)] for k, v in pairs[:max_rows]], note=note, kind="details")


def generic_section(check: Mapping[str, Any]) -> ReportSection:
    """The section of a check no plugin drew: the message, value, threshold and details table. ``check`` is the
    check's entry of the JSON report: this section shows any check's details as the report writes them, of an
    assessor with or without a ``Details`` model, and of a check whose typed entry could not be built.

    (The report adds the assessor's ``measures`` sentence to every section, this one included.)"""
    table = details_table(check.get("details") or {})
    return ReportSection(summary=check.get("message") or "", tables=[table] if table else [])


def max_classes(audit: Any) -> int:
    return int(audit.policy.report.max_classes)


def _worst_rows(check: CheckEntry[Any, Any]) -> list[Any]:
    """The check's worst classes (``details.worst_classes``): rows of its details model, or, for an assessor
    declaring no ``Details`` model, the rows of the report's raw details."""
    if check.details is not None:
        return list(getattr(check.details, "worst_classes", None) or [])
    details = check.raw.get("details")
    return list((details.get("worst_classes") if isinstance(details, Mapping) else None) or [])


def _row_field(row: Any, key: str) -> Any:
    """The figure ``key`` (as the JSON report names it) of a worst-class row: a field of the row's model, by
    name or alias, or a key of a raw row."""
    if isinstance(row, Mapping):
        return row.get(key)
    for name, info in type(row).model_fields.items():
        if key in (name, info.alias):
            return getattr(row, name)
    return None


def _row_has(row: Any, key: str) -> bool:
    """Whether a worst-class row holds ``key`` (the check gave it, even as null)."""
    if isinstance(row, Mapping):
        return key in row
    return key in row.model_fields_set


def _value_labels(audit: Any) -> Any:
    """``labelled(column, value)``: a worst-class value with the label the released file gives its code beside
    it, ``2 (Female)`` (an SPSS or Stata file's value labels, :attr:`privaudit.io.data.Table.labels`), or the
    value as it is (no labels, a missing or masked value). The report's JSON keeps the codes alone."""
    labels = getattr(getattr(audit, "table", None), "labels", None) or {}

    def labelled(column: str, value: Any) -> Any:
        found = labels.get(column)
        return found.shown(value) if found is not None and value is not None and str(value) in found.values else value

    return labelled


def worst_classes_table(
    check: CheckEntry[Any, Any],
    audit: Any,
    figures: Sequence[tuple[str, str]] = (),
    failing: int | None = None,
    what: str = "classes that fail",
    sensitive: bool = False,
) -> DataTable | None:
    """The worst classes of a check (``check.details.worst_classes``): QI values, size, the per-class
    figures named in ``figures`` (field, column title) and the sensitive values when the audit left them
    in (large enough classes, or ``report.show_sensitive_values``). Capped at ``report.max_classes``.
    ``sensitive`` says the assessor lists sensitive values at all (a note then explains withheld ones).

    With more than four quasi-identifiers the values share one column (one ``name: value`` per line)
    so that the table fits the page. A code the released file labels is shown with its label, ``2 (Female)``
    (:func:`_value_labels`).
    """
    rows_in = _worst_rows(check)
    if not rows_in:
        return None
    cap = max_classes(audit)
    rows_in = rows_in[:cap]
    qis = list((_row_field(rows_in[0], "values") or {}).keys())
    wide = len(qis) <= 4
    wildcard = audit.policy.data.missing_qi == "wildcard"
    has_sensitive = any(_row_has(r, "sensitive_values") for r in rows_in)
    columns = (qis if wide else ["quasi-identifier values"]) + ["records"]
    if wildcard:
        columns.append("f_k")
    columns += [title for _, title in figures]
    if has_sensitive:
        columns.append("sensitive values (count)")
    first_numeric = len(qis) if wide else 1
    labelled = _value_labels(audit)
    sensitive_column = str(getattr(check.params, "sensitive", None) or "")  # the column whose values are counted
    numeric = frozenset(range(first_numeric, first_numeric + 1 + wildcard + len(figures)))
    rows = []
    withheld = 0
    for r in rows_in:
        values = {q: labelled(q, v) for q, v in (_row_field(r, "values") or {}).items()}
        row: list[Any] = (
            [values.get(q, MISSING) for q in qis]
            if wide
            else [KeyValues(tuple((q, str(values.get(q, MISSING))) for q in qis))]
        )
        row.append(fmt(_row_field(r, "size")))
        if wildcard:
            row.append(fmt(_row_field(r, "record_size")))
        row += [fmt(_row_field(r, key)) for key, _ in figures]
        if has_sensitive:
            sv = _row_field(r, "sensitive_values")
            if sv is None:
                withheld += 1
                row.append("withheld")
            else:
                row.append(value_counts_text({labelled(sensitive_column, k): n for k, n in sv.items()}))
        rows.append(row)
    total = failing if failing is not None else len(rows_in)
    caption = f"The {fmt(len(rows))} worst of {fmt(total)} {what}" if total > len(rows) else f"All {fmt(total)} {what}"
    notes = []
    if total > len(rows):
        notes.append(f"The policy's report.max_classes ({fmt(cap)}) caps this list.")
    if withheld or (sensitive and not has_sensitive):
        notes.append(
            "Sensitive values of classes smaller than the policy's largest k are withheld "
            "(report.show_sensitive_values is false)."
        )
    if wildcard:
        notes.append("f_k counts the records a class's records match when a missing value matches any value.")
    widths = () if wide else ("58%" if has_sensitive else None,)
    return DataTable(
        columns, rows, caption=caption, note=" ".join(notes), numeric=numeric, kind="classes", widths=widths
    )


def size_histogram_figure(
    hist: Sequence[Sequence[int]], k: int | None, title: str, max_bins: int = 60
) -> Figure | None:
    """Class-size histogram (``[[size, classes], ...]``) with the k line; the last bin may pool the
    largest sizes (then labelled ``≥ size``). Sizes below k are drawn in the failing colour."""
    if not hist:
        return None
    sizes = [int(s) for s, _ in hist]
    counts = [int(c) for _, c in hist]
    labels = [fmt(s) for s in sizes]
    if len(hist) >= max_bins:
        labels[-1] = f"≥{fmt(sizes[-1])}"
    failing = [k is not None and s < k for s in sizes]
    after = sum(failing) if k is not None else None
    legend = (f"smaller than k = {k}", "k or larger") if k is not None and any(failing) else None
    svg = charts.category_chart(
        labels,
        counts,
        failing,
        title=title,
        x_label="class size (records sharing the same quasi-identifier values)",
        y_label="classes",
        threshold_after=after,
        threshold_label=f"k = {k}" if k is not None else "",
        legend=legend,
    )
    scale = " The vertical axis is logarithmic." if charts.should_use_log(counts) else ""
    return Figure(svg, f"Number of classes of each size; the dashed line marks k.{scale}")


def _whole_number_chart(
    values: Sequence[float],
    counts: Sequence[float],
    threshold: float,
    fail_side: str,
    title: str,
    x_label: str,
    threshold_label: str,
    y_label: str,
    legend: tuple[str, str],
) -> str:
    """The bar chart of :func:`value_histogram_figure` with one bar per whole number (:func:`integer_bins`),
    each coloured by the side of ``threshold`` it lies on, the threshold line after the last passing bar."""
    failing = [(v < threshold) if fail_side == "below" else (v > threshold) for v in values]
    after = (
        sum(1 for v in values if v < threshold) if fail_side == "below" else sum(1 for v in values if v <= threshold)
    )
    return charts.category_chart(
        [fmt(v) for v in values],
        counts,
        failing,
        title=title,
        x_label=x_label,
        y_label=y_label,
        threshold_after=after,
        threshold_label=threshold_label,
        legend=legend if any(failing) else None,
    )


def value_histogram_figure(
    hist: dict,
    threshold: float,
    fail_side: str,
    title: str,
    x_label: str,
    threshold_label: str,
    y_label: str = "classes",
    caption: str = "",
    integers: bool = False,
    failing: Sequence[bool] | None = None,
    failing_total: float | None = None,
) -> Figure | None:
    """A per-class (or per-record) histogram ``{edges, counts, infinite[, overflow, overflow_label]}`` with
    its threshold line.

    Bars are coloured by which side of ``threshold`` their values lie on (:func:`bin_failing_counts`) unless
    ``failing`` gives each bin's verdict. A bin straddling the threshold is split at the threshold line
    when ``failing_total`` (the assessor's count of failing classes or records, infinite and overflow ones
    included) tells how many of its values fail, and drawn in a third colour otherwise. ``integers``
    redraws bins narrower than 1 as one bar per whole number. ``overflow`` values (past the last edge,
    see :func:`threshold_histogram`) get a bar of their own labelled ``overflow_label``."""
    if not hist or not (sum(hist.get("counts") or []) or hist.get("infinite") or hist.get("overflow")):
        return None
    pass_text = "passes"
    legend = ("fails the threshold", pass_text)
    ints = integer_bins(hist) if integers else None
    if ints is not None:
        svg = _whole_number_chart(*ints, threshold, fail_side, title, x_label, threshold_label, y_label, legend)
        return Figure(svg, caption)
    edges, counts = hist["edges"], hist["counts"]
    infinite, overflow = int(hist.get("infinite") or 0), int(hist.get("overflow") or 0)
    extra = (
        [(hist.get("overflow_label") or f">{charts.number_label(edges[-1])}", overflow, fail_side == "above")]
        if overflow
        else []
    )
    beside = (infinite + overflow) if fail_side == "above" else 0
    if failing is not None:
        per_bin = [float(c) if f else 0.0 for c, f in zip(counts, failing, strict=False)]
    else:
        per_bin = bin_failing_counts(edges, counts, threshold, fail_side, failing_total, beside)
    failing_any = any(f is None or f > 0 for f in per_bin) or beside > 0
    mixed = any(f is None for f in per_bin)
    svg = charts.histogram_chart(
        edges,
        counts,
        title=title,
        x_label=x_label,
        y_label=y_label,
        threshold=threshold,
        threshold_label=threshold_label,
        fail_side=fail_side,
        infinite=infinite,
        failing_counts=per_bin,
        extra_bars=extra,
        legend=legend if failing_any else None,
        mixed_text="some pass, some fail",
    )
    if mixed:
        caption = (caption + " " if caption else "") + (
            "A bar in the third colour holds values on both sides of the threshold."
        )
    if overflow:
        caption = (caption + " " if caption else "") + (
            f"Values past {charts.number_label(edges[-1])} share the bar labelled {extra[0][0]}."
        )
    return Figure(svg, caption)
