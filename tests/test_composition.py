"""Releases in series: the intersection attack (composition) and m-invariance, through the maths, the CLI
and the Python API.

The worked example is in the shape of the two-hospital example of Ganta, Kasiviswanathan & Smith (KDD 2008,
Section 3; the paper is not among the seeds, so no figure of it is reproduced): each release is 2-diverse on
its own, and intersecting a person's classes across the two leaves a single value. The figures below are
computed by hand from the definitions."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import privaudit
from privaudit.risk.composition import compose, m_unique
from privaudit.testing import run_cli

AGE = {"*": {"20-39": {"20-29": ["25"], "30-39": ["35"]}, "40-59": {"40-49": ["45"], "50-59": ["55"]}}}


def policy_text(record_id: bool = True, checks: str | None = None) -> str:
    checks = (
        checks
        or """
  - {assessor: l_diversity, sensitive: disease, l: 2}
  - {assessor: composition, sensitive: disease}
  - {assessor: m_invariance, sensitive: disease, m: 2}
"""
    )
    rid = "  id: {role: record_id}\n" if record_id else ""
    return f"""version: 1
name: series
columns:
{rid}  age: {{role: quasi_identifier, hierarchy: {json.dumps(AGE)}}}
  zip: {{role: quasi_identifier}}
  disease: {{role: sensitive}}
checks:{checks}"""


NEW = "id,age,zip,disease\n1,20-39,130,flu\n2,20-39,130,hiv\n3,40-59,130,cancer\n4,40-59,130,flu\n"
OLD = "id,age,zip,disease\n1,20-29,130,flu\n3,20-29,130,cancer\n2,30-39,130,hiv\n4,30-39,130,flu\n9,30-39,130,flu\n"


@pytest.fixture
def series(tmp_path):
    (tmp_path / "policy.yaml").write_text(policy_text())
    (tmp_path / "new.csv").write_text(NEW)
    (tmp_path / "old.csv").write_text(OLD)
    return tmp_path


# ------------------------------------------------------------------------------------------ the maths
def test_compose_by_hand():
    # values 0 flu, 1 hiv, 2 cancer; release A: {flu, hiv}, {flu, cancer}; B: {hiv, cancer}, {flu}, all three
    a = sp.csr_matrix(np.array([[1, 1, 0], [1, 0, 1]], dtype=bool))
    b = sp.csr_matrix(np.array([[0, 1, 1], [1, 0, 0], [1, 1, 1]], dtype=bool))
    c = compose([np.array([0, 0, 1, 1, -1]), np.array([0, 2, 0, -1, 1])], [a, b])
    by_person = {
        p: (int(c.remaining[c.combo_of[p], -1]), bool(c.changed[c.combo_of[p]]), int(c.present[c.combo_of[p], -1]))
        for p in range(5)
    }
    assert by_person == {
        0: (1, True, 2),  # {flu, hiv} & {hiv, cancer} = {hiv}
        1: (2, True, 2),  # {flu, hiv} & everything
        2: (1, True, 2),  # {flu, cancer} & {hiv, cancer} = {cancer}
        3: (2, False, 1),  # in A only
        4: (1, False, 1),
    }  # in B only: {flu}
    assert c.remaining_values(c.combo_of[0]).tolist() == [1]


def test_m_unique_definition():
    # sizes, distinct values: (3, 3) m-unique for m <= 3; (3, 2) repeats a value; (1, 1) too small for m = 2
    assert m_unique(np.array([3, 3, 1]), np.array([3, 2, 1]), 2).tolist() == [True, False, False]
    assert m_unique(np.array([3]), np.array([3]), 4).tolist() == [False]


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 4), st.integers(2, 3), st.data())
def test_compose_matches_set_intersections(n_values, n_releases, data):
    """Against Python sets, person by person: the values left after each release and the signature changes."""
    people = 12
    sets, groups = [], []
    for _ in range(n_releases):
        n_groups = data.draw(st.integers(1, 4))
        matrix = np.array(
            data.draw(
                st.lists(
                    st.lists(st.booleans(), min_size=n_values, max_size=n_values), min_size=n_groups, max_size=n_groups
                )
            ),
            dtype=bool,
        )
        sets.append(sp.csr_matrix(matrix))
        groups.append(np.array(data.draw(st.lists(st.integers(-1, n_groups - 1), min_size=people, max_size=people))))
    c = compose(groups, sets)
    for p in range(people):
        combo = c.combo_of[p]
        seen: set | None = None
        signatures = []
        for r in range(n_releases):
            g = groups[r][p]
            if g >= 0:
                values = set(np.flatnonzero(sets[r].toarray()[g]).tolist())
                seen = values if seen is None else seen & values
                signatures.append(frozenset(values))
            assert c.remaining[combo, r] == (len(seen) if seen is not None else 0)
        assert c.changed[combo] == (len(set(signatures)) > 1)


# ------------------------------------------------------------------------------------------ CLI
def checks_of(path) -> dict:
    return {c["id"]: c for c in json.loads(path.read_text())["checks"]}


def test_record_id_linking_through_the_cli(series):
    out = series / "r.json"
    r = run_cli(
        "audit", series / "new.csv", "--policy", series / "policy.yaml", "--previous", series / "old.csv", "--json", out
    )
    assert r.code == 1, r.stderr
    checks = checks_of(out)
    assert checks["l_diversity"]["status"] == "pass"  # each release is 2-diverse on its own ...
    comp = checks["composition"]
    # ... but people 1 ({flu, hiv} & {flu, cancer}) and 4 ({cancer, flu} & {hiv, flu}) are left with flu
    assert comp["status"] == "fail" and comp["value"] == 0.5 and comp["better"] == "lower"
    d = comp["details"]
    assert (d["people_linked"], d["people_below_l"], d["people_disclosed"], d["l"], d["linking"]) == (
        4,
        2,
        2,
        2.0,
        "record_id",
    )
    assert d["l_from"] == "the policy's l-diversity check"
    assert [(s["people"], s["linked"], s["below_l"]) for s in d["series_steps"]] == [(4, 0, 0), (5, 4, 2)]
    # a person's value is shown only for as many people as the policy's largest k (no k here: never)
    assert all("sensitive_values" not in w for w in d["worst_classes"]) and len(d["worst_classes"]) == 2
    m = checks["m_invariance"]
    # signatures of 1 and 4 changed; old's class 30-39 repeats flu (3 records not 2-unique)
    assert m["status"] == "fail" and m["value"] == 2 + 3
    assert m["details"]["people_changed"] == 2
    assert [p["records_not_m_unique"] for p in m["details"]["per_release"]] == [0, 3]
    report = json.loads(out.read_text())
    assert report["series"]["linking"] == "record_id" and len(report["series"]["releases"]) == 2
    assert "composition" in r.stdout


def test_quasi_identifier_linking_through_the_hierarchies(tmp_path):
    """Without record ids, the original's true ages are generalized as an intruder would; a suppressed age (*)
    covers everyone, so a person's candidates in the old release are the union of the classes covering them."""
    (tmp_path / "policy.yaml").write_text(policy_text(record_id=False))
    (tmp_path / "orig.csv").write_text("age,zip,disease\n25,130,flu\n35,130,hiv\n45,130,cancer\n55,130,flu\n")
    (tmp_path / "new.csv").write_text(
        "age,zip,disease\n20-39,130,flu\n20-39,130,hiv\n40-59,130,cancer\n40-59,130,flu\n"
    )
    (tmp_path / "old.csv").write_text("age,zip,disease\n*,130,flu\n30-39,130,hiv\n*,130,cancer\n50-59,130,flu\n")
    out = tmp_path / "r.json"
    r = run_cli(
        "audit",
        tmp_path / "new.csv",
        "--policy",
        tmp_path / "policy.yaml",
        "--previous",
        tmp_path / "old.csv",
        "--original",
        tmp_path / "orig.csv",
        "--json",
        out,
    )
    assert r.code == 1, r.stderr
    d = checks_of(out)["composition"]["details"]
    # 25: {flu, hiv} & {flu, cancer} (the * class) = {flu}; 35: & ({flu, cancer} | {hiv}) keeps 2; 45, 55 keep 2
    assert (d["linking"], d["people_linked"], d["people_below_l"], d["people_disclosed"]) == (
        "quasi_identifiers",
        4,
        1,
        1,
    )
    m = checks_of(out)["m_invariance"]["details"]
    assert m["people_changed"] == 2  # 25 and 35; 45 and 55 see {cancer, flu} both times


def test_worse_l_from_parameter_and_pass(series):
    # with l = 1.5 (one value left is still fewer), and a tolerated share of one half: passes
    (series / "policy.yaml").write_text(
        policy_text(checks="\n  - {assessor: composition, sensitive: disease, l: 1.5, max_share: 0.5}\n")
    )
    out = series / "r.json"
    r = run_cli(
        "audit", series / "new.csv", "--policy", series / "policy.yaml", "--previous", series / "old.csv", "--json", out
    )
    assert r.code == 0, r.stdout + r.stderr
    assert checks_of(out)["composition"]["details"]["l_from"] == "parameter"


def test_disclosed_value_shown_only_when_the_policy_allows(series):
    text = policy_text(checks="\n  - {assessor: composition, sensitive: disease}\n")
    (series / "policy.yaml").write_text(text + "report: {show_sensitive_values: true}\n")
    out = series / "r.json"
    run_cli(
        "audit", series / "new.csv", "--policy", series / "policy.yaml", "--previous", series / "old.csv", "--json", out
    )
    rows = checks_of(out)["composition"]["details"]["worst_classes"]
    assert [r["sensitive_values"] for r in rows] == [{"flu": 1}, {"flu": 1}]


def test_python_api_with_frames():
    policy = {
        "columns": {"id": {"role": "record_id"}, "age": {"role": "quasi_identifier"}, "disease": {"role": "sensitive"}},
        "checks": [{"assessor": "composition", "sensitive": "disease"}],
    }
    new = pd.DataFrame(
        {"id": ["a", "b", "c", "d"], "age": ["x", "x", "y", "y"], "disease": ["flu", "hiv", "flu", "hiv"]}
    )
    old = pd.DataFrame(
        {"id": ["a", "b", "c", "d"], "age": ["p", "q", "p", "q"], "disease": ["flu", "hiv", "hiv", "hiv"]}
    )
    report = privaudit.audit(new, policy, previous=[old])
    check = report.checks[-3]  # the policy's last check: the two on what it left out follow
    # a: {flu, hiv} & {flu, hiv} keeps 2; b: & {hiv} = 1; c: {flu, hiv} & {flu, hiv}; d: & {hiv}
    assert check.details["people_below_l"] == 2 and not report.passed
    assert report.to_dict()["series"]["linking"] == "record_id"


def test_report_draws_the_sections(series):
    out = series / "r.html"
    r = run_cli(
        "audit", series / "new.csv", "--policy", series / "policy.yaml", "--previous", series / "old.csv", "--html", out
    )
    assert r.code == 1, r.stderr
    html = out.read_text()
    assert "Composition across releases" in html and "m-uniqueness of each release" in html
    chapter = html[html.index('<section id="series"') : html.index('<section id="checks"')]
    assert "by the record id column “id”" in chapter and "previous: old.csv" in chapter
    assert "people left with fewer than l values as each release is added" in chapter and "<svg" in chapter
    assert "1: new.csv (0, 0 down to one value); 2: + old.csv (2, 2 down to one value)" in chapter


def test_mixed_linking_joins_the_original_by_record_id(tmp_path):
    """The audited release carries the record id, the previous one does not: people are linked through the
    original, joined to the audited release by id and row by row to the previous one."""
    (tmp_path / "policy.yaml").write_text(policy_text())
    (tmp_path / "orig.csv").write_text(
        "id,age,zip,disease\n1,25,130,flu\n2,35,130,hiv\n3,45,130,cancer\n4,55,130,flu\n"
    )
    (tmp_path / "new.csv").write_text("id,age,zip,disease\n4,40-59,130,flu\n2,20-39,130,hiv\n1,20-39,130,flu\n")
    (tmp_path / "old.csv").write_text("age,zip,disease\n20-29,130,flu\n30-39,130,hiv\n*,130,cancer\n*,130,flu\n")
    out = tmp_path / "r.json"
    r = run_cli(
        "audit",
        tmp_path / "new.csv",
        "--policy",
        tmp_path / "policy.yaml",
        "--previous",
        tmp_path / "old.csv",
        "--original",
        tmp_path / "orig.csv",
        "--json",
        out,
    )
    assert r.code == 1, r.stderr
    d = checks_of(out)["composition"]["details"]
    # new: 1, 2 in {flu, hiv}; 4 in {flu}; old: 25 -> {flu} | * {cancer, flu}; 35 -> {hiv} | *; 55 -> *
    # 1: {flu, hiv} & {flu, cancer} = {flu}; 2: {flu, hiv} & {hiv, cancer, flu} = 2; 4: {flu} & ... = {flu}
    assert (d["linking"], d["people_linked"], d["people_below_l"]) == ("quasi_identifiers", 3, 2)
    series = json.loads(out.read_text())["series"]
    assert series["key"] == "id" and [r["people"] for r in series["releases"]] == [3, 4]


# ------------------------------------------------------------------------------------------ bad input
@pytest.mark.parametrize(
    "case, expected",
    [
        ("self", "is the audited release itself"),
        ("copy", "has the same content as the audited release"),
        ("duplicate id", "record_id '1' repeats within the release"),
        ("disjoint", "the releases share no person"),
        ("other qi", "quasi-identifier 'zip' is absent"),
        ("other sensitive", "sensitive column 'disease' is absent"),
        ("no previous", "composes releases: pass --previous FILE"),
        ("no reader", "no check of the policy reads previous releases"),
        ("engine", "--previous needs the whole tables in memory"),
        ("no original", "pass --original FILE"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(series, case, expected):
    policy, previous, extra = series / "policy.yaml", series / "old.csv", []
    if case == "self":
        previous = series / "new.csv"
    elif case == "copy":
        (series / "copy.csv").write_text(NEW)
        previous = series / "copy.csv"
    elif case == "duplicate id":
        (series / "old.csv").write_text(OLD + "1,20-29,130,hiv\n")
    elif case == "disjoint":
        (series / "old.csv").write_text(
            OLD.replace("\n1,", "\n11,").replace("\n2,", "\n12,").replace("\n3,", "\n13,").replace("\n4,", "\n14,")
        )
    elif case == "other qi":
        (series / "old.csv").write_text("id,age,postcode,disease\n1,20-29,130,flu\n")
    elif case == "other sensitive":
        (series / "old.csv").write_text("id,age,zip,diagnosis\n1,20-29,130,flu\n")
    elif case == "no previous":
        previous = None
    elif case == "no reader":
        policy.write_text(policy_text(checks="\n  - {assessor: l_diversity, sensitive: disease, l: 2}\n"))
    elif case == "engine":
        extra = ["--engine", "duckdb"]
    elif case == "no original":
        policy.write_text(policy_text(record_id=False))
        for name, text in (("new.csv", NEW), ("old.csv", OLD)):
            (series / name).write_text("\n".join(",".join(row.split(",")[1:]) for row in text.splitlines()) + "\n")
    args = ["audit", series / "new.csv", "--policy", policy, "--json", series / "r.json", *extra]
    if previous is not None:
        args += ["--previous", previous]
    before = {p.name: p.read_bytes() for p in series.iterdir()}
    r = run_cli(*args)
    assert r.code == 2, (r.stdout, r.stderr)
    assert expected in r.stderr and r.stderr.count("\n") == 1, r.stderr
    assert {p.name: p.read_bytes() for p in series.iterdir()} == before  # no output, inputs untouched


def test_three_releases_step_by_step(series):
    # a third release whose one class holds {hiv, cancer}: 2 ({flu, hiv} & {hiv, flu}) is now down to hiv, and 3
    # ({cancer, flu} & {flu, cancer}) to cancer
    (series / "older.csv").write_text("id,age,zip,disease\n2,*,130,hiv\n3,*,130,cancer\n")
    out = series / "r.json"
    r = run_cli(
        "audit",
        series / "new.csv",
        "--policy",
        series / "policy.yaml",
        "--previous",
        series / "old.csv",
        "--previous",
        series / "older.csv",
        "--json",
        out,
    )
    assert r.code == 1, r.stderr
    d = checks_of(out)["composition"]["details"]
    assert [s["below_l"] for s in d["series_steps"]] == [0, 2, 4]
    assert d["people_disclosed"] == 4 and d["releases"] == 3


def test_combinations_stay_consistent_with_people():
    groups = [np.array([0, 0, 1, -1, 1]), np.array([1, 1, -1, 0, -1])]
    sets = [sp.csr_matrix(np.eye(2, dtype=bool)), sp.csr_matrix(np.eye(2, dtype=bool))]
    c = compose(groups, sets)
    assert c.people.sum() == 5
    for p, r in itertools.product(range(5), range(2)):
        assert c.groups[c.combo_of[p], r] == groups[r][p]


def test_an_m_invariant_series_passes_both_checks(series):
    """Xiao & Tao's point (Section 3): when every person keeps the same signature, intersecting their groups
    leaves the whole signature: the new release regroups people under other labels but the same sets."""
    (series / "old.csv").write_text("id,age,zip,disease\n2,*,131,hiv\n1,*,131,flu\n4,*,132,flu\n3,*,132,cancer\n")
    out = series / "r.json"
    r = run_cli(
        "audit", series / "new.csv", "--policy", series / "policy.yaml", "--previous", series / "old.csv", "--json", out
    )
    assert r.code == 0, r.stdout + r.stderr
    checks = checks_of(out)
    assert checks["composition"]["value"] == 0 and checks["composition"]["details"]["people_linked"] == 4
    assert checks["m_invariance"]["value"] == 0 and checks["m_invariance"]["details"]["people_changed"] == 0


def test_previous_release_in_parquet(series):
    """A Parquet previous release: its record ids are read apart from the typed table; a repeat names its row."""
    old = pd.read_csv(series / "old.csv", dtype=str)
    old.to_parquet(series / "old.parquet", index=False)
    out = series / "r.json"
    r = run_cli(
        "audit",
        series / "new.csv",
        "--policy",
        series / "policy.yaml",
        "--previous",
        series / "old.parquet",
        "--json",
        out,
    )
    assert r.code == 1, r.stderr
    assert checks_of(out)["composition"]["details"]["people_below_l"] == 2  # as from the CSV
    pd.concat([old, old.head(1)]).to_parquet(series / "old.parquet", index=False)
    r = run_cli("audit", series / "new.csv", "--policy", series / "policy.yaml", "--previous", series / "old.parquet")
    assert r.code == 2 and "old.parquet: row 6: record_id '1' repeats within the release" in r.stderr


def test_values_left_per_record(series):
    out = series / "records.csv"
    r = run_cli(
        "audit",
        series / "new.csv",
        "--policy",
        series / "policy.yaml",
        "--previous",
        series / "old.csv",
        "--records",
        out,
    )
    assert r.code == 1, r.stderr
    frame = pd.read_csv(out)
    # new.csv holds ids 1..4 in order: 1 and 4 are down to flu, 2 and 3 keep two values
    assert frame["values_left:composition"].tolist() == [1, 2, 2, 1]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_linking_through_hierarchies_matches_a_brute_force_intruder(tmp_path, seed):
    """Local recoding and suppression: the values left to each person equal those of an intruder who, person by
    person, takes every class whose published values cover the person's true ones (the value, an ancestor in
    the hierarchy, or *), unions their values in each release and intersects across releases."""
    rng = np.random.default_rng(seed)
    n = 40
    ancestors = {
        "25": ["25", "20-29", "20-39"],
        "35": ["35", "30-39", "20-39"],
        "45": ["45", "40-49", "40-59"],
        "55": ["55", "50-59", "40-59"],
    }
    truth = pd.DataFrame(
        {
            "age": rng.choice(list(ancestors), n),
            "zip": rng.choice(["1", "2"], n),
            "disease": rng.choice(["a", "b", "c", "d"], n),
        }
    )
    releases = []
    for _ in range(3):
        level = rng.integers(0, 4, n)  # 3: suppressed
        age = [("*" if lv == 3 else ancestors[a][lv]) for a, lv in zip(truth["age"], level, strict=False)]
        zip_ = np.where(rng.random(n) < 0.2, "*", truth["zip"])
        releases.append(pd.DataFrame({"age": age, "zip": zip_, "disease": truth["disease"]}))
    (tmp_path / "policy.yaml").write_text(
        policy_text(record_id=False, checks="\n  - {assessor: composition, sensitive: disease, l: 3}\n")
    )
    truth.to_csv(tmp_path / "orig.csv", index=False)
    for i, frame in enumerate(releases):
        frame.to_csv(tmp_path / f"r{i}.csv", index=False)
    out = tmp_path / "records.csv"
    r = run_cli(
        "audit",
        tmp_path / "r0.csv",
        "--policy",
        tmp_path / "policy.yaml",
        "--original",
        tmp_path / "orig.csv",
        "--previous",
        tmp_path / "r1.csv",
        "--previous",
        tmp_path / "r2.csv",
        "--records",
        out,
    )
    assert r.code in (0, 1), r.stderr

    def covers(published: str, true: str, column: str) -> bool:
        return published == "*" or published == true or (column == "age" and published in ancestors[true])

    expected = []
    for p in range(n):
        left = None
        for frame in releases:
            values = set()
            for (age, zip_), group in frame.groupby(["age", "zip"]):
                if covers(age, truth["age"][p], "age") and covers(zip_, truth["zip"][p], "zip"):
                    values |= set(group["disease"])
            left = values if left is None else left & values
        expected.append(len(left))
    assert pd.read_csv(out)["values_left:composition"].tolist() == expected


@pytest.mark.parametrize("seed", [4, 5])
def test_record_id_linking_matches_a_brute_force_intruder(tmp_path, seed):
    """Releases holding different subsets of a population (ids in any order, some only in earlier releases):
    people in two or more releases below l and disclosed, and the m-invariance signature changes, against
    Python sets person by person."""
    rng = np.random.default_rng(seed)
    population = [f"id{i}" for i in range(60)]
    disease = dict(zip(population, rng.choice(["a", "b", "c", "d", "e"], len(population)), strict=False))
    releases = []
    for _ in range(3):
        ids = list(rng.choice(population, 40, replace=False))
        releases.append(
            pd.DataFrame(
                {
                    "id": ids,
                    "age": rng.choice(["20-39", "40-59"], 40),
                    "zip": rng.choice(["1", "2", "3"], 40),
                    "disease": [disease[i] for i in ids],
                }
            )
        )
    (tmp_path / "policy.yaml").write_text(
        policy_text(
            checks="\n  - {assessor: composition, sensitive: disease}\n"
            "  - {assessor: m_invariance, sensitive: disease}\n"
        )
    )
    for i, frame in enumerate(releases):
        frame.to_csv(tmp_path / f"r{i}.csv", index=False)
    out = tmp_path / "r.json"
    r = run_cli(
        "audit",
        tmp_path / "r0.csv",
        "--policy",
        tmp_path / "policy.yaml",
        "--previous",
        tmp_path / "r1.csv",
        "--previous",
        tmp_path / "r2.csv",
        "--json",
        out,
    )
    assert r.code in (0, 1), r.stderr
    sets = []
    for frame in releases:
        classes = frame.groupby(["age", "zip"])["disease"].agg(set)
        sets.append({i: classes[(a, z)] for i, a, z in zip(frame["id"], frame["age"], frame["zip"], strict=False)})
    below = disclosed = linked = changed = 0
    for person in population:
        mine = [s[person] for s in sets if person in s]
        if len(mine) < 2:
            continue
        linked += 1
        left = set.intersection(*mine)
        below += len(left) < 2
        disclosed += len(left) == 1
        changed += len({frozenset(x) for x in mine}) > 1
    checks = checks_of(out)
    d = checks["composition"]["details"]
    assert (d["people_linked"], d["people_below_l"], d["people_disclosed"]) == (linked, below, disclosed)
    assert checks["m_invariance"]["details"]["people_changed"] == changed
