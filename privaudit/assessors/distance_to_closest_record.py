"""distance_to_closest_record: do synthetic records lie closer to the training records than fresh records do?

Inputs: the released table is the synthetic release; ``--original FILE`` is the **training** table the
generator was fitted on (``ctx.training``, not aligned to the release); ``--control FILE`` is an optional
**holdout** from the same population that was not used for training (``ctx.control``).

Columns: ``columns`` (default: every column of the policy except those with role ``identifier``,
``record_id`` or ``weight``: direct identifiers and record ids are not synthesised values, weights are
design figures). Each column is compared by its policy type: numeric and ordinal by range-scaled
absolute difference, nominal by equality, missing as a value of its own (Gower distance; exact rules in
:mod:`privaudit.risk.synthetic.distance`).

Computed (exact nearest-two-neighbour search, blocked, any table size in bounded memory):

* DCR (distance to closest training record) and NNDR (nearest / second nearest) of every synthetic
  record; the share of exact copies of a training record;
* with a holdout: the holdout's DCR to the training table (what fresh records give), the share of
  synthetic records below its 5th percentile, and the share of synthetic records closer to training than
  to the holdout with a binomial confidence interval, against ``n_train / (n_train + n_holdout)``.

Pass rule: the share of exact copies is at most ``max_exact_copies`` (default: the holdout's own share of
records equal to a training record, or 0 without a holdout); with a holdout, also
the lower end of the ``confidence`` interval (default 95%, Clopper-Pearson) of the share closer to
training is at most ``expected + closer_margin`` (a one-sided test at level (1 - confidence) / 2), and,
when ``max_below_holdout_p5`` is given, the share below the holdout's 5th percentile is at most that.
Without a holdout only the exact-copy rule applies and the report says the comparison needs one.
value = the share closer to training (with a holdout), else the share of exact copies.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, Literal

from pydantic import Field

from privaudit.plugin import helpers
from privaudit.plugin.assessor import Assessor, Details, Measurement, Params, SyntheticDefault
from privaudit.plugin.helpers import exceeds
from privaudit.plugin.hookspecs import hookimpl
from privaudit.plugin.text import fmt, share

if TYPE_CHECKING:  # pragma: no cover - types only: heavy modules load when a check runs
    import numpy as np

HISTOGRAM_BINS = 30


class SyntheticDistanceParams(Params):
    better: ClassVar[str] = "lower"  # which way the value improves (privaudit diff)
    columns: list[str] | None = Field(
        default=None,
        description="Columns compared (default: every policy column but identifiers, record ids and weights).",
    )
    max_exact_copies: float | None = Field(
        default=None,
        ge=0,
        le=1,
        description="Largest allowed share of "
        "synthetic records equal to a training record on the compared columns "
        "(default: the holdout's own share, or 0 without a holdout).",
    )
    closer_margin: float = Field(
        default=0.0,
        ge=0,
        le=1,
        description="Tolerated excess of the share closer to "
        "training over its expected value n_train / (n_train + n_holdout).",
    )
    confidence: float = Field(
        default=0.95, ge=0.5, lt=1, description="Confidence of the interval of the share closer to training."
    )
    interval: Literal["clopper-pearson", "wilson"] = "clopper-pearson"
    max_below_holdout_p5: float | None = Field(
        default=None,
        ge=0,
        le=1,
        description="Largest allowed share of "
        "synthetic records closer to training than the holdout's 5th "
        "percentile of distance (about 5% expected); not checked by default.",
    )


class DcrHistogram(Details):
    edges: list[float]
    synthetic: list[int]
    synthetic_copies: int
    holdout: list[int] | None = None
    holdout_copies: int | None = None


class SyntheticDistanceDetails(Details):
    """What a distance_to_closest_record check's details hold (the holdout's figures with ``--control``,
    else a ``note``). ``synthetic_distances``: the report's synthetic-release chapter points to this check's
    section for the distance histograms."""

    synthetic_distances: ClassVar[bool] = True

    columns: list[str]
    treatment: dict[str, str]
    distance: Literal["gower"]
    n_synthetic: int
    n_training: int
    n_control: int | None
    exact_copies: int
    exact_copies_share: float
    exact_copies_limit: float
    dcr_quantiles: dict[str, dict[str, float] | None] = Field(
        description="distances by pair of tables: {p5: ..., p50: ...} (null: no finite distance)"
    )
    nndr_quantiles: dict[str, dict[str, float] | None]
    holdout_exact_copies: int | None = None
    holdout_exact_share: float | None = None
    holdout_p5: float | None = None
    below_holdout_p5: int | None = None
    share_below_holdout_p5: float | None = None
    share_closer_to_training: float | None = None
    closer_interval: list[float] | None = None
    confidence: float | None = None
    interval: Literal["clopper-pearson", "wilson"] | None = None
    expected_closer: float | None = None
    closer_margin: float | None = None
    closer_limit: float | None = None
    closer_ties: float | None = None
    closer_p_value: float | None = None
    note: str | None = None
    dcr_histogram: DcrHistogram
    failed: list[str]


def compared_columns(params: SyntheticDistanceParams, policy) -> list[str]:
    return helpers.compared_columns(params.columns, policy)


def validate(params: SyntheticDistanceParams, policy) -> str | None:
    return helpers.compared_columns_problem(params.columns, policy)


def _histogram(dcr: np.ndarray, holdout: np.ndarray | None, p5: float | None) -> dict:
    """Counts of positive DCRs on shared edges (the holdout's 5th percentile is an edge); copies apart."""
    import numpy as np

    pool = dcr if holdout is None else np.concatenate([dcr, holdout])
    hi = float(pool.max()) if len(pool) and pool.max() > 0 else 1.0
    edges = np.linspace(0.0, hi, HISTOGRAM_BINS + 1)
    if p5 is not None and 0 < p5 < hi:
        keep = (np.abs(edges - p5) > hi * 1e-3) | (edges == 0) | (edges == hi)
        edges = np.sort(np.concatenate([edges[keep], [p5]]))
    out = {
        "edges": [float(e) for e in edges],
        "synthetic": [int(c) for c in np.histogram(dcr[dcr > 0], bins=edges)[0]],
        "synthetic_copies": int(np.count_nonzero(dcr == 0)),
    }
    if holdout is not None:
        out["holdout"] = [int(c) for c in np.histogram(holdout[holdout > 0], bins=edges)[0]]
        out["holdout_copies"] = int(np.count_nonzero(holdout == 0))
    return out


def exact_copies_limit(params: SyntheticDistanceParams, r) -> float:
    """The largest allowed share of exact copies: ``max_exact_copies`` when given; else, with a holdout, the
    holdout's own share of records equal to a training record (fresh records of the same population match
    training records that often by chance when the columns have few combinations); else 0."""
    if params.max_exact_copies is not None:
        return float(params.max_exact_copies)
    return r.holdout_exact / r.n_control if r.has_control and r.n_control else 0.0


def _against_holdout(r, params: SyntheticDistanceParams, copies_limit: float, details: dict, failed: dict) -> tuple:
    """With a holdout: whether synthetic records lie closer to training than fresh records do (the interval of
    the share closer to training against the share expected), and below the holdout's 5th percentile; adds the
    holdout's figures to ``details`` and what fails to ``failed``. Returns (value, threshold, facts)."""
    from privaudit.risk.synthetic.distance import quantiles

    lo, hi = r.closer_interval(params.confidence, params.interval)
    expected = r.expected_closer
    limit = min(1.0, expected + params.closer_margin)
    below = r.below_holdout_p5 / r.n_synthetic if r.n_synthetic else 0.0
    if exceeds(lo, limit):
        failed["closer"] = (
            f"{share(r.closer_share)} of synthetic records are closer to training than to the "
            f"holdout ({params.confidence:.0%} interval {share(lo)}–{share(hi)}, expected "
            f"{share(expected)}"
            f"{f' + margin {params.closer_margin:g}' if params.closer_margin else ''})"
        )
    if params.max_below_holdout_p5 is not None and exceeds(below, params.max_below_holdout_p5):
        failed["below"] = (
            f"{share(below)} of synthetic records lie below the holdout's 5th percentile of "
            f"distance (max_below_holdout_p5 {params.max_below_holdout_p5:g})"
        )
    details["dcr_quantiles"]["holdout_to_training"] = quantiles(r.holdout_dcr)
    details["dcr_quantiles"]["synthetic_to_holdout"] = quantiles(r.dcr_to_control)
    details["nndr_quantiles"]["holdout"] = quantiles(r.holdout_nndr)
    details.update(
        {
            "holdout_exact_copies": r.holdout_exact,
            "holdout_exact_share": r.holdout_exact / r.n_control,
            "holdout_p5": r.holdout_p5,
            "below_holdout_p5": r.below_holdout_p5,
            "share_below_holdout_p5": below,
            "share_closer_to_training": r.closer_share,
            "closer_interval": [lo, hi],
            "confidence": params.confidence,
            "interval": params.interval,
            "expected_closer": expected,
            "closer_margin": params.closer_margin,
            "closer_limit": limit,
            "closer_ties": r.closer_ties,
            "closer_p_value": r.closer_p_value(params.closer_margin),
        }
    )
    value = r.closer_share
    threshold = {"max_exact_copies": copies_limit, "closer_to_training": limit}
    if params.max_below_holdout_p5 is not None:
        threshold["max_below_holdout_p5"] = params.max_below_holdout_p5
    facts = {
        "closer": (
            f"{share(r.closer_share)} of {fmt(r.n_synthetic)} synthetic records are closer to a training "
            f"record than to the holdout ({params.confidence:.0%} interval {share(lo)}–{share(hi)}; "
            f"expected {share(expected)})"
        ),
        "copies": f"exact copies {share(r.exact_share)} (holdout: {share(details['holdout_exact_share'])})",
        "below": f"below the holdout's 5th percentile {share(below)}",
    }
    return value, threshold, facts


def run(ctx, params: SyntheticDistanceParams) -> Measurement:
    from privaudit.risk.synthetic.distance import distance_to_closest_record, quantiles

    columns = compared_columns(params, ctx.policy)
    kinds = {c: ctx.policy.columns[c].type for c in columns}

    def report(done: int, total: int) -> None:
        if ctx.progress:
            ctx.progress("synthetic distances", done, total)

    r = distance_to_closest_record(ctx.table, ctx.training, ctx.control, kinds, progress=report)
    failed: dict[str, str] = {}  # what fails, by the fact it is about (the message states each fact once)
    copies_limit = exact_copies_limit(params, r)
    if exceeds(r.exact_share, copies_limit):
        basis = (
            f"max_exact_copies {copies_limit:g}"
            if params.max_exact_copies is not None
            else f"the holdout's own share {share(copies_limit)}"
            if r.has_control
            else "max_exact_copies 0"
        )
        failed["copies"] = f"{share(r.exact_share)} exact copies of training records ({basis})"
    details = {
        "columns": columns,
        "treatment": dict(zip(r.space.columns, r.space.treated, strict=False)),
        "distance": "gower",
        "n_synthetic": r.n_synthetic,
        "n_training": r.n_training,
        "n_control": r.n_control,
        "exact_copies": r.exact_copies,
        "exact_copies_share": r.exact_share,
        "exact_copies_limit": copies_limit,
        "dcr_quantiles": {"synthetic_to_training": quantiles(r.dcr)},
        "nndr_quantiles": {"synthetic": quantiles(r.nndr)},
    }
    if r.has_control:
        value, threshold, facts = _against_holdout(r, params, copies_limit, details, failed)
    else:
        details["note"] = (
            "the comparison with fresh records (closer to training than to a holdout, the holdout's "
            "5th percentile) needs a holdout table: pass --control FILE"
        )
        value = r.exact_share
        threshold = {"max_exact_copies": copies_limit}
        median = details["dcr_quantiles"]["synthetic_to_training"]["p50"]
        facts = {
            "copies": (
                f"{share(r.exact_share)} of {fmt(r.n_synthetic)} synthetic records are exact copies of a "
                "training record"
            ),
            "median": f"median distance to the closest training record {fmt(median, 3)} (Gower)",
            "control": "without --control the comparison with a holdout is not made",
        }
    details["dcr_histogram"] = _histogram(r.dcr, r.holdout_dcr, r.holdout_p5)
    details["failed"] = list(failed.values())
    rest = "; ".join(text for key, text in facts.items() if key not in failed)
    message = ("fails: " + "; ".join(failed.values()) + (f". Also: {rest}" if rest else "")) if failed else rest
    return Measurement(value, threshold, not failed, message, details)


ASSESSOR = Assessor(
    name="distance_to_closest_record",
    params=SyntheticDistanceParams,
    details=SyntheticDistanceDetails,
    run=run,
    title="Distance to closest record (synthetic data)",
    standards=frozenset({"wp29:singling_out", "wp29:linkability", "ico:linkage"}),
    protects="identity",
    measures="whether synthetic records copy or lie unusually close to the records the generator was trained "
    "on, compared with fresh records of the same population (a holdout)",
    formula="Gower d(a, b) = mean_j d_j (numeric min(1, |a-b|/range_train), ordinal rank difference/(L-1), "
    "nominal 0/1, missing = own value); DCR = d to the nearest training record, NNDR = d1/d2; "
    "closer = 1[DCR_train < DCR_holdout] (ties: share of training records among the nearest), expected "
    "n_t/(n_t+n_h); pass iff copies <= max_exact_copies and lower CI bound of closer <= expected + closer_margin "
    "(and share below the holdout's p5 <= max_below_holdout_p5 when given)",
    reference="Gower, Biometrics 27 (1971); Park et al., PVLDB 11(10) (2018); Zhao et al., CTAB-GAN, ACML "
    "(2021); SDMetrics DCROverfittingProtection / DCRBaselineProtection (docs.sdv.dev); Clopper & Pearson, "
    "Biometrika 26 (1934)",
    needs=frozenset({"training", "table"}),
    validate_policy=validate,
    synthetic_default=SyntheticDefault(),
)


@hookimpl
def privaudit_assessors():
    return [ASSESSOR]
