"""A baseline that a policy edit cannot switch off: ``privaudit diff`` and ``audit --baseline`` on a real
regression (a scenario's smallest class from 85 to 6 on Fair's affairs survey, tests/data/surveys) refuse a
changed design -- a narrowed scenario, a demoted, dropped or renamed check, a column's role or type -- unless
``--allow-changed-policy``, and then still count a dropped or demoted error check against the release; the
same quasi-identifiers in another order are the same policy. Reports that are not privaudit's are one line."""

from __future__ import annotations

import json
import re

import pandas as pd
import pytest
from conftest import ROOT
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import privaudit
from privaudit.core.errors import PrivauditError
from privaudit.testing import run_cli

POLICY = """version: 1
name: fair
columns:
  rate_marriage: {role: quasi_identifier}
  religious: {role: quasi_identifier}
  occupation: {role: quasi_identifier}
  children: {role: sensitive}
  affairs: {role: other}
checks:
  - id: scenario
    assessor: k_anonymity
    severity: error
    k: 5
    quasi_identifiers: [occupation, religious]
  - id: everyone
    assessor: k_anonymity
    severity: warning
    k: 2
"""
COLUMNS = ["rate_marriage", "religious", "occupation", "children", "affairs"]


def tables() -> tuple[pd.DataFrame, pd.DataFrame]:
    """The approved release (occupation in three bands: smallest class of the scenario 85) and the candidate
    (occupation as collected: 6)."""
    raw = pd.read_csv(ROOT / "tests/data/surveys/fair.csv")[COLUMNS]
    approved = raw.assign(
        occupation=raw["occupation"].map({1: "1-2", 2: "1-2", 3: "3-4", 4: "3-4", 5: "5-6", 6: "5-6"})
    )
    return approved, raw.assign(occupation=raw["occupation"].astype(str))


@pytest.fixture(scope="module")
def case(tmp_path_factory):
    folder = tmp_path_factory.mktemp("gate")
    approved, candidate = tables()
    approved.to_csv(folder / "approved.csv", index=False)
    candidate.to_csv(folder / "candidate.csv", index=False)
    (folder / "policy.yaml").write_text(POLICY)
    r = run_cli("audit", folder / "approved.csv", "--policy", folder / "policy.yaml", "--json", folder / "base.json")
    assert r.code == 0, r.stderr
    return folder


def edited(folder, old: str, new: str, name: str = "edited.yaml"):
    assert old in POLICY
    path = folder / name
    path.write_text(POLICY.replace(old, new, 1))
    return path


def gate(folder, policy, *extra):
    return run_cli(
        "audit", folder / "candidate.csv", "--policy", policy, "--baseline", folder / "base.json", "--quiet", *extra
    )


def test_the_regression_fails_the_gate_although_the_check_still_passes(case):
    base = json.loads((case / "base.json").read_text())
    assert {c["id"]: c["value"] for c in base["checks"]}["scenario"] == 85
    r = run_cli("audit", case / "candidate.csv", "--policy", case / "policy.yaml", "--baseline", case / "base.json")
    assert r.code == 1, r.stdout + r.stderr
    line = next(x for x in r.stdout.splitlines() if x.startswith("REGRESSION"))
    assert " scenario " in line
    assert line.startswith("REGRESSION") and "still passes (6 ≥ 5), worse than the baseline (85)" in line


@pytest.mark.parametrize(
    "old, new, named, allowed_code",
    [
        ("quasi_identifiers: [occupation, religious]", "quasi_identifiers: [religious]", "quasi-identifiers", 0),
        ("    severity: error\n", "    severity: warning\n", "severity error -> warning", 1),
        ("  - id: scenario\n    assessor: k_anonymity\n    severity: error\n    k: 5\n", "", "dropped", 1),
        ("id: scenario", "id: scenario-renamed", "renamed", 1),
        ("children: {role: sensitive}", "children: {role: other}", "sensitive columns", 1),
        ("affairs: {role: other}", "affairs: {role: weight}", "role 'other' -> 'weight'", 1),
        (
            "rate_marriage: {role: quasi_identifier}",
            "rate_marriage: {role: quasi_identifier, type: ordinal, order: ['1', '2', '3', '4', '5']}",
            "type 'nominal' -> 'ordinal'",
            1,
        ),
        ("name: fair\n", "name: fair\ndata: {missing: ['6']}\n", "missing-value tokens", None),
    ],
)
def test_a_one_line_policy_edit_cannot_switch_the_baseline_off(case, old, new, named, allowed_code):
    if named == "dropped":  # drop the scenario check with its scenario line
        policy = edited(case, old + "    quasi_identifiers: [occupation, religious]\n", new)
    else:
        policy = edited(case, old, new)
    r = gate(case, policy)
    assert r.code == 2 and named in r.stderr and "--allow-changed-policy" in r.stderr, r.stderr
    assert r.stderr.count("\n") == 1
    r = run_cli(
        "audit",
        case / "candidate.csv",
        "--policy",
        policy,
        "--baseline",
        case / "base.json",
        "--allow-changed-policy",
    )
    assert r.stdout.count("policy changes") == 1 and named in r.stdout, r.stdout
    lines = r.stdout.splitlines()
    assert lines.index(next(x for x in lines if x.startswith("policy changes"))) < lines.index(
        next(x for x in lines if x.startswith("base: "))
    )
    if allowed_code is not None:
        assert r.code == allowed_code, r.stdout + r.stderr


def test_demoted_and_dropped_error_checks_count_against_the_release_when_allowed(case):
    policy = edited(case, "    severity: error\n", "    severity: warning\n")
    out = case / "demoted.json"
    r = gate(case, policy, "--allow-changed-policy", "--diff-json", out)
    d = json.loads(out.read_text())
    assert r.code == 1 and d["regressions"] == ["scenario"]
    row = next(c for c in d["checks"] if c["id"] == "scenario")
    assert set(row["reasons"]) == {"demoted", "worse"}
    policy = edited(case, "  - id: everyone\n    assessor: k_anonymity\n    severity: warning\n    k: 2\n", "")
    r = gate(case, policy, "--allow-changed-policy", "--diff-json", out)  # a dropped warning: not counted
    d = json.loads(out.read_text())
    assert d["removed_checks"] == ["everyone"] and d["regressions"] == ["scenario"]  # the real one still counts


def test_a_renamed_check_is_still_compared(case):
    policy = edited(case, "id: scenario", "id: smallest-class")
    out = case / "renamed.json"
    r = gate(case, policy, "--allow-changed-policy", "--diff-json", out)
    d = json.loads(out.read_text())
    assert r.code == 1 and d["regressions"] == ["smallest-class"]
    row = next(c for c in d["checks"] if c["id"] == "smallest-class")
    assert row["renamed_from"] == "scenario" and (row["value_before"], row["value_after"]) == (85, 6)


def test_the_same_quasi_identifiers_in_another_order_are_the_same_policy(case):
    policy = edited(case, "quasi_identifiers: [occupation, religious]", "quasi_identifiers: [religious, occupation]")
    r = gate(case, policy)
    assert r.code == 1 and "different policies" not in r.stderr, r.stderr  # compared: the regression stands
    reordered = POLICY.replace(
        "  rate_marriage: {role: quasi_identifier}\n  religious: {role: quasi_identifier}\n",
        "  religious: {role: quasi_identifier}\n  rate_marriage: {role: quasi_identifier}\n",
    )
    (case / "reordered.yaml").write_text(reordered)
    r = gate(case, case / "reordered.yaml")
    assert r.code == 1 and "different policies" not in r.stderr, r.stderr


# ------------------------------------------------------------------------------------------ property
WORDS = [  # what a token of each kind may become: a name, a number, a list of names
    "warning",
    "error",
    "other",
    "sensitive",
    "quasi_identifier",
    "weight",
    "ordinal",
    "numeric",
    "occupation",
    "religious",
    "rate_marriage",
    "children",
    "affairs",
    "value",
    "wildcard",
    "uniqueness",
    "scenario",
    "everyone",
]
NUMBERS = ["1", "2", "4", "6", "100"]
LISTS = ["[occupation]", "[religious]", "[rate_marriage, religious]", "[religious, occupation]", "[]"]
EXTRA_LINES = [
    "data: {missing: ['6']}",
    "data: {missing_qi: wildcard}",
    "data: {delimiter: ';'}",
    "    quasi_identifiers: [occupation]",
    "    severity: warning",
    "    id: other-name",
    "    k: 2",
    "  - {assessor: k_anonymity, k: 2, severity: error}",
    "  - {assessor: k_anonymity, k: 5, quasi_identifiers: [occupation]}",
    "report: {max_classes: 1}",
    "check_timeout: 0.000001",
    "utility: []",
    "release: synthetic",
    "# a comment",
]


@st.composite
def one_line_edits(draw) -> str:
    lines = POLICY.splitlines()
    i = draw(st.integers(0, len(lines) - 1))
    kind = draw(st.sampled_from(["delete", "replace", "insert", "duplicate"]))
    if kind == "delete":
        del lines[i]
    elif kind == "duplicate":
        lines.insert(i, lines[i])
    elif kind == "insert":
        lines.insert(i + 1, draw(st.sampled_from(EXTRA_LINES)))
    else:
        tokens = list(re.finditer(r"\[[^\]]*\]|[\w-]+", lines[i]))
        assume(tokens)
        t = draw(st.sampled_from(tokens))
        kind = LISTS if t.group().startswith("[") else NUMBERS if t.group().isdigit() else WORDS
        lines[i] = lines[i][: t.start()] + draw(st.sampled_from(kind)) + lines[i][t.end() :]
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def base_report():
    approved, _ = tables()
    return privaudit.audit(approved, {**_policy(POLICY)}).to_dict()


def _policy(text: str) -> dict:
    import yaml

    return yaml.safe_load(text)


@pytest.mark.slow
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=one_line_edits())
def test_no_one_line_policy_edit_lets_the_regression_through(base_report, text):
    """Over random one-line edits of the policy, the gate never passes the real regression (85 -> 6) unless
    told the policy changed: the comparison is refused, or it finds a regression."""
    _, candidate = tables()
    try:
        policy = _policy(text)
        report = privaudit.audit(candidate, policy, check_timeout=60 if "check_timeout" not in text else None)
    except (PrivauditError, Exception) as exc:  # an edit that breaks the policy is refused before any audit
        assert isinstance(exc, PrivauditError) or "yaml" in type(exc).__module__, repr(exc)
        assume(False)
        return
    try:
        comparison = privaudit.diff(base_report, report)
    except PrivauditError as exc:
        assert "--allow-changed-policy" in str(exc)
        return
    assert comparison["exit_code"] == 1, (text, comparison["regressions"])


# ------------------------------------------------------------------------------------------ bad reports
@pytest.mark.parametrize(
    "mutate, field",
    [
        (lambda r: r["checks"][1].update(value=float("nan")), "checks[1].value"),
        (lambda r: r["checks"][1].update(value="85"), "checks[1].value"),
        (lambda r: r["checks"][1].update(value=True), "checks[1].value"),
        (lambda r: r["checks"].append(dict(r["checks"][1])), "checks[5].id"),
        (lambda r: r["checks"][1].update(severity="critical"), "checks[1].severity"),
        (lambda r: r["checks"][1].update(params=[5]), "checks[1].params"),
        (lambda r: r["checks"][1].update(quasi_identifiers="occupation"), "checks[1].quasi_identifiers"),
        (lambda r: r["checks"][1].update(better="up"), "checks[1].better"),
        (lambda r: r["checks"][1].update(threshold={"k": "five"}), "checks[1].threshold.k"),
        (lambda r: r["scope"].update(hierarchies=["age"]), "scope.hierarchies"),
        (lambda r: r["scope"].update(quasi_identifiers="occupation"), "scope.quasi_identifiers"),
        (lambda r: r["scope"].update(columns=[]), "scope.columns"),
        (lambda r: r["summary"].update(passed="yes"), "summary.passed"),
        (lambda r: r.update(utility=[{"measure": "granularity", "value": "all"}]), "utility[0].value"),
    ],
)
def test_a_report_that_is_not_privauditss_is_one_line_naming_the_field(case, mutate, field):
    report = json.loads((case / "base.json").read_text())
    mutate(report)
    bad = case / "bad.txt"  # (not .json: the suite validates the JSON files tests leave behind)
    bad.write_text(json.dumps(report, allow_nan=True))
    for r in (
        run_cli("diff", bad, case / "base.json"),
        run_cli("diff", case / "base.json", bad),
        run_cli(
            "audit", case / "candidate.csv", "--policy", case / "policy.yaml", "--baseline", bad, "--json", case / "x"
        ),
    ):
        assert r.code == 2 and r.stderr.count("\n") == 1, r.stderr
        assert f"{bad}: {field}" in r.stderr, r.stderr
    assert not (case / "x").exists()  # no audit ran, no report was written
    with pytest.raises(PrivauditError, match=re.escape(field)):
        privaudit.diff(report, case / "base.json")
