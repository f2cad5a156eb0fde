"""distance_to_closest_record: Gower distance, the blocked nearest-two search, DCR/NNDR/holdout statistics, the CLI."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from privaudit.risk.synthetic.distance import (
    GowerSpace,
    binomial_interval,
    binomial_sf,
    count_within,
    distance_to_closest_record,
    gower_matrix,
    nearest_two,
)
from privaudit.testing import assert_section_renders, audit_frame, check_result, run_cli

LEVELS = ["low", "mid", "high"]
KINDS = {"age": "numeric", "income": "numeric", "sex": "nominal", "job": "nominal", "grade": "ordinal"}


def frame(rows: list[tuple]) -> pd.DataFrame:
    """Rows (age, income, sex, job, grade) typed as the loader types them; None = missing."""
    f = pd.DataFrame(rows, columns=list(KINDS))
    return pd.DataFrame(
        {
            "age": pd.to_numeric(f["age"]).astype(float),
            "income": pd.to_numeric(f["income"]).astype(float),
            "sex": pd.array(f["sex"], dtype="string"),
            "job": pd.array(f["job"], dtype="string"),
            "grade": pd.Categorical(f["grade"], categories=LEVELS, ordered=True),
        }
    )


def test_gower_by_hand():
    training = frame([(20, 100, "f", "a", "low"), (60, 300, "m", "b", "high"), (40, None, "f", "c", "mid")])
    queries = frame([(30, 200, "f", "b", "mid"), (80, None, None, "a", None), (20, 100, "f", "a", "low")])
    space, (t, q) = GowerSpace.build(KINDS, training, queries)
    assert space.span == (40.0, 200.0, 2.0)  # age 20..60, income 100..300 (missing ignored), grade 3 levels
    d = gower_matrix(space, q, t)
    # query 0 vs training 0: age 10/40, income 100/200, sex 0, job 1, grade 1/2
    assert d[0, 0] == pytest.approx((0.25 + 0.5 + 0 + 1 + 0.5) / 5)
    # query 0 vs training 2: age 10/40, income present vs missing 1, sex 0, job 1, grade 0
    assert d[0, 2] == pytest.approx((0.25 + 1 + 0 + 1 + 0) / 5)
    # query 1 (age 80 beyond the training range: capped at 1) vs training 2: income both missing 0,
    # sex missing vs f 1, job 1, grade missing vs mid 1
    assert d[1, 2] == pytest.approx((1 + 0 + 1 + 1 + 1) / 5)
    assert d[1, 1] == pytest.approx((20 / 40 + 1 + 1 + 1 + 1) / 5)
    assert d[2, 0] == 0.0  # an exact copy
    nb = nearest_two(space, q, t)
    assert nb.d1[2] == 0.0 and nb.index[2] == 0
    assert nb.d1[0] == pytest.approx(d[0].min()) and nb.d2[0] == pytest.approx(np.sort(d[0])[1])
    assert nb.nndr[2] == 0.0


def naive_gower(a: pd.DataFrame, b: pd.DataFrame, kinds: dict, training: pd.DataFrame) -> np.ndarray:
    """An independent, slow Gower matrix (the documented rules, cell by cell)."""
    out = np.zeros((len(a), len(b)))
    for name, kind in kinds.items():
        if kind == "numeric":
            ref = training[name].dropna()
            span = ref.max() - ref.min() if len(ref) else 0.0
        for i, x in enumerate(a[name].tolist()):
            for j, y in enumerate(b[name].tolist()):
                xm, ym = pd.isna(x), pd.isna(y)
                if xm or ym:
                    term = 0.0 if xm and ym else 1.0
                elif kind == "numeric" and span > 0:
                    term = min(1.0, abs(x - y) / span)
                elif kind == "ordinal":
                    term = abs(LEVELS.index(x) - LEVELS.index(y)) / (len(LEVELS) - 1)
                else:
                    term = float(x != y)
                out[i, j] += term
    return out / len(kinds)


value_rows = st.tuples(
    st.one_of(st.none(), st.integers(0, 6)),
    st.one_of(st.none(), st.sampled_from([0.0, 0.5, 2.5, 9.0])),
    st.one_of(st.none(), st.sampled_from("fm")),
    st.sampled_from(["a", "b", "c", None]),
    st.one_of(st.none(), st.sampled_from(LEVELS)),
)


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(value_rows, min_size=1, max_size=25),
    st.lists(value_rows, min_size=1, max_size=30),
    st.integers(1, 7),
    st.integers(1, 9),
    st.integers(1, 2),
)
def test_blocked_search_equals_brute_force(query_rows, reference_rows, block, tile, workers):
    queries, reference = frame(query_rows), frame(reference_rows)
    space, (r, q) = GowerSpace.build(KINDS, reference, queries)
    brute = naive_gower(queries, reference, KINDS, reference)
    nb = nearest_two(space, q, r, block_rows=block, tile_rows=tile, workers=workers)
    ordered = np.sort(brute, axis=1)
    assert np.allclose(nb.d1, ordered[:, 0], atol=1e-12)
    expected_d2 = ordered[:, 1] if len(reference) > 1 else np.full(len(queries), np.inf)
    assert np.allclose(nb.d2, expected_d2, atol=1e-12)
    assert np.allclose(brute[np.arange(len(queries)), nb.index], nb.d1, atol=1e-12)
    radius = ordered[:, 0]
    counts = count_within(space, q, r, radius, block_rows=block, tile_rows=tile, workers=workers)
    assert (counts == (brute <= radius[:, None] + 1e-10).sum(axis=1)).all()


def test_joined_and_pruned_search_equals_the_full_matrix():
    """Records repeating nominal patterns (settled by the join on nominal codes) and others (searched, with
    tiles skipped by their bounds), a high-cardinality nominal column (compared code by code), missing
    values: the same distances and nearest records, bit for bit, as the unpruned distance matrix."""
    rng = np.random.default_rng(11)

    def draw(n):
        f = pd.DataFrame(
            {
                "age": rng.integers(18, 30, n).astype(float),
                "income": rng.choice([0.0, 1.5, 2.5, 7.0], n),
                "sex": rng.choice(["f", "m"], n),
                "job": rng.choice([f"j{i}" for i in range(90)], n),
                "grade": rng.choice(LEVELS, n),
            }
        )
        f.loc[rng.random(n) < 0.05, "income"] = np.nan
        f["job"] = f["job"].where(rng.random(n) < 0.9, "j1")
        return typed(f)

    reference, queries = draw(400), draw(150)
    queries.iloc[:50] = reference.iloc[:50].to_numpy()  # patterns present in the reference
    space, (r, q) = GowerSpace.build(KINDS, reference, queries)
    full = gower_matrix(space, q, r)
    for block, tile in ((128, 1024), (16, 32), (5, 7)):
        nb = nearest_two(space, q, r, block_rows=block, tile_rows=tile, workers=1)
        ordered = np.sort(full, axis=1)
        assert np.array_equal(nb.d1, ordered[:, 0]) and np.array_equal(nb.d2, ordered[:, 1])
        # of tied records, the first of the distinct row that comes first in key order (as before pruning)
        by_key = np.lexsort((np.arange(r.n), *r.key.T[::-1]))
        first_tied = by_key[(full[:, by_key] == ordered[:, :1]).argmax(axis=1)]
        assert np.array_equal(nb.index, first_tied)


def test_binomial_interval_and_p_value():
    lo, hi = binomial_interval(50, 100)
    assert lo == pytest.approx(0.3983, abs=1e-4) and hi == pytest.approx(0.6017, abs=1e-4)  # Clopper-Pearson
    lo, hi = binomial_interval(50, 100, method="wilson")
    assert lo == pytest.approx(0.4038, abs=1e-4) and hi == pytest.approx(0.5962, abs=1e-4)
    assert binomial_interval(0, 20)[0] == 0.0 and binomial_interval(20, 20)[1] == 1.0
    from scipy.stats import binomtest

    assert binomial_sf(60, 100, 0.5) == pytest.approx(binomtest(60, 100, 0.5, alternative="greater").pvalue)


# ------------------------------------------------------------------------------------ scenarios
def population(rng: np.random.Generator, n: int) -> pd.DataFrame:
    age = rng.integers(18, 90, n).astype(float)
    income = np.round(rng.normal(2000 + 30 * age, 400), 0)
    income[rng.random(n) < 0.05] = np.nan
    return pd.DataFrame(
        {
            "age": age,
            "income": income,
            "sex": rng.choice(["f", "m"], n),
            "job": rng.choice([f"j{i}" for i in range(40)], n),
            "grade": rng.choice(LEVELS, n),
        }
    )


def typed(f: pd.DataFrame) -> pd.DataFrame:
    return frame(list(f.itertuples(index=False, name=None)))


def test_copies_fail_and_independent_draws_pass():
    rng = np.random.default_rng(5)
    training, holdout = typed(population(rng, 600)), typed(population(rng, 400))
    fresh = typed(population(rng, 500))
    good = distance_to_closest_record(fresh, training, holdout, KINDS, workers=1)
    assert good.exact_share < 0.01
    lo, hi = good.closer_interval()
    assert good.expected_closer == pytest.approx(0.6) and lo <= 0.6 <= hi
    assert 0.0 <= good.below_holdout_p5 / 500 < 0.12

    # a "generator" that returns training rows with a little noise on 30% of them and copies the rest
    copied = training.sample(500, random_state=1).reset_index(drop=True)
    noisy = rng.random(500) < 0.3
    copied.loc[noisy, "age"] = copied.loc[noisy, "age"] + 1
    bad = distance_to_closest_record(copied, training, holdout, KINDS, workers=2)
    assert bad.exact_share == pytest.approx(0.7, abs=0.01)
    assert bad.closer_interval()[0] > 0.9
    assert bad.below_holdout_p5 / 500 > 0.9
    assert np.nanmedian(bad.nndr) < np.nanmedian(good.nndr)


# ------------------------------------------------------------------------------------ assessor
POLICY_COLUMNS = {
    "rid": {"role": "record_id"},
    "name": {"role": "identifier"},
    "age": {"role": "quasi_identifier", "type": "numeric"},
    "income": {"role": "sensitive", "type": "numeric"},
    "sex": {"role": "quasi_identifier"},
    "job": {"role": "quasi_identifier"},
    "grade": {"role": "other", "type": "ordinal", "order": LEVELS},
    "w": {"role": "weight", "type": "numeric"},
}


def with_ids(f: pd.DataFrame, start: int) -> pd.DataFrame:
    n = len(f)
    return f.assign(rid=np.arange(start, start + n), name=[f"person{start + i}" for i in range(n)], w=1.0)


def write_inputs(folder, rng, synthetic_kind: str, checks: str, control_drop: str | None = None):
    training = population(rng, 300)
    holdout = population(rng, 300)
    synthetic = training.copy() if synthetic_kind == "copy" else population(rng, 300)
    with_ids(training, 0).to_csv(folder / "train.csv", index=False)
    ctrl = with_ids(holdout, 1000)
    (ctrl.drop(columns=[control_drop]) if control_drop else ctrl).to_csv(folder / "holdout.csv", index=False)
    with_ids(synthetic, 5000).to_csv(folder / "synth.csv", index=False)
    lines = ["version: 1", "name: synthetic", "columns:"]
    lines += [f"  {name}: {json.dumps(spec)}" for name, spec in POLICY_COLUMNS.items()]
    lines += ["checks:", checks]
    (folder / "policy.yaml").write_text("\n".join(lines) + "\n")
    return folder / "synth.csv", folder / "policy.yaml", folder / "train.csv", folder / "holdout.csv"


def test_cli_end_to_end(tmp_path):
    rng = np.random.default_rng(11)
    check = "  - {id: dcr, assessor: distance_to_closest_record, max_below_holdout_p5: 0.2}"
    synth, pol, train, holdout = write_inputs(tmp_path, rng, "fresh", check)
    out = tmp_path / "report.json"
    run = run_cli("audit", synth, "--policy", pol, "--original", train, "--control", holdout, "--json", out)
    report = json.loads(out.read_text())
    c = next(x for x in report["checks"] if x["id"] == "dcr")
    assert c["status"] == "pass", (run.stderr, c["message"])
    d = c["details"]
    assert d["columns"] == ["age", "income", "sex", "job", "grade"]  # no identifier, record id or weight
    assert d["treatment"] == {
        "age": "numeric",
        "income": "numeric",
        "sex": "nominal",
        "job": "nominal",
        "grade": "ordinal",
    }
    assert d["n_synthetic"] == d["n_training"] == d["n_control"] == 300
    assert d["expected_closer"] == 0.5 and d["closer_interval"][0] <= 0.5 <= d["closer_interval"][1]
    assert set(d["dcr_quantiles"]) == {"synthetic_to_training", "holdout_to_training", "synthetic_to_holdout"}
    assert d["exact_copies"] == 0 and math.isfinite(d["holdout_p5"])
    assert c["value"] == pytest.approx(d["share_closer_to_training"])

    synth, pol, train, holdout = write_inputs(tmp_path, rng, "copy", check)
    run = run_cli("audit", synth, "--policy", pol, "--original", train, "--control", holdout, "--json", out)
    c = next(x for x in json.loads(out.read_text())["checks"] if x["id"] == "dcr")
    assert run.code == 1 and c["status"] == "fail"
    assert c["details"]["exact_copies_share"] == 1.0 and len(c["details"]["failed"]) == 3
    # each fact once: the three failures, and nothing repeated after them
    assert c["message"].startswith("fails: ") and "Also:" not in c["message"]
    assert c["message"].count("closer to") == c["message"].count("exact copies") == 1

    # without --control: only what the training table allows, and the report says so
    run = run_cli("audit", synth, "--policy", pol, "--original", train, "--json", out)
    c = next(x for x in json.loads(out.read_text())["checks"] if x["id"] == "dcr")
    assert c["status"] == "fail" and c["value"] == 1.0 and "--control" in c["details"]["note"]
    assert c["details"]["n_control"] is None


def test_report_section_renders():
    rng = np.random.default_rng(3)
    training, synthetic = population(rng, 120), population(rng, 80)
    policy = {
        "columns": {k: v for k, v in POLICY_COLUMNS.items() if k not in ("rid", "name", "w")},
        "checks": [{"id": "dcr", "assessor": "distance_to_closest_record", "max_exact_copies": 0.05}],
    }
    result = audit_frame(synthetic, policy, original=training)
    assert check_result(result, "dcr")["status"] == "pass"
    html = assert_section_renders(result, "dcr")
    assert "needs a holdout table" in html


def test_bad_inputs(tmp_path):
    rng = np.random.default_rng(2)
    synth, pol, train, holdout = write_inputs(
        tmp_path, rng, "fresh", "  - {assessor: distance_to_closest_record}", control_drop="job"
    )
    run = run_cli("audit", synth, "--policy", pol, "--original", train, "--control", holdout)
    assert run.code == 2
    lines = [ln for ln in run.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and "holdout.csv" in lines[0] and "'job'" in lines[0]
    # no training table: refused before any work
    run = run_cli("audit", synth, "--policy", pol)
    assert run.code == 2 and "--original" in run.stderr
    # a record id is not a synthesised value
    pol.write_text(
        pol.read_text().replace(
            "{assessor: distance_to_closest_record}", "{assessor: distance_to_closest_record, columns: [rid, age]}"
        )
    )
    run = run_cli("audit", synth, "--policy", pol, "--original", train)
    assert run.code == 2 and "'rid' has role 'record_id'" in run.stderr


def test_exact_copies_are_judged_against_the_holdouts_own_share():
    """With few column combinations fresh records equal training records by chance: by default the synthetic
    release may hold as many exact copies as the holdout does (and no more)."""
    rng = np.random.default_rng(5)

    def draw(n):
        return pd.DataFrame({"a": rng.choice(list("xy"), n), "b": rng.choice(list("pq"), n)})

    train, holdout, fresh = draw(400), draw(400), draw(400)
    policy = {
        "columns": {"a": {"role": "quasi_identifier"}, "b": {"role": "quasi_identifier"}},
        "checks": [{"id": "dcr", "assessor": "distance_to_closest_record"}],
    }
    import privaudit

    report = privaudit.audit(fresh, policy, original=train, control=holdout)
    check = report.to_dict()["checks"][1]
    assert check["details"]["exact_copies_share"] == 1.0 == check["details"]["exact_copies_limit"]
    assert check["status"] == "pass", check["message"]
    strict = privaudit.audit(
        fresh, {**policy, "checks": [{**policy["checks"][0], "max_exact_copies": 0.5}]}, original=train, control=holdout
    )
    assert strict.to_dict()["checks"][1]["status"] == "fail"
