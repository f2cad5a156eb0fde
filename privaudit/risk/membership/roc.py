r"""ROC figures of a membership attack, with confidence intervals.

Carlini, Chien, Nasr, Song, Terzis & Tramèr, "Membership Inference Attacks From First Principles"
(IEEE S&P 2022), §III and Fig. 1: an attack is judged by its true-positive rate at a *low*
false-positive rate (they report 0.1 % and 0.001 %), read off the ROC curve drawn on log-log axes,
not by accuracy or AUC, which average over thresholds no attacker would use.

* ROC: for every distinct score ``t`` (descending), ``TPR(t) = #{members with score >= t} / n_members``
  and ``FPR(t)`` the same over non-members; the curve starts at (0, 0).
* AUC: the Mann–Whitney statistic ``P(score_member > score_non-member) + P(=)/2`` (the trapezoidal area
  under that curve); interval from Hanley & McNeil's standard error (Radiology 143, 1982).
* TPR at FPR ``f``: the largest TPR of a threshold whose FPR is at most ``f``, read off the curve's
  points without interpolation, so an attacker can realise it (Carlini et al.'s plotting code takes FPR
  strictly below ``f``; the two differ only when a threshold has FPR exactly ``f``); its interval is the
  Clopper–Pearson interval of that TPR's ``TP / n_members`` at the chosen threshold (the threshold taken
  as given: it is set by the non-members' scores alone), and beside it the interval of the threshold's own
  FPR, which with few non-members lies far above ``f`` (no false positive among 100 non-members allows an
  FPR up to 3.6 %): a TPR that does not beat that FPR is what chance gives.
* advantage: ``max_t TPR(t) - FPR(t)`` (Yeom et al. 2018's membership advantage; the Kolmogorov–Smirnov
  distance of the two score distributions); interval ``[TPR_low - FPR_high, TPR_high - FPR_low]`` at
  that threshold, each end from a Clopper–Pearson interval at ``1 - (1 - confidence) / 2``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

from privaudit.risk.membership.epsilon import clopper_pearson

__all__ = ["roc_curve", "auc", "RocSummary", "summarize", "log_grid_curve"]


def roc_curve(scores: np.ndarray, member: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(fpr, tpr, thresholds)``: one point per distinct score, descending, after a first (0, 0) point."""
    scores = np.asarray(scores, dtype=float)
    member = np.asarray(member, dtype=bool)
    order = np.argsort(-scores, kind="stable")
    s, y = scores[order], member[order]
    last = np.r_[s[1:] != s[:-1], True]  # last record of every distinct score
    tp = np.cumsum(y)[last]
    fp = np.cumsum(~y)[last]
    n_pos, n_neg = max(int(y.sum()), 1), max(int((~y).sum()), 1)
    return (np.r_[0.0, fp / n_neg], np.r_[0.0, tp / n_pos], np.r_[np.inf, s[last]])


def auc(scores: np.ndarray, member: np.ndarray) -> float:
    """Mann–Whitney AUC (ties count one half), from average ranks."""
    member = np.asarray(member, dtype=bool)
    n1, n0 = int(member.sum()), int((~member).sum())
    if n1 == 0 or n0 == 0:
        return float("nan")
    ranks = stats.rankdata(scores)
    return float((ranks[member].sum() - n1 * (n1 + 1) / 2) / (n1 * n0))


def _hanley_mcneil(a: float, n1: int, n0: int) -> float:
    q1, q2 = a / (2 - a), 2 * a * a / (1 + a)
    var = (a * (1 - a) + (n1 - 1) * (q1 - a * a) + (n0 - 1) * (q2 - a * a)) / (n1 * n0)
    return float(np.sqrt(max(var, 0.0)))


@dataclass(frozen=True)
class RocSummary:
    auc: float
    auc_ci: tuple[float, float]
    tpr_at_fpr: dict[str, dict]  # "0.001" -> {"value", "ci", "fpr", "threshold", "tp"}
    advantage: float
    advantage_ci: tuple[float, float]
    advantage_threshold: float
    n_members: int
    n_non_members: int

    def to_dict(self) -> dict:
        return {
            "auc": self.auc,
            "auc_ci": list(self.auc_ci),
            "tpr_at_fpr": self.tpr_at_fpr,
            "advantage": self.advantage,
            "advantage_ci": list(self.advantage_ci),
            "advantage_threshold": self.advantage_threshold,
            "n_members": self.n_members,
            "n_non_members": self.n_non_members,
        }


def summarize(scores: np.ndarray, member: np.ndarray, fprs=(0.001, 0.01), confidence: float = 0.95) -> RocSummary:
    """AUC, TPR at each FPR of ``fprs`` and the advantage, each with its interval (module docstring)."""
    member = np.asarray(member, dtype=bool)
    n1, n0 = int(member.sum()), int((~member).sum())
    fpr, tpr, thr = roc_curve(scores, member)
    a = auc(scores, member)
    z = float(stats.norm.ppf(1 - (1 - confidence) / 2))
    se = _hanley_mcneil(a, n1, n0)
    at = {}
    for f in fprs:
        i = int(np.argmax(np.where(fpr <= f + 1e-15, tpr, -1.0)))
        tp = int(round(tpr[i] * n1))
        lo, hi = clopper_pearson(tp, n1, confidence)
        at[f"{f:g}"] = {
            "value": float(tpr[i]),
            "ci": [lo, hi],
            "fpr": float(fpr[i]),
            "fpr_ci": list(clopper_pearson(int(round(fpr[i] * n0)), n0, confidence)),
            "threshold": float(thr[i]),
            "tp": tp,
        }
    gap = tpr - fpr
    j = int(np.argmax(gap))
    half = 1 - (1 - confidence) / 2
    t_lo, t_hi = clopper_pearson(int(round(tpr[j] * n1)), n1, half)
    f_lo, f_hi = clopper_pearson(int(round(fpr[j] * n0)), n0, half)
    return RocSummary(
        a,
        (max(0.0, a - z * se), min(1.0, a + z * se)),
        at,
        float(gap[j]),
        (max(-1.0, t_lo - f_hi), min(1.0, t_hi - f_lo)),
        float(thr[j]),
        n1,
        n0,
    )


def log_grid_curve(scores: np.ndarray, member: np.ndarray, points: int = 60, floor: float | None = None):
    """The ROC curve thinned for a log-log chart: TPR (the best at FPR <= f) at ``points`` FPRs spaced
    evenly in log from ``floor`` (default ``1 / n_non_members``) to 1."""
    member = np.asarray(member, dtype=bool)
    fpr, tpr, _ = roc_curve(scores, member)
    n0 = max(int((~member).sum()), 1)
    lo = floor or 1.0 / n0
    grid = np.geomspace(lo, 1.0, points)
    best = np.maximum.accumulate(tpr)
    idx = np.searchsorted(fpr, grid + 1e-15, side="right") - 1
    return grid.tolist(), best[np.maximum(idx, 0)].tolist()
