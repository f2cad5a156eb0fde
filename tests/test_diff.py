"""privaudit diff BASE.json NEW.json and audit --baseline: per-check changes in each check's own
direction, status changes, classes below k and new sample uniques, utility changes, tolerance, refusals."""

from __future__ import annotations

import copy
import json

import pytest

from privaudit.testing import run_cli


def check(id, value, threshold, status="pass", better=None, severity="error", params=None, details=None, assessor=None):
    # a hand-made check of an assessor no schema knows: its details are free (a built-in's are typed)
    c = {
        "id": id,
        "assessor": assessor or f"hand_made_{id}",
        "status": status,
        "severity": severity,
        "value": value,
        "threshold": threshold,
        "params": params or {},
        "message": "m",
        "details": details or {},
    }
    if better:
        c["better"] = better
    return c


def report(checks, qi=("age", "zip"), hierarchies=None, utility=None, path="release.csv"):
    r = {
        "schema_version": 1,
        "tool": {"name": "privaudit", "version": "x"},
        "generated_at": "2026-01-01T00:00:00Z",
        "engine": "in-process",
        "input": {"path": path, "sha256": "0" * 64, "size": 1, "rows": 10, "columns": []},
        "original": None,
        "policy": {"path": "p.yaml", "sha256": "0" * 64, "name": "p"},
        "scope": {
            "quasi_identifiers": list(qi),
            "sensitive": ["disease"],
            "identifiers": [],
            "missing_qi": "value",
            "missing_tokens": ["", "*"],
            "hierarchies": hierarchies or {"age": "a" * 64},
        },
        "summary": {
            "passed": all(c["status"] == "pass" for c in checks),
            "checks_total": len(checks),
            "checks_failed": 0,
            "checks_warned": 0,
            "checks_errored": 0,
        },
        "checks": checks,
    }
    if utility is not None:
        r["utility"] = utility
    return r


def write(tmp_path, name, data):
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return path


def diff(tmp_path, base, new, *extra):
    out = tmp_path / "d.json"
    r = run_cli("diff", write(tmp_path, "base.json", base), write(tmp_path, "new.json", new), "--json", out, *extra)
    data = json.loads(out.read_text()) if out.exists() else None
    return r, data


def rows(data):
    return {r["id"]: r for r in data["checks"]}


def test_worse_in_each_checks_own_direction(tmp_path):
    base = report([check("k_anonymity", 5, 5, better="higher"), check("uniqueness", 0.01, 0.05, better="lower")])
    new = report([check("k_anonymity", 6, 5, better="higher"), check("uniqueness", 0.02, 0.05, better="lower")])
    r, d = diff(tmp_path, base, new)
    assert r.code == 1, r.stderr
    k, u = rows(d)["k_anonymity"], rows(d)["uniqueness"]
    assert (k["change"], k["worse"], k["regression"]) == (1.0, False, False)  # a higher k is better
    assert (u["change"], u["worse"], u["regression"]) == (pytest.approx(0.01), True, True)  # a higher risk is worse
    assert d["regressions"] == ["uniqueness"] and d["exit_code"] == 1


def test_tolerance_absolute_and_percent(tmp_path):
    base = report([check("uniqueness", 0.10, 0.5, better="lower")])
    new = report([check("uniqueness", 0.104, 0.5, better="lower")])
    assert diff(tmp_path, base, new)[0].code == 1
    assert diff(tmp_path, base, new, "--tolerance", "0.005")[0].code == 0
    assert diff(tmp_path, base, new, "--tolerance", "5%")[0].code == 0  # 5 % of 0.10 = 0.005 > 0.004
    assert diff(tmp_path, base, new, "--tolerance", "3%")[0].code == 1  # 0.003 < 0.004
    r, d = diff(tmp_path, base, new, "--tolerance", "5%")
    assert rows(d)["uniqueness"]["worse"] is True and rows(d)["uniqueness"]["beyond_tolerance"] is False


def test_pass_to_fail_is_a_regression_even_within_tolerance_and_warnings_are_not(tmp_path):
    base = report([check("t", 0.2, 0.2, better="lower"), check("w", 0.1, 0.2, better="lower", severity="warning")])
    new = report(
        [
            check("t", 0.2000001, 0.2, "fail", better="lower"),
            check("w", 0.9, 0.2, "fail", better="lower", severity="warning"),
        ]
    )
    r, d = diff(tmp_path, base, new, "--tolerance", "1")
    assert r.code == 1 and d["regressions"] == ["t"]
    assert rows(d)["t"]["status_changed"] and rows(d)["w"]["worse"] and not rows(d)["w"]["regression"]
    r, d = diff(tmp_path, base, new, "--tolerance", "1", "--fail-on", "warning")  # warnings can regress too
    assert d["regressions"] == ["t", "w"]


def test_direction_inferred_for_reports_without_it(tmp_path):
    # an older report: no "better"; a passing value above its threshold means higher is better
    base = report([check("k", 7, 5), check("risk", 0.01, 0.1)])
    new = report([check("k", 5, 5), check("risk", 0.02, 0.1)])
    r, d = diff(tmp_path, base, new)
    assert rows(d)["k"]["better"] == "higher" and rows(d)["k"]["worse"] is True
    assert rows(d)["risk"]["better"] == "lower" and rows(d)["risk"]["worse"] is True
    assert r.code == 1


def test_improvement_exits_0(tmp_path):
    base = report([check("risk", 0.3, 0.1, "fail", better="lower")])
    new = report([check("risk", 0.05, 0.1, better="lower")])
    r, d = diff(tmp_path, base, new)
    assert r.code == 0 and rows(d)["risk"]["worse"] is False and "better" in r.stdout


def test_utility_changes_when_both_reports_carry_them(tmp_path):
    """The utility list: {measure, column, value, raw, details}, value 1 = nothing lost."""
    util = [
        {"measure": "marginal", "column": "age", "value": 0.9, "raw": 0.1, "details": {}},
        {"measure": "correlation", "column": None, "value": 0.8, "raw": 0.2, "details": {}},
    ]
    changed = copy.deepcopy(util)
    changed[0]["value"] = 0.7
    changed[1]["value"] = 0.85
    base, new = (
        report([check("k", 5, 5, better="higher")], utility=util),
        report([check("k", 5, 5, better="higher")], utility=changed),
    )
    r, d = diff(tmp_path, base, new)
    assert r.code == 0  # utility is reported, not a privacy regression
    u = {(x["measure"], x["column"]): x for x in d["utility"]}
    assert u[("marginal", "age")]["change"] == pytest.approx(-0.2) and u[("marginal", "age")]["worse"] is True
    assert u[("correlation", None)]["worse"] is False
    md = run_cli("diff", tmp_path / "base.json", tmp_path / "new.json", "--markdown", "-").stdout
    assert "| marginal | age | 0.9 | 0.7 | -0.2 | worse |" in md
    # only one report carries utility: nothing to compare
    assert "utility" not in diff(tmp_path, report([check("k", 5, 5)]), new)[1]
    for name in ("base.json", "new.json"):  # reports of the schema before 'utility': not valid under the current one
        (tmp_path / name).unlink()


def test_classes_below_k_and_new_sample_uniques(tmp_path):
    def kcheck(classes):
        return check(
            "k_anonymity",
            min(s for _, s in classes),
            3,
            better="higher",
            params={"k": 3},
            status="pass" if min(s for _, s in classes) >= 3 else "fail",
            details={
                "worst_classes": [
                    {"class": i, "values": {"age": a}, "size": s, "record_size": s} for i, (a, s) in enumerate(classes)
                ]
            },
        )

    base = report([kcheck([("30-39", 2), ("40-49", 4)])])
    new = report([kcheck([("30-39", 2), ("40-49", 1), ("50-59", 2)])])
    r, d = diff(tmp_path, base, new)
    assert r.code == 1
    assert sorted(c["values"]["age"] for c in d["classes"]["fell_below_k"]) == ["40-49", "50-59"]
    assert [c["values"]["age"] for c in d["classes"]["new_sample_uniques"]] == ["40-49"]


@pytest.mark.parametrize(
    "change, expected",
    [
        ({"qi": ("age",)}, "quasi-identifiers ['age', 'zip'] -> ['age']"),
        ({"hierarchies": {"age": "b" * 64}}, "hierarchies of age differ (by digest)"),
        ({"params": {"population_size": 1000}}, "population model population_size 500 -> 1000"),
        ({"params": {"population_size": 500, "max_share": 0.2}}, "parameters max_share None -> 0.2"),
    ],
)
def test_different_policies_are_refused_unless_allowed(tmp_path, change, expected):
    base = report([check("uniqueness", 0.1, 0.2, better="lower", params={"population_size": 500})])
    new = report(
        [check("uniqueness", 0.1, 0.2, better="lower", params=change.get("params", {"population_size": 500}))],
        qi=change.get("qi", ("age", "zip")),
        hierarchies=change.get("hierarchies"),
    )
    r, d = diff(tmp_path, base, new)
    assert r.code == 2 and d is None
    assert expected in r.stderr and "--allow-changed-policy" in r.stderr and r.stderr.count("\n") == 1
    r, d = diff(tmp_path, base, new, "--allow-changed-policy")
    assert r.code == 0 and expected in d["policy_changes"][0]
    assert r.stdout.splitlines()[0] == "release: PASS, as in the baseline"
    assert r.stdout.splitlines()[1].startswith("policy changes") and expected in r.stdout.splitlines()[2]


@pytest.mark.parametrize(
    "content, expected",
    [
        ("not json", "not JSON (line 1"),
        ("[1, 2]", "not a privaudit JSON report"),
        (json.dumps({"tool": {"name": "privaudit"}, "schema_version": 7}), "schema_version 7"),
        (
            json.dumps({"tool": {"name": "privaudit"}, "schema_version": 1, "checks": [{"id": 1}]}),
            "checks[0]: not a check",
        ),
    ],
)
def test_bad_reports_are_one_line_and_exit_2(tmp_path, content, expected):
    good = write(tmp_path, "good.json", report([check("k", 5, 5)]))
    bad = tmp_path / "bad.txt"  # (a bad report named .json would fail the suite's schema check of left files)
    bad.write_text(content)
    r = run_cli("diff", good, bad)
    assert r.code == 2 and expected in r.stderr and r.stderr.count("\n") == 1 and str(bad) in r.stderr


def test_bad_tolerance_missing_file_and_output_over_input(tmp_path):
    good = write(tmp_path, "good.json", report([check("k", 5, 5)]))
    r = run_cli("diff", good, good, "--tolerance", "lots")
    assert r.code == 2 and "--tolerance: expected a number (absolute) or a percentage like 5%, got 'lots'" in r.stderr
    r = run_cli("diff", good, tmp_path / "absent.json")
    assert r.code == 2 and "absent.json: new report not found" in r.stderr
    r = run_cli("diff", good, good, "--json", good)
    assert r.code == 2 and "would overwrite an input" in r.stderr


def test_outputs_html_escaped_and_stdout(tmp_path):
    base = report([check("<script>x</script>", 0.1, 0.2, better="lower")])
    new = report([check("<script>x</script>", 0.3, 0.2, "fail", better="lower")])
    r = run_cli("diff", write(tmp_path, "b.json", base), write(tmp_path, "n.json", new), "--html", "-")
    assert r.code == 1 and "&lt;script&gt;" in r.stdout and "<script>x" not in r.stdout
    r = run_cli("diff", tmp_path / "b.json", tmp_path / "n.json", "--json", "-", "--markdown", "-")
    assert r.code == 2 and "two outputs" in r.stderr


# ------------------------------------------------------------------------------------------ real audits
POLICY = """version: 1
name: k
columns:
  age: {role: quasi_identifier}
  zip: {role: quasi_identifier}
  disease: {role: sensitive}
checks:
  - {assessor: k_anonymity, k: 2}
"""


def test_audit_baseline_in_one_step(tmp_path):
    (tmp_path / "policy.yaml").write_text(POLICY)
    (tmp_path / "old.csv").write_text("age,zip,disease\n30,1,a\n30,1,b\n40,2,a\n40,2,b\n")
    (tmp_path / "new.csv").write_text("age,zip,disease\n30,1,a\n30,1,b\n40,2,a\n41,2,b\n")
    base = tmp_path / "base.json"
    assert run_cli("audit", tmp_path / "old.csv", "--policy", tmp_path / "policy.yaml", "--json", base).code == 0
    assert {c["id"]: c["better"] for c in json.loads(base.read_text())["checks"]}["k_anonymity"] == "higher"
    md = tmp_path / "pr.md"
    r = run_cli(
        "audit", tmp_path / "new.csv", "--policy", tmp_path / "policy.yaml", "--baseline", base, "--diff-markdown", md
    )
    assert r.code == 1, r.stderr
    assert "REGRESSION" in r.stdout and "k_anonymity" in md.read_text()
    # the same release against its own report: no regression, exit 0 although nothing changed
    r = run_cli("audit", tmp_path / "old.csv", "--policy", tmp_path / "policy.yaml", "--baseline", base)
    assert r.code == 0 and "no regression" in r.stdout
    # a known failure is no regression, but the gate still does not pass a failing release
    failing = tmp_path / "failing.json"
    run_cli("audit", tmp_path / "new.csv", "--policy", tmp_path / "policy.yaml", "--json", failing)
    r = run_cli("audit", tmp_path / "new.csv", "--policy", tmp_path / "policy.yaml", "--baseline", failing)
    assert r.code == 1 and "no regression" in r.stdout, r.stdout
    # bad baseline: one line before any work; a diff output without a baseline is refused
    r = run_cli(
        "audit", tmp_path / "new.csv", "--policy", tmp_path / "policy.yaml", "--baseline", tmp_path / "policy.yaml"
    )
    assert r.code == 2 and "not JSON" in r.stderr
    r = run_cli("audit", tmp_path / "new.csv", "--policy", tmp_path / "policy.yaml", "--diff-json", tmp_path / "x")
    assert r.code == 2 and "--baseline" in r.stderr


def test_real_reports_hierarchy_change_is_refused(tmp_path):
    (tmp_path / "old.csv").write_text("age,zip,disease\n30,1,a\n30,1,b\n40,2,a\n40,2,b\n")
    (tmp_path / "a.yaml").write_text(
        POLICY.replace("age: {role: quasi_identifier}", "age: {role: quasi_identifier, hierarchy: {'*': ['30', '40']}}")
    )
    (tmp_path / "b.yaml").write_text(
        POLICY.replace(
            "age: {role: quasi_identifier}", "age: {role: quasi_identifier, hierarchy: {'*': {'x': ['30', '40']}}}"
        )
    )
    for name in "ab":
        assert (
            run_cli(
                "audit",
                tmp_path / "old.csv",
                "--policy",
                tmp_path / f"{name}.yaml",
                "--json",
                tmp_path / f"{name}.json",
            ).code
            == 0
        )
    r = run_cli("diff", tmp_path / "a.json", tmp_path / "b.json")
    assert r.code == 2 and "hierarchies of age differ (by digest)" in r.stderr


def test_python_api(tmp_path):
    import privaudit

    (tmp_path / "policy.yaml").write_text(POLICY)
    old = privaudit.audit(
        __import__("pandas").DataFrame({"age": [30, 30, 40, 40], "zip": [1, 1, 2, 2], "disease": list("abab")}),
        tmp_path / "policy.yaml",
    )
    new = privaudit.audit(
        __import__("pandas").DataFrame({"age": [30, 30, 40, 41], "zip": [1, 1, 2, 2], "disease": list("abab")}),
        tmp_path / "policy.yaml",
    )
    d = privaudit.diff(old, new)
    assert d["regressions"] == ["k_anonymity"] and d["exit_code"] == 1
    assert privaudit.diff(old.to_dict(), old, tolerance="5%")["exit_code"] == 0
    with pytest.raises(privaudit.core.errors.PrivauditError, match="not a privaudit JSON report"):
        privaudit.diff({"x": 1}, new)


def test_infinite_values(tmp_path):
    # recursive (c,l)-diversity is infinite when a class has fewer than l values; lower is better
    base = report([check("lr", "inf", 3, "fail", better="lower")])
    new = report([check("lr", 2.5, 3, better="lower")])
    r, d = diff(tmp_path, base, new)
    assert r.code == 0 and rows(d)["lr"]["change"] == "-inf" and rows(d)["lr"]["worse"] is False
    r, d = diff(tmp_path, new, base)
    assert r.code == 1 and rows(d)["lr"]["change"] == "inf" and rows(d)["lr"]["regression"]


# ------------------------------------------------------------------------------------------ read by people
def test_cps1988_a_remediation_that_passes_but_shrinks_a_scenario_is_a_regression_said_in_words(tmp_path):
    """AER's CPS1988 (Current Population Survey, March 1988; 28,155 men): the audit fails (k = 1 over every
    quasi-identifier), its remediation passes, but a scenario's smallest class (the intruder knows the region)
    went from 6,091 (the West) to 538 with k = 5. The README's rule: an error check that got worse beyond the
    tolerance is a regression, exit 1, even while it still passes; the line says so."""
    scenario = {"quasi_identifiers": ["region"]}
    base = report(
        [
            check("direct_identifiers", 0, 0, better="lower"),
            check("k_anonymity", 1, 5, "fail", better="higher", params={"k": 5}),
            {**check("k_region", 6091, 5, better="higher", params={"k": 5}), **scenario},
        ],
        qi=("education", "experience", "ethnicity", "smsa", "region", "parttime"),
        hierarchies={},
    )
    new = copy.deepcopy(base)
    new["checks"][1].update(value=5, status="pass")
    new["checks"][2].update(value=538)
    new["summary"]["passed"] = True
    r, d = diff(tmp_path, base, new)
    assert r.code == 1 and d["regressions"] == ["k_region"]
    lines = r.stdout.splitlines()
    assert lines[0] == "release: FAIL -> PASS (now passes its audit)"
    regression = next(x for x in lines if x.startswith("REGRESSION"))
    assert "still passes (538 ≥ 5), worse than the baseline (6,091)" in regression
    assert next(x for x in lines if "k_anonymity" in x).startswith("better")
    md = run_cli("diff", tmp_path / "base.json", tmp_path / "new.json", "--markdown", "-").stdout
    assert "release: FAIL → PASS" in md and "still passes (538 ≥ 5), worse than the baseline (6,091)" in md
    html = run_cli("diff", tmp_path / "base.json", tmp_path / "new.json", "--html", "-").stdout
    assert "release: FAIL → PASS" in html and "538 ≥ 5" in html


def test_warnings_read_warn_and_columns_stay_aligned(tmp_path):
    long_id = "t_closeness_disability_all_key_variables_under_the_demographics_scenario"
    checks = [
        check("k", 5, 5, better="higher"),
        check(long_id, 0.4, 0.2, "fail", better="lower", severity="warning"),
        check("uniqueness", 0.01, 0.05, better="lower"),
    ]
    new = copy.deepcopy(checks)
    new[2]["value"] = 0.02
    r, d = diff(tmp_path, report(checks), report(new))
    rows = [x for x in r.stdout.splitlines() if x.split()[:1] in (["unchanged"], ["REGRESSION"], ["better"], ["worse"])]
    assert len(rows) == 3
    assert "WARN" in next(x for x in rows if long_id in x) and "FAIL" not in next(x for x in rows if long_id in x)
    starts = {x.index(" -> ") - len(x.split(" -> ")[0].split()[-1]) for x in rows}  # where the values begin
    assert len(starts) == 1, r.stdout
    assert len({x.index(x.split()[1]) for x in rows}) == 1  # the ids too


def test_no_line_for_a_measure_neither_report_has(tmp_path):
    util = [
        {"measure": "discernibility", "column": None, "value": None, "raw": 9, "details": {}},
        {"measure": "granularity", "column": "age", "value": 0.9, "raw": 0.1, "details": {}},
        {"measure": "suppressed_cells", "column": None, "value": 1.0, "raw": 0.0, "details": {}},
    ]
    changed = copy.deepcopy(util)
    changed[1]["value"] = 0.8
    r, d = diff(tmp_path, report([check("k", 5, 5)], utility=util), report([check("k", 5, 5)], utility=changed))
    assert [u["measure"] for u in d["utility"]] == ["granularity", "suppressed_cells"]
    assert "discernibility" not in r.stdout and "—" not in r.stdout
    assert "utility granularity (age)" in r.stdout and "utility: 1 figure unchanged" in r.stdout
    for name in ("base.json", "new.json"):
        (tmp_path / name).unlink()


def test_a_failing_check_that_now_ends_in_error_is_no_pass(tmp_path):
    base = report([check("k", 3, 5, "fail", better="higher")])
    new = report([check("k", None, 5, "error", better="higher")])
    r, d = diff(tmp_path, base, new)
    assert r.code == 1 and rows(d)["k"]["reasons"] == ["errored"] and "ended in error" in r.stdout


CPS_POLICY = """version: 1
name: cps1988
columns:
  education: {role: quasi_identifier}
  ethnicity: {role: quasi_identifier}
  smsa: {role: quasi_identifier}
  region: {role: quasi_identifier}
  parttime: {role: quasi_identifier}
checks:
  - {id: k_all, assessor: k_anonymity, k: 5}
  - {id: k_region, assessor: k_anonymity, k: 5, quasi_identifiers: [region]}
"""


def test_cps1988_sample_end_to_end(tmp_path):
    """A CPS 1988 sample (tests/data/cps1988): the audit fails, the suppression remediation passes, and the
    region scenario's smallest class shrinks while it still passes -- a regression of the gate."""
    from conftest import ROOT

    data = tmp_path / "cps.csv"
    data.write_bytes((ROOT / "tests/data/cps1988/cps1988_every14th.csv").read_bytes())
    (tmp_path / "p.yaml").write_text(CPS_POLICY)
    base, after = tmp_path / "audit.json", tmp_path / "remediated.json"
    assert run_cli("audit", data, "--policy", tmp_path / "p.yaml", "--json", base).code == 1
    r = run_cli(
        "remediate",
        data,
        "--policy",
        tmp_path / "p.yaml",
        "--method",
        "suppress",
        "--option",
        "mode=records",
        "--option",
        "max_suppression=0.2",
        "--out",
        tmp_path / "remediated.csv",
        "--json",
        after,
    )
    assert r.code == 0, r.stdout + r.stderr
    before_k = {c["id"]: c["value"] for c in json.loads(base.read_text())["checks"]}["k_region"]
    after_k = {c["id"]: c["value"] for c in json.loads(after.read_text())["checks"]}["k_region"]
    assert 5 <= after_k < before_k
    r = run_cli("diff", base, after)
    assert r.code == 1 and r.stdout.splitlines()[0] == "release: FAIL -> PASS (now passes its audit)"
    words = f"still passes ({after_k:,} ≥ 5), worse than the baseline ({before_k:,})"
    assert words in next(x for x in r.stdout.splitlines() if x.startswith("REGRESSION"))
    r = run_cli("audit", tmp_path / "remediated.csv", "--policy", tmp_path / "p.yaml", "--baseline", base)
    assert r.code == 1 and words in r.stdout  # the gate: the remediation passes its audit, not its baseline
