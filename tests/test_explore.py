"""remediate --explore: the risk-utility map (Duncan, Keller-McNulty & Stokes, NISS TR 121, 2001 and 142,
2004), end to end through the CLI and the Python API, and the hierarchies built for QIs without one."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest
from conftest import ROOT, write_policy, write_rr_table
from hypothesis import given, settings
from hypothesis import strategies as st

from privaudit.common.numbers import fmt
from privaudit.common.params import Params
from privaudit.pipeline.explore import Candidate, mark_frontier, recommend
from privaudit.plugin.hookspecs import hookimpl

POLICY = """version: 1
name: explore test
columns:
  age: {role: quasi_identifier, type: numeric}
  sex: {role: quasi_identifier}
  zip: {role: quasi_identifier}
  income: {role: other, type: numeric}
  diagnosis: {role: sensitive}
checks:
  - {id: k3, assessor: k_anonymity, k: 3}
"""


def _table(path, n=240, seed=1):
    rng = np.random.default_rng(seed)
    pd.DataFrame(
        {
            "age": rng.integers(18, 80, n),
            "sex": rng.choice(["F", "M"], n),
            "zip": rng.choice(["13053", "13068", "14850", "14853", "13011"], n),
            "income": rng.integers(1000, 9000, n),
            "diagnosis": rng.choice(["flu", "cold", "hiv", "none"], n),
        }
    ).to_csv(path, index=False)
    return path


@pytest.fixture(scope="module")
def explored(tmp_path_factory):
    """One explore run shared by the tests that read its outputs."""
    from privaudit.testing import run_cli

    folder = tmp_path_factory.mktemp("explore")
    data = _table(folder / "t.csv")
    policy = write_policy(folder, POLICY)
    run = run_cli(
        "remediate",
        data,
        "--policy",
        policy,
        "--explore",
        "--out",
        folder / "out.csv",
        "--json",
        folder / "r.json",
        "--html",
        folder / "r.html",
    )
    return folder, run, json.loads((folder / "r.json").read_text())


@pytest.mark.slow
def test_explore_map_json(explored):
    folder, run, report = explored
    assert run.code == 0, run.stderr
    ex = report["explore"]
    cands = ex["candidates"]
    assert len(cands) >= 5 and {"generalize", "suppress"} <= {c["method"] for c in cands}
    assert ex["utility_measure"] == "granularity"
    assert ex["risk_bound"] == pytest.approx(1 / 3)
    # frontier as defined: no other candidate at most as risky and at least as useful, one strictly
    for i, c in enumerate(cands):
        dominated = any(
            o["risk"] <= c["risk"]
            and o["utility"] >= c["utility"]
            and (o["risk"] < c["risk"] or o["utility"] > c["utility"])
            for j, o in enumerate(cands)
            if j != i
        )
        assert c["frontier"] == (not dominated)
    rec = ex["recommended"]
    passing = [c for c in cands if c["passes"]]
    assert rec is not None and cands[rec]["passes"]
    # the recommendation deletes no quasi-identifier a passing candidate keeps with all else it keeps
    gone = set(cands[rec]["deleted"])
    assert not any(set(c["deleted"]) < gone for c in passing)
    passing = [c for c in passing if not any(set(o["deleted"]) < set(c["deleted"]) for o in passing)]
    assert cands[rec] in passing and cands[rec]["utility"] == max(c["utility"] for c in passing)
    # the passing lattice nodes without suppression are minimal: none is a coarsening of another one
    levels = [
        tuple(c["options"]["levels"].values())
        for c in cands
        if c["method"] == "generalize" and c["passes"] and c["options"]["max_suppression"] == 0
    ]
    for a in levels:
        assert not any(b != a and all(x <= y for x, y in zip(b, a, strict=False)) for b in levels)
    # a failing candidate names the failing check; the risk is classes / records
    failing = [c for c in cands if not c["passes"]]
    assert failing and all(c["worst_check"]["id"] == "k3" and c["checks_failed"] >= 1 for c in failing)


def test_explore_writes_the_recommended_release_reaudited(explored, run_cli):
    folder, run, report = explored
    assert (folder / "out.csv").exists() and "wrote" in run.stdout
    assert report["remediation"]["offered"] and report["summary"]["passed"]
    rec = report["explore"]["candidates"][report["explore"]["recommended"]]
    assert report["remediation"]["method"] == rec["method"]
    out = pd.read_csv(folder / "out.csv", dtype=str)
    # the risk on the map is the written table's average prosecutor risk (classes / records)
    classes = out[["age", "sex", "zip"]].fillna("<NA>").drop_duplicates()
    assert rec["risk"] == pytest.approx(len(classes) / len(out))
    built = report["explore"]["built_hierarchies"]
    assert "age" in built and built["age"]["builder"].startswith("numbers: intervals")
    if rec["method"] == "generalize" and 0 < rec["options"]["levels"]["age"]:
        written = folder / built["age"]["file"]  # the file written, as the report names it
        assert built["age"]["file"] == "out.hierarchy-age.csv" and written.exists()
        policy = POLICY.replace(
            "age: {role: quasi_identifier, type: numeric}",
            f"age: {{role: quasi_identifier, hierarchy: {written.name}}}",
        )
        code, _, err = run_cli("audit", folder / "out.csv", "--policy", write_policy(folder, policy, "again.yaml"))
        assert code == 0, err


def test_explore_html_map(explored):
    folder, _, report = explored
    html = (folder / "r.html").read_text()
    assert 'id="ru-map"' in html and "Choosing a remediation" in html
    n = len(report["explore"]["candidates"])
    assert len(re.findall(r'class="candidate (?:pass|fail)"', html)) == n
    assert 'class="risk-bound"' in html and "recommended: #" in html and 'class="frontier"' in html
    assert "<script" not in html.split('id="ru-map"')[1].split("</svg>")[0]


def test_explore_table_is_one_line_per_figure(explored):
    """The candidates' table gives each utility measure its own column (not a list per cell), and a
    generalization's levels as one vector in the order the caption names, so that a row stays short."""
    from privaudit.report.chapters.explore import explore_view

    _, _, report = explored
    view = explore_view(report)
    explore = report["explore"]
    others = [m for m in explore["candidates"][0]["utilities"] if m != explore["utility_measure"]]
    assert len(view.table.columns) == 9 + len(others)
    levels = next(c["options"]["levels"] for c in explore["candidates"] if c["method"] == "generalize")
    assert f"in the order {', '.join(levels)}" in view.table.caption
    row = next(r for r, c in zip(view.table.rows, explore["candidates"], strict=True) if c["method"] == "generalize")
    assert row[2].startswith("levels " + "·".join(str(v) for v in levels.values()))
    for r, c in zip(view.table.rows, explore["candidates"], strict=True):
        assert r[7] == fmt(c["cells_changed"]) and r[8] == (", ".join(c["deleted"]) or "—")
        assert r[9:] == ["—" if c["utilities"].get(m) is None else fmt(c["utilities"][m]) for m in others]


def test_compact_options_name_levels_out_of_the_caption_order():
    from privaudit.report.chapters.explore import _compact_options

    assert _compact_options({"levels": {"a": 1, "b": 2}, "seed": 3}, ["a", "b"]) == "levels 1·2"
    assert _compact_options({"levels": {"b": 1, "a": 2}, "k": None}, ["a", "b"]) == "levels b 1, a 2"


def test_methods_and_cap(tmp_path, run_cli):
    data, policy = _table(tmp_path / "t.csv"), write_policy(tmp_path, POLICY)
    code, out, err = run_cli(
        "remediate", data, "--policy", policy, "--explore", "--methods", "suppress", "--json", tmp_path / "r.json"
    )
    cands = json.loads((tmp_path / "r.json").read_text())["explore"]["candidates"]
    assert cands and {c["method"] for c in cands} == {"suppress"}
    budgets = [c["options"]["max_suppression"] for c in cands]
    assert budgets == sorted(budgets) and all(c["utility"] is not None for c in cands)
    run_cli("remediate", data, "--policy", policy, "--explore", "--max-candidates", "3", "--json", tmp_path / "r.json")
    assert len(json.loads((tmp_path / "r.json").read_text())["explore"]["candidates"]) <= 3


@pytest.mark.parametrize(
    "args, message",
    [
        (["--explore", "--method", "suppress", "--methods", "suppress"], "give --method NAME (one method's"),
        (["--explore", "--method", "shuffle"], "--method: unknown method 'shuffle'"),
        (["--explore", "--methods", "generalize,shuffle"], "unknown method 'shuffle'"),
        (["--explore", "--utility", "nonsense"], "--utility: unknown or unusable measure 'nonsense'"),
        (["--explore", "--max-candidates", "0"], "--max-candidates: give a number of at least 1"),
        (["--methods", "suppress", "--out", "x.csv"], "--methods is an option of --explore"),
    ],
)
def test_bad_explore_input(tmp_path, run_cli, args, message):
    data, policy = _table(tmp_path / "t.csv", n=30), write_policy(tmp_path, POLICY)
    code, out, err = run_cli("remediate", data, "--policy", policy, *args)
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_microaggregation_candidates_at_several_k(tmp_path, run_cli):
    rng = np.random.default_rng(4)
    pd.DataFrame(
        {
            "age": rng.integers(18, 80, 120),
            "height": rng.normal(170, 10, 120).round(1),
            "d": rng.choice(["a", "b"], 120),
        }
    ).to_csv(tmp_path / "m.csv", index=False)
    policy = write_policy(
        tmp_path,
        "version: 1\nname: m\ncolumns:\n  age: {role: quasi_identifier, type: numeric}\n"
        "  height: {role: quasi_identifier, type: numeric}\n  d: {role: sensitive}\n"
        "checks:\n  - {assessor: k_anonymity, k: 4}\n",
    )
    code, out, err = run_cli(
        "remediate",
        tmp_path / "m.csv",
        "--policy",
        policy,
        "--explore",
        "--methods",
        "microaggregate,suppress",
        "--json",
        tmp_path / "r.json",
    )
    ex = json.loads((tmp_path / "r.json").read_text())["explore"]
    micro = [c for c in ex["candidates"] if c["method"] == "microaggregate"]
    assert [c["options"]["k"] for c in micro] == [2, 4, 8, 12, 20]
    assert [c["passes"] for c in micro] == [False, True, True, True, True]
    # discernibility scores every method: larger clusters keep less
    utilities = [c["utility"] for c in micro]
    assert all(u is not None for u in utilities) and utilities == sorted(utilities, reverse=True)
    assert ex["candidates"][ex["recommended"]]["method"] == "microaggregate"
    assert ex["candidates"][ex["recommended"]]["options"]["k"] == 4
    # non-uniform entropy needs released values in the original's domain: centroids have no figure, the map says so
    run_cli(
        "remediate",
        tmp_path / "m.csv",
        "--policy",
        policy,
        "--explore",
        "--methods",
        "microaggregate",
        "--utility",
        "non_uniform_entropy",
        "--max-candidates",
        "2",
        "--json",
        tmp_path / "g.json",
    )
    ex = json.loads((tmp_path / "g.json").read_text())["explore"]
    assert all(c["utility"] is None and not c["frontier"] for c in ex["candidates"]) and ex["recommended"] is None
    assert any(n.startswith("non_uniform_entropy: no figure for 2 of 2 candidates") for n in ex["notes"])


@pytest.mark.slow
def test_randomization_candidates_where_the_policy_has_an_rr_bound(tmp_path, run_cli):
    data = write_rr_table(tmp_path / "rr.csv", 600)
    policy = write_policy(
        tmp_path,
        "version: 1\nname: rr\ncolumns:\n  sex: {role: quasi_identifier}\n"
        "  region: {role: quasi_identifier}\n  disease: {role: sensitive}\nchecks:\n"
        "  - {id: rr, assessor: rr_attribute_disclosure, sensitive: disease, max_risk: 0.6}\n",
    )
    code, out, err = run_cli(
        "remediate", data, "--policy", policy, "--explore", "--methods", "randomize", "--json", tmp_path / "r.json"
    )
    ex = json.loads((tmp_path / "r.json").read_text())["explore"]
    rr = ex["candidates"]
    assert len(rr) == 5 and {c["method"] for c in rr} == {"randomize"}
    assert [c["options"]["max_risk"] for c in rr] == pytest.approx([0.3, 0.45, 0.6, 0.75, 0.9])
    assert all(c["passes"] for c in rr if c["options"]["max_risk"] <= 0.6)
    code, _, err = run_cli(
        "remediate",
        data,
        "--policy",
        policy,
        "--explore",
        "--methods",
        "microaggregate,randomize",
        "--json",
        tmp_path / "r.json",
    )
    notes = json.loads((tmp_path / "r.json").read_text())["explore"]["notes"]
    assert any(n.startswith("microaggregate: left out") for n in notes)


def test_python_api(tmp_path):
    import privaudit

    frame = pd.read_csv(_table(tmp_path / "t.csv"))
    result = privaudit.explore(frame, write_policy(tmp_path, POLICY), methods="generalize", max_candidates=6)
    assert 1 <= len(result.candidates) <= 6 and result.utility_measure == "granularity"
    assert result.recommended is not None and result.report.passed
    assert list(result.table.columns) == list(frame.columns)
    assert result.report.to_dict()["explore"]["recommended"] == result.recommended


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5), st.booleans()), min_size=1, max_size=12))
def test_frontier_and_recommendation_by_brute_force(points):
    cands = [Candidate("m", {}, None, None, risk=r / 5, utility=u / 5, passes=p) for r, u, p in points]
    mark_frontier(cands)
    for c in cands:
        better = [
            o
            for o in cands
            if o is not c and o.risk <= c.risk and o.utility >= c.utility and (o.risk < c.risk or o.utility > c.utility)
        ]
        assert c.frontier == (not better)
    rec = recommend(cands)
    ok = [c for c in cands if c.passes]  # chosen among the passing candidates: a failing one hides none
    if not ok:
        assert rec is None
    else:
        assert cands[rec].passes and cands[rec].utility == max(c.utility for c in ok)
        best = [c for c in ok if c.utility == cands[rec].utility]
        assert cands[rec].risk == min(c.risk for c in best)


def test_generalize_builds_a_hierarchy_for_a_numeric_qi(tmp_path, run_cli):
    data = _table(tmp_path / "t.csv", n=400)
    policy = write_policy(tmp_path, POLICY)
    out = tmp_path / "g.csv"
    code, stdout, err = run_cli(
        "remediate",
        data,
        "--policy",
        policy,
        "--method",
        "generalize",
        "--option",
        "write_hierarchies=true",
        "--out",
        out,
        "--json",
        tmp_path / "g.json",
    )
    assert code == 0, err
    report = json.loads((tmp_path / "g.json").read_text())
    built = report["remediation"]["built_hierarchies"]
    assert set(built) == {"age", "sex", "zip"}
    assert built["zip"]["builder"].startswith("5 categories") or built["zip"]["builder"].startswith("postcodes")
    levels = report["remediation"]["changes"]["levels"]
    ages = pd.read_csv(out, dtype=str)["age"].dropna().unique()
    if levels["age"] in (1, 2, 3):  # 5, 10 or 20 wide bands: age is coarsened, not deleted
        width = (5, 10, 20)[levels["age"] - 1]
        for band in ages:
            lo, hi = (int(x) for x in band.split("-"))
            assert hi - lo + 1 == width and lo % width == 0
    hierarchy = (tmp_path / "g.hierarchy-age.csv").read_text().splitlines()
    assert hierarchy[0].split(";")[1:] and hierarchy[0].endswith(";*")
    # without building, age is kept or suppressed whole
    code, _, err = run_cli(
        "remediate",
        data,
        "--policy",
        policy,
        "--method",
        "generalize",
        "--option",
        "build_hierarchies=false",
        "--out",
        tmp_path / "h.csv",
        "--json",
        tmp_path / "h.json",
    )
    kept = json.loads((tmp_path / "h.json").read_text())["remediation"]
    assert "built_hierarchies" not in kept


def test_nothing_passes_nothing_written(tmp_path, run_cli):
    data = _table(tmp_path / "t.csv", n=60)
    policy = write_policy(tmp_path, POLICY.replace("k: 3", "k: 1000"))
    code, out, err = run_cli(
        "remediate",
        data,
        "--policy",
        policy,
        "--explore",
        "--methods",
        "generalize,suppress",
        "--out",
        tmp_path / "o.csv",
        "--json",
        tmp_path / "r.json",
    )
    report = json.loads((tmp_path / "r.json").read_text())
    assert code == 1 and not (tmp_path / "o.csv").exists() and "nothing recommended" in out
    assert report["explore"]["recommended"] is None and not any(c["passes"] for c in report["explore"]["candidates"])
    assert "remediation" not in report and not report["summary"]["passed"]  # the input's audit, with the map


def test_risk_based_policy_on_the_map(tmp_path, run_cli):
    data = _table(tmp_path / "t.csv", n=200)
    policy = write_policy(
        tmp_path,
        POLICY.replace(
            "{id: k3, assessor: k_anonymity, k: 3}", "{id: avg, assessor: reidentification_risk, max_risk: 0.2}"
        ),
    )
    code, out, err = run_cli(
        "remediate",
        data,
        "--policy",
        policy,
        "--explore",
        "--methods",
        "generalize,suppress",
        "--max-candidates",
        "12",
        "--json",
        tmp_path / "r.json",
    )
    ex = json.loads((tmp_path / "r.json").read_text())["explore"]
    assert code == 0 and ex["risk_bound"] == 0.2 and ex["risk_bound_source"] == "average risk bound of check 'avg'"
    # the map's risk is the check's own figure here (average prosecutor risk), so pass <=> risk <= bound
    assert all(c["passes"] == (c["risk"] <= 0.2 + 1e-12) for c in ex["candidates"])
    suppress = [c for c in ex["candidates"] if c["method"] == "suppress"]
    assert len(suppress) >= 3 and len({c["risk"] for c in suppress}) == len(suppress)  # budgets differ


def test_option_values_are_the_explored_settings(tmp_path, run_cli):
    data, policy = _table(tmp_path / "t.csv"), write_policy(tmp_path, POLICY)
    code, out, err = run_cli(
        "remediate",
        data,
        "--policy",
        policy,
        "--explore",
        "--methods",
        "generalize",
        "--option",
        "max_suppression=0.02,0.1",
        "--json",
        tmp_path / "r.json",
    )
    assert code == 0, err
    cands = json.loads((tmp_path / "r.json").read_text())["explore"]["candidates"]
    assert cands and {c["options"]["max_suppression"] for c in cands} <= {0.02, 0.1}
    # METHOD.NAME fixes one method's option only; the other methods explore as they would
    code, out, err = run_cli(
        "remediate",
        data,
        "--policy",
        policy,
        "--explore",
        "--methods",
        "generalize,suppress",
        "--option",
        "suppress.max_suppression=0.05",
        "--json",
        tmp_path / "s.json",
    )
    cands = json.loads((tmp_path / "s.json").read_text())["explore"]["candidates"]
    assert [c["options"]["max_suppression"] for c in cands if c["method"] == "suppress"] == [0.05]
    assert len({c["options"]["max_suppression"] for c in cands if c["method"] == "generalize"}) > 1


@pytest.mark.parametrize(
    "option, message",
    [
        ("nonsense=1,2", "--option nonsense: no explored method has an option 'nonsense'"),
        ("max_suppression=0.1,abc", "--option max_suppression of '"),
        ("shuffle.k=3", "--option shuffle.k: 'shuffle' is not an explored method"),
    ],
)
def test_bad_explore_option_is_one_line(tmp_path, run_cli, option, message):
    data, policy = _table(tmp_path / "t.csv", n=30), write_policy(tmp_path, POLICY)
    code, out, err = run_cli("remediate", data, "--policy", policy, "--explore", "--option", option)
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_a_passing_table_needs_no_change(tmp_path, run_cli):
    data, policy = _table(tmp_path / "t.csv", n=60), write_policy(tmp_path, POLICY.replace("k: 3", "k: 1"))
    out = tmp_path / "o.csv"
    code, stdout, err = run_cli(
        "remediate",
        data,
        "--policy",
        policy,
        "--explore",
        "--out",
        out,
        "--json",
        tmp_path / "r.json",
        "--html",
        tmp_path / "r.html",
        "--markdown",
        tmp_path / "r.md",
    )
    assert code == 0, err
    assert "no change needed" in stdout and not out.exists()
    assert not list(tmp_path.glob("o.*"))  # no copy, no hierarchy file
    ex = json.loads((tmp_path / "r.json").read_text())["explore"]
    assert ex["no_change_needed"] and ex["candidates"][ex["recommended"]]["method"] == "unchanged"
    assert "No change needed" in (tmp_path / "r.html").read_text()
    assert "No change needed" in (tmp_path / "r.md").read_text()


def test_what_was_lost_is_on_the_first_page(explored):
    folder, run, report = explored
    lost = report["remediation"]["lost"]
    assert [v["column"] for v in lost["variables"]] == ["age", "sex", "zip"]
    html = (folder / "r.html").read_text()
    assert html.index('id="lost"') < html.index('id="remediation"') < html.index('id="explore"')
    for v in lost["variables"]:
        assert v["description"] in html
    assert "what was lost:" in run.stdout


def test_recommendation_keeps_the_ranked_variable():
    """keep / importance: a candidate deleting the most important quasi-identifier is set aside while a
    passing candidate keeps it, even at a lower utility; then no candidate whose deletions strictly contain
    another passing candidate's."""

    def cand(utility, deleted, passes=True, cells=10):
        return Candidate(
            "m",
            {},
            None,
            None,
            risk=0.1,
            utility=utility,
            passes=passes,
            lost={"deleted": deleted, "cells_changed": cells},
        )

    cands = [
        cand(0.9, ["age"]),
        cand(0.6, ["sex", "zip"]),
        cand(0.95, [], passes=False),
        cand(0.5, ["sex", "zip", "x"]),
    ]
    assert recommend(cands) == 0  # no ranked variable: age and {sex, zip} are a trade-off, utility decides
    assert recommend(cands, ["age"]) == 1  # age ranked: the candidate keeping it wins
    assert recommend([cand(0.9, ["age", "sex"]), cand(0.5, ["sex"])]) == 1  # strict subset of deletions
    assert recommend([cand(0.9, [], passes=False)]) is None


def test_third_party_remediators_on_the_map(tmp_path):
    """A remediator without an explore hook appears with its defaults; one declaring ``refines`` finishes the
    failing candidates of the others (here: blanking one quasi-identifier in the violating classes); one that
    raises or drops columns is one failed row naming where it comes from."""
    from privaudit.pipeline.explore import explore_release
    from privaudit.plugin.remediator import ExploreCandidate, Remediation, Remediator, class_violations
    from privaudit.testing import registry_with

    class NoOptions(Params):
        pass

    def coarse_zip(ctx, options):
        table = ctx.table.copy()
        table["zip"] = table["zip"].astype(str).str[:3]
        return Remediation(table, {"zip": "first three digits"}, {})

    def blank_sex(ctx, options):
        rows = class_violations(ctx)[ctx.summary.class_of]
        table = ctx.table.copy()
        for column in ctx.policy.quasi_identifiers:
            table[column] = table[column].where(~rows)
        return Remediation(table, {"records": int(rows.sum())}, {})

    def broken(ctx, options):
        raise RuntimeError("boom")

    def wrong_shape(ctx, request):
        return [ExploreCandidate({}, Remediation(ctx.table.iloc[:, :2], {}, {}))]

    class Plugin:
        @hookimpl
        def privaudit_remediators(self):
            return [
                Remediator("zip3", NoOptions, coarse_zip, "ZIP prefix", "keep three digits of the ZIP code"),
                Remediator("blank", NoOptions, blank_sex, "Blank", "blank violating records", refines=True),
                Remediator("broken", NoOptions, broken, "Broken", "raises"),
                Remediator("shape", NoOptions, broken, "Shape", "drops columns", explore=wrong_shape),
            ]

    registry = registry_with(Plugin())
    data, policy = _table(tmp_path / "t.csv"), write_policy(tmp_path, POLICY)
    found = explore_release(str(data), str(policy), registry=registry, methods="generalize,zip3,broken,shape,blank")
    cands = found.exploration.candidates
    methods = [c.method for c in cands]
    assert methods.count("zip3") == 1 and methods.count("broken") == 1 and methods.count("shape") == 1
    failed = {c.method: c.failure for c in cands if c.failure is not None}
    assert set(failed) == {"broken", "shape"}  # each a row of its own, named, in-process: by its module
    assert failed["broken"] == "failed: raised RuntimeError: boom (package test_explore (not installed))"
    assert failed["shape"].startswith("failed: changed the table's columns (package test_explore")
    assert cands[found.exploration.recommended].failure is None
    refined = [c for c in found.exploration.candidates if c.method == "generalize+blank"]
    assert refined and all(c.passes for c in refined)


@pytest.mark.slow
def test_a_refined_candidate_is_recommended_and_written(tmp_path, run_cli):
    """Wooldridge's wage1 with the policy init drafts: local suppression after cell suppression is the
    recommendation, and the table written under its combined name audits again under the same policy."""
    data = tmp_path / "wage1.csv"
    data.write_bytes((ROOT / "tests/data/surveys/wage1.csv").read_bytes())
    policy = tmp_path / "p.yaml"
    assert run_cli("init", data, "--out", policy)[0] == 0
    out = tmp_path / "best.csv"
    code, _, err = run_cli(
        "remediate", data, "--policy", policy, "--explore", "--methods", "suppress,local_suppression",
        "--out", out, "--json", tmp_path / "r.json",
    )  # fmt: skip
    assert code == 0, err
    rem = json.loads((tmp_path / "r.json").read_text())["remediation"]
    assert rem["method"] == "suppress+local_suppression" and ", then " in rem["title"]
    assert run_cli("audit", out, "--policy", rem.get("policy_file") or policy, "--quiet")[0] == 0
