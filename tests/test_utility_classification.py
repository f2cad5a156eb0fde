"""ARX's classification benchmark (privaudit.utility.classification): ARX's own figures where the learner does
not matter (ZeroR's accuracy on adult, ARX's TestClassification; the relative accuracy of its GUI), ARX's folds,
and properties of the relative accuracy on small tables."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from privaudit.core.errors import PrivauditError
from privaudit.utility.classification import (
    arx_folds,
    classification_accuracy,
    relative_accuracy,
    zero_r_accuracy,
)

pytest.importorskip("sklearn")

ROOT = Path(__file__).resolve().parents[1]
FAST = dict(folds=3, trees=5)


def test_zero_r_accuracy_on_adult_is_arx_figure():
    """ARX 3.9 src/test/org/deidentifier/arx/test/TestClassification.java: ZeroR accuracy 0.4663152310854718 for
    class marital-status on adult (10 folds; ``examples/adult/adult.csv`` is ARX's data/adult.csv): the share of
    Married-civ-spouse, 14065 / 30162, whichever the folds."""
    adult = pd.read_csv(ROOT / "examples" / "adult" / "adult.csv", sep=";", dtype=str, keep_default_na=False)
    for seed in (0, 1):
        assert zero_r_accuracy(adult["marital-status"], seed=seed) == pytest.approx(0.4663152310854718, abs=1e-15)


def test_relative_accuracy_is_arx_gui_figure():
    """ViewStatisticsClassificationOutput: (acc - ZeroR) / (original - ZeroR); acc / ZeroR when equal. Worked on
    TestClassification's logistic-regression figures (output 0.6625555334526888, original 0.6953119819640607,
    ZeroR 0.4663152310854718)."""
    value = relative_accuracy(0.6625555334526888, 0.6953119819640607, 0.4663152310854718)
    assert value == pytest.approx((0.6625555334526888 - 0.4663152310854718) / (0.6953119819640607 - 0.4663152310854718))
    assert value == pytest.approx(0.85695, abs=1e-5)
    assert relative_accuracy(0.3, 0.5, 0.5) == pytest.approx(0.6)
    assert np.isnan(relative_accuracy(0.3, 0.0, 0.0))


def test_folds_are_arx_folds():
    """StatisticsClassification.getFolds: k = min(folds, rows) folds of rows // k, the last taking the rest."""
    folds = arx_folds(23, folds=10, seed=3)
    assert [f.size for f in folds] == [2] * 9 + [5]
    assert sorted(np.concatenate(folds).tolist()) == list(range(23))
    assert [f.size for f in arx_folds(4, folds=10)] == [1, 1, 1, 1]
    capped = arx_folds(1000, folds=10, max_records=95)
    assert sum(f.size for f in capped) == 95 and len(set(np.concatenate(capped).tolist())) == 95


def _table(n, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.choice(["x", "y", "z"], n)
    b = rng.integers(18, 80, n)
    noise = rng.random(n) < 0.1
    target = np.where(a == "x", "yes", np.where(a == "y", "no", "maybe"))
    target = np.where(noise, rng.choice(["yes", "no", "maybe"], n), target)
    return pd.DataFrame({"a": a, "age": b.astype(str), "target": target})


def test_a_release_that_keeps_the_signal_scores_near_one_and_one_that_drops_it_near_zero():
    original = _table(150)
    kept = classification_accuracy(original.copy(), original, "target", **FAST)
    assert [e["details"]["model"] for e in kept] == ["logistic", "random_forest"]
    for e in kept:
        assert e["measure"] == "classification_accuracy" and e["column"] == "target"
        assert e["value"] == pytest.approx(1.0)
        assert e["raw"] == pytest.approx(e["details"]["original_accuracy"])
        assert e["details"]["original_accuracy"] > e["details"]["zero_r_accuracy"] + 0.3
    dropped = original.assign(a="*", age="*")
    for e in classification_accuracy(dropped, original, "target", suppressed=np.zeros(150, bool), **FAST):
        # a release without the features trains the majority-class model: ZeroR's accuracy, relative 0
        assert e["raw"] == pytest.approx(e["details"]["zero_r_accuracy"])
        assert e["value"] == pytest.approx(0.0)


def test_generalized_release_is_evaluated_on_its_own_values_or_on_the_original():
    original = _table(120, seed=2)
    release = original.assign(age=(original["age"].astype(int) // 20 * 20).astype(str) + "-")
    on_release = classification_accuracy(
        release, original, "target", features=["a", "age"], models=("logistic",), **FAST
    )[0]
    on_original = classification_accuracy(
        release, original, "target", features=["a", "age"], models=("logistic",), evaluate_on="original", **FAST
    )[0]
    assert on_release["details"]["evaluate_on"] == "release" and on_original["details"]["evaluate_on"] == "original"
    # tested on the original, the release model meets ages it never saw: only the 'a' indicators still help
    assert on_original["raw"] <= on_release["raw"] + 1e-12
    assert on_release["details"]["zero_r_accuracy"] == on_original["details"]["zero_r_accuracy"]


def test_records_suppressed_as_a_whole_are_left_out_of_release_training():
    original = _table(90, seed=4)
    release = original.copy()
    release.loc[:29, ["a", "age"]] = "*"
    out = classification_accuracy(release, original, "target", models=("logistic",), **FAST)[0]
    assert out["details"]["suppressed_records"] == 30
    # a suppressed target cell takes the original's value (ARX reads the class ignoring suppression)
    release.loc[:9, "target"] = "*"
    out2 = classification_accuracy(release, original, "target", models=("logistic",), **FAST)[0]
    assert out2["details"]["classes"] == original["target"].nunique()
    assert out2["details"]["zero_r_accuracy"] == out["details"]["zero_r_accuracy"]


def test_numeric_features_are_numbers_with_an_indicator_for_the_rest():
    rng = np.random.default_rng(5)
    age = rng.integers(18, 80, 120)
    original = pd.DataFrame({"age": age, "target": np.where(age > 50, "old", "young")})
    release = original.assign(age=np.where(rng.random(120) < 0.2, "*", age.astype(str)))
    out = classification_accuracy(release, original, "target", numeric_features=["age"], **FAST)
    for e in out:
        assert e["details"]["numeric_features"] == ["age"]
        assert e["details"]["original_accuracy"] > 0.9  # a threshold on the number
        assert 0.5 < e["value"] <= 1.05


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (dict(target="nope"), "classification target 'nope' is not a column of the release table"),
        (dict(target="target", features=["a", "zz"]), "classification feature 'zz' is not a column"),
        (dict(target="target", models=("svm",)), "unknown classification model 'svm'"),
        (dict(target="target", folds=1), "folds must be an integer of at least 2"),
        (dict(target="target", evaluate_on="both"), "evaluate_on must be 'release' or 'original'"),
        (dict(target="target", numeric_features=["target"]), "numeric feature 'target' is not one of"),
    ],
)
def test_bad_input_is_one_line(kwargs, message):
    table = _table(20)
    with pytest.raises(PrivauditError) as exc:
        classification_accuracy(table, table, **kwargs)
    assert message in str(exc.value) and "\n" not in str(exc.value)


def test_target_missing_from_the_original_and_unaligned_tables():
    table = _table(20)
    with pytest.raises(PrivauditError, match="'target' is not a column of the original table"):
        classification_accuracy(table, table.drop(columns="target"), "target")
    with pytest.raises(PrivauditError, match="row-aligned: the release has 20 rows, the original 19"):
        classification_accuracy(table, table.iloc[:19], "target")
    with pytest.raises(PrivauditError, match="suppressed marks 3 rows but the release has 20"):
        classification_accuracy(table, table, "target", suppressed=[True, False, True])


def test_max_records_draws_that_many_records():
    """ARX's maxRecords: the benchmark runs on a random subset of that size (ARX default 100,000)."""
    table = _table(200, seed=6)
    out = classification_accuracy(table, table, "target", models=("logistic",), max_records=60, **FAST)[0]
    assert out["details"]["records"] == 60 and out["details"]["measurements"] == 60


def test_without_scikit_learn_the_error_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "sklearn.linear_model", None)
    table = _table(20)
    with pytest.raises(PrivauditError, match=r"needs scikit-learn: pip install 'privaudit\[utility\]'"):
        classification_accuracy(table, table, "target")


@st.composite
def _small(draw):
    n = draw(st.integers(8, 24))
    rows = draw(
        st.lists(
            st.tuples(st.sampled_from("pqr"), st.sampled_from("uv"), st.sampled_from("AB")), min_size=n, max_size=n
        )
    )
    return pd.DataFrame(rows, columns=["f1", "f2", "target"])


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_small())
def test_identical_tables_give_one_and_accuracies_are_shares(table):
    out = classification_accuracy(table, table.copy(), "target", folds=2, trees=3)
    for e in out:
        d = e["details"]
        for key in ("accuracy", "original_accuracy", "zero_r_accuracy"):
            assert 0.0 <= d[key] <= 1.0
        assert e["raw"] == pytest.approx(d["original_accuracy"])
        if e["value"] is not None:
            assert e["value"] == pytest.approx(1.0)
        else:  # undefined only when ZeroR gets nothing right and neither does the original model
            assert d["zero_r_accuracy"] == 0 and d["original_accuracy"] == 0


def test_a_table_read_as_numbers_and_one_read_as_text_are_the_same_values():
    """The original read with numeric and boolean dtypes, the release as text: 20, 20.0 and "20" are one value,
    True and "True" too, so the release's model meets the original's values it was trained on."""
    rng = np.random.default_rng(8)
    age = rng.choice([20, 30, 40, 50], 90)
    flag = rng.random(90) < 0.5
    for feature, values, target in (
        ("age", age, np.where(age > 35, "old", "young")),
        ("flag", flag, np.where(flag, "on", "off")),
    ):
        original = pd.DataFrame({feature: values, "target": target})
        release = original.astype({feature: float if feature == "age" else bool}).astype(str)
        out = classification_accuracy(
            release, original, "target", models=("logistic",), evaluate_on="original", **FAST
        )[0]
        assert out["details"]["original_accuracy"] == 1.0
        assert out["value"] == pytest.approx(1.0), feature
