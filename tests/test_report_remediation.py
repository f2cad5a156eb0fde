"""The report of `privaudit remediate ... --html/--pdf`, read back: the cover names the input and the
remediated file, the "Remediation" chapter (own PDF bookmark) says whether the output is offered, shows
every check before and after, what changed, the information lost (shares as percentages) and the notes.

Data: the first 3,000 records of the bundled Adult extract (examples/adult/adult.csv), generalized as
examples/adult/make_release.py does but without its suppression step, so that 5-anonymity and the
diversity checks of policies/adult.yaml fail; `suppress` then repairs them. The PDF is rendered once."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os

import pandas as pd
import pytest
from conftest import DATA, ROOT, builtin_plugins, write_policy, write_rr_table
from hypothesis import given, settings
from hypothesis import strategies as st
from report_helpers import parse_html, pdf_outline_titles, pdf_pages_text, table_rows

from privaudit.cli import main
from privaudit.core.hierarchy import Hierarchy
from privaudit.plugin.sections import KeyValues
from privaudit.plugin.text import fmt, share
from privaudit.report.chapters.remediation import figure_text, label, readable, unit_of

pytestmark = pytest.mark.slow  # renders PDFs: a module-scoped report takes seconds to build

EPOCH = "1700000000"
ADULT = ROOT / "examples" / "adult" / "adult.csv"
POLICY = ROOT / "policies" / "adult.yaml"
HIERARCHIES = ROOT / "policies" / "hierarchies" / "adult"
LEVELS = {"sex": 0, "age": 2, "race": 1, "marital-status": 1, "education": 1, "native-country": 1, "workclass": 1}
STATUS = {
    ("pass", "error"): "PASS",
    ("fail", "error"): "FAIL",
    ("pass", "warning"): "PASS",
    ("fail", "warning"): "WARN",
    ("error", "error"): "ERROR",
    ("error", "warning"): "ERROR",
}


def failing_release(path, rows=3000):
    original = pd.read_csv(ADULT, sep=";", dtype=str, keep_default_na=False, nrows=rows)
    release = original.copy()
    for column, level in LEVELS.items():
        release[column] = (
            Hierarchy.from_csv(HIERARCHIES / f"{column}.csv").generalize(original[column], level).to_numpy()
        )
    release.to_csv(path, sep=";", index=False)
    return path


def run(*args):
    saved = os.environ.get("SOURCE_DATE_EPOCH")
    os.environ["SOURCE_DATE_EPOCH"] = EPOCH
    stderr = io.StringIO()
    try:
        with contextlib.redirect_stderr(stderr), contextlib.redirect_stdout(io.StringIO()):
            code = main([str(a) for a in args])
    finally:
        if saved is None:
            os.environ.pop("SOURCE_DATE_EPOCH")
        else:
            os.environ["SOURCE_DATE_EPOCH"] = saved
    return code, stderr.getvalue()


@pytest.fixture(scope="module")
def suppressed(tmp_path_factory):
    """(exit code, JSON report, HTML tree, PDF bytes, PDF page texts, folder) of one suppress run (budget 30 % of the records: a 3,000-record sample has many small classes)."""
    out = tmp_path_factory.mktemp("remediation")
    released = failing_release(out / "failing.csv")
    with builtin_plugins():  # the layout of privaudit's own chapters (an installed plugin's chapter would join it)
        code, err = _run_suppress(released, out)
    assert code == 0, err
    pdf = (out / "r.pdf").read_bytes()
    return (
        code,
        json.loads((out / "r.json").read_text()),
        parse_html((out / "r.html").read_text()),
        pdf,
        pdf_pages_text(pdf),
        out,
    )


def _run_suppress(released, out):
    return run(
        "remediate",
        released,
        "--policy",
        POLICY,
        "--method",
        "suppress",
        "--option",
        "max_suppression=0.3",
        "--out",
        out / "fixed.csv",
        "--json",
        out / "r.json",
        "--html",
        out / "r.html",
        "--pdf",
        out / "r.pdf",
        "--quiet",
    )


def cover_facts(tree):
    return {
        r.find("th").clean_text(): r.find("td").clean_text()
        for r in tree.find("table", cls="cover-facts").find_all("tr")
    }


def pairs(tree, cls):
    return {row[0]: row[1] for row in table_rows(tree.find("table", cls=cls))}


@pytest.mark.slow
def test_cover_names_the_input_and_the_remediated_file(suppressed):
    _, report, tree, _, _, out = suppressed
    rem = report["remediation"]
    assert tree.find("p", cls="kicker").clean_text() == "Privacy remediation report"
    assert tree.find(id="flow").clean_text() == "failing.csv → fixed.csv by Local suppression (suppress)"
    assert tree.find("title").clean_text().startswith("Privacy remediation: ")
    assert "failing.csv → fixed.csv" in tree.find("body").attrs["data-dataset"]
    facts = cover_facts(tree)
    assert facts["input file"] == "failing.csv, 3,000 rows"
    assert (
        facts["input SHA-256"]
        == hashlib.sha256((out / "failing.csv").read_bytes()).hexdigest()
        == rem["input"]["sha256"]
    )
    assert facts["remediated file"] == "fixed.csv (written)"
    assert facts["SHA-256"] == hashlib.sha256((out / "fixed.csv").read_bytes()).hexdigest()
    assert facts["method"] == "Local suppression (suppress)"
    assert "original file" not in facts  # the input is the re-audit's original: named once
    verdict = tree.find(id="verdict").clean_text()
    assert verdict.startswith("PASS") and "Input failing.csv: FAIL (" in verdict
    assert f"FAIL ({rem['before']['checks_failed']} failed, 0 errored)" in verdict


def test_remediation_chapter_offers_the_output(suppressed):
    _, report, tree, _, _, _ = suppressed
    chapter = tree.find("section", id="remediation")
    offer = chapter.find(id="remediation-offer")
    assert "offered" in offer.classes
    assert offer.clean_text() == "OFFERED The remediated table passes the policy and was written to fixed.csv."
    assert [h.clean_text() for h in chapter.find_all("h3")] == [
        "What was done",
        "Checks before and after",
        "What changed",
        "Information loss",
        "Notes",
    ]
    options = pairs(chapter, "options")
    assert options == {"mode": "cells", "largest share of records that may be suppressed": "30%", "columns": "default"}
    # the chapter comes right after the cover, before the summary of checks
    ids = [s.attrs.get("id") for s in tree.find("body").children if not isinstance(s, str) and s.tag == "section"]
    assert ids[:3] == ["cover", "remediation", "summary"]


def test_before_and_after_table_shows_every_check(suppressed):
    _, report, tree, _, _, _ = suppressed
    rem = report["remediation"]
    severity = {c["id"]: c["severity"] for c in report["checks"]}
    rows = table_rows(tree.find("table", cls="beforeafter"))
    assert [r[0].split(" ")[0] for r in rows] == list(rem["before"]["checks"]) == [c["id"] for c in report["checks"]]
    outcomes = {}
    for row in rows:
        cid = row[0].split(" ")[0]
        before, after = rem["before"]["checks"][cid], rem["after"]["checks"][cid]
        assert row[2].split(" ")[0] == STATUS[(before["status"], severity[cid])]
        assert row[3].split(" ")[0] == STATUS[(after["status"], severity[cid])]
        outcomes[cid] = row[4]
    assert outcomes["k_anonymity"] == "fixed" and outcomes["direct_identifiers"] == "still passes"
    by_id = {r[0].split(" ")[0]: r for r in rows}
    k_before, k_after = rem["before"]["checks"]["k_anonymity"]["value"], rem["after"]["checks"]["k_anonymity"]["value"]
    assert by_id["k_anonymity"][2] == f"FAIL {fmt(k_before)}" and by_id["k_anonymity"][3] == f"PASS {fmt(k_after)}"
    assert by_id["k_anonymity"][1] == "k ≥ 5"
    # uniqueness is shown as a share on both sides, as its section shows it
    u_before = rem["before"]["checks"]["uniqueness"]["value"]
    assert by_id["uniqueness"][2] == f"FAIL {share(u_before)}" and by_id["uniqueness"][3] == "PASS 0%"
    assert by_id["recursive-salary"][2].startswith("WARN")  # a warning-severity failure, as in the summary


def test_changes_loss_and_notes_are_readable(suppressed):
    _, report, tree, _, _, _ = suppressed
    rem = report["remediation"]
    changes = pairs(tree, "changes")
    assert changes["records changed"] == fmt(rem["changes"]["records_affected"])
    assert changes["records in the output"] == "3,000"
    assert changes["columns"] == ", ".join(rem["changes"]["columns"])
    loss = pairs(tree, "loss")
    assert loss["records suppressed"] == fmt(rem["loss"]["records_suppressed"])
    assert loss["share suppressed"] == share(rem["loss"]["share_suppressed"]) and loss["share suppressed"].endswith("%")
    assert 0 < rem["loss"]["share_suppressed"] <= 0.3
    assert loss["cells suppressed"] == fmt(rem["loss"]["cells_suppressed"])
    notes = tree.find("section", id="remediation").clean_text()
    assert "The method left no notes." in notes if not rem["notes"] else all(n in notes for n in rem["notes"])


def test_pdf_has_the_remediation_chapter_and_its_bookmark(suppressed):
    _, report, tree, pdf, pages, _ = suppressed
    text = " ".join(pages)
    assert "failing.csv → fixed.csv" in pages[0]
    assert "OFFERED" in text and "The remediated table passes the policy and was written to fixed.csv." in text
    for heading in ("Checks before and after", "What changed", "Information loss", "Notes"):
        assert heading in text
    for cid in report["remediation"]["before"]["checks"]:
        assert cid in text
    assert share(report["remediation"]["loss"]["share_suppressed"]) in text
    outline = pdf_outline_titles(pdf)
    top = [t for depth, t in outline if depth == 0]
    assert top == [
        report["policy"]["name"],
        "Remediation",
        "Summary of checks",
        "Utility",
        "The checks",
        "Attacker model and scope",
        "Methodology",
        "Sign-off",
    ]
    first_check = next(i for i, (d, t) in enumerate(outline) if t == "Summary of checks")
    assert [t for d, t in outline[:first_check] if d == 1] == [
        "What was lost",
        "What was done",
        "Checks before and after",
        "What changed",
        "Information loss",
        "Notes",
    ]
    for number, page in enumerate(pages, start=1):
        assert f"page {number} of {len(pages)}" in page


def test_not_offered_says_so_and_writes_no_file(tmp_path):
    released = failing_release(tmp_path / "failing.csv", rows=1500)
    code, err = run(
        "remediate",
        released,
        "--policy",
        POLICY,
        "--method",
        "suppress",
        "--option",
        "max_suppression=0.001",
        "--out",
        tmp_path / "fixed.csv",
        "--html",
        tmp_path / "r.html",
        "--json",
        tmp_path / "r.json",
        "--quiet",
    )
    assert code == 1, err
    assert not (tmp_path / "fixed.csv").exists()
    rem = json.loads((tmp_path / "r.json").read_text())["remediation"]
    tree = parse_html((tmp_path / "r.html").read_text())
    offer = tree.find(id="remediation-offer")
    assert "not-offered" in offer.classes
    failing = rem["after"]["checks_failed"] + rem["after"]["checks_errored"]
    assert offer.clean_text() == (
        f"NOT OFFERED The best attempt still fails {failing} checks of error severity: "
        f"no file was written (fixed.csv was not created)."
    )
    assert cover_facts(tree)["remediated file"] == "fixed.csv (not written: best attempt)"
    notes = [li.clean_text() for li in tree.find("ul", cls="notes").find_all("li")]
    assert notes == rem["notes"] and "would exceed the budget" in notes[0]
    assert tree.find(id="verdict").clean_text().startswith("FAIL")
    assert "not written: the best attempt does not pass" in tree.find("section", id="signoff").clean_text()


RR_POLICY = """version: 1
name: rr
columns:
  sex: {role: quasi_identifier}
  region: {role: quasi_identifier}
  disease: {role: sensitive}
checks:
  - {id: rr, assessor: rr_attribute_disclosure, sensitive: disease, max_risk: 0.6}
"""


def test_randomize_report_lists_published_parameters(tmp_path):
    data = write_rr_table(tmp_path / "original.csv", 2000)
    code, err = run(
        "remediate",
        data,
        "--policy",
        write_policy(tmp_path, RR_POLICY),
        "--method",
        "randomize",
        "--option",
        "seed=7",
        "--out",
        tmp_path / "release.csv",
        "--html",
        tmp_path / "r.html",
        "--json",
        tmp_path / "r.json",
        "--quiet",
    )
    assert code == 0, err
    rem = json.loads((tmp_path / "r.json").read_text())["remediation"]
    tree = parse_html((tmp_path / "r.html").read_text())
    chapter = tree.find("section", id="remediation")
    keep = rem["changes"]["keep_probabilities"]
    changes = {
        r.find_all("td")[0].clean_text(): r.find_all("td")[1]
        for r in tree.find("table", cls="changes").find("tbody").find_all("tr")
    }
    cell = changes["keep probability per column"].clean_text()
    assert cell == "  ".join(f"{c}: {fmt(p)}" for c, p in keep.items()).replace("  ", " ")
    assert len(changes["keep probability per column"].find_all("span", cls="kv")) == len(keep)
    overrides = pairs(chapter, "overrides")
    assert overrides["rr"] == "randomized: " + "; ".join(f"{c}: keep probability: {fmt(p)}" for c, p in keep.items())
    loss = pairs(chapter, "loss")
    assert loss["share values changed"] == share(rem["loss"]["share_values_changed"])
    assert loss["attribute-disclosure risk after"] == fmt(rem["loss"]["achieved_risk"])
    # the re-audit's rr section shows the same keep probabilities
    rr = [s for s in tree.find_all("section", cls="check") if "— rr" in s.find("h3").clean_text()][0]
    rows = {r[0]: r for r in table_rows([t for t in rr.find_all("table") if "data" in t.classes][0])}
    for column, p in keep.items():
        assert rows[column][2] == fmt(p, 4)
    assert rows["disease"][3] == "not randomized"


def test_a_plain_audit_has_no_remediation_chapter(tmp_path):
    code, _ = run(
        "audit",
        DATA / "tcloseness" / "table4.csv",
        "--policy",
        DATA / "tcloseness" / "policy.yaml",
        "--html",
        tmp_path / "a.html",
        "--quiet",
    )
    tree = parse_html((tmp_path / "a.html").read_text())
    assert not tree.find_all("section", id="remediation") and not tree.find_all(id="flow")
    assert tree.find("p", cls="kicker").clean_text() == "Privacy audit report"
    assert "released file" in cover_facts(tree)


# ------------------------------------------------------------------------------- readability rules
@settings(max_examples=60, deadline=None)
@given(x=st.floats(0, 1), key=st.sampled_from(["share_suppressed", "rate", "fraction_kept", "proportion"]))
def test_proportions_print_as_percentages(x, key):
    assert unit_of(key) == "share"
    rows, tables = readable({key: x})
    assert rows == [[label(key), share(x)]] and not tables
    assert figure_text(x, "share").endswith("%")


@settings(max_examples=60, deadline=None)
@given(x=st.floats(0, 100), key=st.sampled_from(["root_values_pct", "alteration_percent", "alteration"]))
def test_percentages_print_as_they_are(x, key):
    assert unit_of(key) == "pct"
    assert readable({key: x})[0] == [[label(key), f"{fmt(float(x))}%"]]


def test_nested_figures_become_cells_and_tables():
    loss = {
        "metric": "NLLM",
        "alteration_pct": {"NLLM": 12.5, "LLM": 40.0},
        "per_column": {
            "age": {"generalized_values_pct": 100.0, "root_values_pct": 0.0},
            "sex": {"generalized_values_pct": 0.0, "root_values_pct": 0.0},
        },
        "records_suppressed": 1234,
        "max_cluster_emd": None,
        "levels": {},
    }
    rows, tables = readable(loss, "column")
    assert rows[0] == ["metric", "NLLM"]
    assert rows[1] == ["alteration under each metric", KeyValues((("NLLM", "12.5%"), ("LLM", "40%")))]
    assert rows[2:] == [
        ["records suppressed", "1,234"],
        ["largest cluster EMD", "—"],
        ["hierarchy level chosen per column", "none"],
    ]
    (table,) = tables
    assert table.caption == "Per column"
    assert table.columns == ["column", "values generalized", "values generalized to the root (*)"]
    assert table.rows == [["age", "100%", "0%"], ["sex", "0%", "0%"]]
    assert label("some_new_key") == "some new key" and unit_of("some_new_key") is None
    assert figure_text(["a", "b"]) == "a, b" and figure_text([]) == "none" and figure_text(True) == "yes"


def test_the_note_on_percentages_only_where_a_figure_is_one(suppressed):
    """The note explaining percentages stood under every remediation, also one whose figures hold none."""
    from privaudit.report.chapters.remediation import has_percentages

    _, report, tree, _, _, _ = suppressed
    assert report["remediation"]["loss"]["share_suppressed"] > 0  # printed as a percentage: the note is there
    assert "Percentages: shares of records" in tree.find("section", id="remediation").clean_text()
    assert has_percentages({"per_column": {"age": {"generalized_values_pct": 100.0}}})
    assert has_percentages({"alteration_pct": {"NLLM": 12.5}}) and has_percentages({"rate": [0.1, 0.2]})
    assert not has_percentages({"records_suppressed": 3, "metric": "NLLM", "clusters": 916, "levels": {}})
    assert not has_percentages({"max_cluster_emd": None, "columns": ["age"], "sse": 155.5})
