"""Estimating m and u: from the true pairs (labels: the worst-case intruder) or by EM without labels,
one session per blocking rule, with plausibility warnings."""

from __future__ import annotations

import numpy as np

from privaudit.risk.linkage.em import default_m_init, fit_em, fit_match_prior
from privaudit.risk.linkage.fellegi_sunter.comparisons import Encoded

#: EM diagnostics warn when the fitted prior is off by more than this factor.
LAMBDA_RATIO_WARNING = 3.0


def full_product_level_counts(enc: Encoded) -> tuple[np.ndarray, float]:
    """Number of pairs of the full product ``B x R`` at every level, without building pairs.

    Exact agreement on a categorical attribute: ``sum_v n_B(v) n_R(v)``.
    Numeric: for every left value ``x`` the released values in ``[x - t, x + t]``
    are counted by binary search on the sorted released values (``t = 0`` for
    exact), and levels are differences of these cumulative counts.  Pairs
    with a missing value are excluded.  Returns the counts and their total.
    """
    if enc.spec.kind == "categorical":
        a, b = enc.left[enc.left >= 0], enc.right[enc.right >= 0]
        size = int(max(a.max(initial=-1), b.max(initial=-1))) + 1
        agree = float(
            np.dot(np.bincount(a, minlength=size).astype(float), np.bincount(b, minlength=size).astype(float))
        )
        total = float(a.size) * float(b.size)
        return np.array([agree, total - agree]), total
    a = enc.left.astype(float)
    b = np.sort(enc.right.astype(float))
    a, b = a[~np.isnan(a)], b[~np.isnan(b)]
    total = float(a.size) * float(b.size)
    tolerances = enc.int_tolerances if enc.int_tolerances is not None else enc.spec.tolerances
    within = [float(np.sum(np.searchsorted(b, a, "right") - np.searchsorted(b, a, "left")))]
    for t in tolerances:
        within.append(float(np.sum(np.searchsorted(b, a + t, "right") - np.searchsorted(b, a - t, "left"))))
    within.append(total)
    return np.diff(np.r_[0.0, within]), total


def frequency_level_counts(
    spec, left: tuple[np.ndarray, np.ndarray], right: tuple[np.ndarray, np.ndarray]
) -> tuple[np.ndarray, float]:
    """:func:`full_product_level_counts` from value frequencies: ``left``/``right`` are the distinct
    non-missing values of each side (categorical: any codes shared by both sides; numeric: floats) and
    their counts.  The counts are the same integers (the SQL path, :mod:`.sql`, groups the values in the
    database and passes only these)."""
    lv, lc = np.asarray(left[0]), np.asarray(left[1], dtype=np.int64)
    rv, rc = np.asarray(right[0]), np.asarray(right[1], dtype=np.int64)
    total = float(lc.sum()) * float(rc.sum())
    if spec.kind == "categorical":
        common, li, ri = np.intersect1d(lv, rv, assume_unique=True, return_indices=True)
        agree = float(np.dot(lc[li], rc[ri]))
        return np.array([agree, total - agree]), total
    order = np.argsort(rv, kind="stable")
    b, cum = rv[order].astype(float), np.r_[0, np.cumsum(rc[order])]
    a = lv.astype(float)

    def within(t: float) -> float:
        return float(np.dot(lc, cum[np.searchsorted(b, a + t, "right")] - cum[np.searchsorted(b, a - t, "left")]))

    counts = [within(0.0), *(within(t) for t in spec.tolerances), total]
    return np.diff(np.r_[0.0, counts]), total


def label_parameters(
    spec, full: tuple[np.ndarray, float], true_levels: np.ndarray
) -> tuple[np.ndarray, np.ndarray, int, int]:
    """``m`` from the true pairs and exact ``u`` over all non-matching pairs of ``B x R``.

    ``full``: the pairs of the full product at each level and their total
    (:func:`full_product_level_counts`).  ``u`` = (pairs of the full product at
    each level - true pairs at that level) / (number of non-matching pairs).
    Returns ``m``, ``u`` and the numbers of observations behind them.
    """
    n_lev = spec.n_levels
    obs = true_levels < n_lev
    true_counts = np.bincount(true_levels[obs], minlength=n_lev)[:n_lev].astype(float)
    n_true = int(obs.sum())
    full, total = full
    n_non = total - n_true
    m = true_counts / n_true if n_true else np.full(n_lev, 1.0 / n_lev)
    u = (full - true_counts) / n_non if n_non > 0 else np.full(n_lev, 1.0 / n_lev)
    return m, u, n_true, int(n_non)


def random_pair_u(spec, full: tuple[np.ndarray, float]) -> np.ndarray:
    """Label-free ``u``: level frequencies over all pairs of ``B x R`` (matches included, ~1/n of them)."""
    counts, total = full
    return counts / total if total > 0 else np.full(spec.n_levels, 1.0 / spec.n_levels)


def em_estimate(space, rules, rule_counts, pooled_codes, pooled_counts, u_random, n_left, fit_u, max_iter):
    """Label-free ``m``/``u`` by EM, one session per blocking rule (as in Splink's training).

    Within rule ``r`` its own categorical columns agree by construction, so
    they are marginalised (level -1) in that session; every session starts
    from :func:`.em.default_m_init` and ``u`` = level frequencies over all
    pairs of ``B x release`` (``u_random``, no labels), kept fixed unless
    ``fit_u``.  ``m`` (and a fitted ``u``) of an attribute is the mean over the
    sessions in which it was estimable.  Finally the match prior among the
    de-duplicated candidates is fitted with ``m``/``u`` fixed
    (:func:`.em.fit_match_prior`).
    """
    col_of = {s.name: a for a, s in enumerate(space.specs) if s.kind == "categorical"}
    n_attr = len(space.n_levels)
    m_acc = [[] for _ in range(n_attr)]
    u_acc = [[] for _ in range(n_attr)]
    sessions = []
    for r, (codes, counts) in enumerate(rule_counts):
        n_r = float(counts.sum())
        if n_r == 0:
            sessions.append(None)
            continue
        levels = space.decode(codes)
        blocked = sorted({col_of[c] for c in rules[r].columns if c in col_of})
        levels[:, blocked] = -1
        fit = fit_em(
            levels,
            counts.astype(float),
            space.n_levels,
            m_init=default_m_init(space.n_levels),
            u_init=u_random,
            lambda_init=float(np.clip(n_left / n_r, 1e-9, 0.5)),
            max_iter=max_iter,
            fix_u=not fit_u,
        )
        sessions.append((fit, n_r))
        for a in range(n_attr):
            if a not in blocked:
                m_acc[a].append(np.asarray(fit.m[a]))
                u_acc[a].append(np.asarray(fit.u[a]))
    m_init = default_m_init(space.n_levels)
    m = [np.mean(acc, axis=0) if acc else m_init[a] for a, acc in enumerate(m_acc)]
    u = [np.mean(acc, axis=0) if (acc and fit_u) else np.asarray(u_random[a]) for a, acc in enumerate(u_acc)]
    not_estimable = [space.specs[a].name for a, acc in enumerate(m_acc) if not acc]
    lam = fit_match_prior(
        space.decode(pooled_codes),
        pooled_counts,
        m,
        u,
        lambda_init=float(np.clip(n_left / max(pooled_counts.sum(), 1), 1e-9, 0.5)),
    )
    return m, u, lam, sessions, not_estimable


def em_warnings(
    lam, sessions, not_estimable, attrs, expected_lambda, n_left, n_released, rule_columns
) -> tuple[str, ...]:
    """Plausibility checks of an EM fit.

    * the match prior among the candidates vs ``n_intruder / n_pairs`` (each
      intruder record has at most one match; over the full product this is
      the prior ``1 / n_released``);
    * per session: estimated matches ``lambda_r * n_r`` vs ``n_intruder``;
    * ``m <= u`` on exact agreement (the attribute then lowers the weight of
      agreeing pairs: the "match" class is not identity);
    * non-convergence, attributes whose ``m`` could not be estimated.
    """
    out = []
    ratio = lam / expected_lambda
    if not (1.0 / LAMBDA_RATIO_WARNING <= ratio <= LAMBDA_RATIO_WARNING):
        out.append(
            f"EM match prior lambda={lam:.3g} among candidate pairs is {ratio:.3g} times the expected "
            f"{expected_lambda:.3g} (n_intruder/n_pairs; 1/{n_released} over the full product): "
            "the fitted 'match' class is probably another structure than identity"
        )
    for cols, sess in zip(rule_columns, sessions, strict=False):
        if sess is None:
            continue
        fit, n_r = sess
        share = fit.lambda_ * n_r / n_left
        if not (1.0 / LAMBDA_RATIO_WARNING <= share <= LAMBDA_RATIO_WARNING):
            out.append(
                f"EM session blocked on {list(cols)} estimates {fit.lambda_ * n_r:.4g} matches for "
                f"{n_left} intruder records ({share:.3g} per record)"
            )
        if not fit.converged:
            out.append(f"EM session blocked on {list(cols)} did not converge in {fit.iterations} iterations")
    for a in attrs:
        if a.m[0] <= a.u[0]:
            out.append(f"EM m <= u for exact agreement on {a.name!r} (m={a.m[0]:.3g}, u={a.u[0]:.3g})")
    for name in not_estimable:
        out.append(f"EM cannot estimate m for {name!r}: it is a blocking column of every rule (starting value kept)")
    return tuple(out)
