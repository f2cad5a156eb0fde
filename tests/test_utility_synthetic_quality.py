"""SDMetrics' quality report (privaudit.utility.synthetic_quality), figure for figure against the sdmetrics
package on its own demo pair (``sdmetrics.load_demo(modality='single_table')``: SDV's student_placements table and
a CTGAN copy, shipped inside the package under ``sdmetrics/demos/single_table``, MIT licence), on tables with
missing values and synthetic-only categories, by hand on small tables, and as properties."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from privaudit.core.errors import PrivauditError
from privaudit.utility.synthetic_quality import infer_kinds, quality_report


def _by_measure(entries):
    out = {}
    for e in entries:
        out.setdefault(e["measure"], []).append(e)
    return out


def _sdmetrics_report(real, synthetic, metadata, thresholds):
    sdmetrics = pytest.importorskip("sdmetrics")
    from sdmetrics.reports import QualityReport

    report = QualityReport()
    if thresholds is not None:
        report.real_correlation_threshold, report.real_association_threshold = thresholds
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report.generate({"t": real}, {"t": synthetic}, {"tables": {"t": metadata}}, verbose=False)
    assert sdmetrics.__version__
    return report


def _compare(real, synthetic, metadata, thresholds=None):
    """Our figures against sdmetrics' QualityReport on the same tables; returns (ours, theirs)."""
    report = _sdmetrics_report(real, synthetic, metadata, thresholds)
    kinds = {c: m["sdtype"] for c, m in metadata["columns"].items() if m["sdtype"] != "id"}
    kw = (
        {}
        if thresholds is None
        else dict(zip(("real_correlation_threshold", "real_association_threshold"), thresholds, strict=False))
    )
    ours = quality_report(real, synthetic, kinds, **kw)
    measures = _by_measure(ours)

    shapes = report.get_details("Column Shapes")
    mine = {e["column"]: e for e in measures.get("ks_complement", []) + measures.get("tv_complement", [])}
    assert len(mine) == len(shapes)
    for row in shapes.itertuples(index=False):
        e = mine[row.Column]
        assert e["details"]["metric"] == row.Metric
        if math.isnan(row.Score):
            assert e["value"] is None
        else:
            assert e["value"] == pytest.approx(row.Score, abs=1e-12), row.Column

    pairs = report.get_details("Column Pair Trends")
    mine = {
        tuple(e["details"]["columns"]): e
        for e in measures.get("correlation_similarity", []) + measures.get("contingency_similarity", [])
    }
    assert len(mine) == len(pairs)
    for row in pairs.to_dict("records"):
        e = mine[(row["Column 1"], row["Column 2"])]
        assert e["details"]["metric"] == row["Metric"]
        score = row["Score"]
        counted = bool(row["Meets Threshold?"]) and not math.isnan(score)
        assert e["details"]["counted"] == counted, (row, e)
        if not math.isnan(score):  # SDMetrics leaves a pair below its threshold empty; we still give it
            assert e["value"] == pytest.approx(score, abs=1e-12), row
        if row["Metric"] == "CorrelationSimilarity" and not math.isnan(row["Real Correlation"]):
            assert e["details"]["real_correlation"] == pytest.approx(row["Real Correlation"], abs=1e-12)
        if not math.isnan(row["Real Association"]):
            assert e["details"]["real_association"] == pytest.approx(row["Real Association"], abs=1e-12)

    quality = measures["quality_score"][0]
    props = report.get_properties().set_index("Property")["Score"]
    for key, name in (("column_shapes", "Column Shapes"), ("column_pair_trends", "Column Pair Trends")):
        if math.isnan(props[name]):
            assert quality["details"][key] is None
        else:
            assert quality["details"][key] == pytest.approx(props[name], abs=1e-12)
    assert quality["value"] == pytest.approx(report.get_score(), abs=1e-12)
    return ours, report


@pytest.fixture(scope="module")
def demo():
    sdmetrics = pytest.importorskip("sdmetrics")
    real, synthetic, metadata = sdmetrics.load_demo(modality="single_table")
    return real["student_placements"], synthetic["student_placements"], metadata["tables"]["student_placements"]


@pytest.mark.slow
def test_student_placements_matches_sdmetrics_quality_report(demo):
    """sdmetrics 0.32 QualityReport on its demo: overall 0.7767270753585065 (Column Shapes 0.8511084702797364,
    Column Pair Trends 0.7023456804372765 over the 20 pairs above its default thresholds)."""
    real, synthetic, metadata = demo
    ours, _ = _compare(real, synthetic, metadata)
    quality = ours[-1]
    assert quality["measure"] == "quality_score" and quality["column"] is None
    # the figures the installed sdmetrics printed when this test was written
    assert quality["value"] == pytest.approx(0.7767270753585065, abs=1e-12)
    assert quality["details"]["column_shapes"] == pytest.approx(0.8511084702797364, abs=1e-12)
    assert quality["details"]["column_pair_trends"] == pytest.approx(0.7023456804372765, abs=1e-12)
    assert quality["details"]["pairs_counted"] == 20
    assert quality["details"]["pair_figures"] == 120 and quality["details"]["column_figures"] == 16


def test_student_placements_without_thresholds_matches_the_classic_report(demo):
    """Thresholds 0: every pair counts (SDMetrics before 0.27; on all 16 columns sdmetrics gives 0.838042498377066,
    checked when this test was written)."""
    real, synthetic, metadata = demo
    # the first nine columns (36 pairs of every kind) keep the test short: sdmetrics takes ~20 ms per pair
    names = [c for c, m in metadata["columns"].items() if m["sdtype"] != "id"][:9]
    metadata = {"columns": {c: metadata["columns"][c] for c in names}}
    ours, _ = _compare(real[names], synthetic[names], metadata, thresholds=(0, 0))
    assert ours[-1]["details"]["pairs_counted"] == 36


def test_missing_values_synthetic_only_categories_and_dates_match_sdmetrics():
    rng = np.random.default_rng(7)
    n_real, n_synth = 300, 250

    def table(n, shift, extra_category):
        x = rng.normal(shift, 1, n)
        frame = pd.DataFrame(
            {
                "x": x,
                "y": 2 * x + rng.normal(0, 0.5, n),
                "z": rng.integers(0, 5, n).astype(float),
                "city": rng.choice(["a", "b", "c"] + (["d"] if extra_category else []), n),
                "flag": rng.random(n) < 0.3,
                "when": pd.to_datetime("2020-01-01") + pd.to_timedelta(rng.integers(0, 400, n), unit="D"),
            }
        )
        frame.loc[rng.random(n) < 0.1, "x"] = np.nan
        frame.loc[rng.random(n) < 0.1, "city"] = None
        frame["city2"] = np.where(frame["x"].fillna(0) > shift, "hi", "lo")
        return frame

    real, synthetic = table(n_real, 0.0, False), table(n_synth, 0.3, True)
    metadata = {
        "columns": {
            "x": {"sdtype": "numerical"},
            "y": {"sdtype": "numerical"},
            "z": {"sdtype": "numerical"},
            "city": {"sdtype": "categorical"},
            "flag": {"sdtype": "boolean"},
            "when": {"sdtype": "datetime"},
            "city2": {"sdtype": "categorical"},
        }
    }
    for thresholds in (None, (0, 0)):
        _compare(real, synthetic, metadata, thresholds)


def test_hand_computed_figures():
    real = pd.DataFrame({"n": [1.0, 2.0, 3.0, 4.0], "c": ["a", "a", "b", "b"]})
    synthetic = pd.DataFrame({"n": [1.0, 2.0, 2.0, 9.0], "c": ["a", "a", "a", "z"]})
    out = _by_measure(
        quality_report(
            real,
            synthetic,
            {"n": "numerical", "c": "categorical"},
            real_correlation_threshold=0,
            real_association_threshold=0,
        )
    )
    ks = out["ks_complement"][0]
    # F_real(2) = 0.5, F_synth(2) = 0.75; at 3: 0.75 vs 0.75 ... D = 0.25
    assert ks["raw"] == pytest.approx(0.25) and ks["value"] == pytest.approx(0.75)
    tv = out["tv_complement"][0]
    # real: a 2, b 2, z 1e-6 (regularised); synthetic: a 3/4, z 1/4
    total = 4 + 1e-6
    expected_tv = 0.5 * (abs(0.75 - 2 / total) + abs(0 - 2 / total) + abs(0.25 - 1e-6 / total))
    assert tv["raw"] == pytest.approx(expected_tv, abs=1e-15)
    assert tv["value"] == pytest.approx(1 - expected_tv, abs=1e-15)
    pair = out["contingency_similarity"][0]
    assert pair["column"] == "n|c" and pair["details"]["columns"] == ["n", "c"]
    assert pair["details"]["binned"] == ["n"]
    assert 0 <= pair["value"] <= 1


def test_a_pair_below_the_threshold_has_its_figure_but_does_not_count():
    rng = np.random.default_rng(1)
    real = pd.DataFrame({"a": rng.normal(size=200), "b": rng.normal(size=200)})
    synthetic = pd.DataFrame({"a": rng.normal(size=200), "b": rng.normal(size=200)})
    out = quality_report(real, synthetic, {"a": "numerical", "b": "numerical"})
    pair = _by_measure(out)["correlation_similarity"][0]
    assert abs(pair["details"]["real_correlation"]) < 0.5
    assert pair["value"] is not None and pair["details"]["counted"] is False
    quality = out[-1]
    assert quality["details"]["column_pair_trends"] is None  # no pair counts
    assert quality["value"] == pytest.approx(quality["details"]["column_shapes"])  # nanmean of the two


def test_a_constant_column_has_no_correlation_figure():
    real = pd.DataFrame({"a": [1.0, 2, 3, 4], "b": [5.0, 5, 5, 5]})
    out = quality_report(real, real, {"a": "numerical", "b": "numerical"}, real_correlation_threshold=0)
    pair = _by_measure(out)["correlation_similarity"][0]
    assert pair["value"] is None and "constant" in pair["details"]["error"]
    assert pair["details"]["counted"] is False


@pytest.mark.parametrize(
    ("kinds", "real", "message"),
    [
        ({"nope": "numerical"}, None, "column 'nope' is not a column of the real table"),
        ({"a": "text"}, None, "column 'a' has kind 'text'"),
        ({"c": "numerical"}, None, "column 'c' of the real table is numerical but holds 'x'"),
        ({"c": "datetime"}, None, "column 'c' of the real table is datetime but holds 'x'"),
        ({"a": "numerical"}, pd.DataFrame({"a": []}), "the real table has no rows"),
        ({}, None, "kinds is empty"),
    ],
)
def test_bad_input_is_one_line(kinds, real, message):
    table = pd.DataFrame({"a": [1.0, 2.0], "c": ["x", "y"]})
    with pytest.raises(PrivauditError) as exc:
        quality_report(table if real is None else real, table, kinds)
    assert message in str(exc.value) and "\n" not in str(exc.value)


def test_bad_threshold_is_refused():
    table = pd.DataFrame({"a": [1.0, 2.0]})
    with pytest.raises(PrivauditError, match="real_correlation_threshold must be a number between 0 and 1"):
        quality_report(table, table, {"a": "numerical"}, real_correlation_threshold=2)


_value = st.one_of(st.none(), st.integers(-3, 3))


@st.composite
def _tables(draw):
    n_real = draw(st.integers(1, 25))
    n_synth = draw(st.integers(1, 25))
    columns = {"n1": "numerical", "n2": "numerical", "c1": "categorical", "b": "boolean"}

    def frame(n):
        def column(elements):
            return draw(st.lists(elements, min_size=n, max_size=n))

        return pd.DataFrame(
            {
                "n1": column(st.one_of(st.none(), st.floats(-5, 5))),
                "n2": column(_value),
                "c1": column(st.sampled_from(["p", "q", "r", None])),
                "b": column(st.booleans()),
            }
        ).astype({"n1": float, "n2": float})

    return frame(n_real), frame(n_synth), columns


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_tables())
def test_identical_tables_score_one(tables):
    real, _, kinds = tables
    out = quality_report(real, real.copy(), kinds, real_correlation_threshold=0, real_association_threshold=0)
    for e in out:
        if e["value"] is not None:
            assert e["value"] == pytest.approx(1.0, abs=1e-12), e
        if e["raw"] is not None:
            assert e["raw"] == pytest.approx(0.0, abs=1e-12), e
    assert out[-1]["value"] is None or out[-1]["value"] == pytest.approx(1.0, abs=1e-12)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_tables(), st.sampled_from([(0.0, 0.0), (0.5, 0.3)]))
def test_every_figure_is_within_zero_and_one(tables, thresholds):
    real, synthetic, kinds = tables
    out = quality_report(
        real, synthetic, kinds, real_correlation_threshold=thresholds[0], real_association_threshold=thresholds[1]
    )
    for e in out:
        if e["value"] is not None:
            assert -1e-12 <= e["value"] <= 1 + 1e-12, e
        if e["raw"] is not None:
            bound = 2 if e["measure"] == "correlation_similarity" else 1
            assert -1e-12 <= e["raw"] <= bound + 1e-12, e
        if e["measure"] != "quality_score":
            assert (e["value"] is None) == ("error" in e["details"]), e


def test_dense_and_sorted_cell_counts_agree_with_scipy(monkeypatch):
    """Cramer's V as scipy.stats.contingency.association computes it, and the contingency score, whether the
    joint cells are counted densely (np.bincount) or sorted (np.unique, for large code spaces)."""
    from scipy.stats.contingency import association

    from privaudit.utility import synthetic_quality as sq

    rng = np.random.default_rng(11)
    a, b = rng.integers(0, 6, 500), rng.integers(0, 4, 500)
    b = np.where(rng.random(500) < 0.4, a % 4, b)
    sa, sb = rng.integers(0, 6, 300), rng.integers(0, 4, 300)
    table = np.zeros((6, 4))
    np.add.at(table, (a, b), 1)
    expected = association(table.astype(int), method="cramer")
    dense = (sq.cramers_v(a, b, 6, 4), sq.contingency_similarity(a, b, sa, sb, 6, 4))
    monkeypatch.setattr(sq, "_DENSE_CELLS", 0)
    sparse = (sq.cramers_v(a, b, 10**9, 10**9), sq.contingency_similarity(a, b, sa, sb, 10**9, 10**9))
    assert dense[0] == pytest.approx(expected, abs=1e-12) and sparse[0] == pytest.approx(expected, abs=1e-12)
    assert dense[1] == pytest.approx(sparse[1], abs=1e-15)


def test_infer_kinds_reads_the_dtypes():
    frame = pd.DataFrame({"b": [True], "d": pd.to_datetime(["2020-01-01"]), "n": [1.5], "i": [3], "c": ["x"]})
    assert infer_kinds(frame) == {
        "b": "boolean",
        "d": "datetime",
        "n": "numerical",
        "i": "numerical",
        "c": "categorical",
    }
