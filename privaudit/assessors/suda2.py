"""suda2: special uniques (SUDA2, as sdcMicro's ``suda2``): records unique on a small subset of their
quasi-identifiers.

For each record, SUDA2 finds its minimal sample uniques (MSUs): sets of quasi-identifiers on which no other
record shares its values while no smaller subset is unique (see :mod:`privaudit.risk.suda2` for the
search, the score and DIS-SUDA formulas and the references). The defaults are sdcMicro's: every MSU size
(``max_size``: the number of quasi-identifiers), Elliot's scores (``original_scores: true``) and a sampling
fraction of 0.01 for the DIS-SUDA scores (``dis_fraction``). A missing value is never part of an MSU and
matches no value (sdcMicro's ``missing``), whatever ``data.missing_qi`` says.

value = share of records that are special unique (SUDA score > 0); pass iff value <= ``max_share``
(default 0: no record may be unique on any subset of its quasi-identifiers, which is the same as no
sample unique on all of them) and, when ``max_dis_score`` is given, no record's DIS-SUDA score exceeds it
(a DIS-SUDA score spreads the data intrusion simulation's estimate of the chance that a unique match is
correct over the special uniques by their SUDA scores).

details: ``records``, ``records_special_unique``, ``score_sum``, ``score_max``, ``dis_score_sum``,
``dis_score_max``, ``records_above_dis_score`` (with ``max_dis_score``), ``contributions`` (percent of the
total score per variable, sdcMicro's ``attribute_contributions``), ``msus_by_size``, ``weights`` (score of
an MSU of each size), ``sample_uniques`` and ``pairs`` (records unique / in pairs on every quasi-identifier),
``dis_score_table`` (records per DIS-SUDA interval, as sdcMicro's ``print.suda2``), ``qi``, ``max_size``,
``dis_fraction``, ``original_scores``. Per-record scores (``--records``): ``suda_score:<check id>``,
``dis_suda_score:<id>``, ``msus:<id>`` (MSUs of the record) and ``smallest_msu:<id>`` (0 for none).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from pydantic import Field

from privaudit.common.numbers import fmt
from privaudit.plugin.assessor import Assessor, Details, Measurement, Params
from privaudit.plugin.helpers import exceeds
from privaudit.plugin.hookspecs import hookimpl

if TYPE_CHECKING:  # pragma: no cover - types only
    import numpy as np
    import pandas as pd

    from privaudit.risk.suda2 import SudaResult


#: DIS-SUDA intervals of sdcMicro's ``print.suda2``: "== 0", "(0.0, 0.1]", ..., "(0.6, 0.7]", "> 0.7".
DIS_EDGES = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7)


NAME = "suda2"


class Suda2Params(Params):
    better: ClassVar[str] = "lower"  # which way the value improves (privaudit diff)
    qi: list[str] | None = Field(default=None, description="Quasi-identifiers (default: all of the policy's).")
    max_size: int | None = Field(
        default=None,
        ge=1,
        description="Largest MSU size searched (default: the number of quasi-identifiers, as sdcMicro).",
    )
    dis_fraction: float = Field(
        default=0.01, gt=0, le=1, description="Sampling fraction for the DIS-SUDA scores (sdcMicro's DisFraction)."
    )
    original_scores: bool = Field(
        default=True,
        description="Elliot's SUDA scores (sdcMicro's default); false: the IHSN scores of sdcMicro before 5.0.3.",
    )
    max_share: float = Field(default=0.0, ge=0, le=1, description="Largest allowed share of special uniques.")
    max_dis_score: float | None = Field(default=None, ge=0, le=1, description="Largest allowed DIS-SUDA score.")


class Suda2Details(Details):
    """What a suda2 check's details hold (``records_above_dis_score`` with ``max_dis_score``)."""

    qi: list[str]
    records: int
    records_special_unique: int
    score_sum: float
    score_max: float
    dis_score_sum: float
    dis_score_max: float
    contributions: dict[str, float]
    msus_by_size: list[int]
    weights: list[float]
    sample_uniques: int
    pairs: int
    dis_score_table: list[tuple[str, int]] = Field(description="[[DIS-SUDA interval, records], ...]")
    max_size: int
    dis_fraction: float
    original_scores: bool
    records_above_dis_score: int | None = None


def _qi(params: Suda2Params, policy) -> list[str]:
    return list(params.qi) if params.qi else list(policy.quasi_identifiers)


def validate(params: Suda2Params, policy) -> str | None:
    qi = _qi(params, policy)
    if not qi:
        return "suda2 needs at least one column with role quasi_identifier (with none it would pass vacuously)"
    for name in qi:
        if name not in policy.quasi_identifiers:
            return f"qi: {name!r} is not a quasi-identifier of the policy"
    if len(set(qi)) != len(qi):
        return "qi: a column is listed twice"
    if params.max_size is not None and params.max_size > len(qi):
        return f"max_size: {params.max_size} is more than the {len(qi)} quasi-identifiers"
    return None


def code_matrix(table: pd.DataFrame, columns: list[str]) -> np.ndarray:
    """The (records x columns) integer codes SUDA2 reads; missing values are -1."""
    import numpy as np

    from privaudit.core.summary import column_codes

    return np.column_stack([np.asarray(column_codes(table[c])[0], dtype=np.int64) for c in columns])


def compute(ctx, params: Suda2Params) -> SudaResult:
    """SUDA2 of the released table under a check's parameters."""
    from privaudit.risk.suda2 import suda2

    qi = _qi(params, ctx.policy)
    return suda2(
        code_matrix(ctx.table, qi),
        max_size=params.max_size,
        dis_fraction=params.dis_fraction,
        original_scores=params.original_scores,
    )


def dis_table(dis: np.ndarray) -> list[list]:
    """``[[interval, records], ...]`` over sdcMicro's DIS-SUDA intervals."""
    import numpy as np

    rows = [["== 0", int(np.count_nonzero(dis <= 0))]]
    for lo, hi in zip(DIS_EDGES[:-1], DIS_EDGES[1:], strict=False):
        rows.append([f"({lo:.1f}, {hi:.1f}]", int(np.count_nonzero((dis > lo) & (dis <= hi)))])
    rows.append([f"> {DIS_EDGES[-1]:.1f}", int(np.count_nonzero(dis > DIS_EDGES[-1]))])
    return rows


def run(ctx, params: Suda2Params) -> Measurement:
    import numpy as np

    qi = _qi(params, ctx.policy)
    r = compute(ctx, params)
    n = len(r.scores)
    special = int(np.count_nonzero(r.scores > 0))
    value = special / n
    details = {
        "qi": qi,
        "records": n,
        "records_special_unique": special,
        "score_sum": float(r.scores.sum()),
        "score_max": float(r.scores.max()),
        "dis_score_sum": float(r.dis_scores.sum()),
        "dis_score_max": float(r.dis_scores.max()),
        "contributions": {c: float(v) for c, v in zip(qi, r.contributions, strict=False)},
        "msus_by_size": [int(x) for x in r.msus_by_size],
        "weights": [float(w) for w in r.weights],
        "sample_uniques": r.sample_uniques,
        "pairs": r.pairs,
        "dis_score_table": dis_table(r.dis_scores),
        "max_size": r.max_size,
        "dis_fraction": params.dis_fraction,
        "original_scores": params.original_scores,
    }
    passed = value <= params.max_share
    threshold: object = params.max_share
    if params.max_dis_score is not None:
        above = int(np.count_nonzero(exceeds(r.dis_scores, params.max_dis_score)))
        details["records_above_dis_score"] = above
        passed = passed and above == 0
        threshold = {"max_share": params.max_share, "max_dis_score": params.max_dis_score}
    message = (
        f"{fmt(special)} of {fmt(n)} records ({value:.2%}) are special uniques (unique on a subset of "
        f"{len(qi)} quasi-identifiers); SUDA scores sum to {fmt(details['score_sum'])}, highest DIS-SUDA "
        f"score {fmt(details['dis_score_max'])}"
    )
    per_record = {
        "suda_score": r.scores,
        "dis_suda_score": r.dis_scores,
        "msus": r.msu_counts,
        "smallest_msu": r.min_msu_size,
    }  # --records: suda_score:<check id>, ...
    return Measurement(value, threshold, passed, message, details, per_record=per_record)


ASSESSOR = Assessor(
    name=NAME,
    params=Suda2Params,
    details=Suda2Details,
    run=run,
    title="Special uniques (SUDA2)",
    protects="identity",
    measures="how many people are the only one in the release with some part of their quasi-identifier values "
    "(a minimal sample unique), scored by how few values single them out, and the estimated chance (DIS-SUDA) "
    "that a match on those values is correct",
    formula="MSU: a set of quasi-identifiers on which the record is unique and no smaller subset is; score = "
    "sum over the record's MSUs of prod_{i=k}^{min(m, M-1)} (M - i) (k: MSU size, M: quasi-identifiers, m: "
    "max_size); DIS = 1 / (1 + P(1-f) / (f s^Q sum_j s_j^-Q)), Q = 1 + (8-M)/20; value = share of records with "
    "score > 0; pass iff value <= max_share (and DIS <= max_dis_score)",
    reference="Elliot, Manning & Ford, IJUFKS 10(5), 2002; Elliot et al., SUDA: A Program for Detecting Special "
    "Uniques (2005); Manning, Haglin & Keane, Data Min. Knowl. Disc. 16, 2008; sdcMicro suda2",
    validate_policy=validate,
    needs=frozenset({"table"}),
    concurrent=True,
)


@hookimpl
def privaudit_assessors():
    return [ASSESSOR]
