"""k_anonymity with ``count: households``: k counted in entities (the policy's household_id column), as
sdcMicro's household-level view counts households (:mod:`privaudit.risk.household`). A panel's yearly records
of one person (AER's PSID7682: 7 records per person, tests/data/surveys/PROVENANCE.md) are one person: a class
of 7 records can be one person alone."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import yaml

from privaudit.testing import run_cli

DATA = Path(__file__).parent / "data" / "surveys" / "PSID7682.csv"


def _policy(tmp_path, count: str | None, household: bool = True) -> Path:
    check = {"id": "k", "assessor": "k_anonymity", "k": 3, **({"count": count} if count else {})}
    columns = {"sex": {"role": "quasi_identifier"}, "region": {"role": "quasi_identifier"}}
    if household:
        columns["person"] = {"role": "household_id"}
    path = tmp_path / "policy.yaml"
    path.write_text(yaml.safe_dump({"version": 1, "name": "panel", "columns": columns, "checks": [check]}))
    return path


def _panel(tmp_path) -> Path:
    # persons 1 and 2 share (F, north) over 4 waves each: 8 records, 2 persons; persons 3..5 share (M, south)
    rows = [(p, "F", "north") for p in (1, 2) for _ in range(4)] + [(p, "M", "south") for p in (3, 4, 5)]
    path = tmp_path / "panel.csv"
    pd.DataFrame(rows, columns=["person", "sex", "region"]).to_csv(path, index=False)
    return path


def test_a_class_of_many_records_from_two_persons_fails_when_persons_are_counted(tmp_path):
    data, out = _panel(tmp_path), tmp_path / "r.json"
    records = run_cli("audit", data, "--policy", _policy(tmp_path, None), "--json", out)
    assert records.code == 0, records.stderr  # 8 and 3 records: k = 3 holds counted in records
    persons = run_cli("audit", data, "--policy", _policy(tmp_path, "households"), "--json", out)
    assert persons.code == 1
    (check,) = [c for c in json.loads(out.read_text())["checks"] if c["id"] == "k"]
    assert (
        check["value"] == 2 and check["details"]["records_below_k"] == 8 and check["details"]["count"] == "households"
    )
    assert "fewer than k=3 households" in check["message"]


def test_count_households_without_a_household_id_is_one_line(tmp_path):
    result = run_cli("audit", _panel(tmp_path), "--policy", _policy(tmp_path, "households", household=False))
    assert result.code == 2 and len(result.stderr.strip().splitlines()) == 1
    assert "count: households needs a column of role household_id" in result.stderr


def test_init_counts_persons_in_a_panel(tmp_path):
    """PSID7682's ``id`` repeats over the years: init drafts it household_id and k counted in persons, and
    the audit's smallest class is the persons pandas counts."""
    data = tmp_path / "psid.csv"
    data.write_bytes(DATA.read_bytes())
    policy = tmp_path / "policy.yaml"
    assert run_cli("init", data, "--out", policy).code == 0
    drafted = yaml.safe_load(policy.read_text())
    assert drafted["columns"]["id"]["role"] == "household_id"
    k_checks = [c for c in drafted["checks"] if c["assessor"] == "k_anonymity"]
    assert k_checks and all(c.get("count") == "households" for c in k_checks)
    out = tmp_path / "r.json"
    run_cli("audit", data, "--policy", policy, "--json", out)
    found = {c["id"]: c for c in json.loads(out.read_text())["checks"]}
    frame = pd.read_csv(DATA)
    for check in k_checks:
        keys = check.get("quasi_identifiers") or [
            c for c, s in drafted["columns"].items() if s["role"] == "quasi_identifier"
        ]
        persons = frame.groupby(keys, dropna=False)["id"].nunique().min()
        assert found[check["id"]]["value"] == persons
