"""Golden tests of GAA's strategies and merge cost from Mauger, Le Mahec & Dequen, "Optimizing Privacy and Data
Utility: Metrics and Strategies" (TDP 16(3), 2023; the source papers, seeds/003): Definition 6's merge cost
mu_bar(C_s, C) not weighted by the classes' sizes, and Definition 17's strategies reading the entropy
l-diversity (Definition 11) and the norm-1 t-closeness (Definitions 12-14) of the whole table after the
candidate merge (Definitions 15-16). Run end to end through ``privaudit remediate``."""

from __future__ import annotations

import pandas as pd
import pytest
import yaml

from privaudit.testing import run_cli

HIERARCHY = {"*": {"A": ["a1", "a2", "a3"], "B": ["b1"]}}


def _remediate(tmp_path, rows: list[tuple[str, str]], strategy: str, metric: str = "NLLM") -> pd.DataFrame:
    pd.DataFrame(rows, columns=["x", "disease"]).to_csv(tmp_path / "release.csv", index=False)
    policy = {
        "version": 1,
        "name": "gaa golden",
        "columns": {"x": {"role": "quasi_identifier", "hierarchy": HIERARCHY}, "disease": {"role": "sensitive"}},
        "checks": [{"assessor": "k_anonymity", "k": 2}],
    }
    (tmp_path / "policy.yaml").write_text(yaml.safe_dump(policy))
    out = tmp_path / "fixed.csv"
    result = run_cli(
        "remediate",
        tmp_path / "release.csv",
        "--policy",
        tmp_path / "policy.yaml",
        "--method",
        "generalize",
        "--option",
        "algorithm=gaa",
        "--option",
        f"strategy={strategy}",
        "--option",
        f"metric={metric}",
        "--out",
        out,
        "--quiet",
    )
    assert result.code == 0, result.stderr
    return pd.read_csv(out, dtype=str, keep_default_na=False)


def test_s2_maximises_the_entropy_l_diversity_of_the_whole_table(tmp_path):
    """k = 2, classes a1 = {flu}, a2 = {flu, flu, flu, cold}, a3 = {flu, flu, cold, cold}: merging a1 costs the
    same with a2 and a3 (both go to A). With a2 the table's entropy l-diversity is min(exp H(4/5, 1/5) = 1.65,
    exp H(1/2, 1/2) = 2) = 1.65; with a3 it is min(exp H(3/5, 2/5) = 1.96, exp H(3/4, 1/4) = 1.75) = 1.75.
    S2 merges a1 with a3 (counting distinct values of the merged class alone, 2 = 2, would not tell)."""
    rows = (
        [("a1", "flu")]
        + [("a2", d) for d in ("flu", "flu", "flu", "cold")]
        + [("a3", d) for d in ("flu", "flu", "cold", "cold")]
    )
    fixed = _remediate(tmp_path, rows, "S2")
    assert fixed["x"].tolist() == ["A", "a2", "a2", "a2", "a2", "A", "A", "A", "A"]


def test_s5_minimises_the_norm_1_t_closeness_of_the_whole_table(tmp_path):
    """Same table, S5: the table's distribution is (flu 6/9, cold 3/9). Merging a1 with a2: merged (4/5, 1/5)
    is 0.267 away, a3 (1/2, 1/2) 0.333: t_clo = 0.333. With a3: merged (3/5, 2/5) 0.133, a2 (3/4, 1/4) 0.167:
    t_clo = 0.167. S5 merges a1 with a3."""
    rows = (
        [("a1", "flu")]
        + [("a2", d) for d in ("flu", "flu", "flu", "cold")]
        + [("a3", d) for d in ("flu", "flu", "cold", "cold")]
    )
    fixed = _remediate(tmp_path, rows, "S5")
    assert fixed["x"].tolist() == ["A", "a2", "a2", "a2", "a2", "A", "A", "A", "A"]


@pytest.mark.parametrize("metric", ["NLLM", "NCP", "LLM", "Total"])
def test_merge_cost_is_not_weighted_by_class_size(tmp_path, metric):
    """k = 2, classes a1 x 1, a2 x 10, b1 x 2. mu_bar(a1, a2) = 2 C(A), mu_bar(a1, b1) = 2 C(*): NLLM 1.0 against
    1.5 (w2 = 1), so a1 joins a2 and the 11 records become A. Weighting by size (1 x C(A) + 10 x C(A) = 5.5
    against 1 x C(*) + 2 x C(*) = 2.25) would have merged a1 with b1."""
    rows = [("a1", "flu")] + [("a2", "cold")] * 10 + [("b1", "flu"), ("b1", "cold")]
    fixed = _remediate(tmp_path, rows, "S1", metric)
    assert fixed["x"].tolist()[:11] == ["A"] * 11 and fixed["x"].tolist()[11:] == ["b1", "b1"]
