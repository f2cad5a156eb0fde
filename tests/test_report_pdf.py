"""The PDF report, end to end through the CLI on the bundled example (examples/adult/release.csv with
policies/adult.yaml), read back with pypdf: verdict, every check and its measured value, running header
and "page X of Y" footer, bookmarks, A4 pages, embedded DejaVu fonts, reproducible dates.

The PDF is rendered once for the module (WeasyPrint takes seconds)."""

from __future__ import annotations

import contextlib
import io
import json
import os

import pypdf
import pytest
from conftest import DATA, ROOT, builtin_plugins
from report_helpers import parse_html, pdf_outline_titles, pdf_pages_text, table_rows

from privaudit.cli import main

pytestmark = pytest.mark.slow  # renders PDFs: a module-scoped report takes seconds to build

EPOCH = "1700000000"
EXAMPLE = (ROOT / "examples" / "adult" / "release.csv", ROOT / "policies" / "adult.yaml")
FALLBACK = (DATA / "tcloseness" / "table4.csv", DATA / "tcloseness" / "policy.yaml")


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    """(JSON report, HTML tree, PDF bytes, exit code, text of each PDF page) of one CLI run on the example."""
    released, policy = EXAMPLE if EXAMPLE[0].exists() else FALLBACK
    out = tmp_path_factory.mktemp("pdf")
    saved = os.environ.get("SOURCE_DATE_EPOCH")
    os.environ["SOURCE_DATE_EPOCH"] = EPOCH
    stderr = io.StringIO()
    try:
        # privaudit's own chapters and bookmarks (an installed plugin's chapter, e.g. a front one, would add one)
        with contextlib.redirect_stderr(stderr), builtin_plugins():
            code = main(
                [
                    "audit",
                    str(released),
                    "--policy",
                    str(policy),
                    "--json",
                    str(out / "r.json"),
                    "--html",
                    str(out / "r.html"),
                    "--pdf",
                    str(out / "r.pdf"),
                    "--quiet",
                ]
            )
    finally:
        if saved is None:
            os.environ.pop("SOURCE_DATE_EPOCH")
        else:
            os.environ["SOURCE_DATE_EPOCH"] = saved
    assert code in (0, 1), stderr.getvalue()
    report = json.loads((out / "r.json").read_text())
    pdf = (out / "r.pdf").read_bytes()
    return report, parse_html((out / "r.html").read_text()), pdf, code, pdf_pages_text(pdf)


@pytest.mark.slow
def test_cli_wrote_a_pdf(rendered):
    report, _, pdf, code, _ = rendered
    assert pdf.startswith(b"%PDF-") and pdf.rstrip().endswith(b"%%EOF")
    assert code == (0 if report["summary"]["passed"] else 1)


def test_first_page_states_the_verdict(rendered):
    report, _, _, _, pages = rendered
    first = pages[0]
    s = report["summary"]
    verdict = "PASS" if s["passed"] else "FAIL"
    assert verdict in first
    assert (
        f"{s['checks_failed']} failed, {s['checks_warned']} warned, {s['checks_errored']} errored of "
        f"{s['checks_total']} checks"
    ) in first
    assert report["input"]["sha256"] in first and report["policy"]["sha256"] in first
    assert "2023-11-14 22:13:20 UTC" in first


def test_every_check_and_its_value_is_in_the_pdf(rendered):
    report, tree, _, _, pages = rendered
    text = " ".join(pages)
    summary = {row[0]: row for row in table_rows(tree.find("table", cls="summary"))}
    for number, check in enumerate(report["checks"], start=1):
        row = summary[check["id"]]
        measured, status = row[4], row[6]
        section = tree.find("section", id=f"check-{number}")
        sentence = section.find("p", cls="summary-sentence").clean_text()
        assert f"{number}. " in text and check["id"] in text
        assert measured in text and status in text
        assert sentence[:60] in text  # the plain-language sentence (first words; the PDF wraps lines)


def test_header_footer_on_every_page(rendered):
    report, _, _, _, pages = rendered
    verdict = "PASS" if report["summary"]["passed"] else "FAIL"
    assert len(pages) >= 3
    for number, page in enumerate(pages, start=1):
        assert f"page {number} of {len(pages)}" in page
        if number > 1:  # the cover carries the verdict itself, the other pages in the running header
            assert f"Verdict: {verdict}" in page
            assert report["policy"]["name"][:30] in page


def test_bookmarks_per_chapter_and_check(rendered):
    report, _, pdf, _, _ = rendered
    outline = pdf_outline_titles(pdf)
    top = [title for depth, title in outline if depth == 0]
    assert top == [
        report["policy"]["name"],
        "Summary of checks",
        "Utility",
        "The checks",
        "Attacker model and scope",
        "Methodology",
        "Sign-off",
    ]
    checks = [title for depth, title in outline if depth == 1]
    assert len(checks) == len(report["checks"])
    for number, (title, check) in enumerate(zip(checks, report["checks"], strict=False), start=1):
        assert title.startswith(f"{number}. ") and check["id"] in title


def test_a4_pages_embedded_dejavu_fonts_and_dates(rendered):
    _, _, pdf, _, _ = rendered
    reader = pypdf.PdfReader(io.BytesIO(pdf))
    fonts = set()
    for page in reader.pages:
        box = page.mediabox
        assert round(float(box.width)) == 595 and round(float(box.height)) == 842  # A4 in points
        for font in page["/Resources"].get("/Font", {}).values():
            font = font.get_object()
            descriptor = font.get("/FontDescriptor") or font["/DescendantFonts"][0].get_object()["/FontDescriptor"]
            descriptor = descriptor.get_object()
            assert any(key in descriptor for key in ("/FontFile", "/FontFile2", "/FontFile3")), font["/BaseFont"]
            fonts.add(str(font["/BaseFont"]).split("+")[-1])
    assert fonts and all(name.startswith("/DejaVu") or name.startswith("DejaVu") for name in fonts), fonts
    assert reader.metadata["/CreationDate"].startswith("D:20231114221320")
    assert reader.metadata["/Title"].startswith("Privacy audit: ")


# --- archival: PDF/A-3b with the JSON report and the policy attached ----------------------
# veraPDF does not install from this machine's registries (a Java application, not on PyPI, Debian or npm), so
# conformance is checked with what pypdf can read: the PDF/A identification in the XMP metadata, the output
# intent with its ICC profile, fonts embedded, no encryption or JavaScript, and the attachments themselves.


def test_the_pdf_carries_the_report_and_the_policy(rendered):
    report, _, pdf, _, _ = rendered
    attachments = pypdf.PdfReader(io.BytesIO(pdf)).attachments
    assert sorted(attachments) == ["policy.yaml", "report.json"]
    (embedded_report,) = attachments["report.json"]
    assert json.loads(embedded_report) == report
    (embedded_policy,) = attachments["policy.yaml"]
    released, policy = EXAMPLE if EXAMPLE[0].exists() else FALLBACK
    assert embedded_policy == policy.read_bytes()
    import hashlib

    assert hashlib.sha256(embedded_policy).hexdigest() == report["policy"]["sha256"]


def test_the_pdf_is_pdf_a_3b(rendered):
    _, _, pdf, _, _ = rendered
    reader = pypdf.PdfReader(io.BytesIO(pdf))
    assert not reader.is_encrypted
    xmp = reader.xmp_metadata.stream.get_data().decode()
    assert 'pdfaid:part="3"' in xmp and 'pdfaid:conformance="B"' in xmp
    root = reader.trailer["/Root"]
    (intent,) = [i.get_object() for i in root["/OutputIntents"]]
    assert intent["/S"] == "/GTS_PDFA1" and "/DestOutputProfile" in intent
    assert {f.get_object()["/F"] for f in root["/AF"]} == {"report.json", "policy.yaml"}  # PDF/A-3 associated files
    assert "/JavaScript" not in str(root.get("/Names", {})) and "/OpenAction" not in root
    assert reader.trailer.get("/ID") is not None  # PDF/A requires a file identifier
    for page in reader.pages:
        for font in page["/Resources"].get("/Font", {}).values():
            font = font.get_object()
            described = [d.get_object() for d in font.get("/DescendantFonts", [])] or [font]
            for d in described:
                descriptor = d["/FontDescriptor"].get_object()
                assert any(k in descriptor for k in ("/FontFile", "/FontFile2", "/FontFile3")), d.get("/BaseFont")


@pytest.mark.slow
def test_a_dict_policy_is_attached_as_its_canonical_form(tmp_path):
    import hashlib

    import pandas as pd
    import yaml

    import privaudit

    frame = pd.DataFrame({"age": ["30", "30", "40", "40"], "zip": ["1", "1", "2", "2"]})
    policy = {
        "columns": {"age": {"role": "quasi_identifier"}, "zip": {"role": "quasi_identifier"}},
        "checks": [{"assessor": "k_anonymity", "k": 2}],
    }
    report = privaudit.audit(frame, policy)
    report.to_pdf(tmp_path / "a.pdf")
    attachments = pypdf.PdfReader(tmp_path / "a.pdf").attachments
    (embedded,) = attachments["policy.yaml"]
    assert yaml.safe_load(embedded)["checks"] == [{"assessor": "k_anonymity", "k": 2}]
    assert hashlib.sha256(embedded).hexdigest() == report.to_dict()["policy"]["sha256"]
    assert json.loads(attachments["report.json"][0])["summary"]["passed"] is True
