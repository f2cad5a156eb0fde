"""The hand-written SVG charts: well-formed, deterministic, bars proportional to counts, threshold line
where it belongs, labels escaped, log axis for skewed counts."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET

from hypothesis import example, given, settings
from hypothesis import strategies as st

from privaudit.plugin import charts
from privaudit.plugin.binning import integer_bins, reciprocal_bins_failing
from privaudit.plugin.figures import size_histogram_figure

NS = "{http://www.w3.org/2000/svg}"


def parse(svg) -> ET.Element:
    return ET.fromstring(str(svg))


def data_bars(root):
    return [r for r in root.iter(f"{NS}rect") if r.get("y") != "4"]


def threshold_line(root):
    return [ln for ln in root.iter(f"{NS}line") if ln.get("stroke-dasharray")]


def inside_viewbox(root):
    for el in root.iter():
        for attr in ("x", "x1", "x2"):
            if el.get(attr) is not None:
                assert -1 <= float(el.get(attr)) <= charts.WIDTH + 1
        for attr in ("y", "y1", "y2"):
            if el.get(attr) is not None:
                assert -1 <= float(el.get(attr)) <= charts.HEIGHT + 1


counts_st = st.lists(st.integers(min_value=0, max_value=10**6), min_size=1, max_size=40)


@settings(max_examples=60, deadline=None)
@given(
    counts=counts_st,
    t=st.floats(min_value=0, max_value=1),
    infinite=st.integers(0, 1000),
    log=st.sampled_from([None, True, False]),
)
@example(counts=[0, 0, 0, 1, 0, 0, 0], t=0.5, infinite=1, log=None)  # a bin centred on t: 0.1-unit rounding
def test_histogram_is_well_formed_and_proportional(counts, t, infinite, log):
    edges = [i / len(counts) for i in range(len(counts) + 1)]
    svg = charts.histogram_chart(
        edges,
        counts,
        title="h",
        x_label="x",
        y_label="y",
        threshold=t,
        threshold_label=f"t = {t:.2f}",
        fail_side="above",
        infinite=infinite,
        log_y=log,
    )
    assert svg == charts.histogram_chart(
        edges,
        counts,
        title="h",
        x_label="x",
        y_label="y",
        threshold=t,
        threshold_label=f"t = {t:.2f}",
        fail_side="above",
        infinite=infinite,
        log_y=log,
    )
    root = parse(svg)
    inside_viewbox(root)
    drawn = data_bars(root)
    positive = [c for c in counts if c > 0] + ([infinite] if infinite else [])
    assert len(drawn) == len(positive)
    heights = [float(r.get("height")) for r in drawn]
    is_log = charts.should_use_log(positive) if log is None else log
    if not positive:
        pass
    elif not is_log:  # linear: heights proportional to counts (to the 0.1 unit rounding)
        top = max(range(len(positive)), key=lambda i: positive[i])
        scale = heights[top] / positive[top]
        for h, c in zip(heights, positive, strict=False):
            assert math.isclose(h, c * scale, abs_tol=0.2)
    else:  # log: order preserved
        order = sorted(range(len(positive)), key=lambda i: positive[i])
        assert all(heights[a] <= heights[b] + 0.1 for a, b in zip(order, order[1:], strict=False))
    # the threshold line lies between the bars that fail (right of it) and those that pass
    x_t = float(threshold_line(root)[0].get("x1"))
    for r in drawn:
        x, w = float(r.get("x")), float(r.get("width"))
        if r.get("fill") == charts.FAIL_FILL:
            assert x + w / 2 > x_t
        else:  # coordinates are rounded to 0.1 units, so a bar centred on t may sit 0.05 past it
            assert x + w / 2 <= x_t + 0.1 + 1e-6


@settings(max_examples=40, deadline=None)
@given(sizes=st.lists(st.integers(1, 500), min_size=1, max_size=60, unique=True), k=st.integers(1, 30), data=st.data())
def test_category_chart_labels_do_not_overlap(sizes, k, data):
    sizes = sorted(sizes)
    counts = data.draw(st.lists(st.integers(1, 10**5), min_size=len(sizes), max_size=len(sizes)))
    fig = size_histogram_figure([[s, c] for s, c in zip(sizes, counts, strict=False)], k, "Class sizes")
    root = parse(fig.svg)
    inside_viewbox(root)
    assert len(data_bars(root)) == len(sizes)
    fails = [r for r in data_bars(root) if r.get("fill") == charts.FAIL_FILL]
    assert len(fails) == sum(1 for s in sizes if s < k)
    ticks = [t for t in root.iter(f"{NS}text") if t.get("y") == str(round(charts.HEIGHT - charts.BOTTOM + 16))]
    xs = sorted((float(t.get("x")), len(t.text)) for t in ticks)
    assert xs[0][0] < xs[-1][0] or len(xs) == 1
    for (x0, n0), (x1, n1) in zip(xs, xs[1:], strict=False):  # centred labels: half widths must not meet
        assert x1 - x0 >= (n0 + n1) / 2 * charts.CHAR_WIDTH * 0.9


def test_labels_are_escaped():
    svg = charts.category_chart(
        ["<b>1</b>", "&2"], [1, 2], [False, True], title="<script>x</script>", x_label='"quoted"', y_label="y"
    )
    text = str(svg)
    assert "<script>" not in text and "<b>" not in text and "&lt;b&gt;1&lt;/b&gt;" in text
    parse(svg)  # still well-formed XML


def test_log_axis_for_skewed_counts():
    root = parse(
        charts.category_chart(
            ["1", "2", "3"], [100_000, 10, 1], [True, False, False], title="t", x_label="x", y_label="classes"
        )
    )
    labels = [t.text for t in root.iter(f"{NS}text")]
    assert "classes (log scale)" in labels and "100,000" in labels and "10" in labels
    assert len(data_bars(root)) == 3 and min(float(r.get("height")) for r in data_bars(root)) > 0


def test_integer_bins_and_reciprocal_bins():
    edges = [i * 0.15 for i in range(21)]  # l-diversity distinct, max 3: 20 bins of 0.15
    counts = [0] * 20
    counts[6], counts[13], counts[19] = 4, 2, 7  # values 1 (in [0.9, 1.05)), 2 (in [1.95, 2.1)), 3 (last bin)
    assert integer_bins({"edges": edges, "counts": counts}) == ([1, 2, 3], [4, 2, 7])
    risk_edges = [i / 20 for i in range(21)]
    failing = reciprocal_bins_failing(risk_edges, 0.2)
    # bins holding 1/f: 1 (last), 1/2 (0.5), 1/3 (0.3), 1/4 (0.25) fail; 1/5 = 0.2 exactly passes
    assert [i for i, f in enumerate(failing) if f] == [5, 6, 10, 19]
