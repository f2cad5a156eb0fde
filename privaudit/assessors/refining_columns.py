"""refining_columns: no column the policy leaves out of the quasi-identifiers may give back what a
generalization of one removed.

Always run, like ``direct_identifiers``: the policy's list of quasi-identifiers is an input a person may get
wrong. In the release alone (no original needed), a column that is not a declared quasi-identifier
**refines** one when each of its values falls within one released value of the quasi-identifier (suppressed
cells aside) and it has more distinct values (:mod:`privaudit.risk.undeclared`): ``agesq`` against banded
age, year of birth against age bands, county against state. A pair of columns that refine together (year and
month of birth) is found too. Only quasi-identifiers the release visibly generalizes are compared: released
values that are not leaves of the policy's hierarchy, or that read as intervals or masks (``15-19``,
``[20, 25)``, ``65+``, ``19**``); a column refining a quasi-identifier kept exact tells nothing new (an
intruder who knows it is the ``undeclared_key_variables`` check's concern).

value = the number of refining columns (single or paired) found; pass iff value = 0.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, ClassVar

from privaudit.common.numbers import fmt
from privaudit.plugin.assessor import Assessor, Details, Measurement, Params
from privaudit.plugin.hookspecs import hookimpl

if TYPE_CHECKING:  # pragma: no cover - types only
    import pandas as pd

    from privaudit.risk.undeclared import Codes


#: rows read from the beginning of a table an out-of-memory engine does not load
SAMPLE_ROWS = 200_000
NOT_CANDIDATES = ("quasi_identifier", "identifier", "record_id", "household_id")
_INTERVAL = re.compile(
    r"\s*[\[(]?\s*-?\d+(\.\d+)?\s*(-|–|,|to|\.\.|bis|à|a)\s*-?\d+(\.\d+)?\s*[\])]?\s*"
    r"|\s*(<|<=|>|>=|≤|≥)\s*-?\d+(\.\d+)?\s*|\s*-?\d+(\.\d+)?\s*\+\s*|\s*\w*\d\w*\*+\s*",
    re.IGNORECASE,
)


NAME = "refining_columns"


class RefiningColumnsParams(Params):
    better: ClassVar[str] = "lower"  # which way the value improves (privaudit diff)


class RefiningColumn(Details):
    """Columns (one, or a pair) that refine a generalized quasi-identifier."""

    columns: list[str]
    quasi_identifier: str
    records: int
    share: float
    distinct: int
    released: int
    log10_chance: float


class GeneralizedColumn(Details):
    """A quasi-identifier the release generalizes, and what shows it."""

    column: str
    evidence: str


class RefiningColumnsDetails(Details):
    """What the refining_columns check's details hold."""

    generalized: list[GeneralizedColumn]
    findings: list[RefiningColumn]
    candidates: int
    rows: int
    sampled: bool
    scanned: bool
    pair_max_values: int


def release_frame(ctx) -> tuple[pd.DataFrame | None, bool]:
    """The records the undeclared columns are read from: the whole table in process, else its first
    :data:`SAMPLE_ROWS` rows (an out-of-memory engine summarises only the declared columns); and whether it is
    a sample. None for a synthetic release (its records are no one's) or a table no sample can be read of."""
    if ctx.policy.model.release == "synthetic":
        return None, False
    if ctx.table is not None:
        return ctx.table, False
    sample = ctx.sample(SAMPLE_ROWS)
    return sample, sample is None or len(sample) < ctx.summary.n_records  # fewer rows than asked: the whole table


def codes_of(values: pd.Series) -> Codes:
    import numpy as np

    from privaudit.core.summary import column_codes

    codes, card = column_codes(values)
    return np.asarray(codes), int(card)


def _label(v) -> str:
    import numpy as np

    return f"{v:g}" if isinstance(v, (float, np.floating)) else str(v)


def unread(ctx) -> str:
    """Why the columns were not read (see :func:`release_frame`)."""
    if ctx.policy.model.release == "synthetic":
        return "not measured: a synthetic release's records are no one's (the synthetic checks measure it)"
    return "the columns could not be read (a table in an engine's catalog)"


def generalized_evidence(ctx, frame: pd.DataFrame, column: str) -> str | None:
    """Why the release's values of a quasi-identifier are generalized ones, or None when they look exact."""
    import pandas as pd

    series = frame[column]
    if isinstance(series.dtype, pd.CategoricalDtype) and not series.dtype.ordered:  # a nominal column's are present
        values = series.cat.categories
    else:
        values = series.dropna().unique()
    labels = [_label(v) for v in values]
    if not labels:
        return None
    hierarchy = ctx.policy.hierarchies.get(column)
    if hierarchy is not None:
        leaves = set(map(str, hierarchy.leaves))
        above = [v for v in labels if v not in leaves]
        if above:
            return f"{fmt(len(above))} of its {fmt(len(labels))} released values are above the hierarchy's leaves"
    banded = sum(1 for v in labels if _INTERVAL.fullmatch(v))
    if banded * 2 >= len(labels) and banded:
        return f"{fmt(banded)} of its {fmt(len(labels))} released values read as intervals or masks"
    return None


def run(ctx, params: RefiningColumnsParams) -> Measurement:
    from privaudit.risk.undeclared import PAIR_MAX_VALUES, refinements

    frame, sampled = release_frame(ctx)
    policy = ctx.policy
    if frame is None:
        details = {
            "generalized": [],
            "findings": [],
            "candidates": 0,
            "rows": 0,
            "sampled": sampled,
            "scanned": False,
            "pair_max_values": PAIR_MAX_VALUES,
        }
        return Measurement(0, 0, True, unread(ctx), details)
    generalized = {}
    for q in policy.quasi_identifiers:
        if q in frame:
            why = generalized_evidence(ctx, frame, q)
            if why:
                generalized[q] = why
    names = [
        c
        for c in frame.columns
        if (c not in policy.columns or policy.columns[c].role not in NOT_CANDIDATES) and frame[c].notna().any()
    ]
    found = []
    if generalized and names:
        sources = {q: codes_of(frame[q]) for q in generalized}
        candidates = {c: codes_of(frame[c]) for c in names}
        found = refinements(sources, candidates)
    rows = len(frame)
    findings = [
        {
            "columns": list(r.columns),
            "quasi_identifier": r.source,
            "records": r.records,
            "share": r.records / rows if rows else 0.0,
            "distinct": r.distinct,
            "released": r.released,
            "log10_chance": max(r.log10_chance, -1e6),
        }
        for r in found
    ]
    details = {
        "generalized": [{"column": q, "evidence": why} for q, why in generalized.items()],
        "findings": findings,
        "candidates": len(names),
        "rows": rows,
        "sampled": sampled,
        "scanned": True,
        "pair_max_values": PAIR_MAX_VALUES,
    }
    return Measurement(len(found), 0, not found, message(found, generalized, sampled, rows), details)


def _names(columns) -> str:
    return " and ".join(repr(c) for c in columns)


def message(found, generalized: dict, sampled: bool, rows: int) -> str:
    where = f" (read on the first {fmt(rows)} rows: this engine does not load undeclared columns)" if sampled else ""
    if not generalized:
        return f"no quasi-identifier is visibly generalized, so no column can give one back{where}"
    if not found:
        return (
            f"no column left out of the quasi-identifiers refines the generalized "
            f"{', '.join(map(repr, generalized))}{where}"
        )
    parts = [
        f"{_names(r.columns)} {'refine' if len(r.columns) > 1 else 'refines'} generalized quasi-identifier "
        f"{r.source!r} for {fmt(r.records)} records ({fmt(r.distinct)} values against {fmt(r.released)} released)"
        for r in found
    ]
    return (
        "; ".join(parts)
        + ": declare each a quasi-identifier so that it is generalized with its source, or drop it"
        + where
    )


ASSESSOR = Assessor(
    name=NAME,
    params=RefiningColumnsParams,
    details=RefiningColumnsDetails,
    run=run,
    title="Columns that give back a generalization",
    protects="identity",
    measures="whether a column the policy leaves out of the quasi-identifiers (alone or with another) falls "
    "within one released value of a generalized quasi-identifier and is finer, so that it gives back what the "
    "generalization removed",
    formula="C refines Q iff every value of C falls within one released value of Q (records missing either "
    "aside), C has more distinct values, and prod_c sum_q p_q^m_c < 1e-9; value = refining columns; pass iff 0",
    reference="Hundepool et al., Statistical Disclosure Control (Wiley, 2012), section 3.3; Benschop, "
    "Machingauta and Welch, SDC Practice Guide (IHSN), 'Classifying variables'",
    always="last",  # after the policy's checks: what the policy left out
    concurrent=True,
)


@hookimpl
def privaudit_assessors():
    return [ASSESSOR]
