"""Report sections of the newer assessors, read back from the HTML: interval disclosure (per-attribute bars
against max_rate), attribute disclosure under randomized response (risk histogram, keep probabilities),
uniqueness with population models and individual risk (ARX's published population uniqueness on adult);
and histograms whose bins never hide which classes pass: the recursive (c,l) chart of the bundled adult
example (116 of 222 classes pass), threshold-aligned bins and bins split at the threshold."""

from __future__ import annotations

import math
import os
import re
import xml.etree.ElementTree as ET

import numpy as np
import pandas as pd
import pytest
from conftest import ROOT, write_policy, write_rr_table
from hypothesis import example, given, settings
from hypothesis import strategies as st
from report_helpers import parse_html, table_rows

from privaudit.assessors.l_diversity import LDiversityParams, per_class_figures
from privaudit.pipeline.audit import run_audit
from privaudit.plugin import charts
from privaudit.plugin.binning import bin_failing_counts, threshold_histogram
from privaudit.plugin.figures import value_histogram_figure
from privaudit.plugin.text import share
from privaudit.report.html import render_html

ADULT = ROOT / "examples" / "adult" / "adult.csv"
RELEASE = ROOT / "examples" / "adult" / "release.csv"
ADULT_POLICY = ROOT / "policies" / "adult.yaml"
NS = "{http://www.w3.org/2000/svg}"


@pytest.fixture(autouse=True)
def fixed_epoch(monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")


def render(released, policy, original=None):
    result = run_audit(released, policy, original=original)
    return result, parse_html(render_html(result))


def section_of(tree, result, check_id):
    number = [c.id for c in result.checks].index(check_id) + 1
    return tree.find("section", id=f"check-{number}")


def svg_bars(svg_node):
    """(x, width, height, fill) of the data bars of a chart in the parsed HTML (legend keys left out)."""
    return [
        (float(r.attrs["x"]), float(r.attrs["width"]), float(r.attrs["height"]), r.attrs["fill"])
        for r in svg_node.find_all("rect")
        if r.attrs.get("y") != "4"
    ]


def threshold_x(svg_node):
    return float([ln for ln in svg_node.find_all("line") if ln.attrs.get("stroke-dasharray")][0].attrs["x1"])


# ------------------------------------------------------------------------------- recursive (c,l)
@pytest.fixture(scope="module")
def adult_release():
    os.environ["SOURCE_DATE_EPOCH"] = "1700000000"
    return render(RELEASE, ADULT_POLICY)


def test_recursive_chart_on_the_adult_example_splits_at_c(adult_release):
    """On the bundled release 116 of the 222 classes satisfy recursive (4,2)-diversity on salary-class: the
    chart shows them left of the c line in the passing colour, and every failing class right of it."""
    result, tree = adult_release
    check = next(c for c in result.checks if c.id == "recursive-salary")
    per_class, fails = per_class_figures(result.context, LDiversityParams.model_validate(check.params))
    assert check.details["classes"] == 222 and check.details["classes_failing"] == 106
    assert int((~fails).sum()) == 116
    hist = threshold_histogram(per_class, 4.0, "above", True, lo=0.0)
    assert 4.0 in hist["edges"]
    below = [c for lo, c in zip(hist["edges"][:-1], hist["counts"], strict=False) if lo < 4.0]
    assert sum(below) == 116 and sum(hist["counts"]) + hist["overflow"] + hist["infinite"] == 222
    svg = section_of(tree, result, "recursive-salary").find("svg")
    x_t = threshold_x(svg)
    bars = svg_bars(svg)
    passing = [b for b in bars if b[3] == charts.PASS_FILL]
    failing = [b for b in bars if b[3] == charts.FAIL_FILL]
    assert passing and failing and not [b for b in bars if b[3] == charts.MIXED_FILL]
    assert all(x + w <= x_t + 0.05 for x, w, _, _ in passing)
    assert all(x >= x_t - 0.05 for x, w, _, _ in failing)
    assert len(passing) == sum(1 for c in below if c)
    # the heavy tail (ratios up to 648) is pooled in an overflow bar instead of squashing the axis
    labels = [t.clean_text() for t in svg.find_all("text")]
    assert hist["overflow"] > 0 and hist["overflow_label"] in labels
    assert max(hist["edges"]) < check.value


def test_entropy_chart_has_no_bin_across_l(adult_release):
    result, tree = adult_release
    svg = section_of(tree, result, "entropy-occupation").find("svg")
    x_t = threshold_x(svg)
    for x, w, _, fill in svg_bars(svg):
        assert fill != charts.MIXED_FILL
        assert (x + w <= x_t + 0.05) if fill == charts.FAIL_FILL else (x >= x_t - 0.05)  # fails below l


values_st = st.lists(st.one_of(st.floats(0, 1000, allow_nan=False), st.just(math.inf)), min_size=1, max_size=200)


@settings(max_examples=80, deadline=None)
@given(values=values_st, t=st.floats(0.01, 900), side=st.sampled_from(["above", "below"]), at=st.booleans())
def test_threshold_histogram_never_straddles(values, t, side, at):
    """The threshold is a bin edge, every finite value is counted once, and each bin's verdict (what its
    position says) adds up to the true number of failing values."""
    v = np.array(values)
    hist = threshold_histogram(v, t, side, at)
    assert t in hist["edges"] and sorted(hist["edges"]) == hist["edges"]
    finite = v[np.isfinite(v)]
    assert sum(hist["counts"]) + hist["overflow"] == len(finite) and hist["infinite"] == int(np.isinf(v).sum())
    if side == "above":
        true_failing = int(((v >= t) if at else (v > t)).sum())
        beside = hist["overflow"] + hist["infinite"]
    else:
        true_failing = int(((v <= t) if at else (v < t)).sum())
        beside = 0
    per_bin = bin_failing_counts(hist["edges"], hist["counts"], t, side)
    assert None not in per_bin
    assert sum(per_bin) + beside == true_failing


@settings(max_examples=80, deadline=None)
@given(
    values=st.lists(st.floats(0, 1), min_size=1, max_size=300),
    t=st.floats(0.001, 0.999),
    side=st.sampled_from(["above", "below"]),
)
@example(values=[0.15], t=0.15, side="below")  # the bin edge 0.15000000000000002 puts 0.15 in the bin below
def test_failing_total_settles_the_straddling_bin(values, t, side):
    """With equal-width bins (the assessors' histograms) at most one bin straddles t; the assessor's failing
    count tells exactly how many of its values fail."""
    v = np.array(values)
    counts, edges = np.histogram(v, bins=20, range=(0.0, 1.0))
    failing = (v > t) if side == "above" else (v < t)
    per_bin = bin_failing_counts(edges, counts, t, side, failing_total=int(failing.sum()))
    assert None not in per_bin
    assert all(0 <= f <= c for f, c in zip(per_bin, counts, strict=False))
    index = np.minimum(np.searchsorted(edges, v, side="right") - 1, 19)
    expected = np.bincount(index[failing], minlength=20)
    assert per_bin == pytest.approx(expected.tolist())


def parse_svg(svg):
    return ET.fromstring(str(svg))


def rects(root):
    return [
        (float(r.get("x")), float(r.get("width")), float(r.get("height")), r.get("fill"))
        for r in root.iter(f"{NS}rect")
        if r.get("y") != "4"
    ]


def test_a_bin_across_the_threshold_is_split_at_the_line():
    hist = {"edges": [0.0, 1.0, 2.0, 3.0], "counts": [4, 6, 2], "infinite": 0}
    fig = value_histogram_figure(hist, 1.5, "above", "t", "x", "t = 1.5", failing_total=3)
    root = parse_svg(fig.svg)
    drawn = rects(root)
    x_t = float([ln for ln in root.iter(f"{NS}line") if ln.get("stroke-dasharray")][0].get("x1"))
    assert [f for *_, f in drawn] == [charts.PASS_FILL, charts.PASS_FILL, charts.FAIL_FILL, charts.FAIL_FILL]
    (x1, w1, h1, _), (x2, _, h2, _) = drawn[1], drawn[2]
    assert x1 + w1 == pytest.approx(x_t, abs=0.11) and x2 == pytest.approx(x_t, abs=0.11)
    assert h1 / h2 == pytest.approx(5 / 1, rel=0.02)  # 5 of the bin's 6 values pass, 1 fails
    assert drawn[0][2] / drawn[3][2] == pytest.approx(4 / 2, rel=0.02)
    # without the assessor's count the bin is drawn in the third colour, and the legend says so
    fig = value_histogram_figure(hist, 1.5, "above", "t", "x", "t = 1.5")
    root = parse_svg(fig.svg)
    assert [f for *_, f in rects(root)] == [charts.PASS_FILL, charts.MIXED_FILL, charts.FAIL_FILL]
    assert "some pass, some fail" in [t.text for t in root.iter(f"{NS}text")]
    assert "both sides of the threshold" in fig.caption


def test_values_equal_to_the_threshold_pass_in_their_own_bar():
    """t-closeness passes EMD = t: a bin starting at t that holds such classes shows them apart."""
    hist = {"edges": [0.0, 0.1, 0.2, 0.3], "counts": [1, 3, 5], "infinite": 0}
    per_bin = bin_failing_counts(hist["edges"], hist["counts"], 0.2, "above", failing_total=3)
    assert per_bin == [0.0, 0.0, 3.0]  # 2 of the 5 values in [0.2, 0.3) equal 0.2 and pass
    drawn = rects(parse_svg(value_histogram_figure(hist, 0.2, "above", "t", "x", "t", failing_total=3).svg))
    assert [f for *_, f in drawn] == [charts.PASS_FILL, charts.PASS_FILL, charts.PASS_FILL, charts.FAIL_FILL]
    assert drawn[2][2] / drawn[3][2] == pytest.approx(2 / 3, rel=0.02)


# ------------------------------------------------------------------------------- share bars
@settings(max_examples=40, deadline=None)
@given(shares=st.lists(st.floats(0, 1), min_size=1, max_size=8), limit=st.floats(0, 1))
def test_share_bars_are_proportional_and_the_limit_is_placed(shares, limit):
    labels = [f"attribute <{i}>" for i in range(len(shares))]
    svg = charts.share_bars_chart(
        labels, shares, [s > limit for s in shares], title="t", x_label="share", limit=limit, limit_label="max"
    )
    root = parse_svg(svg)
    drawn = rects(root)
    assert len(drawn) == len(shares)
    left = drawn[0][0]
    line = [ln for ln in root.iter(f"{NS}line") if ln.get("stroke-dasharray")][0]
    x_limit = float(line.get("x1"))
    for (_, _w, _, fill), s in zip(drawn, shares, strict=True):
        assert fill == (charts.FAIL_FILL if s > limit else charts.PASS_FILL)
    top = max(shares)
    if top > 0.05:  # widths proportional to the shares (coordinates are rounded to 0.1)
        scale = max(w for _, w, _, _ in drawn) / top
        for (_, w, _, _), s in zip(drawn, shares, strict=False):
            assert w == pytest.approx(s * scale, abs=0.3)
        assert x_limit == pytest.approx(left + limit * scale, abs=0.3 + 0.1 * limit / top)
    texts = [t.text for t in root.iter(f"{NS}text")]
    assert "attribute <0>" in texts  # escaped in the markup, read back as text
    assert "<0>" not in str(svg).replace("&lt;0&gt;", "")


# ------------------------------------------------------------------------------- interval disclosure
INTERVAL_POLICY = """version: 1
name: interval report
columns:
  id: {role: record_id}
  age: {role: quasi_identifier, type: numeric}
  income: {role: sensitive, type: numeric}
checks:
  - {id: both, assessor: interval_disclosure, method: sd, p: 50, sd_of: original, max_rate: 0.5}
  - {id: rank-income, assessor: interval_disclosure, attributes: [income], method: rank, p: 40, max_rate: 1}
"""


def test_interval_section_sentence_bars_and_table(tmp_path):
    # original income 10..50 (sd 15.81); released shifted by 0, 5, 20, 0, 9: inside 0.5 sd for ids 1, 2, 4
    (tmp_path / "original.csv").write_text("id,age,income\n1,20,10\n2,30,20\n3,40,30\n4,50,40\n5,60,50\n")
    (tmp_path / "released.csv").write_text("id,age,income\n5,60,59\n1,20,10\n2,30,25\n3,40,50\n4,50,40\n")
    policy = write_policy(tmp_path, INTERVAL_POLICY)
    result, tree = render(tmp_path / "released.csv", policy, original=tmp_path / "original.csv")
    sec = section_of(tree, result, "both")
    sentence = sec.find("p", cls="summary-sentence").clean_text()
    assert sentence.startswith(
        "For 3 people (60.0%), each of their true age and income lies within the "
        "intruder's interval around its released value"
    )
    assert "p = 50% of the standard deviation of the original column" in sentence
    assert "the true age of 5 (100%) and the true income of 3 (60%)" in sec.clean_text()
    rows = table_rows([t for t in sec.find_all("table") if "data" in t.classes][0])
    assert rows == [["age", "5", "100%"], ["income", "3", "60%"]]
    svg = sec.find("svg")
    bars = svg_bars(svg)
    assert [f for *_, f in bars] == [charts.FAIL_FILL, charts.FAIL_FILL, charts.FAIL_FILL]  # all above 50 %
    widths = [w for _, w, _, _ in bars]
    assert widths[0] / widths[1] == pytest.approx(1.0 / 0.6, rel=0.01) and widths[1] == pytest.approx(widths[2])
    labels = [t.clean_text() for t in svg.find_all("text")]
    assert {"age", "income", "every attribute", "max_rate = 50%", "100%", "60%"} <= set(labels)
    x_limit = threshold_x(svg)
    assert bars[0][0] + 0.5 / 1.0 * widths[0] == pytest.approx(x_limit, abs=0.2)  # 50 % of the 100 % bar
    summary = {r[0]: r for r in table_rows(tree.find("table", cls="summary"))}
    assert summary["both"][3:5] == ["≤ 50%", "60%"]
    # rank method on one attribute: h = floor(40 * 5 / 200 + 1/2) = 1 rank either side
    one = section_of(tree, result, "rank-income").find("p", cls="summary-sentence").clean_text()
    assert re.match(r"The true income of \d people \(\d+\.\d%\) lies within the intruder's interval", one)
    assert "p = 40% of the records' ranks around the released value (±1 ranks)" in one


def test_interval_section_on_adult_ages(tmp_path):
    """Adult's ages with seeded noise: the section's count is the share computed here from the sd rule."""
    original = pd.read_csv(ADULT, sep=";", dtype=str, keep_default_na=False, nrows=2000)[["age", "sex"]]
    original.insert(0, "id", range(len(original)))
    age = original["age"].astype(float).to_numpy()
    released = original.copy()
    released["age"] = np.round(age + np.random.default_rng(5).normal(0, 3, len(age))).astype(int)
    original.to_csv(tmp_path / "o.csv", index=False)
    released.to_csv(tmp_path / "r.csv", index=False)
    policy = write_policy(
        tmp_path,
        """version: 1
name: adult ages
columns:
  id: {role: record_id}
  age: {role: quasi_identifier, type: numeric}
  sex: {role: quasi_identifier}
checks:
  - {id: ages, assessor: interval_disclosure, method: sd, p: 10, max_rate: 0.2}
""",
    )
    result, tree = render(tmp_path / "r.csv", policy, original=tmp_path / "o.csv")
    expected = int((np.abs(age - released["age"].to_numpy()) <= 0.1 * age.std(ddof=1)).sum())
    sentence = section_of(tree, result, "ages").find("p", cls="summary-sentence").clean_text()
    assert sentence.startswith(f"The true age of {expected:,} people ({100 * expected / 2000:.1f}%)")
    assert 0 < expected < 2000


# ------------------------------------------------------------------------------- randomized response
RR_POLICY = """version: 1
name: rr report
columns:
  sex: {role: quasi_identifier}
  region: {role: quasi_identifier}
  disease: {role: sensitive}
checks:
  - {id: rr, assessor: rr_attribute_disclosure, sensitive: disease, max_risk: 0.45,
     randomized: {sex: {keep_probability: 0.8}}}
"""


def test_rr_section_histogram_and_keep_probabilities(tmp_path):
    n = 3000
    path = write_rr_table(tmp_path / "rr.csv", n)
    result, tree = render(path, write_policy(tmp_path, RR_POLICY), original=path)
    check = next(c for c in result.checks if c.id == "rr")
    d = check.details
    above = round(d["share_above"] * n)
    assert 0 < above < n
    sec = section_of(tree, result, "rr")
    sentence = sec.find("p", cls="summary-sentence").clean_text()
    assert sentence.startswith(
        f"{above:,} people ({100 * above / n:.1f}%) can have their disease guessed right "
        f"with a probability above 0.45 by an intruder who knows their sex and region"
    )
    assert f"at worst {float(check.value):.3g}" in sentence
    assert "taken from the original table" in sec.clean_text()
    keep = {r[0]: r for r in table_rows([t for t in sec.find_all("table") if "data" in t.classes][0])}
    assert keep["sex"][1:3] == ["quasi-identifier", "0.8"] and keep["region"][2:] == ["1", "not randomized"]
    assert keep["disease"][1] == "sensitive"
    # the histogram: failing records right of the max_risk line, and they add up to share_above
    svg = sec.find("svg")
    hist = d["risk_histogram"]
    per_bin = bin_failing_counts(hist["edges"], hist["counts"], 0.45, "above", failing_total=above)
    assert sum(per_bin) == above
    x_t = threshold_x(svg)
    for x, w, _, fill in svg_bars(svg):
        assert fill != charts.MIXED_FILL
        assert (x >= x_t - 0.05) if fill == charts.FAIL_FILL else (x + w <= x_t + 0.05)
    assert "max_risk = 0.45" in [t.clean_text() for t in svg.find_all("text")]


# ------------------------------------------------------------------------------- uniqueness
POP_POLICY = """version: 1
name: adult, every column known
data: {delimiter: ";"}
columns:
  sex: {role: quasi_identifier}
  age: {role: quasi_identifier}
  race: {role: quasi_identifier}
  marital-status: {role: quasi_identifier}
  education: {role: quasi_identifier}
  native-country: {role: quasi_identifier}
  workclass: {role: quasi_identifier}
  occupation: {role: quasi_identifier}
  salary-class: {role: quasi_identifier}
checks:
  - {assessor: uniqueness, max_share: 0.01, sampling_fraction: 0.1, snb: arx}
"""


def test_population_uniqueness_table_shows_arx_figures(tmp_path):
    """ARX's test on its adult.csv (all 9 columns as QIs): population uniqueness at sampling fraction 0.1
    is 0.27684993883653597 (Pitman, converged; Zayatz 0.3207402393466189)."""
    result, tree = render(ADULT, write_policy(tmp_path, POP_POLICY))
    sec = section_of(tree, result, "uniqueness")
    table = [t for t in sec.find_all("table") if "data" in t.classes][0]
    rows = {r[0]: r for r in table_rows(table)}
    population = 301_620  # 30,162 records at sampling fraction 0.1
    assert rows["Pitman"][1:3] == ["27.68%", f"{round(0.27684993883653597 * population):,}"]
    assert rows["Zayatz"][1] == "32.07%"
    assert rows["Dankar et al.'s rule"][1:] == [
        "27.68%",
        f"{round(0.27684993883653597 * population):,}",
        "chose Pitman",
    ]
    assert rows["SNB (shifted negative binomial)"][1] == "no estimate"  # ARX's SNB equations find no root here
    text = sec.clean_text()
    assert (
        "In the population this release was sampled from (301,620 people, sampling fraction 0.1), an "
        "estimated 27.68% of the people (about 83,503 of 301,620) are the only one with"
    ) in text
    assert "(Pitman model, chosen by Dankar et al.'s rule)" in text
    facts = {
        r.find("th").clean_text(): r.find("td").clean_text()
        for r in sec.find("table", cls="facts-table").find_all("tr")
    }
    assert facts["estimated population uniques"] == "27.68%"
    assert facts["global risk"] == share(result.checks[-3].details["global_risk"])


def test_expected_reidentifications_with_a_weight_column(tmp_path):
    (tmp_path / "w.csv").write_text("sex,region,w\nF,n,10\nF,n,10\nM,n,5\nM,s,2\nM,s,2\nF,s,40\n")
    policy = write_policy(
        tmp_path,
        """version: 1
name: weighted
columns:
  sex: {role: quasi_identifier}
  region: {role: quasi_identifier}
  w: {role: weight, type: numeric}
checks:
  - {assessor: uniqueness, max_share: 0.5}
""",
    )
    result, tree = render(tmp_path / "w.csv", policy)
    d = result.checks[-3].details
    text = section_of(tree, result, "uniqueness").clean_text()
    assert d["weight_column"] == "w"
    assert (
        f"about {d['expected_reidentifications']:.4g} of them are expected to be right "
        f"({share(d['global_risk'])} of the records; sdcMicro's individual risk, with population class sizes "
        f"F_k estimated from the sampling weights in w)"
    ) in text
    facts = {
        r.find("th").clean_text(): r.find("td").clean_text()
        for r in section_of(tree, result, "uniqueness").find("table", cls="facts-table").find_all("tr")
    }
    assert facts["weight column"] == "w"
