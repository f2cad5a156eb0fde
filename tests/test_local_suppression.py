"""local_suppression: the fewest, least important cells blanked until k-anonymity holds (sdcMicro's
localSuppression), through the CLI and privaudit.remediate; golden against sdcMicro's own counts."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import write_policy

import privaudit
from privaudit.core.summary import column_codes
from privaudit.remediation.local_suppression import default_importance, match_counts, suppress_for_k

DATA = Path(__file__).parent / "data" / "sdcmicro"
KEYS = ["urbrur", "roof", "walls", "water", "electcon", "relat", "sex"]  # sdcMicro's vignette and tests
FREE1_KEYS = ["REGION", "SEX", "AGE", "MARSTAT", "KINDPERS", "EDUC1", "ETNI"]


def _policy(keys: list[str], frame: pd.DataFrame, k: int, importance: list[int] | None, missing: str = "wildcard"):
    lines = ["version: 1", "name: local suppression", f"data: {{missing_qi: {missing}}}", "columns:"]
    for i, c in enumerate(keys):
        extra = f", importance: {importance[i]}" if importance else ""
        lines.append(f"  {c}: {{role: quasi_identifier{extra}}}")
    for c in frame.columns:
        if c not in keys:
            lines.append(f"  {c}: {{role: other, reason: not known to an intruder in this test}}")
    lines += ["checks:", f"  - {{assessor: k_anonymity, k: {k}}}"]
    return "\n".join(lines) + "\n"


def _codes(frame: pd.DataFrame, keys: list[str]) -> np.ndarray:
    return np.column_stack([np.asarray(column_codes(frame[c])[0], dtype=np.int32) for c in keys])


def _min_fk(codes: np.ndarray, wildcard: bool = True) -> float:
    cards = np.maximum(codes.max(axis=0) + 1, 1)
    return float(match_counts(codes, np.ones(len(codes)), codes, cards, wildcard).min())


def test_wildcard_counts_are_sdcmicros():
    # sdcMicro's freqCalc at alpha = 1: NA matches anything, on either side
    codes = np.array([[0, 0], [0, -1], [1, 0], [-1, -1], [1, 1]], dtype=np.int32)
    fk = match_counts(codes, np.ones(5), codes, np.array([2, 2]), True)
    assert fk.tolist() == [3, 3, 2, 5, 2]
    exact = match_counts(codes, np.ones(5), codes, np.array([2, 2]), False)
    assert exact.tolist() == [1, 1, 1, 1, 1]


def test_one_wildcard_lifts_a_pair():
    # two records (a, x) and one (a, y) at k = 3: blanking the lone record's second cell is enough (1 cell);
    # sdcMicro's one-cell-per-problem-record pass blanks three
    codes = np.array([[0, 0], [0, 0], [0, 1]] + [[1, 2]] * 3, dtype=np.int32)
    result = suppress_for_k(codes, 3, np.array([1, 2]))
    assert result.ok and result.suppressed.sum() == 1 and result.suppressed[2, 1]


def test_importance_decides_which_column():
    codes = np.array([[0, 0], [0, 0], [1, 1], [1, 1], [0, 1]], dtype=np.int32)
    first = suppress_for_k(codes, 2, np.array([1, 2]))  # the second column is the less important
    second = suppress_for_k(codes, 2, np.array([2, 1]))
    assert first.suppressed[4].tolist() == [False, True] and second.suppressed[4].tolist() == [True, False]


def test_default_importance_is_sdcmicros():
    # localSuppressionWORK: more categories, less important
    codes = np.array([[0, 0, 0], [1, 1, 0], [2, 0, 1]], dtype=np.int32)
    assert default_importance(codes).tolist() == [3, 1, 2]


# sdcMicro 5.8.1 (sdcTools/sdcMicro cf3251017482bb215f0a9abf4a930f502399fb72), built from source and run on
# this machine, key variables as factors:
#   localSuppression(df, keyVars = keys, k = k, importance = importance)$supps   (data.frame method, alpha = 1)
# cells suppressed per key variable. sdcMicro's default importance (importance = NULL) gives the same counts as
# the vectors below, which are that default written out.
TD = (("testdata.csv", tuple(KEYS)), (1, 5, 3, 6, 4, 7, 2))
F1 = (("free1.csv", tuple(FREE1_KEYS)), (7, 1, 6, 2, 3, 4, 5))
SDCMICRO = {
    (*TD[0], 2, TD[1]): (0, 9, 0, 19, 2, 127, 0),
    (*TD[0], 3, TD[1]): (0, 14, 4, 40, 6, 229, 0),
    (*TD[0], 5, TD[1]): (0, 31, 6, 104, 13, 346, 0),
    (*F1[0], 2, F1[1]): (3398, 5, 231, 7, 34, 37, 123),
    (*F1[0], 3, F1[1]): (3665, 5, 669, 7, 34, 46, 151),
    (*F1[0], 5, F1[1]): (3747, 5, 1381, 7, 34, 87, 199),
}


@pytest.mark.parametrize("case", sorted(SDCMICRO), ids=lambda c: f"{c[0]}-k{c[2]}")
def test_at_most_as_many_cells_as_sdcmicro(case):
    name, keys, k, importance = case
    frame = pd.read_csv(DATA / name)
    codes = _codes(frame, list(keys))
    result = suppress_for_k(codes, k, np.array(importance))
    work = codes.copy()
    work[result.suppressed] = -1
    assert result.ok and _min_fk(work) >= k
    ours = result.suppressed.sum(axis=0)
    theirs = np.array(SDCMICRO[case])
    assert ours.sum() <= theirs.sum(), (ours, theirs)
    # the three most important variables lose no more cells than under sdcMicro; on testdata none does
    top = np.array(importance) <= (3 if name == "free1.csv" else len(keys))
    assert (ours[top] <= theirs[top]).all(), (ours, theirs)


@pytest.mark.slow
def test_cli_end_to_end_reaudits(tmp_path, run_cli):
    frame = pd.read_csv(DATA / "testdata.csv")
    importance = [1, 5, 3, 6, 4, 7, 2]
    policy = write_policy(tmp_path, _policy(KEYS, frame, 3, importance))
    data, out, report = DATA / "testdata.csv", tmp_path / "out.csv", tmp_path / "r.json"
    before = data.read_bytes()
    code, stdout, err = run_cli(
        "remediate", data, "--policy", policy, "--method", "local_suppression", "--out", out, "--json", report
    )
    assert code == 0, err
    assert data.read_bytes() == before and "after local_suppression: PASS" in stdout
    rem = json.loads(report.read_text())["remediation"]
    per_column = rem["changes"]["cells_suppressed_per_column"]
    assert rem["changes"]["importance"] == dict(zip(KEYS, importance, strict=True))
    assert sum(per_column.values()) == rem["loss"]["cells_suppressed"] > 0
    assert per_column["relat"] == max(per_column.values())  # the least important gives the most cells
    written = pd.read_csv(out, na_values=["*"])
    blanked = written[KEYS].isna() & frame[KEYS].notna()
    assert int(blanked.to_numpy().sum()) == rem["loss"]["cells_suppressed"]
    assert (written.drop(columns=KEYS).fillna(-1) == frame.drop(columns=KEYS).fillna(-1)).all().all()
    assert run_cli("audit", out, "--policy", policy)[0] == 0


@pytest.mark.slow
def test_python_api_and_options(tmp_path):
    frame = pd.read_csv(DATA / "testdata.csv")
    policy = write_policy(tmp_path, _policy(KEYS, frame, 2, None))
    report = privaudit.remediate(
        DATA / "testdata.csv", policy, method="local_suppression", importance={"relat": 1, "water": 2}
    )
    assert report.offered
    table = report.table
    blanked = (table[KEYS].isna() & frame[KEYS].notna()).sum()
    assert blanked["relat"] <= blanked.drop("relat").max()
    combs = privaudit.remediate(DATA / "testdata.csv", policy, method="local_suppression", combs=[3, 2], k=[2, 3])
    assert (combs.table[KEYS].isna() & frame[KEYS].notna()).to_numpy().sum() > 0


@pytest.mark.slow
def test_value_semantics_still_reach_k(tmp_path):
    frame = pd.read_csv(DATA / "testdata.csv")
    policy = write_policy(tmp_path, _policy(KEYS, frame, 3, None, missing="value"))
    report = privaudit.remediate(DATA / "testdata.csv", policy, method="local_suppression")
    assert report.offered


@pytest.mark.parametrize(
    ("option", "message"),
    [
        ("kk=3", "did you mean 'k'"),
        ("threshold=0.1", "threshold"),
        ("importance={sex: 1, age: 2}", "'age' is not a quasi-identifier"),
        ("importance=[1, 2]", "2 values for 7 quasi-identifiers"),
        ("combs=[9]", "combs: 9 is not between 1 and the 7"),
        ("k=0", "k must be a whole number >= 1"),
    ],
)
def test_bad_options_are_one_line(tmp_path, run_cli, option, message):
    frame = pd.read_csv(DATA / "testdata.csv")
    policy = write_policy(tmp_path, _policy(KEYS, frame, 3, None))
    out = tmp_path / "o.csv"
    code, _, err = run_cli(
        "remediate",
        DATA / "testdata.csv",
        "--policy",
        policy,
        "--method",
        "local_suppression",
        "--option",
        option,
        "--out",
        out,
    )
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1 and not out.exists()


def test_importance_for_a_non_quasi_identifier_is_refused(tmp_path, run_cli):
    frame = pd.read_csv(DATA / "testdata.csv")
    text = _policy(KEYS, frame, 3, None).replace("age: {role: other,", "age: {role: other, importance: 1,")
    policy = write_policy(tmp_path, text)
    out = tmp_path / "o.csv"
    code, _, err = run_cli(
        "remediate", DATA / "testdata.csv", "--policy", policy, "--method", "local_suppression", "--out", out
    )
    assert code == 2 and "importance" in err and not out.exists() and len(err.strip().splitlines()) == 1


@pytest.mark.slow
def test_generalize_then_local_suppression_is_offered(tmp_path):
    # the function --explore calls for the candidate "generalize then local suppression"
    from privaudit.pipeline.audit import open_policy, run_audit
    from privaudit.pipeline.plugins import get_registry
    from privaudit.pipeline.remediate import reaudit
    from privaudit.remediation.methods.local_suppression import generalize_then_suppress

    frame = pd.read_csv(DATA / "free1.csv")
    keys = ["AGE", "SEX", "MARSTAT", "REGION"]
    policy_path = write_policy(tmp_path, _policy(keys, frame, 3, [3, 1, 2, 4]))
    registry = get_registry()
    policy = open_policy(policy_path, registry)
    before = run_audit(DATA / "free1.csv", policy, registry=registry)
    alone = generalize_then_suppress(before.context, {})
    result = generalize_then_suppress(before.context, {"AGE": 1})
    assert result.changes["levels"]["AGE"] == 1 and "AGE" in result.changes["built_hierarchies"]
    cells = result.loss["local_suppression"]["cells_suppressed"]
    assert 0 < cells < alone.loss["local_suppression"]["cells_suppressed"]  # coarser ages, fewer cells
    outcome = reaudit(before, policy, result, tmp_path / "out.csv", "local_suppression", "t", {}, registry)
    assert outcome.offered
    with pytest.raises(ValueError, match="'AGE' has levels 0 to"):
        generalize_then_suppress(before.context, {"AGE": 99})
