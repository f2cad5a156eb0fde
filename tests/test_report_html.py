"""The HTML report, read back: verdict, summary table, one section per check with its figures and charts,
scope, methodology, sign-off; golden numbers of Li, Li & Venkatasubramanian (ICDE 2007) Tables 4-5;
plugin sections, error checks, the generic section; large inputs; determinism."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import DATA, ROOT, write_policy
from markupsafe import Markup
from report_helpers import parse_html, table_rows

from privaudit import Assessor, Measurement, Params, __version__, hookimpl
from privaudit.pipeline.audit import run_audit
from privaudit.pipeline.plugins import build_registry, get_registry, make_manager
from privaudit.plugin import charts
from privaudit.plugin.sections import Figure, ReportSection
from privaudit.plugin.text import fmt
from privaudit.report.html import render_html

T = DATA / "tcloseness"
EPOCH = "1700000000"  # 2023-11-14 22:13:20 UTC


@pytest.fixture(autouse=True)
def fixed_epoch(monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH)


def audit_and_render(released, policy, registry=None):
    result = run_audit(released, policy, registry=registry)
    html = render_html(result, registry=registry)
    return result, html, parse_html(html)


@pytest.fixture(scope="module")
def t4():
    os.environ["SOURCE_DATE_EPOCH"] = EPOCH
    return audit_and_render(T / "table4.csv", T / "policy.yaml")


def summary_rows(tree):
    return {row[0]: row for row in table_rows(tree.find("table", cls="summary"))}


def section(tree, result, check_id):
    number = [c.id for c in result.checks].index(check_id) + 1
    return tree.find("section", id=f"check-{number}")


# ------------------------------------------------------------------------------------------ cover
def test_cover_states_the_verdict_and_the_inputs(t4):
    result, html, tree = t4
    verdict = tree.find(id="verdict").clean_text()
    assert verdict.startswith("FAIL")
    assert "2 failed, 0 warned, 0 errored of 7 checks" in verdict
    assert tree.find("body").attrs["data-verdict"] == "FAIL"
    cover = {
        r.find("th").clean_text(): r.find("td").clean_text()
        for r in tree.find("table", cls="cover-facts").find_all("tr")
    }
    assert cover["released file"] == "table4.csv"
    assert cover["SHA-256"] == hashlib.sha256((T / "table4.csv").read_bytes()).hexdigest()
    assert cover["policy SHA-256"] == hashlib.sha256((T / "policy.yaml").read_bytes()).hexdigest()
    assert cover["size"] == f"{(T / 'table4.csv').stat().st_size} bytes, 9 rows, 4 columns"
    assert cover["policy"].startswith(result.policy.name)
    assert cover["audited"] == "2023-11-14 22:13:20 UTC"
    assert cover["tool"].startswith(f"privaudit {__version__}")
    assert tree.find("h1").clean_text() == result.policy.name
    assert tree.find("title").clean_text().endswith(": FAIL")


def test_summary_table_matches_every_check(t4):
    result, _, tree = t4
    rows = summary_rows(tree)
    assert list(rows) == [c.id for c in result.checks]
    header = [th.clean_text() for th in tree.find("table", cls="summary").find("thead").find_all("th")]
    assert header == ["id", "assessor", "protects against", "threshold", "measured", "severity", "status"]
    expected = {  # id: (assessor title, protects, threshold, measured, status)
        "direct_identifiers": ("Direct identifiers", "identity", "0 columns", "0 columns", "PASS"),
        "k_anonymity": ("k-anonymity", "identity", "k ≥ 3", "3", "PASS"),
        "ldiv-disease": ("l-diversity", "attribute", "l ≥ 3", "3", "PASS"),
        "t-salary": ("t-closeness", "attribute", "t ≤ 0.2", "0.375", "FAIL"),  # paper: D[P1,Q] = 0.375
        "t-disease": ("t-closeness", "attribute", "t ≤ 0.2", "0.4444", "FAIL"),  # 4/9, see test_golden_tcloseness
    }
    for check_id, (title, protects, threshold, measured, status) in expected.items():
        assert rows[check_id][1:] == [title, protects, threshold, measured, "error", status]


def test_table5_golden_numbers_in_the_report():
    result, _, tree = audit_and_render(T / "table5.csv", T / "policy.yaml")
    rows = summary_rows(tree)
    assert rows["t-salary"][4] == "0.1667" and rows["t-salary"][6] == "PASS"  # paper: 0.167-closeness
    assert rows["t-disease"][4] == "0.2963" and rows["t-disease"][6] == "FAIL"  # 8/27
    assert "1 failed" in tree.find(id="verdict").clean_text()
    salary = section(tree, result, "t-salary").clean_text()
    assert "In every group the Salary distribution is within t = 0.2 of the whole table's" in salary


# --------------------------------------------------------------------------------------- sections
def test_one_section_per_check_with_figure_and_plain_sentence(t4):
    result, _, tree = t4
    for number, check in enumerate(result.checks, start=1):
        sec = tree.find("section", id=f"check-{number}")
        head = sec.find("h3").clean_text()
        assert head.startswith(f"{number}. ") and check.id in head
        measure = sec.find("div", cls="measure").clean_text()
        assert fmt(check.value) in measure
        assert sec.find("p", cls="summary-sentence").clean_text()
    k = section(tree, result, "k_anonymity").find("p", cls="summary-sentence").clean_text()
    assert k == (
        "Everyone hides in a group of at least 3 records sharing their ZIPCode and Age: an intruder who "
        "knows these values cannot narrow a person down further (k = 3)."
    )
    salary = section(tree, result, "t-salary").find("p", cls="summary-sentence").clean_text()
    assert salary.startswith("6 people (66.7%) are in groups whose Salary distribution is further than t = 0.2")
    disease = section(tree, result, "t-disease").find("p", cls="summary-sentence").clean_text()
    assert disease.startswith("9 people (100.0%) are in groups")


def test_worst_classes_table_shows_the_failing_classes(t4):
    result, _, tree = t4
    table = section(tree, result, "t-salary").find("table", cls="classes")
    header = [th.clean_text() for th in table.find("thead").find_all("th")]
    assert header == ["ZIPCode", "Age", "records", "EMD", "sensitive values (count)"]
    rows = table_rows(table)
    assert rows == [
        ["476**", "2*", "3", "0.375", "3 (1), 4 (1), 5 (1)"],  # classes of 3 = largest k: shown
        ["476**", "3*", "3", "0.2361", "7 (1), 9 (1), 10 (1)"],
    ]  # 17/72
    caption = section(tree, result, "t-salary").find("p", cls="table-caption").clean_text()
    assert caption == "All 2 classes further than t = 0.2"


def bars(svg):
    """(x, width, height, fill) of the data bars of a chart (legend keys are 10 x 10 at y = 4)."""
    out = []
    for r in svg.find_all("rect"):
        if r.attrs["y"] == "4":
            continue
        out.append((float(r.attrs["x"]), float(r.attrs["width"]), float(r.attrs["height"]), r.attrs["fill"]))
    return out


def test_charts_draw_the_histogram_and_the_threshold(t4):
    result, _, tree = t4
    for check_id, label in (("k_anonymity", "k = 3"), ("ldiv-disease", "l = 3"), ("t-salary", "t = 0.2")):
        svg = section(tree, result, check_id).find("svg")
        texts = [t.clean_text() for t in svg.find_all("text")]
        assert label in texts
        assert svg.find("title").clean_text()
    # t-salary: per-class EMD 0.375, 0.2361 (fail) and 1/6 (pass): three bars, two in the failing colour
    check = next(c for c in result.checks if c.id == "t-salary")
    hist = check.details["per_class_histogram"]
    drawn = bars(section(tree, result, "t-salary").find("svg"))
    assert len(drawn) == sum(1 for c in hist["counts"] if c) == 3
    assert sorted(f for *_, f in drawn) == sorted([charts.FAIL_FILL, charts.FAIL_FILL, charts.PASS_FILL])
    assert len({h for _, _, h, _ in drawn}) == 1  # one class each: equal heights
    # the threshold line sits left of the failing bars and right of the passing one
    line = [
        ln for ln in section(tree, result, "t-salary").find("svg").find_all("line") if ln.attrs.get("stroke-dasharray")
    ][0]
    x_t = float(line.attrs["x1"])
    for x, w, _, fill in drawn:
        assert (x > x_t) if fill == charts.FAIL_FILL else (x + w < x_t)


def test_scope_methodology_and_signoff(t4):
    result, _, tree = t4
    scope = tree.find("section", id="scope")
    columns = table_rows(scope.find("table", cls="columns"))
    assert columns[0] == ["ZIPCode", "quasi-identifier (an intruder may know it)", "nominal"]
    assert columns[3] == ["Disease", "sensitive (the value to protect)", "nominal, hierarchy"]
    text = scope.clean_text()
    assert "Semantics “value”: a missing or suppressed quasi-identifier value is a value of its own" in text
    assert "(empty cell), “*”" in text
    limits = {row[0]: row[1] for row in table_rows(scope.find("table", cls="limits"))}
    assert set(limits) == {
        "Direct identifiers",
        "Columns that give back a generalization",
        "Key variables the policy left out",
        "k-anonymity",
        "l-diversity",
        "t-closeness",
    }
    assert "homogeneity" in limits["k-anonymity"]
    appendix = tree.find("section", id="methodology").clean_text()
    registry = get_registry()
    for name in ("direct_identifiers", "k_anonymity", "l_diversity", "t_closeness"):
        a = registry.assessors[name]
        assert a.formula in appendix and a.reference in appendix
    signoff = tree.find("section", id="signoff")
    labels = [th.clean_text() for th in signoff.find_all("th")]
    assert labels == ["Reviewer", "Role", "Date", "Decision", "Conditions", "Signature"]
    assert all(td.clean_text() == "" for td in signoff.find_all("td") if "choices" not in td.classes)
    assert result.table.sha256 in signoff.clean_text()


def test_html_is_self_contained(t4):
    _, html, tree = t4
    assert not tree.find_all("script") and not tree.find_all("link") and not tree.find_all("img")
    for node in tree.iter():
        assert "src" not in node.attrs
        href = node.attrs.get("href")
        assert href is None or href.startswith("#")
    assert "url(" not in html and "@import" not in html


# ---------------------------------------------------------------------------------- determinism
@pytest.mark.slow
def test_html_is_byte_identical_across_runs(tmp_path):
    outputs = []
    for seed in ("1", "2"):
        out = tmp_path / f"r{seed}.html"
        env = {**os.environ, "SOURCE_DATE_EPOCH": EPOCH, "PYTHONHASHSEED": seed}
        subprocess.run(
            [
                sys.executable,
                "-m",
                "privaudit",
                "audit",
                str(T / "table4.csv"),
                "--policy",
                str(T / "policy.yaml"),
                "--html",
                str(out),
                "--quiet",
            ],
            env=env,
            cwd=ROOT,
        )
        outputs.append(out.read_bytes())
    assert outputs[0] == outputs[1]
    assert b"2023-11-14 22:13:20 UTC" in outputs[0]


# --------------------------------------------------------------------------------- policy options
def small_table(folder: Path, rows: list[dict], policy: str, name: str = "release.csv") -> tuple[Path, Path]:
    data = folder / name
    pd.DataFrame(rows).to_csv(data, index=False)
    return data, write_policy(folder, policy)


POLICY = """version: 1
name: small
data: {{missing_qi: {missing}}}
columns:
  zip: {{role: quasi_identifier}}
  age: {{role: quasi_identifier}}
  dx: {{role: sensitive}}
checks:
  - {{assessor: k_anonymity, k: 2}}
  - {{id: ldiv, assessor: l_diversity, sensitive: dx, l: 2}}
  - {{id: psens, assessor: p_sensitive_k_anonymity, p: 2, k: 2}}
report: {{max_classes: {cap}, show_sensitive_values: {show}}}
"""

ROWS = (
    [{"zip": "1000", "age": "30", "dx": "flu"}] * 2
    + [{"zip": "2000", "age": "40", "dx": "hiv"}]
    + [{"zip": "3000", "age": "50", "dx": "cold"}]
    + [{"zip": "4000", "age": "", "dx": "flu"}]
)


def test_sensitive_values_of_small_classes_are_withheld(tmp_path):
    data, policy = small_table(tmp_path, ROWS, POLICY.format(missing="value", cap=20, show="false"))
    result, html, tree = audit_and_render(data, policy)
    table = section(tree, result, "ldiv").find("table", cls="classes")
    assert sorted(r[-1] for r in table_rows(table)) == ["flu (2)", "withheld", "withheld", "withheld"]
    assert "hiv" not in html and "cold" not in html  # the values of the classes of one person
    assert "withheld" in section(tree, result, "ldiv").find("p", cls="note").clean_text()


def test_p_sensitive_section(tmp_path):
    data, policy = small_table(tmp_path, ROWS, POLICY.format(missing="value", cap=20, show="false"))
    result, _, tree = audit_and_render(data, policy)
    sec = section(tree, result, "psens")
    assert (
        sec.find("p", cls="summary-sentence")
        .clean_text()
        .startswith(
            "5 people (100.0%) are in groups smaller than k = 2 or with fewer than p = 2 different values of dx"
        )
    )
    assert summary_rows(tree)["psens"][3:5] == ["p ≥ 2, k ≥ 2", "p = 1, k = 1"]
    assert [r[-1] for r in table_rows(sec.find("table", cls="classes"))] == ["1", "1", "1", "1"]


def test_sensitive_values_shown_when_the_policy_allows(tmp_path):
    data, policy = small_table(tmp_path, ROWS, POLICY.format(missing="value", cap=20, show="true"))
    result, _, tree = audit_and_render(data, policy)
    values = [r[-1] for r in table_rows(section(tree, result, "ldiv").find("table", cls="classes"))]
    assert "hiv (1)" in values and "cold (1)" in values


def test_worst_classes_capped_by_policy(tmp_path):
    data, policy = small_table(tmp_path, ROWS, POLICY.format(missing="value", cap=1, show="false"))
    result, _, tree = audit_and_render(data, policy)
    sec = section(tree, result, "k_anonymity")
    assert len(table_rows(sec.find("table", cls="classes"))) == 1
    assert sec.find("p", cls="table-caption").clean_text() == "The 1 worst of 3 classes smaller than k = 2"
    assert "report.max_classes (1)" in sec.find("p", cls="note").clean_text()


def test_wildcard_semantics_explained_and_fk_column(tmp_path):
    data, policy = small_table(tmp_path, ROWS, POLICY.format(missing="wildcard", cap=20, show="false"))
    result, _, tree = audit_and_render(data, policy)
    assert "sdcMicro" in tree.find("section", id="scope").clean_text()
    header = [
        th.clean_text() for th in section(tree, result, "k_anonymity").find("table", cls="classes").find_all("th")
    ]
    assert header[:4] == ["zip", "age", "records", "f_k"]


def test_many_quasi_identifiers_share_one_cell(tmp_path):
    long_value = "Married-civ-spouse-" * 8
    rows = [{f"q{i}": (long_value if i == 0 else str(i)) for i in range(6)} | {"s": "x"}]
    columns = "\n".join(f"  q{i}: {{role: quasi_identifier}}" for i in range(6))
    policy = f"version: 1\nname: wide\ncolumns:\n{columns}\n  s: {{role: sensitive}}\nchecks:\n  - {{assessor: k_anonymity, k: 2}}\n"
    data, policy = small_table(tmp_path, rows, policy)
    result, _, tree = audit_and_render(data, policy)
    table = section(tree, result, "k_anonymity").find("table", cls="classes")
    assert [th.clean_text() for th in table.find_all("th")] == ["quasi-identifier values", "records"]
    pairs = [kv.clean_text() for kv in table.find_all("span", cls="kv")]
    assert pairs[0] == f"q0: {long_value}" and pairs[1:] == [f"q{i}: {i}" for i in range(1, 6)]


# ------------------------------------------------------------------------------- large inputs
def test_146000_classes_stay_small(tmp_path):
    n_classes, extra = 146_000, 4_000
    ids = np.concatenate([np.arange(n_classes), np.arange(extra)])
    rng = np.random.default_rng(7)
    frame = pd.DataFrame({"a": ids // 1000, "b": ids % 1000, "s": rng.choice(["u", "v", "w"], len(ids))})
    data = tmp_path / "big.csv"
    frame.to_csv(data, index=False)
    policy = write_policy(
        tmp_path,
        """version: 1
name: big
columns:
  a: {role: quasi_identifier}
  b: {role: quasi_identifier}
  s: {role: sensitive}
checks:
  - {assessor: k_anonymity, k: 2}
  - {assessor: uniqueness}
  - {id: ldiv, assessor: l_diversity, sensitive: s, l: 2}
  - {id: tc, assessor: t_closeness, sensitive: s, t: 0.3}
""",
    )
    result, html, tree = audit_and_render(data, policy)
    assert len(html.encode()) < 5_000_000
    k = section(tree, result, "k_anonymity")
    facts = {
        r.find("th").clean_text(): r.find("td").clean_text() for r in k.find("table", cls="facts-table").find_all("tr")
    }
    assert facts["classes (groups of look-alikes)"] == "146,000"
    assert facts["records alone in their class"] == "142,000"
    for check_id in ("k_anonymity", "uniqueness", "ldiv", "tc"):
        table = section(tree, result, check_id).find("table", cls="classes")
        assert len(table_rows(table)) == 20
    assert (
        section(tree, result, "k_anonymity")
        .find("p", cls="summary-sentence")
        .clean_text()
        .startswith("142,000 people are alone in their group")
    )


# ------------------------------------------------------------------------------------ plugins
class ScoreParams(Params):
    limit: float = 1.0


def plugin_registry(run, section=None):
    """A registry with the built-ins plus one plugin assessor ``score`` (and its ``Section``)."""

    class Plugin:
        @hookimpl
        def privaudit_assessors(self):
            return [
                Assessor(
                    name="score",
                    params=ScoreParams,
                    run=run,
                    title="Score check",
                    protects="identity",
                    measures="a plugin's score",
                    formula="score = 42",
                    reference="Plugin et al. (2024)",
                )
            ]

    plugins = [Plugin()]
    if section is not None:

        class SectionPlugin:
            @hookimpl
            def privaudit_report_sections(self):
                from privaudit.plugin.sections import Section

                return [Section("score", section)]

        plugins.append(SectionPlugin())
    return build_registry(make_manager(load_entry_points=False, extra_plugins=tuple(plugins)))


SCORE_POLICY = """version: 1
name: plugin
columns:
  zip: {role: quasi_identifier}
  dx: {role: sensitive}
checks:
  - {id: my-score, assessor: score, limit: 0.5}
  - {assessor: k_anonymity, k: 1}
"""


def test_error_check_shows_its_message(tmp_path):
    def run(ctx, params):
        raise RuntimeError("the score could not be computed <b>here</b>")

    data, policy = small_table(tmp_path, ROWS, SCORE_POLICY)
    result, html, tree = audit_and_render(data, policy, plugin_registry(run))
    assert tree.find(id="verdict").clean_text().startswith("FAIL")
    assert "1 errored" in tree.find(id="verdict").clean_text()
    assert summary_rows(tree)["my-score"][-1] == "ERROR"
    sec = section(tree, result, "my-score")
    assert "could not be completed" in sec.clean_text()
    assert (
        sec.find("p", cls="error-message")
        .clean_text()
        .endswith(  # after the plugin's package (runtime/guard.py)
            " raised RuntimeError: the score could not be computed <b>here</b>"
        )
    )
    assert not sec.find_all("b")  # the message is text, not markup


def test_unknown_assessor_gets_the_generic_section(tmp_path):
    details = {"score": 0.75, "parts": {"a": 1, "b": list(range(15))}, "note": "<i>x</i>"}

    def run(ctx, params):
        return Measurement(0.75, params.limit, False, "score 0.75 is above 0.5", details)

    data, policy = small_table(tmp_path, ROWS, SCORE_POLICY)
    result, _, tree = audit_and_render(data, policy, plugin_registry(run))
    sec = section(tree, result, "my-score")
    assert sec.find("p", cls="summary-sentence").clean_text() == "score 0.75 is above 0.5"
    rows = dict(table_rows(sec.find("table")))
    assert rows["score"] == "0.75" and rows["parts.a"] == "1" and rows["note"] == "<i>x</i>"
    assert rows["parts.b"].endswith("… (15 items)]")
    assert summary_rows(tree)["my-score"][3:5] == ["0.5", "0.75"]
    appendix = tree.find("section", id="methodology").clean_text()
    assert "score = 42" in appendix and "Plugin et al. (2024)" in appendix


def test_plugin_section_with_its_own_chart(tmp_path):
    def run(ctx, params):
        return Measurement(0.2, params.limit, True, "fine", {"hist": [1, 4, 2]})

    def draw(check, audit):
        svg = charts.histogram_chart(
            [0, 1, 2, 3],
            check.raw["details"]["hist"],  # an assessor without a Details model: its details as the report has them
            title="Scores",
            x_label="score",
            y_label="records",
            threshold=check.threshold,
            threshold_label="limit",
            fail_side="above",
        )
        return ReportSection(
            summary="Nobody scores too high.",
            value_text="0.2 points",
            threshold_text="≤ 0.5 points",
            figures=[Figure(svg, "Scores of everyone.")],
            limitations="does not know everything.",
        )

    data, policy = small_table(tmp_path, ROWS, SCORE_POLICY)
    result, _, tree = audit_and_render(data, policy, plugin_registry(run, draw))
    sec = section(tree, result, "my-score")
    assert sec.find("p", cls="summary-sentence").clean_text() == "Nobody scores too high."
    assert sec.find("figcaption").clean_text() == "Scores of everyone."
    assert len(bars(sec.find("svg"))) == 3
    assert summary_rows(tree)["my-score"][3:5] == ["≤ 0.5 points", "0.2 points"]
    limits = dict(table_rows(tree.find("table", cls="limits")))
    assert limits["Score check"] == "does not know everything."


def test_broken_plugin_section_falls_back_to_generic(tmp_path):
    def run(ctx, params):
        return Measurement(0.2, params.limit, True, "fine", {"x": 1})

    def broken(check, audit):
        raise KeyError("missing")

    data, policy = small_table(tmp_path, ROWS, SCORE_POLICY)
    result, _, tree = audit_and_render(data, policy, plugin_registry(run, broken))
    text = section(tree, result, "my-score").clean_text()
    assert "The section of plugin 'test_report_html'" in text and "for this check failed: KeyError" in text
    assert dict(table_rows(section(tree, result, "my-score").find("table")))["x"] == "1"


def test_figure_accepts_only_safe_markup():
    with pytest.raises(TypeError):
        Figure("<svg></svg>")
    for bad in (
        '<svg><image href="file:///etc/passwd"/></svg>',
        "<svg><script>alert(1)</script></svg>",
        '<svg><rect style="fill:url(http://x/y)"/></svg>',
        '<svg onload="alert(1)"></svg>',
    ):
        with pytest.raises(ValueError):
            Figure(Markup(bad))
