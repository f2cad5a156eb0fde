"""The "Release card" chapter: which checks are most at risk (by hand), and the card at the front of the
HTML report of ``privaudit audit``, before the summary of checks, its links pointing at the checks' sections."""

from __future__ import annotations

import re
from types import SimpleNamespace

from privaudit_extras import release_card
from privaudit_extras.release_card import at_risk, build

from privaudit.plugin.chapter import ChapterCheck, Link, Pairs
from privaudit.testing import registry_with, run_cli


def check(id, status, severity="error", value=None, threshold=None, better=None):
    entry = {"id": id, "assessor": "a", "status": status, "severity": severity, "value": value,
             "threshold": threshold, "message": f"{id} message"}  # fmt: skip
    if better:
        entry["better"] = better
    return ChapterCheck(entry, f"check-{id}", title=f"title {id}", value_text=str(value), threshold_text=str(threshold))


def test_most_at_risk_by_hand():
    checks = [
        check("pass-close", "pass", value=5, threshold=5, better="higher"),  # exactly at its bound
        check("warn", "fail", "warning", value=0.5, threshold=0.2, better="lower"),
        check("fail-near", "fail", value=4, threshold=5, better="higher"),  # 20 % short
        check("fail-far", "fail", value=1, threshold=5, better="higher"),  # 80 % short
        check("pass-far", "pass", value=50, threshold=5, better="higher"),
        check("errored", "error"),
    ]
    assert [c.check["id"] for c in at_risk(checks)] == ["fail-far", "fail-near", "warn"]
    assert [c.check["id"] for c in at_risk(checks, 6)][3:] == ["errored", "pass-close", "pass-far"]
    infinite = check("inf", "fail", value="inf", threshold=2, better="lower")
    assert at_risk([checks[2], infinite], 1)[0].check["id"] == "inf"


def test_the_card_for_one_run():
    data = {
        "input": {"rows": 1234, "columns": ["id", "age", "zip", "disease", "note"]},
        "scope": {"quasi_identifiers": ["age", "zip"], "sensitive": ["disease"], "identifiers": ["id"]},
        "summary": {"passed": False, "checks_total": 2, "checks_failed": 1, "checks_warned": 0, "checks_errored": 0},
    }
    checks = [check("k5", "fail", value=1, threshold=5, better="higher"), check("ok", "pass", value=9, threshold=5)]
    content = build(SimpleNamespace(data=data, checks=checks))
    pairs = next(b for b in content.blocks if isinstance(b, Pairs))
    assert dict(pairs.rows) == {
        "records": "1,234",
        "columns": "5",
        "quasi-identifiers": "2: age, zip",
        "sensitive": "1: disease",
        "identifiers": "1: id",
        "other columns": "1",
    }
    links = [part for block in content.blocks for part in getattr(block, "parts", ()) if isinstance(part, Link)]
    assert [(x.text, x.anchor) for x in links] == [("k5", "check-k5"), ("ok", "check-ok")]


def test_registered_at_the_front():
    chapter = registry_with(release_card).of("chapter")["release_card"]
    assert chapter.place == "front" and chapter.title == "Release card"


def test_in_the_html_report(release):
    html_path = release / "r.html"
    done = run_cli("audit", release / "data.csv", "--policy", release / "policy.yaml", "--html", html_path)
    assert done.code == 1, done.stderr
    html = html_path.read_text()
    card, summary = html.index("Release card"), html.index("Summary of checks")
    assert card < summary  # placed "front": after the cover, before the summary of checks
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html[card:summary]))
    assert "records 400" in text and "quasi-identifiers 2: age, zip" in text and "sensitive 1: disease" in text
    assert "most at risk" in text and "FAIL k5 (k-anonymity) measured" in text
    anchor = re.search(r'<a href="#([^"]+)">k5</a>', html[card:summary]).group(1)
    assert f'id="{anchor}"' in html  # the link points at the check's section


def test_a_failing_warning_reads_warn():
    """A warning-severity check that fails is shown WARN, as privaudit's summary of checks shows it."""
    from privaudit.plugin.chapter import Badge

    data = {
        "input": {"rows": 10, "columns": ["a"]},
        "scope": {"quasi_identifiers": ["a"], "sensitive": [], "identifiers": []},
        "summary": {"passed": True, "checks_total": 1, "checks_failed": 0, "checks_warned": 1, "checks_errored": 0},
    }
    content = build(SimpleNamespace(data=data, checks=[check("t", "fail", "warning", value=0.5, threshold=0.2)]))
    badges = [part.word for block in content.blocks for part in getattr(block, "parts", ()) if isinstance(part, Badge)]
    assert "WARN" in badges and badges.count("FAIL") == 0
