"""The synthetic checks of one audit encode the three tables once (risk/synthetic_attacks/shared.py) and
report what separate audits report; the shared distinct rows are those ``drop_duplicates`` keeps."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from privaudit.pipeline.audit import run_audit
from privaudit.risk.synthetic_attacks import shared
from privaudit.risk.synthetic_attacks.linkability import encode
from privaudit.risk.synthetic_attacks.shared import EncodedTables

COLUMNS = ["age", "income", "zip", "job", "sex", "disease"]
POLICY = {
    "version": 1,
    "name": "synthetic",
    "columns": {
        "age": {"role": "quasi_identifier", "type": "numeric"},
        "income": {"role": "quasi_identifier", "type": "numeric"},
        "zip": {"role": "quasi_identifier"},
        "job": {"role": "quasi_identifier"},
        "sex": {"role": "quasi_identifier"},
        "disease": {"role": "sensitive"},
    },
}
CHECKS = [
    {"id": "so", "assessor": "singling_out", "n_attacks": 60, "max_risk": 0.3},
    {"id": "so1", "assessor": "singling_out", "mode": "univariate", "n_attacks": 60, "max_risk": 0.3},
    {
        "id": "link",
        "assessor": "linkability",
        "n_attacks": 100,
        "max_risk": 0.3,
        "n_neighbors": 3,
        "aux_columns": [["age", "income"], ["zip", "job", "sex"]],
    },
    {"id": "inf", "assessor": "inference", "secret": "disease", "n_attacks": 100, "max_risk": 0.3},
]


def people(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "age": rng.integers(18, 40, n),
            "income": rng.integers(0, 8, n) * 1000,
            "zip": [f"z{z}" for z in rng.integers(0, 6, n)],
            "job": [f"j{j}" for j in rng.integers(0, 4, n)],
            "sex": rng.choice(["F", "M"], n),
            "disease": [f"d{d}" for d in rng.integers(0, 3, n)],
        }
    )


@pytest.fixture(scope="module")
def tables():
    train, control = people(400, 1), people(400, 2)
    synthetic = pd.concat([train.iloc[:200], people(200, 3)], ignore_index=True)
    return synthetic, train, control


def _figures(result) -> dict:
    return {c.id: (c.status, c.value, c.message, c.details) for c in result.checks}


def test_one_audit_encodes_each_column_once_and_reports_what_separate_audits_do(tables, monkeypatch):
    synthetic, train, control = tables
    calls: list[bool] = []
    original = shared.encode_column

    def counted(columns, numeric):
        calls.append(numeric)
        return original(columns, numeric)

    monkeypatch.setattr(shared, "encode_column", counted)
    together = _figures(run_audit(synthetic, {**POLICY, "checks": CHECKS}, original=train, control=control))
    assert len(calls) == len(COLUMNS)  # four checks, every column encoded once
    calls.clear()
    apart = {}
    for check in CHECKS:
        apart.update(_figures(run_audit(synthetic, {**POLICY, "checks": [check]}, original=train, control=control)))
    assert len(calls) > len(COLUMNS)
    assert together == apart


def test_shared_distinct_rows_are_those_drop_duplicates_keeps():
    # numbers as text ("7" and "7.0" are different records, equal numbers), missing values, a categorical
    # column with other categories in one frame, an integer column read as numeric
    a = pd.DataFrame(
        {
            "n": ["7", "7.0", "7", None, "x", "y", "7"],
            "c": ["a", "b", "a", None, None, "b", "a"],
            "i": [1, 2, 1, 3, 3, 2, 1],
        }
    )
    b = pd.DataFrame(
        {
            "n": [7.0, np.nan, 7.0, -0.0, 0.0, np.nan],
            "c": pd.Categorical(["b", "z", "b", "a", "a", "z"]),
            "i": [5, 5, 5, 6, 6, 7],
        }
    )
    c = pd.DataFrame({"n": [1.5, 1.5], "c": pd.Categorical(["a", "a"], categories=["a", "q"]), "i": [1, 1]})
    numeric = {"n": True, "c": False, "i": True}
    for columns in (["n", "c", "i"], ["c"], ["i", "n"]):
        expected = encode([f[columns].drop_duplicates() for f in (a, b, c)], columns, numeric)
        got = EncodedTables(a, b, c).distinct_matrices(columns, numeric)
        for e, g in zip(expected, got, strict=False):
            np.testing.assert_array_equal(e, g)


def test_tables_of_a_context_are_built_once_and_follow_its_tables(tables):
    from privaudit.core.context import AuditContext

    synthetic, train, control = tables
    ctx = AuditContext(policy=None, table=synthetic, training=train, control=control)
    first = shared.tables_of(ctx)
    assert shared.tables_of(ctx) is first
    ctx.control = control.copy()
    assert shared.tables_of(ctx) is not first
