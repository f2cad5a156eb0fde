"""Report sections read a typed check (``privaudit.plugin.sections.CheckEntry``), not the JSON entry's string
keys: the parameters are the assessor's ``Params`` object (the policy's own), the details its ``Details`` object
validated once by the report; a plugin's ``Section``, whether for its own assessor or replacing a built-in one,
gets the same entry; details that do not validate are reported as what they are, never a crash; and no section
of ``privaudit/sections/`` (nor of the example plugin) goes back to indexing ``check`` by string."""

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
from privaudit.plugin.sections import CheckEntry, ReportSection, Section
from privaudit.report.html import check_entry, check_views, render_html
from privaudit.report.json_report import report_of
from privaudit.sections import direct_identifiers as direct_identifiers_section
from privaudit.sections import k_anonymity as k_anonymity_section
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
    """A plugin: the assessor ``score`` whose section records what it was given, and sections replacing the
    built-in ones of ``k_anonymity`` and ``direct_identifiers`` that record every check they draw and draw it
    as the built-in ones do."""

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
            )
        ]

    @hookimpl
    def privaudit_report_sections(self):
        return [
            Section("score", self.section),
            Section("k_anonymity", self.recording(k_anonymity_section.draw)),
            Section("direct_identifiers", self.recording(direct_identifiers_section.draw)),
        ]

    def recording(self, draw):
        def drawn(check, audit):
            self.asked.append(check)
            return draw(check, audit)

        return drawn

    def section(self, check, audit):
        self.own.append(check)
        self.asked.append(check)
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
    assert own is _entry_of(asked, "my-score")  # built once per check
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


class KOverride:
    """A third party's section for the built-in ``k_anonymity`` assessor."""

    @hookimpl
    def privaudit_report_sections(self):
        return [Section("k_anonymity", self.draw)]

    def draw(self, check, audit):
        return ReportSection(summary=f"Overridden: {check.details.classes} classes, k = {check.params.k}.")


class BrokenSection:
    """A third party's section for ``k_anonymity`` that raises while drawing."""

    @hookimpl
    def privaudit_report_sections(self):
        return [Section("k_anonymity", self.draw)]

    def draw(self, check, audit):
        raise RuntimeError("out of ink")


K_POLICY = {"columns": COLUMNS, "checks": [{"id": "k", "assessor": "k_anonymity", "k": 2}]}


def test_a_third_party_section_replaces_the_builtin_one():
    """The registry keys sections by assessor name; a plugin's ``Section`` for a built-in assessor replaces
    the built-in one (privaudit/pipeline/plugins.py: build_registry), in the report and in the test helper."""
    builtin = registry_with(entry_points=False)
    assert builtin.origin["section:k_anonymity"].package == "privaudit"
    registry = registry_with(KOverride(), entry_points=False)
    assert registry.origin["section:k_anonymity"].package == __name__
    result = audit_frame(FRAME, K_POLICY, registry=registry)
    assert section_of_check(result, "k", registry=registry).summary == "Overridden: 3 classes, k = 2."
    assert "Overridden: 3 classes, k = 2." in parse_html(render_html(result, registry)).clean_text()
    assert not section_of_check(result, "k", registry=builtin).summary.startswith("Overridden")


def test_a_failing_section_becomes_the_generic_one_naming_its_plugin():
    """A section that raises costs its check only its drawing: the generic section (value, threshold, details)
    with a note naming the plugin that drew it and its error; the rest of the report is drawn."""
    registry = registry_with(BrokenSection(), entry_points=False)
    result = audit_frame(FRAME, K_POLICY, registry=registry)
    with pytest.raises(RuntimeError, match="out of ink"):
        section_of_check(result, "k", registry=registry)  # the test helper lets it propagate
    view = next(v for v in check_views(report_of(result), result, registry) if v.check["id"] == "k")
    note = view.section.paragraphs[-1]
    assert "RuntimeError: out of ink" in note and repr(__name__) in note
    assert dict(view.section.tables[0].rows)["records"] == "6"  # the generic section: the details as a table
    text = parse_html(render_html(result, registry)).clean_text()
    assert "out of ink" in text and "direct identifier" in text.lower()


# -------------------------------------------------------------------- no section indexes check by string
SECTION_FILES = sorted((ROOT / "privaudit" / "sections").glob("*.py")) + sorted(
    (ROOT / "plugins" / "privaudit-likeness" / "privaudit_likeness").glob("*.py")
)


def _sections(tree: ast.AST) -> list[ast.FunctionDef]:
    """The section functions of a module: every ``draw`` and ``report_section``, and every function whose
    ``check`` is annotated as a ``CheckEntry``."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef):
            continue
        typed = any(
            a.arg == "check" and a.annotation is not None and "CheckEntry" in ast.unparse(a.annotation)
            for a in node.args.args
        )
        if node.name in ("draw", "report_section") or typed:
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
    assert len([p for p in SECTION_FILES if _sections(ast.parse(p.read_text(encoding="utf-8")))]) >= 20
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
