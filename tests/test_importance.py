"""The policy's importance of quasi-identifiers (ColumnSpec.importance, keep) as every remediator reads it,
through ``privaudit remediate``."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from conftest import write_policy

from privaudit.remediation import importance as importance_of
from privaudit.testing import load_policy


def _policy(a: int | None, b: int | None, extra: str = "", k: int = 2) -> str:
    def spec(value: int | None) -> str:
        return "" if value is None else f", importance: {value}"

    return f"""version: 1
name: importance
data: {{missing_qi: wildcard}}
columns:
  a: {{role: quasi_identifier{spec(a)}{extra}}}
  b: {{role: quasi_identifier{spec(b)}}}
  y: {{role: sensitive}}
checks:
  - {{assessor: k_anonymity, k: {k}}}
"""


def test_resolve_ranks_declared_then_sdcmicros_default():
    policy = load_policy(
        {
            "version": 1,
            "name": "p",
            "columns": {
                "a": {"role": "quasi_identifier", "importance": 2},
                "b": {"role": "quasi_identifier"},
                "c": {"role": "quasi_identifier"},
                "d": {"role": "quasi_identifier", "keep": True},
            },
            "checks": [],
        }
    )
    table = pd.DataFrame({"a": [1, 2, 3], "b": [1, 2, 3], "c": [1, 1, 2], "d": [1, 2, 3]})
    # keep first, then the declared, then the undeclared by fewer categories (c has 2, b 3)
    assert importance_of.resolve(policy, ["a", "b", "c", "d"], table).tolist() == [2, 4, 3, 1]
    assert importance_of.least_important_first(policy, ["a", "b", "c", "d"], table) == ["b", "c", "a", "d"]
    assert importance_of.resolve(policy, ["a", "b", "c", "d"], table, [1, 1, 2, 3]).tolist() == [1, 1, 2, 3]


@pytest.mark.parametrize(("a", "b", "kept"), [(1, 2, "a"), (2, 1, "b")])
def test_generalize_prefers_the_less_important_among_equal_losses(tmp_path, run_cli, a, b, kept):
    # each of a and b alone makes the table 2-anonymous at the same loss: importance decides which stays
    (tmp_path / "h.csv").write_text("x;*\ny;*\nu;*\nv;*\n")
    frame = pd.DataFrame({"a": ["x", "x", "y", "y"], "b": ["u", "v", "u", "v"], "y": ["p", "q", "r", "s"]})
    frame.to_csv(tmp_path / "t.csv", index=False)
    text = _policy(a, b).replace("quasi_identifier,", "quasi_identifier, hierarchy: h.csv,")
    policy = write_policy(tmp_path, text)
    out, report = tmp_path / "o.csv", tmp_path / "r.json"
    assert run_cli("remediate", tmp_path / "t.csv", "--policy", policy, "--method", "generalize", "--out", out,
                   "--json", report)[0] == 0  # fmt: skip
    levels = json.loads(report.read_text())["remediation"]["changes"]["levels"]
    assert levels[kept] == 0 and levels[{"a": "b", "b": "a"}[kept]] == 1
    assert run_cli("audit", out, "--policy", policy)[0] == 0


def test_suppress_blanks_the_least_important_first(tmp_path, run_cli):
    frame = pd.DataFrame({"a": ["A"] * 4 + ["B"] * 3, "b": [30, 30, 30, 31, 40, 40, 40], "y": list("pqrstuv")})
    frame.to_csv(tmp_path / "t.csv", index=False)
    out, report = tmp_path / "o.csv", tmp_path / "r.json"
    ranked = write_policy(tmp_path, _policy(1, 2, k=3), "ranked.yaml")
    assert run_cli("remediate", tmp_path / "t.csv", "--policy", ranked, "--method", "suppress", "--out", out,
                   "--json", report, "--option", "max_suppression=0.5")[0] == 0  # fmt: skip
    written = pd.read_csv(out, dtype=str, keep_default_na=False)
    assert written.loc[3, "a"] == "A" and written.loc[3, "b"] == "*"  # b, the less important, alone
    assert json.loads(report.read_text())["remediation"]["loss"]["cells_suppressed"] == 1
    plain = write_policy(tmp_path, _policy(None, None, k=3), "plain.yaml")
    assert run_cli("remediate", tmp_path / "t.csv", "--policy", plain, "--method", "suppress", "--out", out,
                   "--json", report, "--option", "max_suppression=0.5")[0] == 0  # fmt: skip
    assert json.loads(report.read_text())["remediation"]["loss"]["cells_suppressed"] == 2  # every QI
    assert run_cli("audit", out, "--policy", plain)[0] == 0


def test_microaggregation_keeps_the_important_column_closer(tmp_path, run_cli):
    rng = np.random.default_rng(4)
    frame = pd.DataFrame({"a": rng.normal(50, 10, 300).round(1), "b": rng.normal(0, 1, 300).round(3)})
    frame["y"] = "s"
    frame.to_csv(tmp_path / "t.csv", index=False)
    base = "version: 1\nname: m\ncolumns:\n  a: {role: quasi_identifier, type: numeric IA}\n"
    base += "  b: {role: quasi_identifier, type: numeric IB}\n  y: {role: other, reason: test}\n"
    base += "checks:\n  - {assessor: k_anonymity, k: 5}\n"
    errors = {}
    for name, (ia, ib) in {"plain": ("", ""), "a first": (", importance: 1", ", importance: 2")}.items():
        policy = write_policy(tmp_path, base.replace("IA", ia).replace("IB", ib), f"{name[0]}.yaml")
        out, report = tmp_path / f"{name[0]}.csv", tmp_path / f"{name[0]}.json"
        assert run_cli("remediate", tmp_path / "t.csv", "--policy", policy, "--method", "microaggregate", "--out",
                       out, "--json", report)[0] == 0  # fmt: skip
        written = pd.read_csv(out)
        errors[name] = float(((written["a"] - frame["a"]) ** 2).mean())
        changes = json.loads(report.read_text())["remediation"]["changes"]
        assert ("weights" in changes) == (name != "plain")
    assert errors["a first"] < errors["plain"]
