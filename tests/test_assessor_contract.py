"""The assessor contract (privaudit.testing.contract) over every registered built-in assessor, as
scikit-learn's ``parametrize_with_checks`` runs its estimator checks: unknown parameters refused, details
that validate against the assessor's Details model, the same figures on every engine it runs on, the class
summary untouched, a report section that renders. The example plugin runs the same contract in its own
tests (plugins/privaudit-likeness/tests/test_likeness_contract.py)."""

from __future__ import annotations

import hashlib

import numpy as np
import pandas as pd
import pytest

from privaudit.pipeline.plugins import DEFAULT_PLUGINS, build_registry, make_manager
from privaudit.testing import parametrize_with_checks
from privaudit.testing.contract import AssessorCase

N = 240


def _table(seed: int, n: int = N) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "age": rng.integers(20, 60, n),
            "sex": rng.choice(["f", "m"], n),
            "zip": rng.choice(["z1", "z2", "z3"], n),
            "job": rng.choice(["a", "b", "c", "d"], n),
            "disease": rng.choice(["flu", "cold", "none"], n, p=[0.2, 0.3, 0.5]),
            "income": rng.integers(10, 100, n) * 1000,
        }
    )


RELEASE = _table(1)
COLUMNS = {
    "age": {"role": "quasi_identifier", "type": "numeric"},
    "sex": {"role": "quasi_identifier"},
    "zip": {"role": "quasi_identifier"},
    "job": {"role": "other"},
    "disease": {"role": "sensitive"},
    "income": {"role": "sensitive", "type": "numeric"},
}
#: a masked release of an original: ages moved by up to 2 years
ORIGINAL = RELEASE.assign(age=RELEASE["age"] + np.random.default_rng(2).integers(-2, 3, N))
#: a synthetic release: the training table's columns shuffled independently, and a holdout
TRAINING, CONTROL = _table(3), _table(4, 150)
SYNTHETIC = pd.DataFrame(
    {c: TRAINING[c].sample(frac=1, random_state=i).to_numpy() for i, c in enumerate(TRAINING.columns)}
).head(200)
#: a holdout as large as the training table, as a fair-coin split gives (the one-run epsilon bound refuses others)
HOLDOUT = _table(6)
#: releases of the same people with a record id: the audited one and an earlier one of 200 of them
SERIES_COLUMNS = {**COLUMNS, "pid": {"role": "record_id"}}
SERIES = RELEASE.assign(pid=np.arange(N))
EARLIER = SERIES.sample(n=200, random_state=7).assign(zip=lambda f: f["zip"].where(f["age"] < 40, "*"))
POPULATION = pd.concat([RELEASE, _table(5, 400)], ignore_index=True)[["age", "sex", "zip"]]


def _case(check: dict, **kwargs) -> AssessorCase:
    return AssessorCase(check, kwargs.pop("frame", RELEASE), kwargs.pop("columns", COLUMNS), **kwargs)


CASES = [
    _case({"assessor": "direct_identifiers"}),
    _case({"assessor": "refining_columns"}),
    _case({"assessor": "safe_harbor", "actual_knowledge_attested": True, "attested_by": "the privacy officer"}),
    _case(
        {"assessor": "pseudonyms", "ranges": [[0, 999]], "years": 1},
        frame=RELEASE.assign(job=[hashlib.sha1(str(i).encode()).hexdigest() for i in range(N)]),
    ),
    _case({"assessor": "undeclared_key_variables", "max_values": 10}),
    _case({"assessor": "k_anonymity", "k": 2}),
    _case({"assessor": "p_sensitive_k_anonymity", "p": 2, "k": 2}),
    _case({"assessor": "l_diversity", "sensitive": "disease", "l": 2}),
    _case({"assessor": "t_closeness", "sensitive": "disease", "t": 0.3}),
    _case({"assessor": "uniqueness", "max_share": 0.1, "sampling_fraction": 0.2}),
    _case({"assessor": "risky_cells"}, policy={"combinations": {"rules": [{"up_to": 2, "k": [3, 2]}]}}),
    _case({"assessor": "interval_disclosure", "p": 10, "max_rate": 0.5}, original=ORIGINAL),
    _case(
        {
            "assessor": "rr_attribute_disclosure",
            "sensitive": "disease",
            "max_risk": 0.9,
            "qi": ["sex", "zip"],
            "randomized": {"disease": {"keep_probability": 0.8}},
        }
    ),
    _case({"assessor": "record_linkage", "method": "probabilistic", "max_rate": 0.5}, original=ORIGINAL),
    _case({"assessor": "distance_to_closest_record"}, frame=SYNTHETIC, original=TRAINING, control=CONTROL),
    _case({"assessor": "suda2", "max_share": 0.5}),
    _case(
        {"assessor": "singling_out", "max_risk": 0.5, "n_attacks": 50},
        frame=SYNTHETIC,
        original=TRAINING,
        control=CONTROL,
    ),
    _case(
        {"assessor": "linkability", "max_risk": 0.5, "n_attacks": 50},
        frame=SYNTHETIC,
        original=TRAINING,
        control=CONTROL,
    ),
    _case(
        {"assessor": "inference", "max_risk": 0.5, "n_attacks": 50, "secret": "disease"},
        frame=SYNTHETIC,
        original=TRAINING,
        control=CONTROL,
    ),
    _case({"assessor": "cap", "min_protection": 0.1}, frame=SYNTHETIC, original=TRAINING),
    _case({"assessor": "synthpop_disclosure", "max_share": 0.5}, frame=SYNTHETIC, original=TRAINING),
    _case(
        {"assessor": "reidentification_risk", "max_risk": 0.5, "population": "population.csv"},
        files={"population.csv": POPULATION.to_csv(index=False)},
    ),
    _case({"assessor": "k_map", "k": 2, "sampling_fraction": 0.3}),
    _case(
        {"assessor": "delta_presence", "delta_max": 0.9, "population": "population.csv"},
        files={"population.csv": POPULATION.to_csv(index=False)},
    ),
    _case({"assessor": "risk_drivers"}),
    _case({"assessor": "model_risk", "max_risk": 100}),
    _case({"assessor": "utility", "measure": "granularity", "min": 0.1}),
    _case(
        {"assessor": "composition", "sensitive": "disease", "l": 2},
        frame=SERIES,
        columns=SERIES_COLUMNS,
        previous=[EARLIER],
    ),
    _case(
        {"assessor": "m_invariance", "sensitive": "disease", "m": 2},
        frame=SERIES,
        columns=SERIES_COLUMNS,
        previous=[EARLIER],
    ),
    _case({"assessor": "membership_inference", "max_auc": 0.9}, frame=SYNTHETIC, original=TRAINING, control=HOLDOUT),
    _case(
        {"assessor": "empirical_epsilon", "claimed_epsilon": 10, "random_split": True},
        frame=SYNTHETIC,
        original=TRAINING,
        control=HOLDOUT,
    ),
]


@pytest.fixture(scope="module")
def builtins():
    """The built-in assessors only (an installed plugin runs the contract in its own tests)."""
    return build_registry(make_manager(load_entry_points=False))


def test_every_builtin_assessor_has_a_case(builtins):
    assert sorted(builtins.assessors) == sorted(c.assessor for c in CASES)
    assert all(m.startswith("privaudit.") for m in DEFAULT_PLUGINS)


@parametrize_with_checks(CASES)
def test_contract(case, check, builtins):
    check(case, builtins)
