"""β-likeness and δ-disclosure figures of every class at once, from privaudit's shared class summary.

Notation, for one sensitive attribute (records whose sensitive value is missing are left out, as in
:class:`privaudit.core.summary.SensitiveCounts`): ``N_s`` records of the table have value ``s``,
``N = Σ_s N_s``; class ``c`` has ``n_cs`` records with value ``s`` and ``n_c = Σ_s n_cs``. The table's
and the class's distributions are ``p_t(s) = N_s / N`` and ``p_c(s) = n_cs / n_c``.

* Relative gain (Cao & Karras, *Publishing Microdata with a Robust Privacy Guarantee*, PVLDB 5(11),
  2012, Def. 1)::

      D(c, s) = (p_c(s) - p_t(s)) / p_t(s)

* Basic β-likeness (ibid., Def. 2): a class satisfies it iff ``D(c, s) <= β`` for every ``s`` with
  ``p_c(s) > p_t(s)``. The table's figure is ``β* = max_{c,s} D(c, s)``, the smallest β it satisfies
  (never negative: some value of every class has ``p_c >= p_t``).
* Enhanced β-likeness (ibid., Def. 3): iff ``D(c, s) <= min(β, -ln p_t(s))`` for every ``s`` with
  ``p_c(s) > p_t(s)``. The cap ``-ln p_t(s)`` does not depend on β: a class where
  ``D(c, s) > -ln p_t(s)``, i.e. ``p_c(s) > p_t(s) (1 - ln p_t(s))``, breaks enhanced β-likeness for
  *every* β. The figure is again the smallest β satisfied: ``β*`` when no class exceeds a cap,
  ``+inf`` otherwise. (pycanon reports ``min(β*, -ln min_s p_t(s))`` instead, which does not decide
  the check; see ``docs/plugins.md`` of privaudit and this package's README.)
* δ-disclosure privacy (Brickell & Shmatikov, *The Cost of Privacy*, KDD 2008, Def. 4): iff
  ``|ln(p_c(s) / p_t(s))| < δ`` for every value ``s`` of the table. A value of the table that a
  class lacks gives ``|ln 0| = inf``. The figure is ``δ* = max_{c,s} |ln(p_c / p_t)|``; the check
  passes iff ``δ* < δ`` (strict, as in the paper and in ARX).

Everything is computed over the stored (non-zero) entries of the CSR count matrix only: which values
a class lacks follows from its number of distinct values, so the cost is linear in the number of
stored entries, never classes x values, and nothing is regrouped.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from privaudit.plugin.helpers import exceeds


@dataclass(frozen=True)
class Entries:
    """The stored (class, value) entries of a count matrix with the figures the models need.

    Attributes:
        rows: class id of each entry.
        values: value index (column of the count matrix) of each entry.
        table_share: ``p_t(s)`` of every value of the domain (one per column).
        gain: ``D(c, s) = (p_c(s) - p_t(s)) / p_t(s)``.
        indptr: the CSR row pointer (entries of class c are ``indptr[c]:indptr[c+1]``).
        class_totals: ``n_c``, records of each class with a sensitive value.
        distinct: number of distinct values in each class.
        values_in_table: number of values with ``N_s > 0``.
    """

    rows: np.ndarray
    values: np.ndarray
    table_share: np.ndarray
    gain: np.ndarray
    indptr: np.ndarray
    class_totals: np.ndarray
    distinct: np.ndarray
    values_in_table: int

    @property
    def n_classes(self) -> int:
        return len(self.indptr) - 1

    @property
    def has_values(self) -> np.ndarray:
        """Classes with at least one non-missing sensitive value (the others have no distribution)."""
        return self.class_totals > 0


def entries(sc) -> Entries:
    """Relative gains of every stored entry of ``sc`` (a :class:`privaudit.core.summary.SensitiveCounts`).

    ``D = (n_cs N - n_c N_s) / (n_c N_s)``: the numerator is formed in exact integer arithmetic while
    ``N < 2**31`` (so that ``p_c > p_t`` and ``p_c = p_t`` are decided exactly), in floating point beyond.
    """
    counts = sc.counts
    indptr = np.asarray(counts.indptr, dtype=np.int64)
    rows = np.repeat(np.arange(len(indptr) - 1), np.diff(indptr))
    n_cs = np.asarray(counts.data, dtype=np.int64)
    class_totals = np.bincount(rows, weights=n_cs, minlength=len(indptr) - 1).astype(np.int64)
    total = np.asarray(sc.total, dtype=np.int64)
    n = int(total.sum())
    values = np.asarray(counts.indices, dtype=np.int64)
    n_s = total[values]
    n_c = class_totals[rows]
    if n < 2**31:
        gain = (n_cs * n - n_c * n_s) / (n_c * n_s)
    else:  # products could overflow int64: relative error ~1e-16 instead of exact signs
        gain = (n_cs / n_c) / (n_s / n) - 1.0
    table_share = total / n if n else np.zeros(len(total))
    return Entries(
        rows,
        values,
        table_share,
        np.asarray(gain, dtype=float),
        indptr,
        class_totals,
        np.diff(indptr),
        int((total > 0).sum()),
    )


def _neg_log_share(e: Entries) -> np.ndarray:
    """``-ln p_t(s)`` per value of the domain (inf for values absent from the table, never gathered)."""
    with np.errstate(divide="ignore"):
        return -np.log(e.table_share)


def row_max(values: np.ndarray, indptr: np.ndarray, empty: float = np.nan) -> np.ndarray:
    """Maximum of ``values`` (one per stored entry) within each CSR row; ``empty`` for empty rows."""
    n = len(indptr) - 1
    out = np.full(n, empty, dtype=float)
    nonempty = np.flatnonzero(np.diff(indptr) > 0)
    if len(nonempty):
        out[nonempty] = np.maximum.reduceat(values, indptr[nonempty])
    return out


def row_any(flags: np.ndarray, rows: np.ndarray, n: int) -> np.ndarray:
    """Whether any entry of each row is flagged."""
    return np.bincount(rows[flags], minlength=n) > 0


def basic_beta(e: Entries) -> np.ndarray:
    """Per class ``max_s D(c, s)``: the smallest β the class satisfies (basic β-likeness).

    NaN for classes without a sensitive value (no distribution to compare)."""
    return row_max(e.gain, e.indptr)


def over_cap(e: Entries) -> np.ndarray:
    """Per entry: ``D(c, s) > -ln p_t(s)``, which enhanced β-likeness refuses whatever β is."""
    return exceeds(e.gain, _neg_log_share(e)[e.values])


def enhanced_beta(e: Entries, basic: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Per class, the smallest β the class satisfies under enhanced β-likeness, and whether it
    exceeds a ``-ln p_t`` cap (then that smallest β is ``inf``). NaN for classes without values.
    ``basic`` is :func:`basic_beta` of ``e`` when already computed."""
    capped = row_any(over_cap(e), e.rows, e.n_classes)
    needed = np.where(capped, np.inf, basic_beta(e) if basic is None else basic)
    return needed, capped


def enhanced_failing(e: Entries, beta: float) -> np.ndarray:
    """Classes breaking enhanced β-likeness: some entry with ``D(c, s) > min(β, -ln p_t(s))``.

    (Equivalent to ``enhanced_beta(e)[0] > beta``; stated entry-wise as ARX's check is.)"""
    bound = np.minimum(beta, _neg_log_share(e))  # one per value, gathered per entry
    return row_any(exceeds(e.gain, bound[e.values]), e.rows, e.n_classes)


def delta(e: Entries, base: float = math.e) -> tuple[np.ndarray, np.ndarray]:
    """Per class ``max_s |log(p_c(s) / p_t(s))|`` over *all* values of the table (``inf`` when the
    class lacks one), and the same maximum over the values present in the class only (pycanon's
    figure; ARX's with ``base=2``). NaN for classes without values.

    ``log(p_c / p_t) = log1p(D)``, which keeps small ratios accurate."""
    logs = np.abs(np.log1p(e.gain)) / math.log(base)
    present = row_max(logs, e.indptr)
    lacks_a_value = e.has_values & (e.distinct < e.values_in_table)
    return np.where(lacks_a_value, np.inf, present), present


def table_figure(per_class: np.ndarray) -> float:
    """The table's figure: the largest per-class figure over classes that have one (0 when none)."""
    defined = per_class[~np.isnan(per_class)]
    return float(defined.max()) if len(defined) else 0.0
