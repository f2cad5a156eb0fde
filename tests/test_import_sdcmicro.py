"""``privaudit init DATA --from-sdcmicro FILE.rds``: an sdcMicro setup imported into a policy.

Fixtures made by ``tests/peers/sdcmicro_setup.R`` with sdcMicro 5.8.1 (tests/data/sdcmicro/VERSION) on the
first 300 records of its ``testdata``: ``setup.rds`` (the sdcMicroObj of ``createSdcObj(keyVars = urbrur,
roof, sex, age; numVars = expend, income, savings; weightVar = sampling_weight; hhId = ori_hid; sensibleVar =
income; pramVars = walls)``, saved with saveRDS), ``setup.roles.rds`` (the same setup exported by the one line
of R docs/import.md gives) and ``figures.csv`` (sdcMicro's own ``sdc@risk$global`` and the sample uniques
``sum(sdc@risk$individual[, "fk"] == 1)`` of the setup).
"""

from __future__ import annotations

import json
import shutil

import pandas as pd
import pytest
import yaml
from conftest import ROOT

from privaudit.testing import run_cli

SDC = ROOT / "tests" / "data" / "sdcmicro"


def _copy(tmp_path):
    for name in ("testdata300.csv", "setup.rds", "setup.roles.rds"):
        shutil.copy(SDC / name, tmp_path / name)
    return tmp_path / "testdata300.csv"


@pytest.mark.slow
def test_s4_object_is_refused_in_one_line_with_the_workaround(tmp_path):
    data = _copy(tmp_path)
    result = run_cli("init", data, "--from-sdcmicro", tmp_path / "setup.rds")
    assert result.code == 2 and result.stderr.count("\n") == 1
    assert "setup.rds: holds an S4 object or a list (an sdcMicroObj" in result.stderr
    assert "s@keyVars" in result.stderr and not (tmp_path / "testdata300.policy.yaml").exists()
    (tmp_path / "junk.rds").write_bytes(b"not R at all")
    result = run_cli("init", data, "--from-sdcmicro", tmp_path / "junk.rds")
    assert result.code == 2 and "junk.rds: not an R data file pyreadr can read" in result.stderr


@pytest.mark.slow
def test_exported_setup_maps_and_audits_as_sdcmicro_measures(tmp_path):
    data = _copy(tmp_path)
    result = run_cli("init", data, "--from-sdcmicro", tmp_path / "setup.roles.rds")
    assert result.code == 0, result.stderr
    policy = yaml.safe_load((tmp_path / "testdata300.policy.yaml").read_text())
    roles = {n: c["role"] for n, c in policy["columns"].items()}
    assert [roles[c] for c in ("urbrur", "roof", "sex", "age")] == ["quasi_identifier"] * 4
    assert (roles["sampling_weight"], roles["ori_hid"], roles["income"]) == ("weight", "household_id", "sensitive")
    assert "not mapped: walls: pramVars" in result.stdout
    uniqueness = next(c for c in policy["checks"] if c["assessor"] == "uniqueness")
    assert uniqueness["quasi_identifiers"] == ["urbrur", "roof", "sex", "age"]
    figures = pd.read_csv(SDC / "figures.csv").set_index("figure")["value"]
    assert f"keyVars: 27.7% ({int(figures['sample_uniques'])} records)" in result.stdout
    policy["checks"] = [{**uniqueness, "id": "risk", "max_share": 1.0}]
    (tmp_path / "p.yaml").write_text(yaml.safe_dump(policy))
    audit = run_cli("audit", data, "--policy", tmp_path / "p.yaml", "--json", tmp_path / "r.json")
    assert audit.code in (0, 1), audit.stderr
    details = next(c for c in json.loads((tmp_path / "r.json").read_text())["checks"] if c["id"] == "risk")["details"]
    assert details["sample_uniques"] == figures["sample_uniques"]
    assert details["global_risk"] == pytest.approx(figures["risk"], rel=1e-9)
    assert details["expected_reidentifications"] == pytest.approx(figures["risk_ER"], rel=1e-9)
    assert details["household"]["global_risk"] == pytest.approx(figures["hier_risk"], rel=1e-6)
