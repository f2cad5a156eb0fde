"""Re-identification risk under the prosecutor, journalist and marketer attacker models (El Emam 2013,
"Guide to the De-Identification of Personal Health Information", chapters 16-18; as ARX 3.9's
``RiskModelSampleSummary`` computes them).

For each equivalence class k of the release: f_k records in the release, F_k in the population (a
population table that contains the release; without one, F_k = f_k: the release is the population, ARX's
behaviour). n = sum f_k records, c classes, t the record-risk threshold.

* Prosecutor (the attacker knows their target is in the release): a record's risk is 1/f_k.
  highest = 1/min f_k, lowest = 1/max f_k, records at risk = sum of f_k over classes with 1/f_k > t,
  divided by n; success rate (the average risk) = c / n.
* Journalist (the target is someone of the population): a record's risk is 1/F_k. highest = 1/min F_k,
  lowest = 1/max F_k, records at risk = sum of f_k over classes with 1/F_k > t, divided by n; success
  rate = max(c / sum F_k, (sum f_k/F_k) / n).
* Marketer (re-identify as many as possible): success rate = (sum f_k/F_k) / n.

All figures come from the per-class sizes (the shared class summary) and F_k; nothing per record.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np


@dataclass(frozen=True)
class RiskSummary:
    highest: float
    lowest: float
    average: float  # the success rate
    records_at_risk: float  # share of records whose risk exceeds the threshold


@dataclass(frozen=True)
class AttackerRisks:
    threshold: float
    prosecutor: RiskSummary
    journalist: RiskSummary
    marketer: float  # success rate

    def to_dict(self) -> dict:
        return {
            "threshold": self.threshold,
            "prosecutor": asdict(self.prosecutor),
            "journalist": asdict(self.journalist),
            "marketer": {"average": self.marketer},
        }


def attacker_risks(sizes: np.ndarray, population_sizes: np.ndarray | None, threshold: float) -> AttackerRisks:
    """The three models' figures from the class sizes f_k (``sizes``) and F_k (``population_sizes``; None:
    F_k = f_k)."""
    f = np.asarray(sizes, dtype=float)
    big_f = f if population_sizes is None else np.asarray(population_sizes, dtype=float)
    if np.any(big_f < f):
        raise ValueError("a population class is smaller than the release's: the population must contain the release")
    n, c = f.sum(), len(f)
    prosecutor = RiskSummary(
        highest=1.0 / f.min(),
        lowest=1.0 / f.max(),
        average=c / n,
        records_at_risk=float(f[1.0 / f > threshold].sum() / n),
    )
    marketer = float((f / big_f).sum() / n)
    journalist = RiskSummary(
        highest=1.0 / big_f.min(),
        lowest=1.0 / big_f.max(),
        average=max(c / big_f.sum(), marketer),
        records_at_risk=float(f[1.0 / big_f > threshold].sum() / n),
    )
    return AttackerRisks(threshold, prosecutor, journalist, marketer)
