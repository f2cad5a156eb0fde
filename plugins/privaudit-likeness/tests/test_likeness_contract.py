"""privaudit's assessor contract on the plugin's assessors (privaudit.testing.parametrize_with_checks):
unknown parameters refused, details that validate against their Details models, the same figures on every
engine, the class summary untouched, a section that renders. And the capabilities they declare: the
class-based remediators (generalize, suppress) steer them through their per-class violations."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

from privaudit.testing import AssessorCase, parametrize_with_checks, registry_with
from privaudit_likeness import beta_likeness, delta_disclosure

RNG = np.random.default_rng(7)
FRAME = pd.DataFrame(
    {
        "age": RNG.integers(20, 30, 300).astype(str),
        "zip": RNG.choice(["z1", "z2", "z3", "z4"], 300),
        "disease": RNG.choice(["flu", "cold", "none", "hiv"], 300, p=[0.3, 0.3, 0.3, 0.1]),
    }
)
COLUMNS = {"age": {"role": "quasi_identifier"}, "zip": {"role": "quasi_identifier"}, "disease": {"role": "sensitive"}}
CASES = [
    AssessorCase({"assessor": "beta_likeness", "sensitive": "disease", "beta": 2}, FRAME, COLUMNS),
    AssessorCase(
        {"assessor": "beta_likeness", "sensitive": "disease", "beta": 2, "variant": "enhanced"}, FRAME, COLUMNS
    ),
    AssessorCase({"assessor": "delta_disclosure", "sensitive": "disease", "delta": 1.5}, FRAME, COLUMNS),
]


@pytest.fixture(scope="module")
def registry():
    return registry_with(beta_likeness, delta_disclosure)


@parametrize_with_checks(CASES)
def test_contract(case, check, registry):
    check(case, registry)


def test_declared_capabilities(registry):
    for name in ("beta_likeness", "delta_disclosure"):
        assessor = registry.assessors[name]
        assert assessor.details is not None and assessor.class_violations is not None
        rule = assessor.rule(None, None)
        assert rule is not None and not rule.monotone and not rule.exact and rule.min_size is None


def test_generalization_steers_a_likeness_check(tmp_path, registry):
    """Generalization aims at the plugin's check through what it declares (per-class violations, a class rule
    that is neither monotone nor exact), as it aims at the built-in t-closeness declaring the same: the
    remediated table passes."""
    from privaudit.pipeline.remediate import remediate

    frame = pd.DataFrame(
        {
            "zip": ["z1"] * 10 + ["z2"] * 10 + ["z3"] * 10 + ["z4"] * 10,
            "disease": list("AAAAAAAAAB" + "BBBBBBBBBA" + "AAAAAAAAAB" + "BBBBBBBBBA"),
        }
    )
    frame.to_csv(tmp_path / "data.csv", index=False)
    (tmp_path / "zip.csv").write_text("z1;all\nz2;all\nz3;all\nz4;all\n")
    (tmp_path / "policy.yaml").write_text(
        "version: 1\nname: steer\ncolumns:\n  zip: {role: quasi_identifier, hierarchy: zip.csv}\n"
        "  disease: {role: sensitive}\nchecks:\n  - {id: beta, assessor: beta_likeness, sensitive: disease, beta: 0.5}\n"
    )
    outcome = remediate(
        tmp_path / "data.csv", tmp_path / "policy.yaml", tmp_path / "out.csv", method="generalize", registry=registry
    )
    assert [c.status for c in outcome.before.checks if c.id == "beta"] == ["fail"]
    assert outcome.offered and [c.status for c in outcome.after.checks if c.id == "beta"] == ["pass"]
    assert set(pd.read_csv(io.BytesIO(outcome.output))["zip"]) == {"all"}
