"""record_linkage: how many records an intruder holding part of the original can link to the release.

Scenario (Torra; Domingo-Ferrer): the intruder holds B, a seeded sample of the original
(``intruder.rows``: a fraction or a count) knowing ``intruder.columns`` (default: every
quasi-identifier), and links each record of B to a released record. Needs ``--original`` (same rows in
the same order, or joined through a ``record_id`` column, which is never treated as known).

* ``method: distance``: nearest released record under standardized squared differences (numeric),
  0/1 or hierarchical distance (categorical), optional ``weights``, ``metric`` euclidean or
  mahalanobis; ``assignment: one_to_one`` links globally; ``worst_case: true`` also learns the
  attribute weights that maximise correct links (Abril, Navarro-Arribas & Torra 2012). See
  :mod:`privaudit.risk.linkage.distance`.
* ``method: probabilistic``: Fellegi–Sunter with blocking, comparison levels (exact, numeric
  ``tolerances``, disagree), m/u from the true pairs (``estimation: labels``, the worst-case intruder)
  and/or EM on agreement-pattern counts; link / clerical / non-link thresholds from the target error
  rates. See :mod:`privaudit.risk.linkage.fellegi_sunter`.

value = share of intruder records linked to their own released record (the worst of the rates
computed); pass iff value <= ``max_rate``.
"""

from __future__ import annotations

import math
from typing import Literal

import numpy as np
import pandas as pd
from pydantic import BaseModel, ConfigDict, Field, model_validator

from privaudit.assessors.api import Assessor, Measurement, Params
from privaudit.core.hookspecs import hookimpl
from privaudit.assessors.helpers import exceeds
from privaudit.report.text import fmt


class Intruder(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    rows: float = Field(default=1.0, gt=0, description="Fraction (<= 1) or number (> 1) of original records held.")
    columns: list[str] | None = Field(default=None, description="Attributes the intruder knows (default: QIs).")
    seed: int = 0


DISTANCE_ONLY = ("metric", "assignment", "weights", "worst_case")
PROBABILISTIC_ONLY = ("blocking", "tolerances", "estimation", "max_false_match_rate", "max_false_non_match_rate")


class RecordLinkageParams(Params):
    method: Literal["distance", "probabilistic"] = "distance"
    intruder: Intruder = Field(default_factory=Intruder)
    max_rate: float = Field(ge=0, le=1, description="Largest allowed share of correctly linked records.")
    metric: Literal["euclidean", "mahalanobis"] = "euclidean"
    assignment: Literal["nearest", "one_to_one"] = "nearest"
    weights: dict[str, float] | None = None
    worst_case: bool = False
    blocking: list[list[str]] | None = None
    tolerances: dict[str, list[float]] = Field(default_factory=dict)
    estimation: Literal["labels", "em", "both"] = "labels"
    max_false_match_rate: float = Field(default=0.01, gt=0, lt=1)
    max_false_non_match_rate: float = Field(default=0.01, gt=0, lt=1)

    @model_validator(mode="after")
    def _method_parameters(self) -> "RecordLinkageParams":
        wrong = PROBABILISTIC_ONLY if self.method == "distance" else DISTANCE_ONLY
        given = [f for f in wrong if f in self.model_fields_set]
        if given:
            raise ValueError(f"{given[0]!r} does not apply to method {self.method!r}")
        return self


def known_columns(params: RecordLinkageParams, policy) -> list[str]:
    return list(params.intruder.columns) if params.intruder.columns else policy.quasi_identifiers


def validate(params: RecordLinkageParams, policy) -> str | None:
    columns = known_columns(params, policy)
    if not columns:
        return "intruder.columns: the policy has no quasi-identifier for the intruder to know"
    for name in columns:
        spec = policy.columns.get(name)
        if spec is None:
            return f"intruder.columns: {name!r} is not a column of the policy"
        if spec.role in ("record_id", "identifier"):
            return f"intruder.columns: {name!r} has role {spec.role!r}; it is never released knowledge"
    for name in [*(params.weights or {}), *params.tolerances, *(c for block in params.blocking or [] for c in block)]:
        if name not in columns:
            return f"{name!r} is not among the intruder's columns ({', '.join(columns)})"
    for name in params.tolerances:
        if policy.columns[name].type != "numeric":
            return f"tolerances: column {name!r} is not numeric"
    if params.intruder.rows > 1 and not float(params.intruder.rows).is_integer():
        return "intruder.rows: a count must be a whole number (or give a fraction <= 1)"
    return None


def _plain(frame: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    return pd.DataFrame({c: frame[c].astype(object).where(frame[c].notna(), np.nan)
                         if isinstance(frame[c].dtype, pd.CategoricalDtype) else frame[c] for c in columns})


def _rows(params: RecordLinkageParams) -> float | int:
    rows = params.intruder.rows
    return int(rows) if rows > 1 else float(rows)


def run_distance(ctx, params: RecordLinkageParams, columns: list[str], report) -> tuple[float, dict, dict]:
    """The distance-based linkage; per record, ``linked``: the expected correctness of the intruder's link
    of that record (1: its own released record is the nearest, 1/t in a tie of t, 0: linked elsewhere;
    NaN: not in the intruder's file)."""
    from privaudit.risk.linkage import AttributeSpec, distance_linkage

    specs = [AttributeSpec(c, "numeric" if ctx.policy.columns[c].type == "numeric" else "categorical",
                           hierarchy=ctx.policy.hierarchies.get(c) if ctx.policy.columns[c].type != "numeric" else None,
                           weight=float((params.weights or {}).get(c, 1.0)))
             for c in columns]
    result = distance_linkage(_plain(ctx.original, columns), _plain(ctx.table, columns), specs,
                              rows=_rows(params), seed=params.intruder.seed, metric=params.metric,
                              assignment=params.assignment, worst_case=params.worst_case,
                              class_sizes=ctx.summary.record_size, progress=report)
    details = result.to_dict()
    linked = np.full(len(ctx.table), np.nan)  # NaN: not in the intruder's file
    linked[result.intruder_rows] = result.credit
    return float(result.max_rate), details, {"linked": linked}


def run_probabilistic(ctx, params: RecordLinkageParams, columns: list[str], report) -> tuple[float, dict, dict]:
    from privaudit.risk.linkage.fellegi_sunter import ComparisonSpec, probabilistic_linkage

    specs = [ComparisonSpec(c, "numeric" if ctx.policy.columns[c].type == "numeric" else "categorical",
                            tuple(params.tolerances.get(c, ()))) for c in columns]
    result = probabilistic_linkage(_plain(ctx.original, columns), _plain(ctx.table, columns), specs,
                                   blocking=params.blocking, rows=_rows(params), seed=params.intruder.seed,
                                   estimation=params.estimation,
                                   max_false_match_rate=params.max_false_match_rate,
                                   max_false_non_match_rate=params.max_false_non_match_rate, progress=report)

    def clean(x):
        return None if isinstance(x, float) and math.isnan(x) else x

    details = {
        "n_intruder": result.n_intruder, "n_released": result.n_released,
        "candidate_pairs": result.n_candidate_pairs, "pair_recall": result.pair_recall,
        "blocking": [list(b) for b in result.blocking], "worst_estimation": result.worst,
        "warnings": list(result.warnings),
        "estimations": [{
            "estimation": e.estimation, "rate": e.value, "top1_correct": e.top1_correct,
            "link_precision": clean(e.top_link_precision), "links": e.n_links, "clerical_pairs": e.n_clerical,
            "thresholds": {"lower": e.thresholds.lower, "upper": e.thresholds.upper,
                           "false_match_rate": e.thresholds.false_match_rate,
                           "false_non_match_rate": e.thresholds.false_non_match_rate},
            "match_prior": e.lambda_, "expected_match_prior": e.expected_lambda,
            "attributes": [{"name": a.name, "levels": list(a.levels), "m": list(a.m), "u": list(a.u)}
                           for a in e.attributes],
            "warnings": list(e.warnings),
        } for e in result.estimations],
    }
    return float(result.value), details, {}


def run(ctx, params: RecordLinkageParams) -> Measurement:
    columns = known_columns(params, ctx.policy)

    def report(done: int, total: int) -> None:
        if ctx.progress:
            ctx.progress(f"record linkage ({params.method})", done, total)

    runner = run_distance if params.method == "distance" else run_probabilistic
    value, details, per_record = runner(ctx, params, columns, report)
    details = {"method": params.method, "known_columns": columns, **details}
    n = details.get("n_intruder", 0)
    message = (f"an intruder holding {fmt(n)} original records ({', '.join(columns)}) links {value:.2%} of them "
               f"to their own released record ({params.method} linkage; max_rate {params.max_rate:g})")
    return Measurement(value, params.max_rate, not exceeds(value, params.max_rate), message, details,
                       per_record=per_record)


def report_section(check, audit):
    """The report section of a record_linkage check: how many people the intruder re-identifies, by
    class size (distance) or per estimation of m and u (probabilistic)."""
    from privaudit.report import charts
    from privaudit.report import sections as rs
    from privaudit.report import text as rt

    d, p = check["details"], check["params"]
    n, value, limit = int(d.get("n_intruder") or 0), float(check["value"]), float(p["max_rate"])
    known = rt.qi_phrase(d["known_columns"])
    linked = int(round(value * n))
    summary = (f"An intruder who already holds {rt.fmt(n)} people's original records ({known}) links "
               f"{rt.people(linked)} ({rt.share(value)}) to their own released record: for them the masking does "
               f"not prevent re-identification.")
    paragraphs = [f"The check allows at most {rt.share(limit)} correct links; it measured {rt.share(value)}."]
    figures, tables = [], []
    if d["method"] == "distance":
        how = (f"{d['metric']} distance over standardized attributes, "
               f"{'a one-to-one global assignment' if d['assignment'] == 'one_to_one' else 'nearest released record'}")
        paragraphs.append(f"Linkage: {how}. A record tied with k candidates counts 1/k.")
        if d.get("worst_case_rate") is not None:
            paragraphs.append(f"With the attribute weights that maximise correct links (the maximum-knowledge "
                              f"intruder) the rate is {rt.share(d['worst_case_rate'])}, against "
                              f"{rt.share(d['rate'])} with the plain weights; the check uses the larger. That "
                              "worst case is an upper bound on what an intruder who does not know the "
                              "original can achieve, not an attack one is expected to run (Torra's slides: "
                              "the weights are learnt from the true links).")
        by_size = d.get("rate_by_class_size") or []
        if by_size:
            labels = [f"class size {b['class_size']}" for b in by_size]
            shares = [float(b["rate"]) for b in by_size]
            svg = charts.share_bars_chart(labels, shares, [exceeds(s, limit) for s in shares],
                                          title="Correct links by the size of the record's class",
                                          x_label="share of intruder records linked correctly", limit=limit,
                                          limit_label=f"max_rate = {rt.share(limit)}")
            figures.append(rs.Figure(svg, "Records in small classes are the easiest to link; the dashed line "
                                          "marks max_rate."))
            tables.append(rs.DataTable(["class size", "intruder records", "linked correctly", "rate"],
                                   [[b["class_size"], rt.fmt(b["records"]), rt.fmt(b["correct"]), rt.share(b["rate"])]
                                    for b in by_size], caption="Correct links by class size",
                                   numeric=frozenset({1, 2, 3}), kind="details"))
        facts = rt.facts(("intruder records", n), ("released records", d.get("n_released")),
                         ("correct links", rt.fmt(d.get("correct"))),
                         ("distinct links (nearest < half the second)", rt.share(d.get("distinct_share") or 0)),
                         ("precision of distinct links", None if d.get("distinct_precision") is None
                          else rt.share(d["distinct_precision"])))
    else:
        rows = []
        for e in d["estimations"]:
            rows.append([e["estimation"], rt.share(e["rate"]), rt.share(e["top1_correct"]),
                         "–" if e["link_precision"] is None else rt.share(e["link_precision"]),
                         rt.fmt(e["clerical_pairs"]), f"{e['match_prior']:.3g} (expected {e['expected_match_prior']:.3g})"])
            for warning in e.get("warnings") or []:
                paragraphs.append(f"Warning ({e['estimation']}): {warning}")
        tables.append(rs.DataTable(["m/u from", "linked above threshold", "top-1 correct", "link precision",
                                "clerical pairs", "match prior"], rows,
                               caption="Fellegi–Sunter linkage per estimation of m and u (the check uses the worst)",
                               numeric=frozenset({1, 2, 3, 4}), kind="details"))
        paragraphs.append("With m and u from the true pairs the model is the worst-case intruder; EM models an "
                          "intruder without labels, whose estimates can be implausible (see the warnings).")
        facts = rt.facts(("intruder records", n), ("candidate pairs", d.get("candidate_pairs")),
                         ("own record among the candidates", rt.share(d.get("pair_recall") or 0)),
                         ("blocking", "; ".join(" + ".join(b) for b in d.get("blocking") or []) or None))
    return rs.ReportSection(
        summary=summary, value_text=rt.share(value), threshold_text=f"≤ {rt.share(limit)}", paragraphs=paragraphs,
        facts=facts, figures=figures, tables=tables,
        limitations="models one intruder file and one linkage method: an intruder with more attributes, other "
        "sources or a better method can link more; it says nothing about what the linked records reveal.",
    )


ASSESSOR = Assessor(
    name="record_linkage",
    params=RecordLinkageParams,
    run=run,
    title="Record linkage",
    protects="identity",
    measures="how many people an intruder who already holds part of the original data (a register, a "
    "previous survey) can re-identify by linking it to the release, even after masking",
    formula="value = (correct links) / |B| for an intruder file B ⊂ X; distance: nearest released record "
    "under standardized distances (ties count 1/k); probabilistic: Fellegi–Sunter weights Σ log2(m/u), "
    "links above the upper threshold; pass iff value <= max_rate",
    reference="Torra, Data Privacy (Springer 2017) ch. 6; Fellegi & Sunter, JASA 64 (1969); Abril, "
    "Navarro-Arribas & Torra, Information Fusion 13 (2012)",
    needs=frozenset({"original", "table"}),
    validate_policy=validate,
    report_section=report_section,
)


@hookimpl
def privaudit_assessors():
    return [ASSESSOR]
