"""Attribute-inference attack on a synthetic release (Giomi et al., PETS 2023, the section on the
inference attack; the Article 29 Working Party's third criterion, WP216 § 3).

The attacker knows a target's auxiliary attributes and wants its ``secret``: they take the synthetic
record nearest to the target's auxiliary part (Gower distance, see
:mod:`~privaudit.risk.synthetic_attacks.linkability`) and guess its secret. A categorical guess is right
when it equals the secret; a numeric one when ``|guess - secret| <= tolerance * |secret|`` (``tolerance``
0: exactly); a missing secret is guessed right by a missing value. The attack runs on ``n_attacks``
training records and on as many control records; the naive baseline guesses, for the training targets,
the secrets of randomly drawn synthetic records. The risk is
:func:`~privaudit.risk.synthetic_attacks.rates.residual_risk` of the two rates. The nearest record is
found exactly (:mod:`.neighbours`: a join on the categorical values, then a screen of the release's
distinct records).

anonymeter's own check of a numeric guess divides by the guess rather than by the secret (and 1.1 makes
numeric secrets exact-match unless ``regression=True``); here the relative error is taken against the
secret, which is the quantity the attacker wants.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from privaudit.risk.synthetic_attacks.linkability import numeric_ranges
from privaudit.risk.synthetic_attacks.neighbours import gower_neighbours
from privaudit.risk.synthetic_attacks.rates import AttackOutcome, fewer_targets, outcome
from privaudit.risk.synthetic_attacks.shared import EncodedTables


def correct_guesses(guesses: np.ndarray, secrets: np.ndarray, numeric: bool, tolerance: float = 0.05) -> np.ndarray:
    """Per target, whether the guess is right (both arrays encoded: codes or values, NaN missing)."""
    both_missing = np.isnan(guesses) & np.isnan(secrets)
    if numeric and tolerance > 0:
        with np.errstate(invalid="ignore"):
            right = np.abs(guesses - secrets) <= tolerance * np.abs(secrets)
    else:
        right = guesses == secrets
    return right | both_missing


def inference_attack(
    training: pd.DataFrame,
    synthetic: pd.DataFrame,
    control: pd.DataFrame,
    aux_columns: Sequence[str],
    secret: str,
    numeric: Mapping[str, bool],
    *,
    n_attacks: int = 500,
    tolerance: float = 0.05,
    confidence_level: float = 0.95,
    seed: int = 0,
    tables: EncodedTables | None = None,
) -> AttackOutcome:
    """Run the inference attack for ``secret`` from ``aux_columns`` on ``n_attacks`` training and control
    records (fewer when a table is smaller) and the naive baseline; ``tables``: the three tables already
    encoded (shared by the checks of an audit, :mod:`.shared`)."""
    aux = list(aux_columns)
    columns = [*aux, secret]
    if tables is None or not tables.holds(synthetic, training, control):
        tables = EncodedTables(synthetic, training, control)
    syn, train, ctrl = tables.matrices(columns, numeric)
    mask = np.array([bool(numeric[c]) for c in columns])
    ranges = numeric_ranges([syn, train, ctrl], mask)
    rng = np.random.default_rng(seed)
    priority = rng.permutation(len(syn))
    s = len(aux)
    is_numeric = bool(numeric[secret])

    def attack(targets: np.ndarray) -> int:
        idx, _ = gower_neighbours(targets[:, :s], syn[:, :s], mask[:s], ranges[:s], 1, priority)
        return int(correct_guesses(syn[idx[:, 0], s], targets[:, s], is_numeric, tolerance).sum())

    train_targets = train[rng.choice(len(train), size=min(n_attacks, len(train)), replace=False)]
    control_targets = ctrl[rng.choice(len(ctrl), size=min(n_attacks, len(ctrl)), replace=False)]
    n_success, n_control = attack(train_targets), attack(control_targets)
    n_base = min(len(train_targets), len(syn))
    drawn = syn[rng.choice(len(syn), size=n_base, replace=False), s]
    n_baseline = int(correct_guesses(drawn, train_targets[:n_base, s], is_numeric, tolerance).sum())
    return outcome(
        n_success,
        len(train_targets),
        n_control,
        len(control_targets),
        n_baseline,
        n_base,
        confidence_level,
        fewer_targets(len(train_targets), len(control_targets), n_attacks),
    )
