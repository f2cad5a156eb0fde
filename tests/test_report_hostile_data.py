"""Reports read as their user reads them, on hostile names and values.

Each test is a defect seen in a rendered report: a right-to-left override in a column name printing the
rest of a sentence backwards, Markdown summaries rendering a column name as HTML, a "Synthetic release"
chapter of one sentence on a page of its own for a masked release, check ids and long names cut in
mid-word or running off the PDF page.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest
from report_helpers import parse_html, pdf_pages_text

from privaudit.plugin.result import InputFacts, PolicyFacts, Report, ReportCheck
from privaudit.plugin.text import printable, visible
from privaudit.report.ci import markdown
from privaudit.report.html import render_html
from privaudit.report.json_report import render_json, report_of
from privaudit.report.pdf import render_audit_pdf
from privaudit.testing import audit_frame, registry_with

RLO = "\u202e"  # RIGHT-TO-LEFT OVERRIDE


@pytest.fixture(scope="module")
def registry():
    return registry_with(entry_points=False)  # the built-ins only: no installed plugin changes the pages


@pytest.fixture(scope="module")
def spoofed(registry):
    """A release whose quasi-identifier name holds U+202E and whose sensitive value holds ESC, BEL and U+202E."""
    n = 40
    frame = pd.DataFrame(
        {
            f"zip{RLO}txt.exe": [f"z{i % 4}" for i in range(n)],
            "age": [str(20 + i % 2) for i in range(n)],
            "diag": ["flu"] * 20 + [f"\x1b[31mred\x07{RLO}gnp.exe"] + ["cold"] * 19,
        }
    )
    policy = {
        "columns": {
            f"zip{RLO}txt.exe": {"role": "quasi_identifier"},
            "age": {"role": "quasi_identifier"},
            "diag": {"role": "sensitive"},
        },
        "checks": [{"assessor": "k_anonymity", "k": 3}, {"assessor": "t_closeness", "sensitive": "diag", "t": 0.05}],
        "report": {"show_sensitive_values": True},
    }
    result = audit_frame(frame, policy, registry=registry)
    return result, render_html(result, registry)


def test_printable_and_visible_escape_bidi_controls():
    assert printable(f"a{RLO}b\u2066c") == "a\\u202eb\\u2066c"
    assert visible(f"a{RLO}b\n\tc\x1b") == "a\\u202eb\n\tc\\x1b"  # layout whitespace kept on a page
    assert visible(7) == 7


def test_no_bidi_or_control_character_reaches_the_html(spoofed):
    _, html = spoofed
    for char in (RLO, "\x1b", "\x07"):
        assert char not in html
    assert "zip\\u202etxt.exe" in html  # the column is named as it is, its hidden character shown
    assert "\\x1b[31mred\\x07\\u202egnp.exe" in html  # the sensitive value too (shown: the policy asks)


@pytest.mark.slow
def test_the_pdf_prints_no_sentence_backwards(spoofed, registry):
    result, html = spoofed
    text = " ".join(pdf_pages_text(render_audit_pdf(result, html)))
    assert "Quasi-identifiers: zip\\u202etxt.exe, age." in " ".join(text.split())
    assert "ega ," not in text  # before: "Quasi-identifiers: zip... ,ega .exe.txt" (U+202E reversed the rest)


def test_the_json_keeps_the_data_exact(spoofed):
    result, _ = spoofed
    assert f"zip{RLO}txt.exe" in json.loads(render_json(report_of(result)))["input"]["columns"]


def test_markdown_cells_hold_text_not_markup():
    data = {
        "input": {"path": "rel`ease|.csv", "rows": 3},
        "policy": {"name": "p <b>bold</b>"},
        "checks": [
            {
                "id": "k`id",
                "assessor": "k_anonymity",
                "status": "fail",
                "severity": "error",
                "value": 1,
                "threshold": 5,
                "message": f"column '<img src=https://x.example/t.png>' [a](http://x) {RLO}|x",
            },
            {
                "id": "t",
                "assessor": "t_closeness",
                "status": "fail",
                "severity": "warning",
                "value": 0.5,
                "threshold": 0.2,
                "message": "ok",
            },
        ],
    }
    report = Report.model_construct(  # only what the summary reads: the typed report's parts, unvalidated
        input=InputFacts.model_construct(**data["input"]),
        policy=PolicyFacts.model_construct(**data["policy"]),
        checks=[ReportCheck.model_construct(**c) for c in data["checks"]],
    )
    md = markdown(report)
    assert re.search(r"(?<!\\)<", md) is None  # every "<" escaped: nothing renders as HTML
    assert "\\<img src=https://x.example/t.png\\>" in md
    assert "\\[a\\](http://x)" in md and RLO not in md and "\\\\u202e\\|x" in md
    assert "**p \\<b\\>bold\\</b\\>**" in md
    assert "``rel`ease\\|.csv``" not in md and "`` rel`ease\\|.csv ``" in md  # a code span around a backtick
    assert "| `` k`id `` |" in md
    assert "1 failed, 1 warned, 0 errored of 2 checks" in md  # as the HTML cover counts them
    assert md.count("\n| ") == 3


def test_no_synthetic_chapter_for_a_distance_check_alone(registry):
    frame = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0] * 3, "b": list("xyzxyz") * 3})
    original = frame.assign(a=frame["a"] + 0.25)
    policy = {
        "columns": {"a": {"role": "quasi_identifier", "type": "numeric"}, "b": {"role": "quasi_identifier"}},
        "checks": [{"assessor": "distance_to_closest_record"}],
    }
    html = render_html(audit_frame(frame, policy, registry=registry, original=original), registry)
    assert 'id="synthetic"' not in html  # before: a page holding one sentence claiming the release is synthetic
    assert "Distance to closest record" in html


@pytest.mark.slow
def test_long_ids_and_names_wrap_inside_the_page(registry):
    long_qi = "Q" * 120
    frame = pd.DataFrame({long_qi: [f"z{i % 4}" for i in range(20)], "dx": ["a", "b"] * 10})
    policy = {
        "name": "N" * 100,
        "columns": {long_qi: {"role": "quasi_identifier"}, "dx": {"role": "sensitive"}},
        "checks": [{"assessor": "reidentification_risk", "max_risk": 0.5}],
    }
    result = audit_frame(frame, policy, registry=registry)
    html = render_html(result, registry)
    cell = parse_html(html).find("td", cls="id")
    assert cell.text() == "direct_identifiers"  # copies as typed ...
    assert "direct_<wbr>identifiers" in html  # ... and may wrap at the underscore, not in mid-word
    assert 'data-dataset="' + "N" * 39 + '… · data.csv"' in html  # the running header is shortened
    pages = pdf_pages_text(render_audit_pdf(result, html))
    first = pages[0]
    assert "reidentification_" in first and "reidentification_ris\n" not in first
    # before: the unbroken name ran off the right edge; now every character of it is on the page
    assert sum(p.count("Q") for p in pages[1:2]) >= 120


def test_a_figure_equal_to_the_bound_up_to_rounding_is_drawn_on_its_verdicts_side():
    import math

    from privaudit.plugin.binning import threshold_histogram

    l3 = math.exp(math.log(3.0))  # 2.9999999999999996: passes l = 3 (plugin/helpers.py: reaches)
    hist = threshold_histogram([1.0, 1.0, 2.0, l3], 3.0, "below", False, lo=0.0)
    edges, counts = hist["edges"], hist["counts"]
    passing = [c for lo, c in zip(edges[:-1], counts, strict=False) if lo >= 3.0]
    assert sum(passing) == 1  # before: binned just left of the l = 3 line, among the failing bars


def test_identifiers_the_scan_finds_are_masked_in_the_worst_classes(registry):
    n = 30
    frame = pd.DataFrame(
        {
            "email": [f"alice{i}@corp.example.com" for i in range(n)],
            "age": [str(20 + i % 3) for i in range(n)],
            "dx": ["flu", "cold", "hiv"] * 10,
        }
    )
    policy = {
        "columns": {
            "email": {"role": "quasi_identifier"},
            "age": {"role": "quasi_identifier"},
            "dx": {"role": "sensitive"},
        },
        "checks": [{"assessor": "k_anonymity", "k": 3}, {"assessor": "l_diversity", "sensitive": "dx", "l": 2}],
    }
    result = audit_frame(frame, policy, registry=registry)
    raw = {c.id: c for c in result.checks}["k_anonymity"].details["worst_classes"]
    assert raw[0]["values"]["email"].endswith("@corp.example.com")  # the audit keeps what it measured
    report = json.loads(render_json(report_of(result)))
    html = render_html(result, registry)
    for text in (json.dumps(report), html):
        assert "@corp.example.com" not in text  # before: 20 addresses in full per check
    shown = {c["id"]: c for c in report["checks"]}["k_anonymity"]["details"]["worst_classes"][0]["values"]
    assert shown == {"email": "a***@c***.e***.com", "age": shown["age"]} and shown["age"] in {"20", "21", "22"}


ARRESTS = Path(__file__).parent / "data" / "surveys" / "Arrests.csv"


def _arrests_report(registry, show: bool) -> dict:
    frame = pd.read_csv(ARRESTS, dtype=str, keep_default_na=False)
    policy = {
        "columns": {
            "colour": {"role": "quasi_identifier", "special_category": "ethnicity"},
            **{c: {"role": "quasi_identifier"} for c in ("age", "sex", "employed", "citizen")},
            **{c: {"role": "other"} for c in ("released", "year", "checks")},
        },
        "checks": [{"assessor": "k_anonymity", "k": 5}],
        "report": {"show_sensitive_values": show},
    }
    return json.loads(render_json(report_of(audit_frame(frame, policy, registry=registry))))


def test_a_special_category_key_of_a_small_class_is_not_printed(registry):
    # carData::Arrests (tests/data/surveys/PROVENANCE.md): the worst classes are sample uniques; their key
    # identifies the arrestee, so printing their colour (race, GDPR Art. 9) printed that person's race, where
    # the sensitive values of such a class are withheld (AuditContext.worst_classes)
    check = next(c for c in _arrests_report(registry, False)["checks"] if c["assessor"] == "k_anonymity")
    rows = check["details"]["worst_classes"]
    assert rows and all(r["size"] < 5 for r in rows)
    assert {r["values"]["colour"] for r in rows} == {"(not printed)"}
    assert all(r["values"]["age"] != "(not printed)" for r in rows)  # the other key variables stay
    shown = next(c for c in _arrests_report(registry, True)["checks"] if c["assessor"] == "k_anonymity")
    shown = shown["details"]["worst_classes"]
    assert {r["values"]["colour"] for r in shown} <= {"Black", "White"}
