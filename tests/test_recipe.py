"""remediate --recipe: several methods in sequence, each step audited again -- the ESSnet handbook's workflow
(Hundepool et al., *Statistical Disclosure Control*, Wiley 2012, section 3.6: recode, then local suppression,
then PRAM) and sdcApp's compare-each-step-with-the-original (Templ, Kowarik & Meindl, JSS 67(4), 2015,
section 5), end to end through the CLI and the Python API."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from conftest import write_policy
from hypothesis import given, settings
from hypothesis import strategies as st

import privaudit
from privaudit.core.errors import PrivauditError
from privaudit.pipeline.plugins import get_registry
from privaudit.pipeline.recipe import load_recipe

POLICY = """version: 1
name: recipe test
columns:
  age: {role: quasi_identifier, type: numeric}
  sex: {role: quasi_identifier}
  zip: {role: quasi_identifier}
  race: {role: quasi_identifier, type: nominal}
  income: {role: other, type: numeric}
  diagnosis: {role: sensitive}
checks:
  - {id: k3, assessor: k_anonymity, k: 3}
"""

THREE_STEPS = """description: recode, then suppress locally, then PRAM
steps:
  - method: generalize
    options: {levels: {age: 1, sex: 0, zip: 1, race: 0}}
  - method: local_suppression
    options: {k: 8}
  - method: pram
    options: {variables: [race], seed: 1, pd: 0.9}
"""


def _table(path, n=600, seed=1):
    rng = np.random.default_rng(seed)
    pd.DataFrame(
        {
            "age": rng.integers(18, 80, n),
            "sex": rng.choice(["F", "M"], n),
            "zip": rng.choice(["13053", "13068", "14850", "14853", "13011"], n),
            "race": rng.choice(["a", "b", "c", "d"], n),
            "income": rng.integers(1000, 9000, n),
            "diagnosis": rng.choice(["flu", "cold", "hiv", "none"], n),
        }
    ).to_csv(path, index=False)
    return path


@pytest.fixture(scope="module")
def recipe_run(tmp_path_factory):
    """One three-step recipe run through the CLI, shared by the tests that read its outputs."""
    from conftest import cli

    folder = tmp_path_factory.mktemp("recipe")
    data, policy = _table(folder / "t.csv"), write_policy(folder, POLICY)
    (folder / "r.yaml").write_text(THREE_STEPS)
    run = cli(
        "remediate", data, "--policy", policy, "--recipe", folder / "r.yaml", "--out", folder / "out.csv",
        "--json", folder / "r.json", "--markdown", folder / "r.md", "--html", folder / "r.html",
    )  # fmt: skip
    return folder, run, json.loads((folder / "r.json").read_text())


@pytest.mark.slow
def test_each_step_is_audited_and_the_output_audits_again(recipe_run, run_cli):
    folder, (code, out, err), report = recipe_run
    assert code == 0, err
    recipe = report["remediation"]["recipe"]
    steps = recipe["steps"]
    assert [s["method"] for s in steps] == ["input", "generalize", "local_suppression", "pram"]
    assert recipe["failing_step"] is None and recipe["source"].endswith("r.yaml")
    assert recipe["description"] == "recode, then suppress locally, then PRAM"
    assert not steps[0]["passed"] and steps[0]["checks"]["k3"]["status"] == "fail"
    assert steps[-1]["passed"] and steps[-1]["checks"]["k3"]["value"] >= 3
    # cells changed since the input never fall, and pram changed only race values in its own step
    changed = [s["cells_changed"] for s in steps]
    assert changed == sorted(changed) and changed[0] == 0
    assert steps[3]["cells_changed_by_step"] == round(
        report["remediation"]["loss"]["3. pram.share_values_changed"] * 600
    )
    assert steps[1]["granularity"] < steps[0]["granularity"] == 1.0
    # the side files of every step: the hierarchies generalize built, the matrix pram used, the policy
    written = {p.rsplit("/", 1)[-1] for p in report["remediation"]["files_written"]}
    assert {"out.csv", "out.hierarchy-age.csv", "out.pram-race.csv", "out.reaudit.policy.yaml"} <= written
    again = folder / "again.json"
    code2, _, err2 = run_cli(
        "audit", folder / "out.csv", "--policy", folder / "out.reaudit.policy.yaml", "--json", again
    )
    assert code2 == 0, err2
    checks = {c["id"]: c["value"] for c in json.loads(again.read_text())["checks"]}
    assert checks["k3"] == steps[-1]["checks"]["k3"]["value"]
    assert "local_suppression" in out and "wrote" in out


@pytest.mark.slow
def test_step_table_in_markdown_and_html(recipe_run):
    folder, _, report = recipe_run
    md = (folder / "r.md").read_text()
    assert "**Recipe**" in md and "| 3 | pram | PASS |" in md
    html = (folder / "r.html").read_text()
    assert "Recipe: the steps and their re-audits" in html and "local_suppression" in html


@pytest.mark.slow
def test_a_failing_last_step_writes_nothing(tmp_path, run_cli):
    """PRAM alone leaves k-anonymity failing: exit 1, the step's figures printed, no table or side file."""
    data, policy = _table(tmp_path / "t.csv"), write_policy(tmp_path, POLICY)
    (tmp_path / "r.yaml").write_text("steps:\n  - method: pram\n    options: {seed: 2}\n")
    code, out, err = run_cli(
        "remediate", data, "--policy", policy, "--recipe", tmp_path / "r.yaml", "--out", tmp_path / "o.csv",
        "--json", tmp_path / "r.json",
    )  # fmt: skip
    assert code == 1, err
    assert "step 1 (pram) fails: nothing written" in out
    assert not (tmp_path / "o.csv").exists() and not list(tmp_path.glob("o.*"))
    recipe = json.loads((tmp_path / "r.json").read_text())["remediation"]["recipe"]
    assert recipe["failing_step"] == 1 and recipe["steps"][1]["checks"]["k3"]["status"] == "fail"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("steps:\n  - method: generalize\n  - method: pramm\n", "steps[1].method: unknown method 'pramm' (did you mean 'pram'?)"),
        ("steps:\n  - method: local_suppression\n    options: {kk: 3}\n", "steps[0].options: kk: unknown field (did you mean 'k'?)"),
        ("steps:\n  - method: pram\n    options: {pd: 2}\n", "steps[0].options: pd: Input should be less than or equal to 1"),
        ("steps: [\n  - method\n", "not valid YAML"),
        ("steps: []\n", "steps: the recipe is empty"),
        ("", "not an empty file"),
        ("steps:\n  - {method: pram, option: {}}\n", "steps[0].option: unknown field (did you mean 'options'?)"),
    ],
)  # fmt: skip
def test_bad_recipe_is_one_line(tmp_path, run_cli, text, message):
    data, policy = _table(tmp_path / "t.csv", n=40), write_policy(tmp_path, POLICY)
    (tmp_path / "recipe.yaml").write_text(text)
    code, _, err = run_cli(
        "remediate", data, "--policy", policy, "--recipe", tmp_path / "recipe.yaml", "--out", tmp_path / "o.csv"
    )
    assert code == 2
    assert message in err and "recipe.yaml: " in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "o.csv").exists()


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--method", "pram"], "give --recipe or --method, not both"),
        (["--explore"], "--recipe runs given steps, --explore searches for them"),
        (["--option", "k=3"], "--option with --recipe"),
    ],
)
def test_recipe_refuses_method_and_explore(tmp_path, run_cli, extra, message):
    data, policy = _table(tmp_path / "t.csv", n=40), write_policy(tmp_path, POLICY)
    (tmp_path / "r.yaml").write_text(THREE_STEPS)
    code, _, err = run_cli(
        "remediate", data, "--policy", policy, "--recipe", tmp_path / "r.yaml", "--out", tmp_path / "o.csv", *extra
    )
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1


@pytest.mark.slow
def test_explore_writes_a_recipe_that_reproduces_its_output(tmp_path, run_cli):
    """The recommended candidate (a lattice node, or a recoding finished by local suppression) as a recipe:
    --recipe writes the same bytes, and the same hierarchies beside them."""
    data, policy = _table(tmp_path / "t.csv"), write_policy(tmp_path, POLICY)
    best = tmp_path / "best.recipe.yaml"
    code, out, err = run_cli(
        "remediate", data, "--policy", policy, "--explore", "--methods", "generalize,local_suppression",
        "--out", tmp_path / "e.csv", "--write-recipe", best,
    )  # fmt: skip
    assert code == 0, err
    assert f"wrote {best}" in out
    steps = load_recipe(best, get_registry()).steps
    assert steps[0].name == "generalize" and steps[0].options.levels is not None
    code, _, err = run_cli(
        "remediate", data, "--policy", policy, "--recipe", best, "--out", tmp_path / "r.csv", "--quiet"
    )
    assert code == 0, err
    assert (tmp_path / "r.csv").read_bytes() == (tmp_path / "e.csv").read_bytes()
    for built in tmp_path.glob("e.hierarchy-*.csv"):
        assert (tmp_path / built.name.replace("e.", "r.", 1)).read_bytes() == built.read_bytes()


@pytest.mark.slow
def test_python_api_with_a_list_and_an_original(tmp_path):
    data, policy = _table(tmp_path / "t.csv"), write_policy(tmp_path, POLICY)
    steps = [
        {"method": "generalize", "options": {"levels": {"age": 1, "sex": 0, "zip": 1, "race": 0}}},
        {"method": "local_suppression", "options": {"k": 3}},
    ]
    result = privaudit.remediate(data, policy, recipe=steps, original=data)
    assert result.offered and [s["method"] for s in result.steps] == ["input", "generalize", "local_suppression"]
    # each step's input is the previous output: the suppressed cells are blanks among generalized labels
    ages = result.table["age"].dropna().astype(str)
    assert len(ages) and not ages.str.fullmatch(r"\d+").any()  # level 1 of the built hierarchy: intervals
    assert result.steps[2]["checks"]["k3"]["value"] >= 3
    assert result.after.report.original is not None
    with (tmp_path / "r.yaml").open("w") as f:
        f.write(THREE_STEPS)
    assert privaudit.remediate(data, policy, recipe=tmp_path / "r.yaml").steps[-1]["method"] == "pram"
    with pytest.raises(PrivauditError, match="give no method= or options"):
        privaudit.remediate(data, policy, recipe=steps, method="pram")


def test_generalize_levels_option_is_checked(tmp_path, run_cli):
    data, policy = _table(tmp_path / "t.csv", n=60), write_policy(tmp_path, POLICY)
    code, _, err = run_cli(
        "remediate", data, "--policy", policy, "--method", "generalize", "--option", "levels={age: 9}",
        "--out", tmp_path / "o.csv",
    )  # fmt: skip
    assert code == 2 and "levels: 'age' has levels 0 to" in err


_VALUES = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=12))
_STEP = st.dictionaries(st.sampled_from(["method", "options", "other"]), st.one_of(_VALUES, st.sampled_from(["pram", "suppress"]), st.dictionaries(st.text(max_size=6), _VALUES, max_size=3)), max_size=3)  # fmt: skip
_RECIPES = st.one_of(_VALUES, st.lists(_STEP, max_size=3), st.dictionaries(st.sampled_from(["steps", "version", "x"]), st.one_of(_VALUES, st.lists(_STEP, max_size=2)), max_size=2))  # fmt: skip


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(recipe=_RECIPES)
def test_any_recipe_value_is_run_or_refused_in_one_line(recipe):
    """Whatever recipe= holds, privaudit.remediate runs it or raises one line (never another exception)."""
    frame = pd.DataFrame({"sex": ["F", "M", "F", "M"], "zip": ["1", "1", "2", "3"]})
    policy = {
        "version": 1,
        "columns": {"sex": {"role": "quasi_identifier"}, "zip": {"role": "quasi_identifier"}},
        "checks": [{"assessor": "k_anonymity", "k": 2}],
    }
    try:
        privaudit.remediate(frame, policy, recipe=recipe)
    except PrivauditError as exc:
        assert "\n" not in str(exc)


@pytest.mark.slow
def test_a_step_that_removes_records_with_an_original(tmp_path, run_cli):
    """Records removed by a step (suppress mode=records): the later steps are audited without --original (no
    record_id pairs it with the output), the table shows the records removed and no cells changed."""
    data, policy = _table(tmp_path / "t.csv"), write_policy(tmp_path, POLICY)
    (tmp_path / "r.yaml").write_text(
        "steps:\n"
        "  - {method: generalize, options: {levels: {age: 2, sex: 0, zip: 1, race: 0}}}\n"
        "  - {method: suppress, options: {mode: records, max_suppression: 0.9}}\n"
    )
    code, out, err = run_cli(
        "remediate", data, "--policy", policy, "--recipe", tmp_path / "r.yaml", "--original", data,
        "--out", tmp_path / "o.csv", "--json", tmp_path / "r.json",
    )  # fmt: skip
    assert code == 0, err
    steps = json.loads((tmp_path / "r.json").read_text())["remediation"]["recipe"]["steps"]
    removed = steps[2]["records_removed"]
    assert removed > 0 and steps[2]["records"] == 600 - removed and steps[2]["cells_changed"] is None
    assert len(pd.read_csv(tmp_path / "o.csv")) == 600 - removed
    assert "records removed" in out


def test_pram_of_a_column_a_step_before_emptied(tmp_path):
    """A step may leave a pramed column with no value (every cell suppressed): PRAM leaves it as it is
    (sdcMicro's pram draws only for the categories present), rather than failing."""
    frame = pd.read_csv(_table(tmp_path / "t.csv", n=60))
    frame["race"] = None
    result = privaudit.remediate(frame, write_policy(tmp_path, POLICY), method="pram", variables=["race"])
    assert result.table["race"].isna().all()
    assert result.after.report.remediation.changes["values_changed"] == {"race": 0}
