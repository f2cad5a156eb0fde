"""Attacks on a synthetic release after Giomi et al., "A Unified Framework for Quantifying Privacy Risk
in Synthetic Data" (PETS 2023, the anonymeter paper), one per criterion of the Article 29 Working
Party's opinion on anonymisation techniques (WP216): singling out, linkability and inference.

Each attack runs on records of the training table, on control records from the same population that
the generator never saw, and as a naive baseline; :mod:`.rates` turns the three success counts into
Wilson rates and the residual risk ``(r_train - r_control) / (1 - r_control)`` with its interval.

* :func:`singling_out_attack` (:mod:`.singling_out`): predicates that isolate one record;
* :func:`linkability_attack` (:mod:`.linkability`): joining two attribute subsets through the release;
* :func:`inference_attack` (:mod:`.inference`): guessing a secret attribute from the others.
"""

from privaudit.risk.synthetic_attacks.inference import inference_attack
from privaudit.risk.synthetic_attacks.linkability import linkability_attack
from privaudit.risk.synthetic_attacks.rates import AttackOutcome, Risk, SuccessRate, residual_risk, wilson
from privaudit.risk.synthetic_attacks.singling_out import SinglingOutResult, singling_out_attack

__all__ = [
    "AttackOutcome",
    "Risk",
    "SinglingOutResult",
    "SuccessRate",
    "inference_attack",
    "linkability_attack",
    "residual_risk",
    "singling_out_attack",
    "wilson",
]
