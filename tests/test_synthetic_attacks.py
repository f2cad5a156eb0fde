"""Singling-out, linkability and inference risks of a synthetic release (Giomi et al., PETS 2023):
the rates, scenarios with a known answer, a cross-check against the anonymeter package, the CLI."""

from __future__ import annotations

import json
import math
import warnings

import anonymeter.evaluators as am
import numpy as np
import pandas as pd
import pytest
import yaml

from privaudit.risk.synthetic_attacks import (
    inference_attack,
    linkability_attack,
    residual_risk,
    singling_out_attack,
    wilson,
)
from privaudit.risk.synthetic_attacks.rates import outcome, z_score
from privaudit.risk.synthetic_attacks.singling_out import EQ, GE, ISNA, LE, NE, NOTNA, Predicates, count_matches
from privaudit.testing import run_cli

NUMERIC = {"age": True, "income": True, "zip": False, "job": False, "sex": False, "disease": False}
FIRST, SECOND = ["age", "income"], ["zip", "job", "sex"]
AUX = ["age", "income", "zip", "job", "sex"]


def people(n: int, seed: int) -> pd.DataFrame:
    """A population sample: two numeric columns, four categorical ones; disease depends on age and job."""
    rng = np.random.default_rng(seed)
    age = rng.integers(18, 90, n)
    job = rng.integers(0, 20, n)
    disease = np.where(rng.random(n) < 0.3, (age // 15 + job) % 6, rng.integers(0, 6, n))
    return pd.DataFrame(
        {
            "age": age,
            "income": (rng.lognormal(10, 0.6, n) // 10 * 10).astype(int),
            "zip": [f"z{z:03d}" for z in rng.integers(0, 100, n)],
            "job": [f"j{j}" for j in job],
            "sex": rng.choice(["F", "M"], n),
            "disease": [f"d{d}" for d in disease],
        }
    )


@pytest.fixture(scope="module")
def data():
    train, control, outsiders = people(600, 1), people(600, 2), people(600, 3)
    half = pd.concat([train.iloc[:300], outsiders.iloc[300:]], ignore_index=True)  # half the rows leaked
    return {
        "train": train,
        "control": control,
        "copy": train.sample(frac=1, random_state=4).reset_index(drop=True),
        "independent": outsiders,
        "half": half,
    }


# ----------------------------------------------------------------------------------------- rates
def test_wilson_matches_the_closed_form():
    z = z_score(0.95)
    assert z == pytest.approx(1.959964, abs=1e-6)
    r = wilson(30, 100, 0.95)
    assert r.value == pytest.approx((30 + z * z / 2) / (100 + z * z))
    assert r.error == pytest.approx(z / (100 + z * z) * math.sqrt(30 * 70 / 100 + z * z / 4))
    # the interval is Wilson's score interval
    centre, half = r.value, r.error
    p = 0.3
    wilson_lo = (p + z * z / 200 - z * math.sqrt(p * (1 - p) / 100 + z * z / 40000)) / (1 + z * z / 100)
    assert centre - half == pytest.approx(wilson_lo)


def test_wilson_stays_inside_the_unit_interval_at_the_extremes():
    none, every = wilson(0, 50), wilson(50, 50)
    assert 0 < none.value < 0.1 and none.lower == 0 and none.upper > 0
    assert 0.9 < every.value < 1 and every.upper == 1
    with pytest.raises(ValueError):
        wilson(3, 2)
    with pytest.raises(ValueError):
        z_score(1.0)


def test_residual_risk_formula_and_propagated_interval():
    attack, control = wilson(80, 200), wilson(20, 200)
    risk = residual_risk(attack, control)
    expected = (attack.value - control.value) / (1 - control.value)
    assert risk.value == pytest.approx(expected) and risk.raw == pytest.approx(expected)
    error = math.hypot(
        attack.error / (1 - control.value), control.error * (attack.value - 1) / (1 - control.value) ** 2
    )
    assert (risk.lower, risk.upper) == pytest.approx((expected - error, expected + error))
    easier_control = residual_risk(wilson(10, 200), wilson(40, 200))
    assert easier_control.raw < 0 and easier_control.value == 0 and easier_control.lower == 0


def test_outcome_warns_when_the_attack_does_not_beat_the_baseline():
    weak = outcome(10, 100, 10, 100, 12, 100)
    assert not weak.beats_baseline and any("naive baseline" in n for n in weak.notes)
    strong = outcome(60, 100, 10, 100, 5, 100)
    assert strong.beats_baseline and not strong.notes
    assert strong.to_dict()["n_attacks"] == {"training": 100, "control": 100, "baseline": 100}


def test_predicate_counts_agree_with_pandas():
    table = np.array([[1.0, 0.0], [2.0, np.nan], [2.0, 1.0], [np.nan, 1.0], [5.0, 0.0]])
    one = Predicates(
        np.array([[0], [0], [0], [1], [1], [0]]),
        np.array([[EQ], [NE], [LE], [ISNA], [NOTNA], [GE]], np.int8),
        np.array([[2.0], [2.0], [2.0], [np.nan], [np.nan], [5.0]]),
    )
    assert count_matches(table, one).tolist() == [2, 2, 3, 1, 4, 1]
    two = Predicates(
        np.array([[0, 1], [0, 1]]), np.array([[EQ, EQ], [NE, NE]], np.int8), np.array([[2.0, 1.0], [2.0, 1.0]])
    )
    assert count_matches(table, two).tolist() == [1, 2]  # a missing value satisfies no comparison


def test_counting_by_key_agrees_with_comparing_every_record():
    from privaudit.risk.synthetic_attacks.singling_out import multivariate_predicates, random_predicates

    rng = np.random.default_rng(0)
    n = 2000
    table = np.column_stack(
        [rng.integers(0, 50, n), rng.integers(0, 3, n), rng.integers(0, 5, n), rng.normal(size=n).round(1)]
    ).astype(float)
    table[rng.random(n) < 0.05, 1] = np.nan
    table[rng.random(n) < 0.05, 0] = np.nan
    numeric = np.array([True, False, False, True])
    for preds in (
        multivariate_predicates(table, numeric, 200, 2, 10_000, rng),
        multivariate_predicates(table, numeric, 200, 3, 10_000, rng),
        random_predicates(table, numeric, 200, 3, rng),
    ):
        assert len(preds) and (count_matches(table, preds) == count_matches(table, preds, numeric)).all()
        # a shared cache of sorted keys, a value the table lacks, and the fallback without an integer key
        cache: dict = {}
        assert (count_matches(table, preds, numeric, cache) == count_matches(table, preds)).all() and cache
        absent = Predicates(preds.cols, preds.ops, np.where(preds.ops == EQ, 99.0, preds.vals))
        assert (count_matches(table, absent, numeric) == count_matches(table, absent)).all()
        import privaudit.risk.synthetic_attacks.singling_out as so

        saved = so._table_key
        so._table_key = lambda *a: None
        try:
            assert (count_matches(table, preds, numeric) == count_matches(table, preds)).all()
        finally:
            so._table_key = saved


def test_binary_search_on_one_numeric_condition_agrees_with_comparing_every_record():
    """Every operator on the numeric column, with values the table holds, lacks, and missing ones."""
    from privaudit.risk.synthetic_attacks.singling_out import multivariate_predicates, random_predicates

    rng = np.random.default_rng(3)
    n = 1500
    table = np.column_stack(
        [rng.normal(size=n).round(1), rng.integers(0, 3, n), rng.integers(0, 5, n), rng.integers(0, 4, n)]
    ).astype(float)  # one numeric column, three coded ones
    table[rng.random(n) < 0.05, 0] = np.nan
    table[rng.random(n) < 0.05, 1] = np.nan
    numeric = np.array([True, False, False, False])
    for preds in (
        multivariate_predicates(table, numeric, 150, 3, 10_000, rng),
        random_predicates(table, numeric, 300, 2, rng),
    ):
        on_number = numeric[preds.cols]
        ops = np.where(on_number, rng.integers(0, 8, preds.ops.shape), preds.ops).astype(np.int8)
        odd = on_number & (rng.random(ops.shape) < 0.3)
        vals = np.where(odd, rng.choice([np.nan, 0.5, 99.0, -1.0], ops.shape), preds.vals)
        mixed = Predicates(preds.cols, ops, vals)
        assert (count_matches(table, mixed, numeric) == count_matches(table, mixed)).all()


def _brute_neighbours(queries, candidates, numeric, ranges, k, priority):
    from privaudit.risk.synthetic_attacks.neighbours import gower_block

    dist = gower_block(queries, candidates, numeric, ranges)
    rank = np.empty(len(candidates), dtype=np.int64)
    rank[priority] = np.arange(len(candidates))
    order = np.lexsort((np.broadcast_to(rank, dist.shape), dist), axis=1)[:, :k]
    return order, np.take_along_axis(dist, order, axis=1)


@pytest.mark.parametrize("k", [1, 3, 10])
def test_neighbours_over_distinct_records_equal_a_search_over_every_record(k):
    """Many repeated records and ties: the k nearest by (distance, priority) are the same records."""
    from privaudit.risk.synthetic_attacks.neighbours import gower_neighbours

    rng = np.random.default_rng(k)
    for trial in range(40):
        n, d = int(rng.integers(1, 120)), int(rng.integers(1, 5))
        numeric = rng.random(d) < 0.4
        candidates = rng.integers(0, 3, (n, d)).astype(float)
        queries = rng.integers(0, 4, (30, d)).astype(float)
        for j in np.flatnonzero(numeric):  # values whose sums round differently in different orders
            values = np.array([0.1, 0.2, 0.3, 1 / 3])
            candidates[:, j], queries[:, j] = values[rng.integers(0, 4, n)], values[rng.integers(0, 4, 30)]
        candidates[rng.random((n, d)) < 0.1] = np.nan
        queries[rng.random((30, d)) < 0.1] = np.nan
        ranges = np.where(numeric, 0.7, 1.0)
        priority = rng.permutation(n)
        got = gower_neighbours(queries, candidates, numeric, ranges, k, priority)
        want = _brute_neighbours(queries, candidates, numeric, ranges, min(k, n), priority)
        assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1]), trial


# ------------------------------------------------------------------------------------- scenarios
def test_a_copy_of_the_training_records_is_high_risk(data):
    train, control, copy = data["train"], data["control"], data["copy"]
    link = linkability_attack(train, copy, control, (FIRST, SECOND), NUMERIC, n_attacks=300, seed=1)
    infer = inference_attack(train, copy, control, AUX, "disease", NUMERIC, n_attacks=300, seed=1)
    single = singling_out_attack(
        train, copy, control, list(NUMERIC), NUMERIC, mode="multivariate", n_attacks=200, seed=1
    ).outcome
    for result in (link, infer, single):
        assert result.risk.value > 0.8 and result.risk.lower > 0.6, result
        assert result.beats_baseline


def test_an_independent_draw_is_near_zero_risk(data):
    train, control, fresh = data["train"], data["control"], data["independent"]
    link = linkability_attack(train, fresh, control, (FIRST, SECOND), NUMERIC, n_attacks=300, seed=1)
    infer = inference_attack(train, fresh, control, AUX, "disease", NUMERIC, n_attacks=300, seed=1)
    single = singling_out_attack(
        train, fresh, control, list(NUMERIC), NUMERIC, mode="univariate", n_attacks=200, seed=1
    ).outcome
    for result in (link, infer, single):
        assert result.risk.value < 0.1 and result.risk.lower == 0, result


def test_results_are_reproducible_with_a_seed(data):
    args = (data["train"], data["half"], data["control"], list(NUMERIC), NUMERIC)
    a = singling_out_attack(*args, n_attacks=100, seed=5).outcome
    b = singling_out_attack(*args, n_attacks=100, seed=5).outcome
    assert a == b


# -------------------------------------------------------------------------- anonymeter cross-check
def _agree(ours, theirs) -> None:
    """Each estimate lies in the other's confidence interval."""
    ours_ci, theirs_ci = (ours.lower, ours.upper), tuple(theirs.ci)
    assert theirs_ci[0] - 1e-9 <= ours.value <= theirs_ci[1] + 1e-9, (ours, theirs)
    assert ours_ci[0] - 1e-9 <= theirs.value <= ours_ci[1] + 1e-9, (ours, theirs)


@pytest.mark.slow
def test_linkability_and_inference_risks_agree_with_anonymeter(data):
    train, control, half = data["train"], data["control"], data["half"]
    np.random.seed(0)  # anonymeter samples with pandas' global generator
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        link = am.LinkabilityEvaluator(
            train, half, (FIRST, SECOND), n_attacks=len(train), n_neighbors=1, control=control
        ).evaluate(n_jobs=1)
        infer = am.InferenceEvaluator(train, half, AUX, "disease", n_attacks=len(train), control=control).evaluate(
            n_jobs=1
        )
    ours_link = linkability_attack(train, half, control, (FIRST, SECOND), NUMERIC, n_attacks=len(train), seed=0)
    ours_infer = inference_attack(train, half, control, AUX, "disease", NUMERIC, n_attacks=len(train), seed=0)
    for ours, theirs in ((ours_link, link), (ours_infer, infer)):
        assert ours.risk.value > 0.3  # half the rows leaked: a clear risk, not two zeros agreeing
        _agree(ours.risk, theirs.risk())
        # every record attacked: the counts themselves are close (only the tie-breaking differs)
        assert abs(ours.attack.successes - theirs.results().n_success) <= 0.03 * len(train)
        assert abs(ours.control.successes - theirs.results().n_control) <= 0.03 * len(train)


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["univariate", "multivariate"])
def test_singling_out_risk_agrees_with_anonymeter(data, mode):
    """Predicates are drawn at random, so single runs of the two tools differ by sampling error; the mean
    risk of five seeded runs of each lies within the other's mean confidence interval."""
    train, control, half = data["train"], data["control"], data["half"]
    ours, theirs = [], []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for seed in range(5):
            theirs.append(
                am.SinglingOutEvaluator(train, half, n_attacks=150, n_cols=3, control=control, seed=seed)
                .evaluate(mode)
                .risk()
            )
            ours.append(
                singling_out_attack(
                    train, half, control, list(NUMERIC), NUMERIC, mode=mode, n_attacks=150, n_cols=3, seed=seed
                ).outcome.risk
            )
    ours_mean, theirs_mean = np.mean([r.value for r in ours]), np.mean([r.value for r in theirs])
    ours_ci = np.mean([[r.lower, r.upper] for r in ours], axis=0)
    theirs_ci = np.mean([r.ci for r in theirs], axis=0)
    assert ours_mean > 0.3
    assert theirs_ci[0] <= ours_mean <= theirs_ci[1], (ours_mean, theirs_ci)
    assert ours_ci[0] <= theirs_mean <= ours_ci[1], (theirs_mean, ours_ci)


# ----------------------------------------------------------------------------------------- CLI
POLICY = {
    "version": 1,
    "name": "synthetic",
    "columns": {
        "age": {"role": "quasi_identifier", "type": "numeric"},
        "income": {"role": "quasi_identifier", "type": "numeric"},
        "zip": {"role": "quasi_identifier"},
        "job": {"role": "quasi_identifier"},
        "sex": {"role": "quasi_identifier"},
        "disease": {"role": "sensitive"},
    },
}


def _write(tmp_path, data, synthetic: str, checks: list[dict]) -> tuple:
    data["train"].to_csv(tmp_path / "train.csv", index=False)
    data["control"].to_csv(tmp_path / "holdout.csv", index=False)
    data[synthetic].to_csv(tmp_path / "synth.csv", index=False)
    (tmp_path / "policy.yaml").write_text(yaml.safe_dump({**POLICY, "checks": checks}, sort_keys=False))
    return tmp_path / "synth.csv", tmp_path / "policy.yaml", tmp_path / "train.csv", tmp_path / "holdout.csv"


CHECKS = [
    {"id": "so", "assessor": "singling_out", "n_attacks": 100, "max_risk": 0.3},
    {"id": "link", "assessor": "linkability", "n_attacks": 200, "max_risk": 0.3, "aux_columns": [FIRST, SECOND]},
    {"id": "inf", "assessor": "inference", "secret": "disease", "n_attacks": 200, "max_risk": 0.3},
]


def test_cli_audit_of_a_leaky_release(tmp_path, data):
    synth, pol, train, holdout = _write(tmp_path, data, "copy", CHECKS)
    out = tmp_path / "report.json"
    run = run_cli(
        "audit",
        synth,
        "--policy",
        pol,
        "--original",
        train,
        "--control",
        holdout,
        "--json",
        out,
        "--html",
        tmp_path / "report.html",
    )
    assert run.code == 1, run.stderr
    checks = {c["id"]: c for c in json.loads(out.read_text())["checks"]}
    for name in ("so", "link", "inf"):
        c = checks[name]
        assert c["status"] == "fail" and c["value"] > 0.6, c
        d = c["details"]
        assert d["risk"]["ci"][0] <= c["value"] <= d["risk"]["ci"][1] and d["risk_ci"] == d["risk"]["ci"]
        assert all(len(d[rate]["ci"]) == 2 for rate in ("attack_rate", "control_rate", "baseline_rate"))
        assert {"attack_rate", "control_rate", "baseline_rate", "n_attacks"} <= set(d)
    assert checks["inf"]["details"]["worst_secret"] == "disease"
    assert checks["link"]["details"]["aux_columns"] == [FIRST, SECOND]
    html = (tmp_path / "report.html").read_text()
    assert "Success rates of the linkability attack" in html and "naive baseline" in html


def test_cli_passes_an_independent_release_and_judges_by_the_lower_bound(tmp_path, data):
    checks = [{**c, "max_risk": 0.1, "judge_by": "lower_bound"} for c in CHECKS]
    synth, pol, train, holdout = _write(tmp_path, data, "independent", checks)
    out = tmp_path / "report.json"
    run = run_cli("audit", synth, "--policy", pol, "--original", train, "--control", holdout, "--json", out)
    assert run.code == 0, run.stderr
    assert all(c["status"] == "pass" for c in json.loads(out.read_text())["checks"])


def test_report_sections_render(data):
    from privaudit.pipeline.audit import run_audit
    from privaudit.testing import assert_section_renders

    policy = {
        **POLICY,
        "checks": [
            *CHECKS[:2],
            {**CHECKS[2], "secret": ["disease", "job"], "aux_columns": ["age", "income", "zip", "sex"]},
        ],
    }
    result = run_audit(data["half"], policy, original=data["train"], control=data["control"])
    for check_id in ("so", "link", "inf"):
        assert_section_renders(result, check_id)


def test_unknown_aux_column_is_one_line_naming_the_field(tmp_path, data):
    bad = [{"assessor": "linkability", "max_risk": 0.3, "aux_columns": [["age", "postcode"], ["job"]]}]
    synth, pol, train, holdout = _write(tmp_path, data, "copy", bad)
    run = run_cli("audit", synth, "--policy", pol, "--original", train, "--control", holdout)
    assert run.code == 2
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and "checks[0]: aux_columns[0]: 'postcode' is not a column of the policy" in lines[0]


def test_missing_control_table_is_refused(tmp_path, data):
    synth, pol, train, _ = _write(tmp_path, data, "copy", CHECKS[:1])
    run = run_cli("audit", synth, "--policy", pol, "--original", train)
    assert run.code == 2 and "--control" in run.stderr


@pytest.mark.slow
def test_the_predicate_search_stops_once_every_draw_was_seen(monkeypatch):
    """A small release offers few (record, column combination) pairs: once all were drawn, the search stops
    (``singling_out._Draws``) with exactly the predicates that trying every attempt finds."""
    from privaudit.risk.synthetic_attacks import singling_out as so

    rng = np.random.default_rng(3)
    table = np.column_stack(
        [rng.integers(18, 60, 25), rng.integers(0, 3, 25), rng.normal(40, 9, 25).round(), rng.integers(0, 2, 25)]
    ).astype(float)
    table[rng.random(25) < 0.1, 2] = np.nan
    numeric = np.array([True, False, True, False])

    def search():
        return so.multivariate_predicates(table, numeric, 500, 3, 200_000, np.random.default_rng(11))

    draws = so._Draws(25, 4, 3)
    assert draws.tracked and draws.combos == 4 and not draws.exhausted
    stopped = search()
    monkeypatch.setattr(so, "EXHAUSTIVE", 0)  # untracked: all 200,000 attempts
    full = search()
    assert 0 < len(stopped) < 500
    for field in ("cols", "ops"):
        assert (getattr(stopped, field) == getattr(full, field)).all()
    assert np.array_equal(stopped.vals, full.vals, equal_nan=True)
    draws.mark(np.repeat(np.arange(25), 4), np.array([c for c in so._combinations(4, 3)] * 25))
    assert draws.exhausted
