"""Success rates of an attack and the privacy risk they imply (Giomi et al., PETS 2023, the section on
risk estimation; the statistics are Wilson's, JASA 22, 1927).

An attack is ``n`` Bernoulli trials with ``s`` successes. Its success rate is Wilson's score estimate
``r = (s + z^2/2) / (n + z^2)`` with the half-width ``e = z / (n + z^2) * sqrt(s (n - s) / n + z^2/4)``,
where ``z`` is the standard normal quantile of ``(1 + confidence_level) / 2``; unlike the plain ``s/n``
it stays inside (0, 1) and keeps a usable interval when ``s`` is 0 or ``n``.

The same attack is run against the training records (rate ``r_train``) and against control records
that the generator never saw (``r_control``). What the release teaches about its training records
beyond what it teaches about anybody from the same population is the residual risk

    R = (r_train - r_control) / (1 - r_control)

(the share of the control attack's failures that the training attack turns into successes). Its
confidence interval propagates both half-widths to first order,
``e_R = sqrt((e_train / (1 - r_control))^2 + (e_control (r_train - 1) / (1 - r_control)^2)^2)``; the
point estimate and the interval are then clipped to [0, 1]. A third attack, the naive baseline
(guessing without the release), tells whether the attack works at all: when the attack does no better
than it, a low risk means a weak attack rather than a safe release.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from scipy.stats import norm


def z_score(confidence_level: float) -> float:
    """The two-sided standard normal quantile of ``confidence_level`` (1.96 for 0.95)."""
    if not 0.0 < confidence_level < 1.0:
        raise ValueError(f"confidence_level must lie strictly between 0 and 1, not {confidence_level}")
    return float(norm.ppf(0.5 * (1.0 + confidence_level)))


@dataclass(frozen=True)
class SuccessRate:
    """Wilson's estimate of a success rate: ``value`` ± ``error`` (``lower``/``upper`` clipped to [0, 1])."""

    value: float
    error: float
    successes: float
    trials: int

    @property
    def lower(self) -> float:
        return min(max(self.value - self.error, 0.0), 1.0)

    @property
    def upper(self) -> float:
        return min(max(self.value + self.error, 0.0), 1.0)

    def to_dict(self) -> dict:
        return {"value": self.value, "ci": [self.lower, self.upper], "successes": self.successes, "trials": self.trials}


def wilson(successes: float, trials: int, confidence_level: float = 0.95) -> SuccessRate:
    """Wilson's score estimate of the success rate of ``trials`` attacks of which ``successes`` worked.

    ``successes`` may be fractional (a singling-out control count rescaled to the training table's size)."""
    if trials < 1:
        raise ValueError("an attack needs at least one trial")
    if not 0 <= successes <= trials:
        raise ValueError(f"successes ({successes}) must lie between 0 and the number of trials ({trials})")
    z = z_score(confidence_level)
    z2 = z * z
    denominator = trials + z2
    value = (successes + 0.5 * z2) / denominator
    error = z / denominator * math.sqrt(successes * (trials - successes) / trials + 0.25 * z2)
    return SuccessRate(float(value), float(error), successes, int(trials))


@dataclass(frozen=True)
class Risk:
    """A privacy risk: the point estimate and its confidence interval, clipped to [0, 1]; ``raw`` is the
    estimate before clipping (negative when the control records were easier to attack)."""

    value: float
    lower: float
    upper: float
    raw: float

    def to_dict(self) -> dict:
        return {"value": self.value, "ci": [self.lower, self.upper], "raw": self.raw}


def _clipped(estimate: float, error: float) -> Risk:
    def clip(x: float) -> float:
        return min(max(x, 0.0), 1.0)

    return Risk(clip(estimate), clip(estimate - error), clip(estimate + error), float(estimate))


def residual_risk(attack: SuccessRate, control: SuccessRate) -> Risk:
    """``R = (r_train - r_control) / (1 - r_control)`` with the first-order propagated interval."""
    margin = 1.0 - control.value  # > 0: a Wilson estimate never reaches 1
    estimate = (attack.value - control.value) / margin
    error = math.hypot(attack.error / margin, control.error * (attack.value - 1.0) / margin**2)
    return _clipped(estimate, error)


@dataclass(frozen=True)
class AttackOutcome:
    """The three attacks of one evaluation and the risk they imply.

    ``attack``: the attack on the training records; ``control``: the same attack on control records;
    ``baseline``: the naive attacker on the training records. ``notes`` holds warnings for the report
    (fewer attacks than requested, an attack no better than the baseline ...)."""

    attack: SuccessRate
    control: SuccessRate
    baseline: SuccessRate
    risk: Risk
    confidence_level: float
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def beats_baseline(self) -> bool:
        """Whether the attack does better than the naive baseline (else its risk cannot be trusted)."""
        return self.attack.value > self.baseline.value

    def to_dict(self) -> dict:
        return {
            "risk": self.risk.to_dict(),
            "attack_rate": self.attack.to_dict(),
            "control_rate": self.control.to_dict(),
            "baseline_rate": self.baseline.to_dict(),
            "n_attacks": {
                "training": self.attack.trials,
                "control": self.control.trials,
                "baseline": self.baseline.trials,
            },
            "confidence_level": self.confidence_level,
            "beats_baseline": self.beats_baseline,
            "notes": list(self.notes),
        }


def fewer_targets(n_training: int, n_control: int, n_attacks: int) -> tuple[str, ...]:
    """The note an attack's outcome carries when a table holds fewer records than ``n_attacks``."""
    if n_training >= n_attacks and n_control >= n_attacks:
        return ()
    return (
        f"{n_training} training and {n_control} control records attacked "
        f"(n_attacks {n_attacks} is more than a table holds)",
    )


def outcome(
    n_success: float,
    n_attacks: int,
    n_control: float,
    n_control_attacks: int,
    n_baseline: float,
    n_baseline_attacks: int,
    confidence_level: float = 0.95,
    notes: tuple[str, ...] = (),
) -> AttackOutcome:
    """The rates of the three attacks from their counts, and the residual risk."""
    attack = wilson(n_success, n_attacks, confidence_level)
    control = wilson(n_control, n_control_attacks, confidence_level)
    baseline = wilson(n_baseline, n_baseline_attacks, confidence_level)
    extra = (
        []
        if attack.value > baseline.value
        else [
            f"the attack does no better than the naive baseline (attack rate {attack.value:.3f}, baseline "
            f"{baseline.value:.3f}): a low risk here reflects a weak attack, not a safe release"
        ]
    )
    return AttackOutcome(
        attack, control, baseline, residual_risk(attack, control), confidence_level, tuple([*notes, *extra])
    )
