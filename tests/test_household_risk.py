"""Household (hierarchical) risk: sdcMicro's measure_risk with hid, fast_hier = TRUE
(R/measure_risk.R): R_h = 1 - prod(1 - r_i) over the members, hier_risk_ER = sum over records of their
household's R_h, hier_risk = ER / n. sdcMicro's test suite publishes no hier_risk figure, so the golden
case is worked by hand from that definition."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from privaudit.risk.household import household_risk
from privaudit.testing import run_cli

# classes on (age, sex): A = (30, m) 3 records, B = (40, f) 2 records, C = (50, f) 1 record
FRAME = pd.DataFrame(
    {
        "hh": ["h1", "h1", "h2", "h2", "h3", "h3"],
        "age": ["30", "40", "30", "40", "30", "50"],
        "sex": ["m", "f", "m", "f", "m", "f"],
    }
)


def test_hand_computed_household_risk():
    r = np.array([1 / 3, 1 / 2, 1 / 3, 1 / 2, 1 / 3, 1.0])
    class_of = np.array([0, 1, 0, 1, 0, 2])
    h = household_risk(FRAME["hh"], r, class_of)
    both = 1 - (1 - 1 / 3) * (1 - 1 / 2)  # h1 and h2: 2/3
    assert h.households == 3 and h.max_household_risk == 1.0  # h3 holds a sample unique
    assert h.expected_reidentifications == pytest.approx(2 * both + 2 * both + 2 * 1.0)
    assert h.global_risk == pytest.approx(h.expected_reidentifications / 6)
    assert h.household_k == 1  # class C holds one household; A holds 3, B holds 2
    np.testing.assert_allclose(h.record_risk, [both, both, both, both, 1, 1])


POLICY = {
    "version": 1,
    "name": "households",
    "columns": {
        "hh": {"role": "household_id"},
        "age": {"role": "quasi_identifier"},
        "sex": {"role": "quasi_identifier"},
    },
    "checks": [{"id": "u", "assessor": "uniqueness", "max_share": 1}],
}


def test_cli_end_to_end(tmp_path):
    FRAME.to_csv(tmp_path / "d.csv", index=False)
    (tmp_path / "p.yaml").write_text(json.dumps(POLICY))
    out = tmp_path / "r.json"
    result = run_cli(
        "audit",
        tmp_path / "d.csv",
        "--policy",
        tmp_path / "p.yaml",
        "--json",
        out,
        "--records",
        tmp_path / "rec.csv",
        "--quiet",
    )
    assert result.code == 0, result.stderr
    household = next(c for c in json.loads(out.read_text())["checks"] if c["id"] == "u")["details"]["household"]
    assert household["households"] == 3 and household["household_k"] == 1
    assert household["expected_reidentifications"] == pytest.approx(4 * (2 / 3) + 2)
    records = pd.read_csv(tmp_path / "rec.csv")
    np.testing.assert_allclose(records["household_risk:u"], [2 / 3] * 4 + [1, 1])


def test_a_missing_household_id_and_other_engines(tmp_path):
    FRAME.assign(hh=["h1", "", "h2", "h2", "h3", "h3"]).to_csv(tmp_path / "d.csv", index=False)
    (tmp_path / "p.yaml").write_text(json.dumps(POLICY))
    out = tmp_path / "r.json"
    result = run_cli("audit", tmp_path / "d.csv", "--policy", tmp_path / "p.yaml", "--json", out, "--quiet")
    assert result.code == 2 and result.stderr.count("\n") == 1 and "row 2 has no household id" in result.stderr
    assert not out.exists()  # bad input: nothing written
    FRAME.to_csv(tmp_path / "d.csv", index=False)
    result = run_cli(
        "audit", tmp_path / "d.csv", "--policy", tmp_path / "p.yaml", "--json", out, "--quiet", "--engine", "chunked"
    )
    # an engine that cannot serve the check: one line naming the column and the way out, as for any check the
    # engine cannot run (pipeline.audit.refuse_unrunnable), and no report
    assert result.code == 2 and result.stderr.count("\n") == 1, result.stderr
    assert "household risk (column 'hh', role household_id) needs the records: use --engine in-process" in result.stderr
    assert not out.exists()
