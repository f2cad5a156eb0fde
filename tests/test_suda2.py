"""SUDA2 special uniques (privaudit.risk.suda2) and the ``suda2`` assessor.

Golden figures are sdcMicro's (sdcTools/sdcMicro at commit cf3251017482bb215f0a9abf4a930f502399fb72):
``tests/testthat/test_suda2.R`` (whose tests have been commented out since commit 7708b12, 2019-11-20, but
state the figures sdcMicro produced with its default Elliot scores) and sdcMicro's issue threads that print
its output (#227, #263, #275, #356). The DIS-SUDA formula is checked against a line-by-line transcription
of ``src/Suda2.h`` (no published DIS figure). The data are sdcMicro's ``testdata``/``testdata2``
(tests/data/sdcmicro, see PROVENANCE.md).
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privaudit.risk.suda2 import dis_scores, suda2, suda_weights
from privaudit.testing import assert_section_renders, audit_frame, check_result, run_assessor, run_cli

DATA = Path(__file__).resolve().parent / "data" / "sdcmicro"
KEYS7 = ["urbrur", "roof", "walls", "water", "electcon", "relat", "sex"]


def codes(frame: pd.DataFrame) -> np.ndarray:
    """Value codes of every column (as sdcMicro's factor codes; only equality matters)."""
    return np.column_stack([pd.factorize(frame[c], sort=True)[0] for c in frame.columns])


# ------------------------------------------------------------------------------------------- golden
def test_book_example():
    # test_suda2.R "suda2 book example" (Templ 2017, Table 3.x): su$score[5:8] == c(4, 2, 6, 8); the whole
    # vector 0 0 0 0 4 2 6 8 is printed by sdcMicro in issue #263
    tab = pd.DataFrame(
        {
            "age": ["20s"] * 7 + ["60s"],
            "gender": ["male"] * 4 + ["female"] * 3 + ["male"],
            "income": ["50k+", "50k+"] + ["50k-"] * 6,
            "education": ["highschool"] * 4 + ["university", "highschool", "middleschool", "university"],
        }
    )
    assert suda2(codes(tab)).scores.tolist() == [0, 0, 0, 0, 4, 2, 6, 8]


GUIDELINE = pd.DataFrame(
    {
        "Residence": ["Urban", "Urban", "Urban", "Urban", "Rural", "Urban", "Urban", "Urban", "Urban", "Urban"],
        "Gender": ["Female", "Female", "Female", "Male", "Female", "Male", "Female", "Male", "Female", "Female"],
        "Education": [
            "Secondary incomplete",
            "Secondary incomplete",
            "Primary incomplete",
            "Secondary complete",
            "Secondary complete",
            "Secondary complete",
            "Primary complete",
            "Post-secondary",
            "Secondary incomplete",
            "Secondary incomplete",
        ],
        "Labor": [
            "Employed",
            "Employed",
            "Non-LF",
            "Employed",
            "Unemployed",
            "Employed",
            "Non-LF",
            "Unemployed",
            "Non-LF",
            "Non-LF",
        ],
    }
)


def test_sdc_guideline_example():
    # test_suda2.R "suda2 sdc guideline": c(0,0,6,0,12,0,6,10,0,0) (the SDC practice guide's Table 4.5)
    assert suda2(codes(GUIDELINE)).scores.tolist() == [0, 0, 6, 0, 12, 0, 6, 10, 0, 0]
    # issue #227: sdcMicro 5.0.2 (the IHSN scores, now original_scores = FALSE) printed 0 0 1.75 0 3.25 0 1.75 2.75 0 0
    ihsn = suda2(codes(GUIDELINE), original_scores=False).scores
    np.testing.assert_allclose(ihsn, [0, 0, 1.75, 0, 3.25, 0, 1.75, 2.75, 0, 0], rtol=1e-12)


@pytest.mark.parametrize(
    "order, expected",
    [("abc", [50, 37.5, 37.5]), ("acb", [50, 37.5, 37.5]), ("cab", [37.5, 50, 37.5]), ("cba", [37.5, 37.5, 50])],
)
def test_contributions_simple_example(order, expected):
    # test_suda2.R "suda2 simple example contrubtion" 1-4
    data = pd.DataFrame({"a": [2, 1, 1], "b": [0, 3, 0], "c": [0, 6, 0]})[list(order)]
    np.testing.assert_allclose(suda2(codes(data)).contributions, expected, rtol=1e-12)


def test_sdcmicro_issue_356_scores_and_contributions():
    # sdcMicro issue #356: suda2(original_score = TRUE) printed scores 0 2 3 3 3 0 2 and contributions
    # 61.53846, 69.23077, 53.84615
    data = pd.DataFrame({"Var1": list("ABACBAB"), "Var2": list("XXYZYXZ"), "Var3": list("PQQRRPQ")})
    r = suda2(codes(data))
    assert r.scores.tolist() == [0, 2, 3, 3, 3, 0, 2]
    np.testing.assert_allclose(r.contributions, [61.53846, 69.23077, 53.84615], atol=5e-6)


def test_testdata2_first_record():
    t2 = pd.read_csv(DATA / "testdata2.csv")
    # test_suda2.R "suda2 data frame": score[1] == 2 with five key variables
    assert suda2(t2[["urbrur", "roof", "walls", "water", "sex"]].to_numpy()).scores[0] == 2
    # "suda2 sdcObject original scores": round(score[1], 2) == 180; "non original scores": 2.73
    assert round(suda2(t2[KEYS7].to_numpy()).scores[0], 2) == 180
    assert round(suda2(t2[KEYS7].to_numpy(), original_scores=False).scores[0], 2) == 2.73


def test_weights_are_sdcmicros():
    # src/Suda2.h: Elliot's g_ab[i] = prod_{j=i+1}^{M-1} (M - j) = (M - k)! for an MSU of size k = i + 1
    assert suda_weights(4).tolist() == [6, 2, 1, 1]
    assert suda_weights(7).tolist() == [720, 120, 24, 6, 2, 1, 1]
    assert suda_weights(2).tolist() == [2, 1]  # padded to three variables, as sdcMicro does
    # Elliot et al. 2002 with a maximum MSU size m < M: prod_{i=k}^{m} (M - i)
    assert suda_weights(6, max_size=3).tolist() == [60, 12, 3]


def sdcmicro_dis(scores: np.ndarray, n_vars: int, sample_uniques: int, pairs: int, fraction: float) -> np.ndarray:
    """DIS-SUDA transcribed from src/Suda2.h: Dis in single precision, then the double-precision loop."""
    f = np.float32(fraction)
    dis = np.float32(sample_uniques * f / (sample_uniques * f + pairs * (np.float32(1) - f)))
    q = 1.0 + (8.0 - n_vars) / 20.0
    positive = scores > 0
    adj = np.sum(1.0 / scores[positive] ** q)
    out = np.zeros(len(scores))
    out[positive] = 1.0 / (1.0 + (sample_uniques / float(dis) - sample_uniques) / (scores[positive] ** q * adj))
    return out


@pytest.mark.parametrize("fraction", [0.01, 0.1, 0.5])
def test_dis_scores_follow_sdcmicro(fraction):
    data = pd.read_csv(DATA / "testdata.csv")[KEYS7].to_numpy()
    r = suda2(data, dis_fraction=fraction)
    _, counts = np.unique(data, axis=0, return_counts=True)
    assert r.sample_uniques == int((counts == 1).sum()) and r.pairs == 2 * int((counts == 2).sum()) > 0
    expected = sdcmicro_dis(r.scores, 7, r.sample_uniques, r.pairs, fraction)
    np.testing.assert_allclose(r.dis_scores, expected, rtol=1e-6)
    assert (r.dis_scores[r.scores == 0] == 0).all() and (r.dis_scores[r.scores > 0] > 0).all()


def test_dis_without_pairs_is_one():
    assert dis_scores(np.array([0.0, 2.0, 6.0]), 4, sample_uniques=2, pairs=0, dis_fraction=0.01).tolist() == [0, 1, 1]


def test_missing_values_are_never_part_of_an_msu():
    # a missing value (negative code) matches no value and is never part of an MSU (sdcMicro's `missing`)
    x = np.array([[0, 0, 0], [0, 0, 1], [1, -1, 0], [1, 1, 1]])
    r = suda2(x, record_contributions=True)
    assert r.record_contributions[2, 1] == 0


# ---------------------------------------------------------------------------------- brute force
def brute_force(x: np.ndarray, max_size: int | None) -> list[list[tuple[int, ...]]]:
    """Every record's MSUs by the definition: unique subsets (no missing value) none of whose proper
    subsets is unique, record by record."""
    n, m = x.shape
    top = m if max_size is None else min(max_size, m)
    out: list[list[tuple[int, ...]]] = []
    for r in range(n):
        unique = set()
        found = []
        for k in range(1, top + 1):
            for s in itertools.combinations(range(m), k):
                cols = list(s)
                if (x[r, cols] < 0).any():
                    continue
                if int((x[:, cols] == x[r, cols]).all(axis=1).sum()) == 1:
                    unique.add(s)
                    if not any(t in unique for j in range(1, k) for t in itertools.combinations(s, j)):
                        found.append(s)
        out.append(found)
    return out


@st.composite
def tables(draw):
    n = draw(st.integers(1, 14))
    m = draw(st.integers(1, 5))
    lo = draw(st.sampled_from([-1, 0]))
    hi = draw(st.integers(1, 4))
    cells = draw(st.lists(st.integers(lo, hi), min_size=n * m, max_size=n * m))
    return np.array(cells, dtype=np.int64).reshape(n, m)


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(x=tables(), max_size=st.sampled_from([None, 1, 2, 3]), original=st.booleans())
def test_fast_search_matches_brute_force(x, max_size, original):
    r = suda2(x, max_size=max_size, original_scores=original, record_contributions=True)
    msus = brute_force(x, max_size)
    w = suda_weights(x.shape[1], max_size, original)
    expected = np.array([sum(w[len(s) - 1] for s in found) for found in msus])
    np.testing.assert_allclose(r.scores, expected, rtol=1e-12)
    assert r.msu_counts.tolist() == [len(found) for found in msus]
    assert r.min_msu_size.tolist() == [min((len(s) for s in found), default=0) for found in msus]
    raw = np.zeros(x.shape)
    for i, found in enumerate(msus):
        for s in found:
            raw[i, list(s)] += w[len(s) - 1]
    share = np.divide(raw, expected[:, None], out=np.zeros_like(raw), where=expected[:, None] > 0)
    np.testing.assert_allclose(r.record_contributions, share, rtol=1e-12, atol=1e-15)
    if expected.sum() > 0:
        np.testing.assert_allclose(r.contributions, 100 * raw.sum(axis=0) / expected.sum(), rtol=1e-12)


# ------------------------------------------------------------------------------------- assessor
POLICY = {"columns": {c: {"role": "quasi_identifier"} for c in GUIDELINE.columns}}


def test_assessor_details():
    m = run_assessor(GUIDELINE, POLICY, {"assessor": "suda2", "max_share": 0.3})
    d = m.details
    assert (d["records_special_unique"], d["score_sum"], d["score_max"]) == (4, 34.0, 12.0)
    assert m.value == pytest.approx(0.4) and not m.passed and m.threshold == 0.3
    assert d["contributions"].keys() == set(GUIDELINE.columns) and d["max_size"] == 4
    assert d["dis_fraction"] == 0.01 and d["original_scores"] is True
    assert sum(c for _, c in d["dis_score_table"]) == len(GUIDELINE)
    r = suda2(codes(GUIDELINE))
    assert d["dis_score_sum"] == pytest.approx(float(r.dis_scores.sum()))
    ok = run_assessor(GUIDELINE, POLICY, {"assessor": "suda2", "max_share": 0.5, "max_dis_score": 1})
    assert ok.passed and ok.details["records_above_dis_score"] == 0


def test_assessor_report_section_renders():
    result = audit_frame(GUIDELINE, {**POLICY, "checks": [{"id": "su", "assessor": "suda2", "max_share": 0.5}]})
    html = assert_section_renders(result, "su")
    assert "Contribution of each variable" in html
    assert check_result(result, "su")["status"] == "pass"


def test_cli_end_to_end(tmp_path):
    data = tmp_path / "data.csv"
    pd.read_csv(DATA / "testdata2.csv").to_csv(data, index=False)
    columns = {c: {"role": "quasi_identifier"} for c in KEYS7}
    (tmp_path / "policy.yaml").write_text(
        json.dumps(
            {
                "version": 1,
                "name": "suda2",
                "columns": columns,
                "checks": [{"id": "suda", "assessor": "suda2", "max_share": 1.0}],
            }
        )
    )
    out_json, out_html = tmp_path / "r.json", tmp_path / "r.html"
    out_records = tmp_path / "records.csv"
    result = run_cli(
        "audit",
        data,
        "--policy",
        tmp_path / "policy.yaml",
        "--json",
        out_json,
        "--html",
        out_html,
        "--records",
        out_records,
        "--quiet",
    )
    assert result.code == 0, result.stderr
    check = next(c for c in json.loads(out_json.read_text())["checks"] if c["id"] == "suda")
    r = suda2(pd.read_csv(DATA / "testdata2.csv")[KEYS7].to_numpy())
    records = pd.read_csv(out_records)  # per-record scores, in input order
    np.testing.assert_allclose(records["suda_score:suda"], r.scores)
    np.testing.assert_allclose(records["dis_suda_score:suda"], r.dis_scores)
    assert (records["msus:suda"] > 0).sum() == int((r.scores > 0).sum())
    assert check["details"]["score_sum"] == pytest.approx(float(r.scores.sum()))
    assert check["details"]["records_special_unique"] == int((r.scores > 0).sum())
    assert "Special uniques (SUDA2)" in out_html.read_text()


@pytest.mark.parametrize(
    "bad, expected", [({"dis_fraction": 0}, "dis_fraction"), ({"max_size": 9}, "max_size"), ({"qi": ["nope"]}, "qi")]
)
def test_bad_parameter_exit_2(tmp_path, bad, expected):
    GUIDELINE.to_csv(tmp_path / "data.csv", index=False)
    (tmp_path / "policy.yaml").write_text(
        json.dumps({"version": 1, "name": "bad", **POLICY, "checks": [{"assessor": "suda2", **bad}]})
    )
    result = run_cli("audit", tmp_path / "data.csv", "--policy", tmp_path / "policy.yaml")
    lines = result.stderr.strip().splitlines()
    assert result.code == 2 and len(lines) == 1 and expected in lines[0], result.stderr
    assert "Traceback" not in result.stderr
