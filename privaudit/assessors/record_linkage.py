"""record_linkage: how many records an intruder holding part of the original can link to the release.

Scenario (Torra; Domingo-Ferrer): the intruder holds B, a seeded sample of the original
(``intruder.rows``: a fraction or a count) knowing ``intruder.columns`` (default: every
quasi-identifier), and links each record of B to a released record. Needs ``--original`` (same rows in
the same order, or joined through a ``record_id`` column, which is never treated as known).

* ``method: distance``: nearest released record under standardized squared differences (numeric),
  0/1 or hierarchical distance (categorical), optional ``weights``, ``metric`` euclidean or
  mahalanobis; ``assignment: one_to_one`` links globally; ``worst_case: true`` also learns the
  attribute weights that maximise correct links (Abril, Navarro-Arribas & Torra 2012). See
  :mod:`privaudit.risk.linkage.distance`. With ``blocking`` (euclidean, nearest, no hierarchy) the
  intruder compares a record only with the released records agreeing on a rule
  (:mod:`privaudit.risk.linkage.distance_blocked`); no class-size breakdown then.
* ``method: probabilistic``: Fellegi–Sunter with blocking, comparison levels (exact, numeric
  ``tolerances``, disagree), m/u from the true pairs (``estimation: labels``, the worst-case intruder)
  and/or EM on agreement-pattern counts; link / clerical / non-link thresholds from the target error
  rates. See :mod:`privaudit.risk.linkage.fellegi_sunter`.

value = share of intruder records linked to their own released record (the worst of the rates
computed); pass iff value <= ``max_rate``.

Engines: the probabilistic method also runs under ``--engine duckdb`` / ``chunked``
(its declared ``in_memory_reason`` is None): the release and ``--original`` are then read, coded
and paired by DuckDB, which spills to disk (:func:`run_probabilistic_sql`, :mod:`privaudit.risk.linkage.fellegi_sunter.sql`), with the same
figures as in process. So does the distance method with ``blocking`` (:func:`run_distance_sql`,
:mod:`privaudit.risk.linkage.distance_sql`); without it, or with ``one_to_one``, ``mahalanobis`` or
``worst_case``, it needs the tables in memory (one line, exit 2, before any work).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from privaudit.common.numbers import fmt
from privaudit.plugin.assessor import Assessor, Details, Measurement, Params
from privaudit.plugin.helpers import exceeds
from privaudit.plugin.hookspecs import hookimpl

if TYPE_CHECKING:  # pragma: no cover - types only
    import pandas as pd


NAME = "record_linkage"


class Intruder(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    rows: float = Field(default=1.0, gt=0, description="Fraction (<= 1) or number (> 1) of original records held.")
    columns: list[str] | None = Field(default=None, description="Attributes the intruder knows (default: QIs).")
    seed: int = 0


DISTANCE_ONLY = ("metric", "assignment", "weights", "worst_case")
PROBABILISTIC_ONLY = ("tolerances", "estimation", "max_false_match_rate", "max_false_non_match_rate")


class RecordLinkageParams(Params):
    better: ClassVar[str] = "lower"  # which way the value improves (privaudit diff)
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

    def in_memory_reason(self) -> str | None:
        """Why this check needs the tables in memory, or None: the probabilistic method runs under the
        out-of-memory engines (its pairs in DuckDB, reading ``--original`` itself: :func:`run_probabilistic_sql`),
        and so does the distance method with ``blocking`` (:func:`run_distance_sql`). Read by
        :func:`privaudit.pipeline.audit.refuse_unrunnable` before any work."""
        if self.method == "probabilistic":
            return None
        for wrong, given in (
            (self.assignment == "one_to_one", "assignment: one_to_one"),
            (self.metric == "mahalanobis", "metric: mahalanobis"),
            (self.worst_case, "worst_case: true"),
        ):
            if wrong:
                return f"record_linkage (distance) with {given} needs the tables in memory"
        if self.blocking is None:
            return (
                "record_linkage (distance) past memory needs `blocking` (rules of columns; the intruder "
                "compares the records agreeing on one), or the tables in memory"
            )
        return None

    @model_validator(mode="after")
    def _method_parameters(self) -> RecordLinkageParams:
        wrong = PROBABILISTIC_ONLY if self.method == "distance" else DISTANCE_ONLY
        given = [f for f in wrong if f in self.model_fields_set]
        if given:
            raise ValueError(f"{given[0]!r} does not apply to method {self.method!r}")
        return self


class RateByClassSize(Details):
    class_size: str
    records: int
    correct: float
    rate: float | None


class Thresholds(Details):
    lower: float
    upper: float
    false_match_rate: float | None
    false_non_match_rate: float | None


class ComparedAttribute(Details):
    name: str
    levels: list[str]
    m: list[float | None]
    u: list[float | None]


class Estimation(Details):
    """One estimation of the probabilistic method's m and u probabilities, and what it links."""

    estimation: Literal["labels", "em"]
    rate: float
    top1_correct: float
    link_precision: float | None
    links: int
    clerical_pairs: int
    thresholds: Thresholds
    match_prior: float | None
    expected_match_prior: float | None
    attributes: list[ComparedAttribute]
    warnings: list[str]


class RecordLinkageDetails(Details):
    """What a record_linkage check's details hold: the distance method's figures (with ``blocking``, the
    candidate pairs'), or the probabilistic method's estimations."""

    method: Literal["distance", "probabilistic"]
    known_columns: list[str]
    n_intruder: int
    n_released: int
    # distance
    rate: float | None = None
    correct: float | None = None
    metric: Literal["euclidean", "mahalanobis"] | None = None
    assignment: Literal["nearest", "one_to_one"] | None = None
    attributes: list[str] | None = None
    weights: dict[str, float] | None = None
    distinct_share: float | None = None
    distinct_precision: float | None = None
    rate_by_class_size: list[RateByClassSize] | None = None
    unassigned: float | None = None
    worst_case_rate: float | None = None
    worst_case_correct: float | None = None
    worst_case_weights: dict[str, float] | None = None
    without_candidates: int | None = None
    note: str | None = None
    # blocking (distance) and probabilistic
    blocking: list[list[str]] | None = None
    candidate_pairs: int | None = None
    pair_recall: float | None = None
    # probabilistic
    worst_estimation: Literal["labels", "em"] | None = None
    warnings: list[str] | None = None
    estimations: list[Estimation] | None = None


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
    if params.method == "distance" and params.blocking is not None:
        if not params.blocking or not all(params.blocking):
            return "blocking: give at least one rule of at least one column"
        for wrong, given in (
            (params.assignment == "one_to_one", "assignment: one_to_one"),
            (params.metric == "mahalanobis", "metric: mahalanobis"),
            (params.worst_case, "worst_case"),
        ):
            if wrong:
                return f"blocking: the distance method blocks only without {given}"
        for name in columns:
            if policy.columns[name].type != "numeric" and name in policy.hierarchies:
                return (
                    f"blocking: column {name!r} has a hierarchy; the blocked distance method compares "
                    "categories as equal or not (drop the hierarchy or the blocking)"
                )
    if params.intruder.rows > 1 and not float(params.intruder.rows).is_integer():
        return "intruder.rows: a count must be a whole number (or give a fraction <= 1)"
    return None


def _plain(frame: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    import numpy as np
    import pandas as pd

    return pd.DataFrame(
        {
            c: frame[c].astype(object).where(frame[c].notna(), np.nan)
            if isinstance(frame[c].dtype, pd.CategoricalDtype)
            else frame[c]
            for c in columns
        }
    )


def _rows(params: RecordLinkageParams) -> float | int:
    rows = params.intruder.rows
    return int(rows) if rows > 1 else float(rows)


def run_distance(ctx, params: RecordLinkageParams, columns: list[str], report) -> tuple[float, dict, dict]:
    """The distance-based linkage; per record, ``linked``: the expected correctness of the intruder's link
    of that record (1: its own released record is the nearest, 1/t in a tie of t, 0: linked elsewhere;
    NaN: not in the intruder's file)."""
    import numpy as np

    from privaudit.risk.linkage import distance_linkage
    from privaudit.risk.linkage.distance_blocked import blocked_distance_linkage

    if ctx.original is None and getattr(ctx, "files", None) is not None:
        return run_distance_sql(ctx, params, columns, report)
    specs = _attribute_specs(ctx, params, columns)
    if params.blocking is not None:
        blocked = blocked_distance_linkage(
            _plain(ctx.original, columns),
            _plain(ctx.table, columns),
            specs,
            params.blocking,
            rows=_rows(params),
            seed=params.intruder.seed,
            progress=report,
        )
        linked = np.full(len(ctx.table), np.nan)
        linked[blocked.own] = blocked.credit
        return blocked.rate, blocked.to_dict(), {"linked": linked}
    result = distance_linkage(
        _plain(ctx.original, columns),
        _plain(ctx.table, columns),
        specs,
        rows=_rows(params),
        seed=params.intruder.seed,
        metric=params.metric,
        assignment=params.assignment,
        worst_case=params.worst_case,
        class_sizes=ctx.summary.record_size,
        progress=report,
    )
    details = result.to_dict()
    linked = np.full(len(ctx.table), np.nan)  # NaN: not in the intruder's file
    linked[result.intruder_rows] = result.credit
    return float(result.max_rate), details, {"linked": linked}


def _attribute_specs(ctx, params: RecordLinkageParams, columns: list[str]):
    from privaudit.risk.linkage import AttributeSpec

    return [
        AttributeSpec(
            c,
            "numeric" if ctx.policy.columns[c].type == "numeric" else "categorical",
            hierarchy=ctx.policy.hierarchies.get(c) if ctx.policy.columns[c].type != "numeric" else None,
            weight=float((params.weights or {}).get(c, 1.0)),
        )
        for c in columns
    ]


def _comparison_specs(ctx, params: RecordLinkageParams, columns: list[str]):
    from privaudit.risk.linkage.fellegi_sunter import ComparisonSpec

    return [
        ComparisonSpec(
            c,
            "numeric" if ctx.policy.columns[c].type == "numeric" else "categorical",
            tuple(params.tolerances.get(c, ())),
        )
        for c in columns
    ]


def run_probabilistic(ctx, params: RecordLinkageParams, columns: list[str], report) -> tuple[float, dict, dict]:
    from privaudit.risk.linkage.fellegi_sunter import probabilistic_linkage

    if ctx.original is None and getattr(ctx, "files", None) is not None:
        result = run_probabilistic_sql(ctx, params, columns, report)
    else:
        result = probabilistic_linkage(
            _plain(ctx.original, columns),
            _plain(ctx.table, columns),
            _comparison_specs(ctx, params, columns),
            blocking=params.blocking,
            rows=_rows(params),
            seed=params.intruder.seed,
            estimation=params.estimation,
            max_false_match_rate=params.max_false_match_rate,
            max_false_non_match_rate=params.max_false_non_match_rate,
            progress=report,
        )

    def clean(x):
        return None if isinstance(x, float) and math.isnan(x) else x

    details = {
        "n_intruder": result.n_intruder,
        "n_released": result.n_released,
        "candidate_pairs": result.n_candidate_pairs,
        "pair_recall": result.pair_recall,
        "blocking": [list(b) for b in result.blocking],
        "worst_estimation": result.worst,
        "warnings": list(result.warnings),
        "estimations": [
            {
                "estimation": e.estimation,
                "rate": e.value,
                "top1_correct": e.top1_correct,
                "link_precision": clean(e.top_link_precision),
                "links": e.n_links,
                "clerical_pairs": e.n_clerical,
                "thresholds": {
                    "lower": e.thresholds.lower,
                    "upper": e.thresholds.upper,
                    "false_match_rate": e.thresholds.false_match_rate,
                    "false_non_match_rate": e.thresholds.false_non_match_rate,
                },
                "match_prior": e.lambda_,
                "expected_match_prior": e.expected_lambda,
                "attributes": [
                    {"name": a.name, "levels": list(a.levels), "m": list(a.m), "u": list(a.u)} for a in e.attributes
                ],
                "warnings": list(e.warnings),
            }
            for e in result.estimations
        ],
    }
    return float(result.value), details, {}


# --------------------------------------------------------------------------- out of memory (DuckDB)


def run_probabilistic_sql(ctx, params: RecordLinkageParams, columns: list[str], report):
    """The probabilistic linkage with the tables read and paired by DuckDB (``--engine duckdb`` or
    ``chunked``): the release and ``--original`` are coded into two narrow tables (the intruder's columns,
    as the policy types them: :func:`privaudit.engines.linkage_pairs.coded_pair`), the original aligned to the
    release by row or ``record_id`` as :func:`privaudit.pipeline.audit.align_original` aligns it, and
    :func:`privaudit.risk.linkage.fellegi_sunter.sql.probabilistic_linkage_sql` does the rest. DuckDB spills beyond the engine's ``memory_limit`` into ``temp_directory``."""
    from privaudit.engines.linkage_pairs import LEFT, RELEASE, coded_pair, linkage_connection
    from privaudit.risk.linkage.fellegi_sunter.sql import probabilistic_linkage_sql

    with linkage_connection(ctx.files, "record_linkage (probabilistic)") as con:
        coded_pair(con, ctx.policy, ctx.files, columns, _rows(params), params.intruder.seed)
        return probabilistic_linkage_sql(
            con,
            LEFT,
            RELEASE,
            _comparison_specs(ctx, params, columns),
            blocking=params.blocking,
            estimation=params.estimation,
            max_false_match_rate=params.max_false_match_rate,
            max_false_non_match_rate=params.max_false_non_match_rate,
            progress=report,
        )


def run_distance_sql(ctx, params: RecordLinkageParams, columns: list[str], report) -> tuple[float, dict, dict]:
    """The blocked distance linkage with the tables read and paired by DuckDB: the inputs coded as for
    :func:`run_probabilistic_sql`, the original's statistics over its rows aligned to the release, then
    :func:`privaudit.risk.linkage.distance_sql.distance_linkage_sql` (the figures of
    :func:`privaudit.risk.linkage.distance_blocked.blocked_distance_linkage`). No per-record output."""
    from privaudit.engines.linkage_pairs import LEFT, RELEASE, aligned_original, coded_pair, linkage_connection
    from privaudit.risk.linkage.distance_sql import distance_linkage_sql

    with linkage_connection(ctx.files, "record_linkage (distance)") as con:
        coded_pair(con, ctx.policy, ctx.files, columns, _rows(params), params.intruder.seed)
        original = aligned_original(con, ctx.policy)
        result = distance_linkage_sql(
            con, LEFT, RELEASE, original, _attribute_specs(ctx, params, columns), params.blocking, progress=report
        )
    return result.rate, result.to_dict(), {}


def run(ctx, params: RecordLinkageParams) -> Measurement:
    columns = known_columns(params, ctx.policy)

    def report(done: int, total: int) -> None:
        if ctx.progress:
            ctx.progress(f"record linkage ({params.method})", done, total)

    runner = run_distance if params.method == "distance" else run_probabilistic
    value, details, per_record = runner(ctx, params, columns, report)
    details = {"method": params.method, "known_columns": columns, **details}
    n = details.get("n_intruder", 0)
    message = (
        f"an intruder holding {fmt(n)} original records ({', '.join(columns)}) links {value:.2%} of them "
        f"to their own released record ({params.method} linkage; max_rate {params.max_rate:g})"
    )
    return Measurement(
        value, params.max_rate, not exceeds(value, params.max_rate), message, details, per_record=per_record
    )


ASSESSOR = Assessor(
    name=NAME,
    params=RecordLinkageParams,
    details=RecordLinkageDetails,
    run=run,
    title="Record linkage",
    standards=frozenset({"wp29:linkability", "ico:linkage"}),
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
    in_memory_reason=RecordLinkageParams.in_memory_reason,
)


@hookimpl
def privaudit_assessors():
    return [ASSESSOR]
