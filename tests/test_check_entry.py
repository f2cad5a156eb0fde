"""Report sections read a typed check (``privaudit.plugin.sections.CheckEntry``), not the JSON entry's string
keys: the parameters are the assessor's ``Params`` object (the policy's own), the details its ``Details`` object
validated once by the report; a plugin's section, whether its assessor's own or a hook override, gets the same
entry; details that do not validate are reported as what they are, never a crash; and no section of
``privaudit/assessors/`` (nor of the example plugin) goes back to indexing ``check`` by string."""

from __future__ import annotations

import ast
from pathlib import Path

import pandas as pd
import pytest
from pydantic import ValidationError
from report_helpers import parse_html

from privaudit import Assessor, Details, Measurement, Params, hookimpl
from privaudit.assessors.direct_identifiers import DirectIdentifiersDetails, DirectIdentifiersParams
from privaudit.assessors.k_anonymity import KAnonymityDetails, KAnonymityParams
from privaudit.plugin.details import WorstClass
from privaudit.plugin.sections import CheckEntry, ReportSection
from privaudit.report.html import check_entry, check_views, render_html
from privaudit.report.json_report import report_of
from privaudit.testing import audit_frame, check_result, registry_with
from privaudit.testing import check_entry as entry_of_check
from privaudit.testing import report_section as section_of_check

ROOT = Path(__file__).resolve().parents[1]
FRAME = pd.DataFrame({"zip": ["a", "a", "b", "b", "b", "c"], "dx": ["x", "y", "x", "y", "z", "x"]})
COLUMNS = {"zip": {"role": "quasi_identifier"}, "dx": {"role": "sensitive"}}


@pytest.fixture(autouse=True)
def fixed_epoch(monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")


# ------------------------------------------------------------------------------ a plugin assessor
class ScoreParams(Params):
    limit: float = 0.5
    label: str = "score"


class ScoreClass(WorstClass):
    score: float


class ScoreDetails(Details):
    score: float
    parts: list[int]
    worst_classes: list[ScoreClass] = []


def _run(ctx, params):
    return Measurement(
        0.25,
        params.limit,
        True,
        "fine",
        {
            "score": 0.25,
            "parts": [1, 2],
            "worst_classes": ctx.worst_classes(ctx.summary.sizes, extra={"score": -ctx.summary.sizes * 1.0}),
        },
    )


class Recorder:
    """A plugin: the assessor ``score`` whose own section records what it was given, and a hook that records
    every check it is asked about (and overrides none)."""

    def __init__(self, run=_run):
        self.own: list[object] = []
        self.asked: list[object] = []
        self.run = run

    @hookimpl
    def privaudit_assessors(self):
        return [
            Assessor(
                name="score",
                params=ScoreParams,
                details=ScoreDetails,
                run=self.run,
                title="Score",
                protects="identity",
                measures="a score",
                report_section=self.section,
            )
        ]

    @hookimpl
    def privaudit_report_section(self, check, audit):
        self.asked.append(check)
        return None

    def section(self, check, audit):
        self.own.append(check)
        return ReportSection(
            summary=f"The {check.params.label} is {check.details.score} (limit {check.params.limit}).",
            value_text=f"{check.value} points",
        )


POLICY = {
    "columns": COLUMNS,
    "checks": [
        {"id": "k", "assessor": "k_anonymity", "k": 2},
        {"id": "my-score", "assessor": "score", "limit": 0.75, "label": "risk score"},
    ],
}


@pytest.fixture(scope="module")
def recorded():
    plugin = Recorder()
    registry = registry_with(plugin, entry_points=False)
    result = audit_frame(FRAME, POLICY, registry=registry)
    html = render_html(result, registry)
    return list(plugin.own), list(plugin.asked), registry, result, html


def _entry_of(checks, check_id):
    return next(c for c in checks if c.id == check_id)


def test_a_builtin_section_receives_the_typed_params_and_details(recorded):
    _, asked, registry, result, html = recorded
    k = _entry_of(asked, "k")
    assert isinstance(k, CheckEntry)
    assert isinstance(k.params, KAnonymityParams) and k.params.k == 2
    assert k.params is next(c for c in result.policy.checks if c.id == "k").params  # the policy's own object
    assert isinstance(k.details, KAnonymityDetails)
    raw = check_result(result, "k")
    assert k.details.records_below_k == raw["details"]["records_below_k"]
    assert (k.id, k.assessor, k.status, k.severity, k.value, k.threshold, k.message) == (
        raw["id"],
        raw["assessor"],
        raw["status"],
        raw["severity"],
        raw["value"],
        raw["threshold"],
        raw["message"],
    )
    assert k.quasi_identifiers is None and k.raw == raw
    # the identifier scan always runs but is not in the policy: its parameters are validated from the report
    scan = _entry_of(asked, "direct_identifiers")
    assert isinstance(scan.params, DirectIdentifiersParams) and isinstance(scan.details, DirectIdentifiersDetails)
    # the builtin section reads the entry: the report shows what it drew from it
    assert section_of_check(result, "k", registry=registry).summary in parse_html(html).clean_text()


def test_a_plugin_section_gets_the_same_typed_entry(recorded):
    drawn, asked, registry, result, html = recorded
    (own,) = drawn
    assert own is _entry_of(asked, "my-score")  # built once per check: the hook and the own section share it
    assert isinstance(own.params, ScoreParams) and own.params.label == "risk score" and own.params.limit == 0.75
    assert isinstance(own.details, ScoreDetails) and own.details.parts == [1, 2]
    assert all(isinstance(row, ScoreClass) for row in own.details.worst_classes)
    assert own == entry_of_check(result, "my-score", registry=registry)
    assert "The risk score is 0.25 (limit 0.75)." in parse_html(html).clean_text()
    view = next(v for v in check_views(report_of(result), result, registry) if v.check["id"] == "my-score")
    assert view.entry == own and view.value_text == "0.25 points"


def test_the_worst_classes_table_reads_the_typed_rows(recorded):
    from privaudit.plugin.figures import worst_classes_table

    _, _, registry, result, _ = recorded
    entry = entry_of_check(result, "my-score", registry=registry)
    typed = worst_classes_table(entry, result, [("score", "score")])
    untyped = CheckEntry(**{**entry.__dict__, "details": None})  # an assessor without a model: the raw rows
    assert typed is not None and typed == worst_classes_table(untyped, result, [("score", "score")])
    assert typed.columns == ["zip", "records", "score"]


def test_details_the_model_rejects_are_reported_as_the_error_they_are():
    def bad(ctx, params):
        return Measurement(0.25, params.limit, True, "fine", {"score": "not a number", "parts": []})

    plugin = Recorder(run=bad)
    registry = registry_with(plugin, entry_points=False)
    result = audit_frame(FRAME, POLICY, registry=registry)
    raw = check_result(result, "my-score")
    assert raw["status"] == "error" and "rejects" in raw["message"]
    entry = entry_of_check(result, "my-score", registry=registry)
    assert entry.status == "error" and entry.details is None and isinstance(entry.params, ScoreParams)
    text = parse_html(render_html(result, registry)).clean_text()
    assert "This check could not be completed." in text and "ScoreDetails rejects" in text
    assert not plugin.own and "my-score" not in [c.id for c in plugin.asked]  # no section is asked to draw it


def test_a_report_whose_details_no_longer_validate_gets_the_generic_section(recorded):
    """Details that reach the report without validating (a report edited by hand): the typed entry cannot
    be built, the check gets the generic section with the reason, and the rest of the report is drawn."""
    _, _, registry, result, _ = recorded
    report = report_of(result).model_copy(deep=True)
    check = report.check("my-score")
    check.details["score"] = "high"
    with pytest.raises(ValidationError):
        check_entry(check, result, registry)
    views = {v.check["id"]: v for v in check_views(report, result, registry)}
    section = views["my-score"].section
    assert views["my-score"].entry is None
    assert any("failed: ValidationError: 1 validation error for ScoreDetails" in p for p in section.paragraphs)
    assert dict(section.tables[0].rows)["score"] == "high"
    assert views["k"].entry is not None and views["k"].section.summary


def test_an_assessor_the_registry_does_not_know_gets_the_generic_section(recorded):
    _, _, _, result, _ = recorded
    other = registry_with(entry_points=False)  # without the plugin
    check = report_of(result).check("my-score")
    assert check_entry(check, result, other) is None
    view = next(v for v in check_views(report_of(result), result, other) if v.check["id"] == "my-score")
    assert view.entry is None and view.section.summary == "fine"


# -------------------------------------------------------------------- no section indexes check by string
SECTION_FILES = sorted((ROOT / "privaudit" / "assessors").glob("*.py")) + sorted(
    (ROOT / "plugins" / "privaudit-likeness" / "privaudit_likeness").glob("*.py")
)


def _sections(tree: ast.AST) -> list[ast.FunctionDef]:
    """The section functions of a module: every ``report_section``, and every function whose ``check`` is
    annotated as a ``CheckEntry``."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef):
            continue
        typed = any(
            a.arg == "check" and a.annotation is not None and "CheckEntry" in ast.unparse(a.annotation)
            for a in node.args.args
        )
        if node.name == "report_section" or typed:
            found.append(node)
    return found


def string_keyed_reads(source: str) -> list[str]:
    """``check["..."]`` and ``check.get(...)`` in the body of a section function of ``source``."""
    bad = []
    for fn in _sections(ast.parse(source)):
        for node in ast.walk(fn):
            if (
                isinstance(node, ast.Subscript)
                and isinstance(node.value, ast.Name)
                and node.value.id == "check"
                and isinstance(node.slice, ast.Constant)
                and isinstance(node.slice.value, str)
            ):
                bad.append(f"{fn.name}:{node.lineno}: {ast.unparse(node)}")
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "get"
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id == "check"
            ):
                bad.append(f"{fn.name}:{node.lineno}: {ast.unparse(node)}")
    return bad


def test_no_section_reads_check_by_string_key():
    assert len([p for p in SECTION_FILES if "def report_section" in p.read_text(encoding="utf-8")]) >= 20
    bad = [
        f"{p.relative_to(ROOT)}: {b}" for p in SECTION_FILES for b in string_keyed_reads(p.read_text(encoding="utf-8"))
    ]
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize(
    ("source", "found"),
    [
        ('def report_section(check, audit):\n    return check["details"]\n', 1),
        ("def report_section(check, audit):\n    return check.get('value')\n", 1),
        ("def draw(check: CheckEntry[P, D], audit):\n    x = check['params']['k']\n", 1),
        ("def report_section(check, audit):\n    return check.details.k, check.params.k, check.value\n", 0),
        ("def run(ctx, check):\n    return check['assessor']\n", 0),  # not a section: a policy's check dict
    ],
)
def test_the_scan_finds_string_keys(source, found):
    assert len(string_keyed_reads(source)) == found
