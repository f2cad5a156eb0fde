"""pram's other matrices: per-category pd and a given transition matrix (sdcMicro 5.8 ``pram(pd = <vector or
matrix>)``, R/pram.R commit cf32510), and µ-ARGUS's PRAM with per-category keep probabilities and a bandwidth
(µ-ARGUS 5.1 user's manual §4.2.2; sdcTools/libmuargus commit 5b25ec8, MuArgCtrl.cpp ``SetPramValue`` and the
safe file's PRAM step). Distributional properties are checked on seeded draws (hypothesis); the written
matrices are read by rr_attribute_disclosure (Guo, Ying & Wu, JCSE 2011) through the command line."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from conftest import write_policy, write_rr_table
from hypothesis import given, settings
from hypothesis import strategies as st

import privaudit
from privaudit.remediation.perturbation import invariant_matrices, keep_matrix, pram_codes, pram_fixed
from privaudit.risk.randomized_response import load_distortion_matrix

RR = """version: 1
name: pram
columns:
  sex: {role: quasi_identifier}
  region: {role: quasi_identifier}
  disease: {role: sensitive}
checks:
  - {assessor: k_anonymity, k: 2}
"""
RR_CHECK = "  - {assessor: rr_attribute_disclosure, sensitive: disease, max_risk: 0.99, randomized: RANDOMIZED}\n"


def test_keep_matrix_is_muargus_band():
    """libmuargus's example: code 13 with bandwidth 3 moves to 10..12 or 14..16, each equally likely; at the
    ends the codes that exist share the rest (the engine draws again until the code is in range)."""
    keep = np.linspace(0.5, 0.9, 20)
    m = keep_matrix(keep, 3)
    np.testing.assert_allclose(m.sum(axis=1), 1.0, atol=1e-12)
    np.testing.assert_allclose(np.diag(m), keep)
    assert set(np.flatnonzero(m[13])) == {10, 11, 12, 13, 14, 15, 16}
    np.testing.assert_allclose(m[13, [10, 11, 12, 14, 15, 16]], (1 - keep[13]) / 6)
    np.testing.assert_allclose(m[0, 1:4], (1 - keep[0]) / 3)  # first code: only 1, 2, 3 exist
    full = keep_matrix(np.array([0.7, 0.7, 0.7]))
    np.testing.assert_allclose(full, [[0.7, 0.15, 0.15], [0.15, 0.7, 0.15], [0.15, 0.15, 0.7]])


@settings(max_examples=60, deadline=None, derandomize=True)
@given(
    counts=st.lists(st.integers(0, 500), min_size=2, max_size=12),
    pd_=st.floats(0.05, 1.0),
    alpha=st.floats(0.0, 1.0),
    seed=st.integers(0, 2**32 - 1),
)
def test_invariant_matrix_keeps_the_expected_marginal(counts, pd_, alpha, seed):
    """Gouweleeuw et al. 1998: p Rs = p for Rs = alpha P Q + (1 - alpha) I (sdcMicro's calcTransitionMatrix),
    whatever P's diagonal (here per category, as sdcMicro's pd vector)."""
    marginals = np.array([counts], dtype=float)
    if marginals.sum() == 0:
        marginals[0, 0] = 1
    low = np.random.default_rng(seed).uniform(pd_, 1.0, size=len(counts))
    diagonals = np.random.default_rng(seed + 1).uniform(low, 1.0)[None]
    rs = invariant_matrices(marginals, diagonals, alpha)[0]
    p = marginals[0] / marginals.sum()
    np.testing.assert_allclose(rs.sum(axis=1), 1.0, atol=1e-9)
    np.testing.assert_allclose(p @ rs, p, atol=1e-9)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(
    n_levels=st.integers(2, 30),
    bandwidth=st.integers(1, 6),
    keep=st.floats(0.0, 1.0),
    seed=st.integers(0, 2**32 - 1),
)
def test_bandwidth_never_moves_a_value_outside_its_band(n_levels, bandwidth, keep, seed):
    rng = np.random.default_rng(seed)
    codes = rng.integers(-1, n_levels, 2000)  # -1: missing, never changed
    out = pram_fixed(codes, keep_matrix(np.full(n_levels, keep), bandwidth), rng)
    assert (np.abs(out - codes) <= bandwidth).all()
    assert ((codes == -1) == (out == -1)).all() and out.max() < n_levels


def test_per_category_keep_probability_is_met():
    """500,000 seeded draws: each category kept with its own probability within 0.005 (binomial standard
    error at most 0.0016 for the rarest category's ~50,000 records)."""
    rng = np.random.default_rng(7)
    keep = np.array([0.95, 0.9, 0.7, 0.5, 0.3, 0.0, 1.0, 0.6, 0.8, 0.85])
    codes = rng.integers(0, len(keep), 500_000)
    out = pram_fixed(codes, keep_matrix(keep, 2), rng)
    kept = np.bincount(codes[out == codes], minlength=len(keep)) / np.bincount(codes, minlength=len(keep))
    np.testing.assert_allclose(kept, keep, atol=0.005)


def test_per_category_pd_bounds_p_not_rs():
    """sdcMicro's pd vector: P's diagonal drawn in [pd_i, 1] per category; pd_i = 1 for every category leaves
    the variable as it is (P = I, so Rs = I)."""
    codes = np.random.default_rng(0).integers(0, 4, 10_000)
    strata = np.zeros(len(codes), dtype=np.int64)
    same = pram_codes(codes, strata, 4, np.ones(4), 0.5, np.random.default_rng(1))
    assert (same.codes == codes).all()
    moved = pram_codes(codes, strata, 4, np.array([1.0, 1.0, 0.2, 0.2]), 1.0, np.random.default_rng(1))
    assert (moved.codes != codes).any()


@pytest.mark.slow
def test_keep_and_bandwidth_through_the_cli_write_the_matrix_the_check_reads(tmp_path, run_cli):
    data = write_rr_table(tmp_path / "rr.csv", 3000)
    policy = write_policy(tmp_path, RR)
    out, report = tmp_path / "out.csv", tmp_path / "r.json"
    code, _, err = run_cli(
        "remediate", data, "--policy", policy, "--method", "pram", "--even-if-passing",
        "--option", "keep={region: {east: 0.6, '*': 0.9}, sex: 0.8}", "--option", "bandwidth={region: 1}",
        "--option", "seed=2", "--out", out, "--json", report,
    )  # fmt: skip
    assert code == 0, err
    rem = json.loads(report.read_text())["remediation"]
    assert rem["changes"]["modes"] == {"sex": "keep", "region": "keep"}
    labels, matrix = load_distortion_matrix(tmp_path / "out.pram-region.csv")  # rows released, columns original
    order = [labels.index(c) for c in ["east", "north", "south"]]
    expected = keep_matrix(np.array([0.6, 0.9, 0.9]), 1)  # east, north, south: south two places from east
    np.testing.assert_allclose(matrix[np.ix_(order, order)].T, expected, atol=1e-12)
    before, after = pd.read_csv(data), pd.read_csv(out)
    assert not ((before["region"] == "east") & (after["region"] == "south")).any()  # outside the band
    # the written table audits again as it was re-audited (the policy written beside it, if any): same figures
    code, _, _ = run_cli("audit", out, "--policy", rem.get("policy_file") or policy, "--json", tmp_path / "a0.json")
    again = json.loads((tmp_path / "a0.json").read_text())
    assert code == 0 and again["summary"]["passed"] == rem["after"]["passed"] is True
    assert {c["id"]: c["value"] for c in again["checks"]} == {k: v["value"] for k, v in rem["after"]["checks"].items()}
    # a policy publishing the written matrices: rr_attribute_disclosure reads them
    published = "{sex: {matrix: out.pram-sex.csv}, region: {matrix: out.pram-region.csv}}"
    with_matrices = write_policy(tmp_path, RR + RR_CHECK.replace("RANDOMIZED", published), "published.yaml")
    code, _, err = run_cli("audit", out, "--policy", with_matrices, "--original", data, "--json", tmp_path / "a.json")
    assert code in (0, 1), err
    check = next(c for c in json.loads((tmp_path / "a.json").read_text())["checks"] if c["id"].startswith("rr_"))
    assert check["details"]["matrix_files"] == {"sex": "out.pram-sex.csv", "region": "out.pram-region.csv"}
    assert 0 < check["value"] < 1


def test_given_matrix_through_the_cli(tmp_path, run_cli):
    """sdcMicro issue 303's matrix shape: a category never becomes one its row gives probability 0; a missing
    value stays missing (sdcMicro's pramWORK prams the records with a value only)."""
    data = write_rr_table(tmp_path / "rr.csv", 2000)
    frame = pd.read_csv(data)
    frame.loc[::50, "region"] = None
    frame.to_csv(data, index=False)
    policy = write_policy(tmp_path, RR)
    (tmp_path / "m.csv").write_text("orig,east,north,south\neast,0.9,0.1,0\nnorth,0.1,0.8,0.1\nsouth,0,0.2,0.8\n")
    out, report = tmp_path / "out.csv", tmp_path / "r.json"
    code, _, err = run_cli(
        "remediate", data, "--policy", policy, "--method", "pram", "--even-if-passing", "--option",
        "variables=[region]", "--option", f"matrix={{region: {tmp_path / 'm.csv'}}}", "--out", out, "--json", report,
    )  # fmt: skip
    assert code == 0, err
    before, after = pd.read_csv(data), pd.read_csv(out)
    missing = after["region"].isna() | (after["region"] == "*")  # the writer's mark of a missing quasi-identifier
    assert (before["region"].isna() == missing).all() and missing.sum() == 40
    after = after[~missing]
    pairs = set(zip(before["region"].dropna(), after["region"], strict=True))
    assert ("east", "south") not in pairs and ("south", "east") not in pairs and ("north", "south") in pairs
    labels, matrix = load_distortion_matrix(tmp_path / "out.pram-region.csv")
    assert labels == ["east", "north", "south"]
    np.testing.assert_allclose(matrix.T, [[0.9, 0.1, 0], [0.1, 0.8, 0.1], [0, 0.2, 0.8]])
    assert run_cli("audit", out, "--policy", policy)[0] == 0


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("o,east,north,south\neast,0.9,0.1,0\nnorth,0.1,0.8,0.2\nsouth,0,0.2,0.8\n", "row of 'north' sums to 1.1"),
        ("o,east,north,west\neast,1,0,0\nnorth,0,1,0\nwest,0,0,1\n", "'west' is not a category of the column"),
        ("o,east,north,south\neast,1,0,0\nnorth,0,1,0\n", "not square (2 rows x 3 columns)"),
        ("o,east,north\neast,1,0\nnorth,0,1\n", "no row for the column's category 'south'"),
        ("", "cannot read it"),
        ("o,east,north,south\neast,x,1,0\nnorth,0,1,0\nsouth,0,0,1\n", "an entry is not a number"),
    ],
)
def test_bad_matrix_one_line_exit_2(tmp_path, run_cli, text, message):
    data = write_rr_table(tmp_path / "rr.csv", 200)
    policy = write_policy(tmp_path, RR)
    (tmp_path / "m.csv").write_text(text)
    code, _, err = run_cli(
        "remediate", data, "--policy", policy, "--method", "pram", "--option", f"matrix={{region: {tmp_path / 'm.csv'}}}",
        "--even-if-passing", "--out", tmp_path / "o.csv",
    )  # fmt: skip
    assert code == 2 and message in err and "matrix: region: " in err and "m.csv" in err, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert not (tmp_path / "o.csv").exists()


@pytest.mark.parametrize(
    ("option", "message"),
    [
        ("bandwidth=2", "bandwidth: 'sex' needs keep too"),
        ("keep=1.5", "keep: a probability in [0, 1] is expected"),
        ("bandwidth=0", "bandwidth: a bandwidth is a whole number of at least 1"),
        ("keep={region: {west: 0.5}}", "keep: region: 'west' is not a category of the column"),
        ("pd={region: {north: 0}}", "pd: Input should be greater than 0"),
        ("pd={age: 0.5}", "pd: 'age' is not a pramed variable"),
    ],
)
def test_bad_mode_options_one_line_exit_2(tmp_path, run_cli, option, message):
    data = write_rr_table(tmp_path / "rr.csv", 200)
    policy = write_policy(tmp_path, RR)
    code, _, err = run_cli(
        "remediate", data, "--policy", policy, "--method", "pram", "--option", option, "--even-if-passing",
        "--out", tmp_path / "o.csv",
    )  # fmt: skip
    assert code == 2 and message in err, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_library_per_category_pd(tmp_path):
    data = write_rr_table(tmp_path / "rr.csv", 1000)
    policy = write_policy(tmp_path, RR)
    done = privaudit.remediate(
        str(data), str(policy), method="pram", pd={"region": {"north": 1, "*": 0.3}, "sex": 1}, alpha=1,
        seed=3, even_if_passing=True,
    )  # fmt: skip
    changes = done.after.report.remediation.changes
    assert changes["modes"] == {"sex": "invariant", "region": "invariant"}
    assert changes["pd"] == {"region": {"north": 1, "*": 0.3}, "sex": 1}
    before = pd.read_csv(data)
    assert (done.table["region"] != before["region"]).any()
    assert (done.table["sex"] == before["sex"]).all()  # pd 1: P = I, so Rs = I


@pytest.mark.slow
def test_explore_crosses_the_keep_values_given_only(tmp_path, run_cli):
    """With keep given, pd changes nothing: one candidate per keep value, not per (pd, keep)."""
    data = write_rr_table(tmp_path / "rr.csv", 1000)
    policy = write_policy(tmp_path, RR + RR_CHECK.replace("RANDOMIZED", "{}"))
    report = tmp_path / "r.json"
    code, _, err = run_cli(
        "remediate", data, "--policy", policy, "--explore", "--methods", "pram", "--option", "keep=0.7,0.9",
        "--json", report,
    )  # fmt: skip
    assert code in (0, 1), err
    candidates = json.loads(report.read_text())["explore"]["candidates"]
    assert sorted(c["options"]["keep"] for c in candidates) == [0.7, 0.9]


def test_singular_keep_matrix_is_said(tmp_path):
    """keep 1/3 of three categories without a bandwidth: every row (1/3, 1/3, 1/3), a matrix no release can be
    corrected for (rr_attribute_disclosure refuses it): the notes say so."""
    data = write_rr_table(tmp_path / "rr.csv", 300)
    policy = write_policy(tmp_path, RR)
    done = privaudit.remediate(
        str(data), str(policy), method="pram", variables=["region"], keep=1 / 3, even_if_passing=True
    )
    notes = done.after.report.remediation.notes
    assert any("matrix of region is singular" in n for n in notes)
