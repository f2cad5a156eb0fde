"""remediate --explore on public survey tables it was never tuned to (tests/data/surveys/explore_*.csv,
PROVENANCE.md there): the recommendation passes, deletes no quasi-identifier that a passing candidate keeps
with all else it keeps, changes no more quasi-identifier cells than generalization with a 5 % suppression
limit, and its table audits again; the report says on page one what each variable lost."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

SURVEYS = Path(__file__).parent / "data" / "surveys"
# recommendations among privaudit's own methods: an installed remediator joins --explore (conftest.builtin_plugins_only)
pytestmark = pytest.mark.usefixtures("builtin_plugins_only")

POLICIES = {
    "nesarc": """
columns:
  region: {role: quasi_identifier, type: nominal}
  age: {role: quasi_identifier, type: numeric}
  sex: {role: quasi_identifier, type: nominal}
  marital: {role: quasi_identifier, type: nominal}
  educ: {role: quasi_identifier, type: nominal}
  ethrace2a: {role: other, type: nominal, reason: not asked of a matched register}
checks:
  - {id: k5, assessor: k_anonymity, k: 5}
  - {id: unique, assessor: uniqueness, max_share: 0.0}
""",
    "cps1988": """
columns:
  wage: {role: sensitive, type: numeric}
  education: {role: quasi_identifier, type: numeric}
  experience: {role: quasi_identifier, type: numeric}
  ethnicity: {role: quasi_identifier, type: nominal}
  smsa: {role: other, type: nominal, reason: coarse and public for every area}
  region: {role: quasi_identifier, type: nominal}
  parttime: {role: other, type: nominal, reason: not known to an intruder}
checks:
  - {id: k5, assessor: k_anonymity, k: 5}
  - {id: l2, assessor: l_diversity, sensitive: wage, l: 2}
  - {id: t02, assessor: t_closeness, sensitive: wage, t: 0.2, severity: warning}
""",
    "acs12": """
columns:
  income: {role: sensitive, type: numeric}
  employment: {role: quasi_identifier, type: nominal}
  hrs_work: {role: quasi_identifier, type: numeric}
  race: {role: quasi_identifier, type: nominal}
  age: {role: quasi_identifier, type: numeric}
  gender: {role: quasi_identifier, type: nominal}
  citizen: {role: quasi_identifier, type: nominal}
  time_to_work: {role: quasi_identifier, type: numeric}
  lang: {role: other, type: nominal, reason: not known to an intruder}
  married: {role: quasi_identifier, type: nominal}
  edu: {role: quasi_identifier, type: nominal}
  disability: {role: other, type: nominal, reason: not known to an intruder}
  birth_qrtr: {role: quasi_identifier, type: nominal}
checks:
  - {id: k5, assessor: k_anonymity, k: 5}
""",
    "fertil2": """
columns:
  age: {role: quasi_identifier, type: numeric}
  educ: {role: quasi_identifier, type: numeric}
  children: {role: quasi_identifier, type: numeric}
  urban: {role: quasi_identifier, type: nominal}
  electric: {role: quasi_identifier, type: nominal}
  ceb: {role: sensitive, type: numeric}
checks:
  - {id: k5, assessor: k_anonymity, k: 5}
""",
    "nhis2009": """
columns:
  fml: {role: quasi_identifier, type: nominal}
  hi: {role: sensitive, type: nominal}
  hlth: {role: sensitive, type: numeric}
  nwhite: {role: quasi_identifier, type: nominal}
  age: {role: quasi_identifier, type: numeric}
  yedu: {role: quasi_identifier, type: numeric}
  famsize: {role: quasi_identifier, type: numeric}
  empl: {role: other, type: nominal, reason: not known to an intruder}
  inc: {role: sensitive, type: numeric}
  perweight: {role: other, type: numeric, reason: a survey weight}
checks:
  - {id: k5, assessor: k_anonymity, k: 5}
  - {id: l2, assessor: l_diversity, sensitive: hlth, l: 2}
""",
}


def _setup(tmp_path: Path, name: str) -> tuple[Path, Path]:
    data = tmp_path / f"{name}.csv"
    shutil.copy(SURVEYS / f"explore_{name}.csv", data)
    policy = tmp_path / "policy.yaml"
    policy.write_text(f"version: 1\nname: {name}\n" + POLICIES[name])
    return data, policy


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(POLICIES))
def test_recommendation_on_public_surveys(tmp_path, run_cli, name):
    data, policy = _setup(tmp_path, name)
    out = tmp_path / "out.csv"
    code, stdout, err = run_cli(
        "remediate", data, "--policy", policy, "--explore", "--out", out, "--json", tmp_path / "r.json"
    )
    assert code == 0, err
    report = json.loads((tmp_path / "r.json").read_text())
    ex = report["explore"]
    cands = ex["candidates"]
    rec = cands[ex["recommended"]]
    passing = [c for c in cands if c["passes"]]
    assert rec["passes"] and report["remediation"]["offered"] and out.exists()
    # no passing candidate keeps what the recommendation keeps and one more quasi-identifier
    assert not any(set(c["deleted"]) < set(rec["deleted"]) for c in passing)
    if any(not c["deleted"] for c in passing):
        assert not rec["deleted"]
    # no more quasi-identifier cells changed than generalization with a 5 % suppression limit
    code, _, err = run_cli(
        "remediate",
        data,
        "--policy",
        policy,
        "--method",
        "generalize",
        "--option",
        "max_suppression=0.05",
        "--out",
        tmp_path / "g.csv",
        "--json",
        tmp_path / "g.json",
    )
    five = json.loads((tmp_path / "g.json").read_text())["remediation"]
    if five["offered"]:
        assert rec["cells_changed"] <= five["lost"]["cells_changed"]
    # what was lost, in the JSON and on the terminal, matches the written table
    lost = report["remediation"]["lost"]
    assert lost["cells_changed"] == rec["cells_changed"] and lost["deleted"] == rec["deleted"]
    assert "what was lost:" in stdout and all(v["column"] in stdout for v in lost["variables"])
    # the written table audits again, with the policy remediate wrote beside it (built hierarchies, retyped columns)
    again = report["remediation"].get("policy_file") or policy
    code, _, err = run_cli("audit", out, "--policy", again)
    assert code == 0, err


@pytest.mark.slow
def test_python_api_says_what_was_lost(tmp_path):
    """privaudit.explore with an option list and privaudit.remediate both hand back what each variable lost."""
    import privaudit

    data, policy = _setup(tmp_path, "nesarc")
    found = privaudit.explore(str(data), str(policy), options={"generalize.max_suppression": [0, 0.05]})
    rec = found.candidates[found.recommended]
    passing = [c for c in found.candidates if c["passes"]]
    assert rec["passes"] and found.lost["deleted"] == rec["deleted"]
    assert not any(set(c["deleted"]) < set(rec["deleted"]) for c in passing)
    limits = {c["options"]["max_suppression"] for c in found.candidates if c["method"] == "generalize"}
    assert limits <= {0, 0.05}
    words = {v["column"]: v["description"] for v in found.lost["variables"]}
    assert words["sex"].startswith("kept") and all(words[c].startswith("deleted") for c in rec["deleted"])
    done = privaudit.remediate(str(data), str(policy), method="generalize", max_suppression=0.05)
    assert done.offered and rec["cells_changed"] <= done.lost["cells_changed"]


@pytest.mark.slow
def test_a_continuous_sensitive_attribute_is_never_listed_value_by_value(tmp_path, run_cli):
    """CPS 1988's wages in a t-closeness section: each class's wages are summarised by range and quartiles,
    so the report holds no column of individual wages (its PDF once ran to 47 pages of them)."""
    data, _ = _setup(tmp_path, "cps1988")
    policy = tmp_path / "t.yaml"
    policy.write_text(
        "version: 1\nname: cps wages\ncolumns:\n  wage: {role: sensitive, type: numeric}\n"
        "  region: {role: quasi_identifier, type: nominal}\n"
        "checks:\n  - {id: k, assessor: k_anonymity, k: 5}\n"
        "  - {id: t, assessor: t_closeness, sensitive: wage, t: 0.01, severity: warning}\n"
    )
    code, _, err = run_cli("audit", data, "--policy", policy, "--html", tmp_path / "r.html")
    assert code in (0, 1), err  # the columns left undeclared may fail their own check: the report is what counts
    html = (tmp_path / "r.html").read_text()
    assert "distinct values from" in html and "quartiles" in html
    wages = {f"{w:g}" for w in __import__("pandas").read_csv(data)["wage"]}
    shown = [w for w in wages if f">{w} (" in html or f", {w} (" in html]
    assert len(shown) <= 10
