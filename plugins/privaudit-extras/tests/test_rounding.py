"""The ``round`` remediator (µ-ARGUS rounding: Hundepool et al. 2012, section 3.4.2.3): values by hand, the
candidates it declares for ``remediate --explore`` (privaudit/plugin/remediator.py's explore contract), and
through ``privaudit remediate``: its output audits again under the policy and is offered."""

from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from privaudit_extras import rounding
from privaudit_extras.rounding import RoundOptions, candidate_bases, explore, round_values, run

from privaudit.plugin.remediator import ExploreRequest
from privaudit.testing import audit_context, registry_with, run_cli

COLUMNS = {"age": {"role": "quasi_identifier", "type": "numeric"}, "zip": {"role": "quasi_identifier"}}


def test_values_by_hand():
    got = round_values([0.0, 2.4, 2.5, 7.5, 12.0, -3.0, np.nan, 0.3], 5)
    assert got[:6].tolist() == [0.0, 0.0, 0.0, 10.0, 10.0, -5.0]  # 2.5 → 0 and 7.5 → 10: halves to the even multiple
    assert np.isnan(got[6]) and got[7] == 0.0
    assert round_values([0.31, 0.29, 1.04], 0.1).tolist() == [0.3, 0.3, 1.0]  # no 0.30000000000000004


def test_run_rounds_only_numeric_quasi_identifiers():
    frame = pd.DataFrame({"age": [21.0, 24.0, 26.0, np.nan], "zip": ["a", "b", "a", "b"]})
    ctx = audit_context(frame, {"columns": COLUMNS})
    done = run(ctx, RoundOptions(base=5))
    assert done.table["age"].tolist()[:3] == [20.0, 25.0, 25.0] and np.isnan(done.table["age"].iloc[3])
    assert done.table["zip"].tolist() == ["a", "b", "a", "b"]
    assert done.changes == {"base": 5.0, "columns": ["age"], "values_changed": {"age": 3}}
    assert done.loss["mean_absolute_change"]["age"] == pytest.approx(1.0)  # (1 + 1 + 1) / 3
    assert done.loss["distinct_values"]["age"] == {"before": 3, "after": 2}
    with pytest.raises(ValueError, match="'zip' is not a numeric quasi-identifier"):
        run(ctx, RoundOptions(base=5, columns=["zip"]))
    with pytest.raises(ValueError, match="needs a numeric quasi-identifier"):
        run(audit_context(frame, {"columns": {"zip": COLUMNS["zip"]}}), RoundOptions())


def test_candidate_bases():
    ages = pd.DataFrame({"age": np.arange(18, 80, dtype=float), "zip": "a"})  # span 61: bases in [0.305, 15.25]
    ctx = SimpleNamespace(table=ages)
    assert candidate_bases(ctx, ["age"], 30) == [2.0, 5.0, 10.0]  # 0.5 and 1 merge no whole years
    assert candidate_bases(ctx, ["age"], 2) == [2.0, 10.0]
    assert candidate_bases(SimpleNamespace(table=ages.assign(age=3.0)), ["age"], 30) == []


def test_explore_declares_candidates_and_crosses_fixed_options(release):
    frame = pd.read_csv(release / "data.csv")
    ctx = audit_context(frame, {"columns": {**COLUMNS, "disease": {"role": "sensitive"}}})
    request = ExploreRequest(limit=30)
    candidates = explore(ctx, request)
    assert [c.options for c in candidates] == [{"base": b, "columns": ["age"]} for b in (2.0, 5.0, 10.0)]
    assert all(c.remediation is None and c.make is not None for c in candidates)
    assert candidates[-1].make().table["age"].nunique() <= 7
    fixed = explore(ctx, ExploreRequest(limit=30, fixed={"base": [3, 7]}))
    assert [c.options["base"] for c in fixed] == [3.0, 7.0]
    categorical = audit_context(frame, {"columns": {"zip": COLUMNS["zip"]}})
    with pytest.raises(ValueError):  # explore notes that the method does not apply
        explore(categorical, ExploreRequest(limit=30))


def test_registered_with_its_options():
    remediator = registry_with(rounding).of("remediator")["round"]
    assert remediator.options is RoundOptions and remediator.explore is explore
    assert RoundOptions.model_json_schema()["properties"]["base"]["exclusiveMinimum"] == 0


def test_remediate_offers_a_rounded_release_that_audits_again(release):
    out, report = release / "rounded.csv", release / "r.json"
    done = run_cli(
        "remediate", release / "data.csv", "--policy", release / "policy.yaml", "--method", "round",
        "--option", "base=10", "--out", out, "--json", report,
    )  # fmt: skip
    assert done.code == 0, done.stderr
    remediation = json.loads(report.read_text())["remediation"]
    assert remediation["offered"] and not remediation["before"]["passed"] and remediation["after"]["passed"]
    rounded = pd.read_csv(out)
    assert (rounded["age"] % 10 == 0).all() and rounded["zip"].equals(pd.read_csv(release / "data.csv")["zip"])
    again = run_cli("audit", out, "--policy", release / "policy.yaml")
    assert again.code == 0, again.stdout + again.stderr
    bad = run_cli(
        "remediate", release / "data.csv", "--policy", release / "policy.yaml", "--method", "round",
        "--option", "base=0", "--out", release / "never.csv",
    )  # fmt: skip
    assert bad.code == 2 and bad.stderr.count("\n") == 1 and "base" in bad.stderr
    assert not (release / "never.csv").exists()


def test_explore_puts_round_on_the_map(release):
    report, html = release / "x.json", release / "x.html"
    done = run_cli(
        "remediate", release / "data.csv", "--policy", release / "policy.yaml", "--explore", "--methods", "round",
        "--json", report, "--html", html, "--quiet",
    )  # fmt: skip
    assert done.code == 0, done.stderr
    explored = json.loads(report.read_text())["explore"]
    rows = [c for c in explored["candidates"] if c["method"] == "round"]
    assert [c["options"]["base"] for c in rows] == [2.0, 5.0, 10.0]
    assert rows[-1]["passes"] and explored["recommended"] is not None
    assert "round" in html.read_text()
