"""Attribute disclosure under randomized response (RR) of categorical QIs and/or the sensitive attribute.

Model (Guo, Ying & Wu, "Limiting Attribute Disclosure in Randomization Based Microdata Release",
JCSE 5(3), 2011). Every randomized attribute i has a published distortion matrix P_i with
``P_i[u, v] = Pr(released = u | original = v)`` (columns sum to 1). Unrandomized attributes have
P_i = I. Over the attributes (QI_1, ..., QI_m, S) the record-level distortion is the Kronecker
product P = P_1 ⊗ ... ⊗ P_m ⊗ P_s, and the released cell distribution is lambda = P pi, where pi is
the joint distribution of the original table over QI x S.

Kronecker-free algebra
    P is never formed. With the contingency table held as an (m+1)-dimensional array X (axis i
    indexes attribute i, C order) the identity (A ⊗ B) vec(X) = vec(A X B^T) generalises to one
    mode product per axis (:func:`apply_kronecker`), costing O((sum_i d_i) * prod_i d_i) instead of
    O((prod_i d_i)^2). The inverse P^{-1} = ⊗ P_i^{-1}, the elementwise square P∘P = ⊗ (P_i∘P_i)
    and transposes factor the same way.

Estimation (moment / inversion estimator)
    pi_hat = P^{-1} lambda_hat, with lambda_hat the released cell frequencies. Negative cells are
    clipped to 0 and the table renormalised to sum 1 (a simple projection; the unbiased estimate
    can have negative cells in sparse tables). When the original table is supplied its joint is
    used instead (the data owner's view).

Attack (Lemma 1 of the paper)
    Posterior Pr(X = mu | X~ = nu) = P[nu, mu] pi_mu / lambda_nu. An attacker who samples the
    original value from this posterior reconstructs a record whose true value is mu with
    probability eta(mu) = sum_nu P[nu, mu]^2 pi_mu / lambda_nu (lambda = P pi).

Risk of a person with QI = alpha and S = u (linking attack)
    Pr(S_r | QI_r) = eta_QI(alpha) * eta_S(u | alpha) * pi_{alpha u} / pi_alpha, where

    * eta_QI(alpha) = sum_nu P_QI[nu, alpha]^2 pi_alpha / lambda_QI[nu] is Lemma 1 on the QI marginal
      (P_QI = P_1 ⊗ ... ⊗ P_m, lambda_QI = P_QI pi_QI);
    * eta_S(u | alpha) = sum_v P_s[v, u]^2 pi_{alpha u} / sum_k P_s[v, k] pi_{alpha k} is Lemma 1 on
      the distribution of S inside QI group alpha.

    Checked limits: no randomization gives pi_{alpha u} / pi_alpha (the l-diversity risk); fully
    random QIs (every P_i = J/d_i, i.e. keep probability 1/d_i) give eta_QI(alpha) = pi_alpha and
    so pi_{alpha u} when S is kept. Terms with lambda = 0 are 0 (they carry no mass).

The reported value is the maximum risk over cells with pi_{alpha u} > 0. Per-record risk maps each
record to its cell: its *original* cell when ``original`` is given, otherwise its *released* cell
(the best an auditor without the original can do). Records with a missing value on any listed
column are left out of the table and get risk NaN.

Limit: the joint table is a dense array of prod_i d_i cells; more than :data:`MAX_CELLS` cells is
refused with a ValueError.
"""

from __future__ import annotations

import csv
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["MAX_CELLS", "RRDisclosureResult", "apply_kronecker", "distortion_matrix_keep", "estimate_joint", "keep_probability_matrices", "load_distortion_matrix", "randomize", "reconstruction_probability", "rr_attribute_disclosure", "rr_risk_table", "validate_distortion_matrix"]  # fmt: skip

#: Largest joint table (number of cells of QI x S) held as a dense array.
MAX_CELLS = 20_000_000

_SUM_TOL = 1e-9
_COND_MAX = 1e12


# ----------------------------------------------------------------------------------------------
# distortion matrices
# ----------------------------------------------------------------------------------------------
def distortion_matrix_keep(d: int, p: float) -> np.ndarray:
    """Keep-probability RR matrix: p on the diagonal, (1-p)/(d-1) elsewhere (d x d, columns sum to 1).

    Invertible iff p != 1/d (its eigenvalues are 1 and (dp-1)/(d-1)). For d = 1 the matrix is [[1]].
    """
    d = int(d)
    if d < 1:
        raise ValueError(f"distortion matrix: domain size must be >= 1, got {d}")
    if not (0.0 <= p <= 1.0):
        raise ValueError(f"distortion matrix: keep probability must be in [0, 1], got {p!r}")
    if d == 1:
        return np.ones((1, 1))
    q = (1.0 - p) / (d - 1)
    m = np.full((d, d), q)
    np.fill_diagonal(m, p)
    return m


def validate_distortion_matrix(
    matrix: np.ndarray, source: str = "distortion matrix", *, require_invertible: bool = True
) -> np.ndarray:
    """Check that ``matrix`` is square, finite, non-negative, column-stochastic (1e-9) and invertible."""
    m = np.asarray(matrix, dtype=np.float64)
    if m.ndim != 2 or m.shape[0] != m.shape[1] or m.shape[0] == 0:
        raise ValueError(f"{source}: matrix is not square (shape {m.shape})")
    if not np.all(np.isfinite(m)):
        raise ValueError(f"{source}: matrix has non-finite entries")
    if np.any(m < 0):
        r, c = np.argwhere(m < 0)[0]
        raise ValueError(f"{source}: negative probability {m[r, c]!r} at row {r}, column {c}")
    sums = m.sum(axis=0)
    bad = np.flatnonzero(np.abs(sums - 1.0) > _SUM_TOL)
    if bad.size:
        raise ValueError(f"{source}: column {bad[0]} sums to {sums[bad[0]]!r}, not 1 (tolerance 1e-9)")
    if require_invertible and np.linalg.cond(m) > _COND_MAX:
        raise ValueError(f"{source}: matrix is singular (not invertible)")
    return m


def _label(cell: str) -> str:
    """A label as written before privaudit's CSV export neutralised its formula prefix (``'=x`` -> ``=x``)."""
    return cell[1:] if len(cell) > 1 and cell[0] == "'" and cell[1] in "=+-@\t\r" else cell


def load_distortion_matrix(path: str | Path) -> tuple[list[str], np.ndarray]:
    """Read a square distortion matrix CSV: header ``<corner>,l1,...,ld``, then rows ``li,P[li,l1],...``.

    Entry (row u, column v) is Pr(released = u | original = v). Row labels must be the column labels
    (any order; rows are reordered to the header order). Separator ``,``, ``;`` or tab is detected.
    Returns ``(labels, matrix)``. Any problem raises a one-line ``ValueError`` naming the file.
    """
    src = f"distortion matrix {path}"
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"{src}: cannot read file ({type(exc).__name__}: {exc})".replace("\n", " ")) from exc
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if len(lines) < 2:
        raise ValueError(f"{src}: needs a header row and at least one matrix row")
    try:
        dialect = csv.Sniffer().sniff(lines[0], delimiters=",;\t")
        delim = dialect.delimiter
    except csv.Error:
        delim = ","
    rows = [[_label(cell.strip()) for cell in r] for r in csv.reader(lines, delimiter=delim)]
    labels = rows[0][1:]
    d = len(labels)
    if d == 0:
        raise ValueError(f"{src}: header has no category labels")
    if len(set(labels)) != d:
        dup = next(lab for lab in labels if labels.count(lab) > 1)
        raise ValueError(f"{src}: duplicate column label {dup!r}")
    body = rows[1:]
    for i, r in enumerate(body, start=2):
        if len(r) != d + 1:
            raise ValueError(f"{src}: line {i} has {len(r)} cells, expected {d + 1} (label + {d} values)")
    if len(body) != d:
        raise ValueError(f"{src}: not square ({len(body)} rows x {d} columns)")
    row_labels = [r[0] for r in body]
    if sorted(row_labels) != sorted(labels) or len(set(row_labels)) != d:
        extra = sorted(set(row_labels) ^ set(labels)) or ["duplicate row label"]
        raise ValueError(f"{src}: row labels do not match column labels (differ on {extra[0]!r})")
    try:
        values = np.array([[float(x) for x in r[1:]] for r in body], dtype=np.float64)
    except ValueError as exc:
        raise ValueError(f"{src}: non-numeric entry ({exc})") from exc
    order = [row_labels.index(lab) for lab in labels]
    matrix = values[order]
    if not np.all(np.isfinite(matrix)):
        raise ValueError(f"{src}: matrix has non-finite entries")
    if np.any(matrix < 0):
        r, c = np.argwhere(matrix < 0)[0]
        raise ValueError(f"{src}: negative probability at row {labels[r]!r}, column {labels[c]!r}")
    sums = matrix.sum(axis=0)
    bad = np.flatnonzero(np.abs(sums - 1.0) > _SUM_TOL)
    if bad.size:
        raise ValueError(f"{src}: column {labels[bad[0]]!r} sums to {sums[bad[0]]!r}, not 1 (tolerance 1e-9)")
    if np.linalg.cond(matrix) > _COND_MAX:
        raise ValueError(f"{src}: matrix is singular (not invertible)")
    return labels, matrix


def _domain(*series: pd.Series) -> list[Any]:
    """Distinct non-missing values of the given columns, sorted when comparable."""
    vals = pd.unique(pd.concat([s.dropna() for s in series], ignore_index=True))
    vals = list(vals)
    try:
        return sorted(vals)
    except TypeError:
        return vals


def keep_probability_matrices(
    data: pd.DataFrame, keep: Mapping[str, float], *extra: pd.DataFrame
) -> dict[str, tuple[list[Any], np.ndarray]]:
    """``{column: (labels, distortion_matrix_keep(d, p))}`` over each column's domain as seen in the data.

    The domain is the sorted distinct non-missing values of the column in ``data`` (and in any
    ``extra`` frames, e.g. both original and released).
    """
    out: dict[str, tuple[list[Any], np.ndarray]] = {}
    for col, p in keep.items():
        if col not in data.columns:
            raise ValueError(f"randomized response: column {col!r} not in the data")
        labels = _domain(data[col], *[f[col] for f in extra if col in f.columns])
        out[col] = (labels, distortion_matrix_keep(len(labels), float(p)))
    return out


# ----------------------------------------------------------------------------------------------
# Kronecker-free linear algebra
# ----------------------------------------------------------------------------------------------
def _mode_product(x: np.ndarray, m: np.ndarray, axis: int) -> np.ndarray:
    """Multiply ``m`` into ``x`` along ``axis``: y[..., i, ...] = sum_k m[i, k] x[..., k, ...].

    Viewing x as (pre, d, post) blocks this is a batched matmul m @ x[b] (or x @ m^T on the last
    axis), which needs no transposed copies.
    """
    shape = x.shape
    pre = int(np.prod(shape[:axis], dtype=np.int64))
    post = int(np.prod(shape[axis + 1 :], dtype=np.int64))
    if post == 1:
        y = x.reshape(pre, shape[axis]) @ m.T
    else:
        y = np.matmul(m, x.reshape(pre, shape[axis], post))
    return y.reshape(shape[:axis] + (m.shape[0],) + shape[axis + 1 :])


def apply_kronecker(factors: Sequence[np.ndarray | None], x: np.ndarray) -> np.ndarray:
    """(F_1 ⊗ F_2 ⊗ ... ⊗ F_k) vec(x) without forming the Kronecker product.

    ``x`` has one axis per factor (C order, so ``x.ravel()`` is the vec matching ``np.kron``);
    ``None`` stands for an identity factor. The result has shape ``(F_1.shape[0], ..., F_k.shape[0])``.
    Uses (A ⊗ B) vec(X) = vec(A X B^T), one mode product per axis: O(sum d_i * prod d_i).
    """
    if x.ndim != len(factors):
        raise ValueError(f"apply_kronecker: array has {x.ndim} axes but {len(factors)} factors")
    y = x
    for axis, f in enumerate(factors):
        if f is not None:
            y = _mode_product(y, np.asarray(f), axis)
    return y


def _t(f: np.ndarray | None) -> np.ndarray | None:
    return None if f is None else f.T


def _sq(f: np.ndarray | None) -> np.ndarray | None:
    return None if f is None else f * f


def _safe_inv(x: np.ndarray) -> np.ndarray:
    out = np.zeros_like(x, dtype=np.float64)
    np.divide(1.0, x, out=out, where=x > 0)
    return out


def reconstruction_probability(factors: Sequence[np.ndarray | None], pi: np.ndarray) -> np.ndarray:
    """Lemma 1: eta(mu) = pi_mu * sum_nu P[nu, mu]^2 / lambda_nu, lambda = P pi, P = ⊗ factors.

    In matrix form eta = pi ∘ ((P∘P)^T (1/lambda)), with (P∘P)^T = ⊗ (P_i∘P_i)^T; 1/0 is taken as 0.
    """
    lam = apply_kronecker(factors, pi)
    return pi * apply_kronecker([_t(_sq(f)) for f in factors], _safe_inv(lam))


def estimate_joint(released_freq: np.ndarray, factors: Sequence[np.ndarray | None]) -> np.ndarray:
    """pi_hat = P^{-1} lambda_hat (P = ⊗ factors), negatives clipped to 0, renormalised to sum 1."""
    inverses = []
    for f in factors:
        if f is None:
            inverses.append(None)
            continue
        if np.linalg.cond(f) > _COND_MAX:
            raise ValueError("randomized response: a distortion matrix is singular, pi cannot be estimated")
        inverses.append(np.linalg.inv(f))
    est = np.clip(apply_kronecker(inverses, np.asarray(released_freq, dtype=np.float64)), 0.0, None)
    total = est.sum()
    return est / total if total > 0 else est


def rr_risk_table(pi: np.ndarray, factors: Sequence[np.ndarray | None]) -> np.ndarray:
    """Risk Pr(S_r | QI_r) = eta_QI(alpha) eta_S(u | alpha) pi_{alpha u} / pi_alpha for every cell.

    ``pi`` is the joint over (QI_1, ..., QI_m, S) (last axis S); ``factors`` the matching distortion
    matrices (None = not randomized). Returns an array shaped like ``pi`` (0 where pi_alpha = 0).
    """
    pi = np.asarray(pi, dtype=np.float64)
    if pi.ndim != len(factors) or pi.ndim < 1:
        raise ValueError("rr_risk_table: need one factor per axis of pi (QIs then S)")
    qi_f, s_f = list(factors[:-1]), factors[-1]
    pi_a = np.asarray(pi.sum(axis=-1))
    eta_qi = reconstruction_probability(qi_f, pi_a) if qi_f else np.ones(())
    if s_f is None:
        eta_s = (pi > 0).astype(np.float64)
    else:
        lam_s = pi @ s_f.T  # lam_s[alpha, v] = sum_k P_s[v, k] pi[alpha, k]
        eta_s = pi * (_safe_inv(lam_s) @ (s_f * s_f))
    cond = np.zeros_like(pi)
    np.divide(pi, pi_a[..., None], out=cond, where=pi_a[..., None] > 0)
    return eta_qi[..., None] * eta_s * cond


# ----------------------------------------------------------------------------------------------
# data handling
# ----------------------------------------------------------------------------------------------
def _encode(series: pd.Series, labels: Sequence[Any], what: str) -> tuple[np.ndarray, bool]:
    """Codes 0..d-1 of ``series`` in ``labels`` (-1 for missing); ValueError on unknown values.

    Values are matched exactly first, then by their string form (CSV labels are strings).
    Returns ``(codes, exact)``.
    """
    missing = series.isna().to_numpy()
    labels = list(labels)
    index = pd.Index(labels, dtype=object)
    if not index.is_unique:
        raise ValueError(f"randomized response: labels of {what} are not distinct")
    inverse, uniques = pd.factorize(series, use_na_sentinel=True)  # distinct values, vectorised
    uniq = list(uniques)
    lookup = index.get_indexer(pd.Index(uniq, dtype=object)).astype(np.int64)
    exact = True
    if np.any(lookup < 0):
        exact = False
        str_index = pd.Index([str(lab) for lab in labels], dtype=object)
        if not str_index.is_unique:
            raise ValueError(f"randomized response: labels of {what} are not distinct as strings")
        lookup = str_index.get_indexer(pd.Index([str(v) for v in uniq], dtype=object)).astype(np.int64)
    codes = np.where(inverse >= 0, lookup[np.maximum(inverse, 0)] if len(uniq) else -1, -1).astype(np.int64)
    unknown = (codes < 0) & ~missing
    if np.any(unknown):
        bad = series[unknown].iloc[0]
        raise ValueError(f"randomized response: value {bad!r} of {what} is not among the matrix labels")
    codes[missing] = -1
    return codes, exact


def _counts(codes: np.ndarray, shape: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Contingency table of complete rows (no -1) and the mask of those rows."""
    ok = np.all(codes >= 0, axis=1)
    flat = np.ravel_multi_index(tuple(codes[ok].T), shape) if ok.any() else np.zeros(0, dtype=np.int64)
    return np.bincount(flat, minlength=int(np.prod(shape))).reshape(shape).astype(np.float64), ok


@dataclass(frozen=True)
class RRDisclosureResult:
    """Outcome of :func:`rr_attribute_disclosure`.

    value: max risk over cells with pi > 0.  risk: risk per cell (axes = ``columns``, labels in
    ``domains``).  pi: joint used (original's or estimated).  argmax: {column: label} of the
    riskiest cell.  record_risk: risk of each record's cell (NaN if incomplete).
    share_above: share of records (complete ones) with risk > ``max_risk`` (None if not asked).
    """

    value: float
    argmax: dict[str, Any]
    risk: np.ndarray
    pi: np.ndarray
    columns: list[str]
    domains: list[list[Any]]
    record_risk: np.ndarray
    records_mapped_to: str
    estimated: bool
    max_risk: float | None
    share_above: float | None
    n_records: int


def _plain(value: Any) -> Any:
    """numpy scalar -> Python scalar (for reports); other values unchanged."""
    return value.item() if isinstance(value, np.generic) else value


def _check_columns(frame: pd.DataFrame, cols: Sequence[str], which: str) -> None:
    missing = [c for c in cols if c not in frame.columns]
    if missing:
        raise ValueError(f"randomized response: {which} data lacks column(s) {missing}")


def _domains_and_factors(
    released: pd.DataFrame,
    original: pd.DataFrame | None,
    cols: list[str],
    matrices: Mapping[str, tuple[Sequence[str], np.ndarray]],
) -> tuple[list[list[Any]], list[np.ndarray | None]]:
    """Each column's domain and distortion matrix: a randomized column's labels and validated matrix
    (invertible when the joint must be estimated, without ``original``), an unrandomized column's values
    in the files and None."""
    domains: list[list[Any]] = []
    factors: list[np.ndarray | None] = []
    for c in cols:
        if c in matrices:
            labels, m = matrices[c]
            labels = list(labels)
            m = validate_distortion_matrix(m, f"distortion matrix of {c!r}", require_invertible=original is None)
            if m.shape[0] != len(labels):
                raise ValueError(
                    f"randomized response: matrix of {c!r} is {m.shape[0]}x{m.shape[0]} but has {len(labels)} labels"
                )
            domains.append(labels)
            factors.append(m)
        else:
            frames = [released[c]] + ([original[c]] if original is not None else [])
            domains.append(_domain(*frames))
            factors.append(None)
    return domains, factors


def _riskiest_cell(
    risk: np.ndarray, pi: np.ndarray, cols: list[str], domains: list[list[Any]]
) -> tuple[float, dict[str, Any]]:
    """The largest risk over the cells of the joint's support and that cell's value of every column
    (0 and no cell when the support is empty)."""
    support = pi > 0
    if not support.any():
        return 0.0, {}
    masked = np.where(support, risk, -np.inf)
    flat = int(np.argmax(masked))
    idx = np.unravel_index(flat, pi.shape)
    return float(masked.ravel()[flat]), {c: _plain(domains[i][idx[i]]) for i, c in enumerate(cols)}


def rr_attribute_disclosure(
    released: pd.DataFrame,
    qi: Sequence[str],
    sensitive: str,
    matrices: Mapping[str, tuple[Sequence[str], np.ndarray]],
    *,
    original: pd.DataFrame | None = None,
    max_risk: float | None = None,
) -> RRDisclosureResult:
    """Guo-Ying-Wu attribute-disclosure risk of a randomized-response release (see module docstring).

    ``matrices`` maps each randomized column to ``(labels, P)`` (P[u, v] = Pr(released u | original v));
    other QI / sensitive columns are unrandomized (entries for other columns are ignored). Without
    ``original`` the joint is estimated from ``released`` by matrix inversion.
    """
    qi = list(qi)
    cols = qi + [sensitive]
    if sensitive in qi:
        raise ValueError("randomized response: the sensitive attribute is also listed as a QI")
    _check_columns(released, cols, "released")
    if original is not None:
        _check_columns(original, cols, "original")

    domains, factors = _domains_and_factors(released, original, cols, matrices)
    shape = tuple(len(d) for d in domains)
    if int(np.prod(shape, dtype=np.float64)) > MAX_CELLS:
        raise ValueError(f"randomized response: joint table {' x '.join(map(str, shape))} exceeds {MAX_CELLS} cells")

    rel_codes = np.column_stack(
        [_encode(released[c], d, f"released column {c!r}")[0] for c, d in zip(cols, domains, strict=False)]
    )
    if original is not None:
        orig_codes = np.column_stack(
            [_encode(original[c], d, f"original column {c!r}")[0] for c, d in zip(cols, domains, strict=False)]
        )
        counts, ok = _counts(orig_codes, shape)
        pi = counts / max(counts.sum(), 1.0)
        rec_codes, mapped, estimated = orig_codes, "original", False
    else:
        counts, ok = _counts(rel_codes, shape)
        pi = estimate_joint(counts / max(counts.sum(), 1.0), factors)
        rec_codes, mapped, estimated = rel_codes, "released", True

    risk = rr_risk_table(pi, factors)
    value, argmax = _riskiest_cell(risk, pi, cols, domains)

    record_risk = np.full(len(rec_codes), np.nan)
    ok = np.all(rec_codes >= 0, axis=1)
    if ok.any():
        record_risk[ok] = risk[tuple(rec_codes[ok].T)]
    share = None
    if max_risk is not None:
        share = float(np.mean(record_risk[ok] > max_risk)) if ok.any() else 0.0
    return RRDisclosureResult(
        value=value,
        argmax=argmax,
        risk=risk,
        pi=pi,
        columns=cols,
        domains=domains,
        record_risk=record_risk,
        records_mapped_to=mapped,
        estimated=estimated,
        max_risk=max_risk,
        share_above=share,
        n_records=int(ok.sum()),
    )


def randomize(
    df: pd.DataFrame, matrices: Mapping[str, tuple[Sequence[Any], np.ndarray]], seed: int | np.random.Generator | None
) -> pd.DataFrame:
    """Apply randomized response: each value v of a listed column becomes u with probability P[u, v].

    One uniform draw per record and column from ``numpy.random.default_rng(seed)`` (columns in the
    order of ``matrices``), inverted through the cumulative column of P (vectorised per category).
    Missing values stay missing; the column keeps its dtype where the labels allow it.
    """
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    out = df.copy()
    for col, (labels, m) in matrices.items():
        if col not in df.columns:
            raise ValueError(f"randomized response: column {col!r} not in the data")
        m = validate_distortion_matrix(m, f"distortion matrix of {col!r}", require_invertible=False)
        labels = list(labels)
        if m.shape[0] != len(labels):
            raise ValueError(f"randomized response: matrix of {col!r} does not match its {len(labels)} labels")
        codes, exact = _encode(df[col], labels, f"column {col!r}")
        cum = np.cumsum(m, axis=0)
        cum[-1, :] = 1.0  # guard against rounding in the last cumulative entry
        draws = rng.random(len(codes))
        new = np.full(len(codes), -1, dtype=np.int64)
        for v in np.unique(codes[codes >= 0]):
            sel = codes == v
            new[sel] = np.searchsorted(cum[:, v], draws[sel], side="right")
        values = np.empty(len(codes), dtype=object)
        lab_arr = np.empty(len(labels), dtype=object)
        lab_arr[:] = labels
        values[new >= 0] = lab_arr[new[new >= 0]]
        values[new < 0] = None
        series = pd.Series(values, index=df.index, name=col)
        if exact:
            try:
                series = series.astype(df[col].dtype)
            except (TypeError, ValueError):
                pass
        out[col] = series
    return out
