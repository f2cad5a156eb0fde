"""model_risk: the log-linear model risk of sdcMicro's modRisk. Golden figures: sdcMicro
tests/testthat/test_modRisks.R (github.com/sdcTools/sdcMicro), whose data is drawn by R's set.seed(123) and
runif; the draws are R's documented Mersenne-Twister values for that seed, and the test data rebuilt from
them reproduces the test's own fitted values (0.1, 0.1, 0.2, ... of the main-effects model), so every figure
below is sdcMicro's."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from privaudit.risk.loglinear import model_risk
from privaudit.testing import assert_section_renders, audit_frame, check_result, run_cli

U1 = [0.2875775, 0.7883051, 0.4089769, 0.8830174, 0.9404673, 0.0455565, 0.5281055, 0.8924190, 0.5514350, 0.4566147]
U2 = [0.9568333, 0.4533342, 0.6775706, 0.5726334, 0.1029247, 0.8998250, 0.2460877, 0.0420595, 0.3279207, 0.9545036]
U3 = [0.8895393, 0.6928034, 0.6405068, 0.9942698, 0.6557058, 0.7085305, 0.5440660, 0.5941420, 0.2891597, 0.1471136]
SAMPLE = pd.DataFrame(
    {
        "Var1": ["ABC"[int(round(1 + 2 * u)) - 1] for u in U1],
        "Var2": [str(int(round(1 + u))) for u in U2],
        "Var3": [str(int(round(1 + 4 * u))) for u in U3],
        "weights": 100.0,
    }
)
VARS = ["Var1", "Var2", "Var3"]


@pytest.mark.parametrize(
    "method, tau1, tau2, bound_tau1, bound_tau2",
    [
        ("default", 0.553, 0.705, 0.622, 0.794),
        ("CE", 0.542, 0.699, 0.609, 0.786),
        ("PML", 0.553, 0.705, 0.622, 0.794),
        ("weightedLLM", 0.408, 0.613, 0.459, 0.690),
        ("IPF", 0.552916, 0.7053842, 0.622, 0.794),
    ],
)
def test_sdcmicro_published_figures(method, tau1, tau2, bound_tau1, bound_tau2):
    w = SAMPLE["weights"].to_numpy()
    r = model_risk(SAMPLE, VARS, w, method)
    digits = 6 if method == "IPF" else 3
    assert round(r.tau1, digits) == tau1 and round(r.tau2, 7 if method == "IPF" else 3) == tau2
    b = model_risk(SAMPLE, VARS, w, method, bound=1.5)
    assert (round(b.tau1, 3), round(b.tau2, 3)) == (bound_tau1, bound_tau2)


POLICY = {
    "columns": {
        "Var1": {"role": "quasi_identifier"},
        "Var2": {"role": "quasi_identifier"},
        "Var3": {"role": "quasi_identifier"},
        "weights": {"role": "weight", "type": "numeric"},
    },
    "checks": [{"id": "m", "assessor": "model_risk", "method": "CE", "max_risk": 0.5}],
}


def test_the_assessor_and_the_cli(tmp_path):
    check = check_result(audit_frame(SAMPLE, POLICY), "m")
    assert round(check["value"], 3) == 0.542 and check["status"] == "fail"
    assert check["details"]["weight_column"] == "weights"
    SAMPLE.to_csv(tmp_path / "d.csv", index=False)
    (tmp_path / "p.yaml").write_text(json.dumps({"version": 1, "name": "m", **POLICY}))
    out = tmp_path / "r.json"
    result = run_cli("audit", tmp_path / "d.csv", "--policy", tmp_path / "p.yaml", "--json", out, "--quiet")
    assert result.code == 1
    assert (
        round(next(c for c in json.loads(out.read_text())["checks"] if c["id"] == "m")["details"]["tau2"], 3) == 0.699
    )
    assert_section_renders(audit_frame(SAMPLE, POLICY), "m")


def test_bad_input_is_one_line(tmp_path):
    SAMPLE.to_csv(tmp_path / "d.csv", index=False)
    bad = {**POLICY, "checks": [{"assessor": "model_risk", "max_risk": 1, "variables": ["nope"]}]}
    (tmp_path / "p.yaml").write_text(json.dumps({"version": 1, "name": "m", **bad}))
    result = run_cli("audit", tmp_path / "d.csv", "--policy", tmp_path / "p.yaml")
    assert result.code == 2 and result.stderr.count("\n") == 1 and "'nope' is not a column" in result.stderr


def test_closed_form_equals_the_irls_fit():
    """The independence model in closed form (default) equals IRLS on the full grid without an offset."""
    from privaudit.risk.loglinear import _cells, _grid_fit, _independence

    rng = np.random.default_rng(3)
    frame = pd.DataFrame(
        {"a": rng.choice(list("xyz"), 60), "b": rng.choice(list("pq"), 60), "c": rng.choice(list("123"), 60)}
    )
    cells = _cells(frame, ["a", "b", "c"], np.ones(60))
    closed = _independence(cells, ["a", "b", "c"], cells["counts"].to_numpy(dtype=float))
    full = _grid_fit(cells.assign(weights=0.0), ["a", "b", "c"], "default")
    np.testing.assert_allclose(closed, full, rtol=1e-6)
