"""Every table a remediation writes audits again: with the policy written beside it (or the same policy), the
written CSV or Parquet file gives ``remediate``'s own re-audit verdict and figures; built labels are ones a person
reads and the CSV formula guard leaves alone; side files of a stream or device output go nowhere (or to
``--side-files``); ``init`` gives two columns whose names differ only in punctuation two hierarchy files."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import write_policy
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

import privaudit
from privaudit.remediation.export import as_written, formula_like, table_bytes

TEXT = ["-a", "+b", "=c", "@d", "e", "-", "f g"]  # text starting like spreadsheet formulas, and plain text
SENSITIVE = ["=x", "-y", "+z", "@w", "v", "u"]


def _table(path: Path, n: int, seed: int) -> Path:
    rng = np.random.default_rng(seed)
    days = pd.Timestamp("2020-01-01") + pd.to_timedelta(rng.integers(0, 900, n), unit="D")
    frame = pd.DataFrame(
        {
            "num": rng.integers(-30, 31, n),  # negative numbers: interval labels below zero
            "num2": rng.normal(0, 10, n).round(1),
            "day": days.strftime("%Y-%m-%d"),
            "txt": rng.choice(TEXT, n),
            "sex": rng.choice(["F", "M"], n),
            "s": rng.choice(SENSITIVE, n),
        }
    )
    if path.suffix == ".parquet":
        frame.to_parquet(path, index=False)
    else:
        frame.to_csv(path, index=False)
    return path


POLICIES = {
    "generalize": "num: numeric QI\nday: QI\ntxt: QI\ncheck: {assessor: k_anonymity, k: 3}",
    "suppress": "txt: QI\nsex: QI\ncheck: {assessor: k_anonymity, k: 5}",
    "microaggregate": "num: numeric QI\nnum2: numeric QI\ncheck: {assessor: k_anonymity, k: 3}",
    "randomize": "txt: QI\nsex: QI\ncheck: {id: rr, assessor: rr_attribute_disclosure, sensitive: s, max_risk: 0.6}",
}


def _policy(folder: Path, method: str) -> Path:
    spec = dict(line.split(": ", 1) for line in POLICIES[method].splitlines())
    lines = ["version: 1", f"name: {method}", "columns:"]
    for column in ["num", "num2", "day", "txt", "sex"]:
        kind = spec.get(column)
        if kind is None:
            lines.append(f"  {column}: {{role: other, reason: not known to an intruder}}")
        else:
            typed = ", type: numeric" if kind.startswith("numeric") else ""
            lines.append(f"  {column}: {{role: quasi_identifier{typed}}}")
    lines += ["  s: {role: sensitive}", "checks:", f"  - {spec['check']}"]
    return write_policy(folder, "\n".join(lines) + "\n", f"{method}.yaml")


def _figures(report: dict) -> list:
    return [(c["id"], c["status"], c["value"], c.get("details")) for c in report["checks"]]


def _audit_again(run_cli, folder: Path, out: Path, report: dict, policy: Path, data: Path) -> dict:
    """``privaudit audit`` of the written table with the policy the remediation names (or the same one)."""
    again = report["remediation"].get("policy_file") or policy
    original = ["--original", data] if report["remediation"]["method"] == "randomize" else []  # as remediate says
    code, _, err = run_cli("audit", out, "--policy", again, *original, "--json", folder / "again.json", "--quiet")
    assert code in (0, 1), err
    return json.loads((folder / "again.json").read_text())


@pytest.mark.slow
@example(method="generalize", suffix=".csv", seed=1, n=200)
@example(method="generalize", suffix=".parquet", seed=2, n=200)
@example(method="suppress", suffix=".csv", seed=3, n=200)
@example(method="microaggregate", suffix=".csv", seed=4, n=120)
@example(method="randomize", suffix=".csv", seed=5, n=200)
@settings(max_examples=16, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    method=st.sampled_from(sorted(POLICIES)),
    suffix=st.sampled_from([".csv", ".parquet"]),
    seed=st.integers(0, 10_000),
    n=st.integers(60, 240),
)
def test_every_written_table_audits_again_as_it_was_reaudited(tmp_path_factory, run_cli, method, suffix, seed, n):
    folder = tmp_path_factory.mktemp("again")
    data = _table(folder / "in.csv", n, seed)
    policy = _policy(folder, method)
    out = folder / f"out{suffix}"
    options = ["--option", "seed=1"] if method == "randomize" else []
    options.append("--even-if-passing")  # a drawn table may pass already: written only when asked
    code, stdout, err = run_cli(
        "remediate", data, "--policy", policy, "--method", method, *options, "--out", out, "--json", folder / "r.json"
    )
    assert code in (0, 1), err  # never a refusal of a table the remediation built
    event(f"{method} {suffix} {'offered' if code == 0 else 'not offered'}")
    if code == 1:
        assert not out.exists()
        return
    report = json.loads((folder / "r.json").read_text())
    again = _audit_again(run_cli, folder, out, report, policy, data)
    assert again["summary"]["passed"] == report["summary"]["passed"] is True
    assert _figures(again) == _figures(report)
    if suffix == ".csv":  # only formula-like text is guarded: never a number or a built label
        cells = pd.read_csv(out, dtype=str, keep_default_na=False).to_numpy().ravel()
        guarded = {c for c in cells if c.startswith("'")}
        assert guarded <= {"'" + v for v in TEXT + SENSITIVE if formula_like(v)}
    for entry in (report["remediation"].get("built_hierarchies") or {}).values():
        assert (folder / entry["file"]).is_file()  # the report names the files written


def test_numeric_qi_generalized_audits_again_with_the_written_policy(tmp_path, run_cli):
    data = _table(tmp_path / "in.csv", 300, 3)
    policy = _policy(tmp_path, "generalize")
    out = tmp_path / "o.csv"
    code, stdout, err = run_cli(
        "remediate", data, "--policy", policy, "--method", "generalize", "--out", out, "--json", tmp_path / "r.json"
    )
    assert code == 0, err
    report = json.loads((tmp_path / "r.json").read_text())
    written = tmp_path / "o.reaudit.policy.yaml"
    assert report["remediation"]["policy_file"] == str(written) and written.is_file()
    assert f"audit it again: privaudit audit {out} --policy {written}\n" in stdout
    built = report["remediation"]["built_hierarchies"]
    assert {b["file"] for b in built.values()} == {"o.hierarchy-num.csv", "o.hierarchy-day.csv", "o.hierarchy-txt.csv"}
    assert report["remediation"]["changes"]["built_hierarchies"] == built
    # the given policy types num numeric: its labels are refused there, as the note says; the written one audits
    code, _, err = run_cli("audit", out, "--policy", policy, "--quiet")
    levels = report["remediation"]["changes"]["levels"]
    if levels["num"] > 0:
        assert code == 2 and "is not a number" in err
    again = _audit_again(run_cli, tmp_path, out, report, policy, data)
    assert _figures(again) == _figures(report)
    labels = pd.read_csv(tmp_path / "o.hierarchy-num.csv", sep=";", header=None, dtype=str)
    assert labels.iloc[:, 1:].stack().map(lambda v: v == "*" or v.startswith("[")).all()  # [-30, -26], never -30--26
    # the written hierarchy of the text QI holds its labels as the CSV holds them (the writer's apostrophe)
    leaves = set(
        pd.read_csv(tmp_path / "o.hierarchy-txt.csv", sep=";", header=None, dtype=str, keep_default_na=False)[0]
    )
    assert {"'-a", "'+b", "'=c", "'@d", "e", "'-", "f g"} <= leaves


def test_api_remediate_reaudits_the_table_as_written(tmp_path, run_cli):
    data = _table(tmp_path / "in.csv", 300, 5)
    policy = _policy(tmp_path, "generalize")
    result = privaudit.remediate(data, policy, method="generalize")
    assert result.offered and result.after.passed
    out = tmp_path / "o.csv"
    code, _, err = run_cli(
        "remediate", data, "--policy", policy, "--method", "generalize", "--out", out, "--json", tmp_path / "r.json"
    )
    assert code == 0, err
    report = json.loads((tmp_path / "r.json").read_text())
    # the library's re-audit is the audit of the CSV the command line writes, formula-like labels guarded
    assert _figures(result.after.to_dict()) == _figures(_audit_again(run_cli, tmp_path, out, report, policy, data))
    assert (
        "'=c" in set(pd.read_csv(out, dtype=str, keep_default_na=False)["txt"])
        or report["remediation"]["changes"]["levels"]["txt"] > 0
    )


def test_formula_guard_leaves_numbers_and_changes_formulas():
    assert not formula_like("-5") and not formula_like("+3.5") and not formula_like("-1e-3")
    assert formula_like("-5--1") and formula_like("=1+1") and formula_like("@x") and formula_like("-")
    frame = pd.DataFrame({"a": ["-5", "-5--1", "=x", "y"], "b": [1, -2, 3, 4]})
    text = table_bytes(frame, "o.csv").decode()
    assert text.splitlines() == ["a,b", "-5,1", "'-5--1,-2", "'=x,3", "y,4"]
    assert list(as_written(frame, "o.csv")["a"]) == ["-5", "'-5--1", "'=x", "y"]
    assert as_written(frame, "o.parquet") is frame


def _interval_policy(folder: Path) -> Path:
    (folder / "num.csv").write_text("".join(f"{v};{'-5--1' if v < 0 else '0-4'};*\n" for v in range(-5, 5)))
    return write_policy(
        folder,
        "version: 1\nname: h\ncolumns:\n  num: {role: quasi_identifier, hierarchy: num.csv}\n"
        "  sex: {role: quasi_identifier}\n  s: {role: sensitive}\nchecks:\n  - {assessor: k_anonymity, k: 40}\n",
    )


def test_a_hierarchy_label_the_csv_would_change_is_refused_and_parquet_is_written(tmp_path, run_cli):
    rng = np.random.default_rng(0)
    data = tmp_path / "in.csv"
    pd.DataFrame(
        {"num": rng.integers(-5, 5, 200), "sex": rng.choice(["F", "M"], 200), "s": rng.choice(["a", "b"], 200)}
    ).to_csv(data, index=False)
    policy = _interval_policy(tmp_path)
    code, stdout, err = run_cli(
        "remediate", data, "--policy", policy, "--method", "generalize", "--out", tmp_path / "o.csv"
    )
    assert code == 2 and not (tmp_path / "o.csv").exists()
    assert err.count("\n") == 1 and "column 'num'" in err and "'-5--1'" in err and "Parquet" in err
    out = tmp_path / "o.parquet"
    code, _, err = run_cli(
        "remediate", data, "--policy", policy, "--method", "generalize", "--out", out, "--json", tmp_path / "r.json"
    )
    assert code == 0, err
    assert "-5--1" in set(pd.read_parquet(out)["num"].astype(str))
    report = json.loads((tmp_path / "r.json").read_text())
    assert _figures(_audit_again(run_cli, tmp_path, out, report, policy, data)) == _figures(report)


def test_stream_and_device_outputs_write_no_side_files(tmp_path, run_cli, monkeypatch):
    data = _table(tmp_path / "in.csv", 300, 3)
    policy = _policy(tmp_path, "generalize")
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    before_dev = set(os.listdir("/dev"))
    code, stdout, err = run_cli("remediate", data, "--policy", policy, "--method", "generalize", "--out", "-")
    assert code == 0, err and "age" not in err
    assert os.listdir(work) == []  # no -.hierarchy-*.csv in the working folder
    code, stdout, err = run_cli("remediate", data, "--policy", policy, "--method", "generalize", "--out", "/dev/null")
    assert code == 0, err
    assert set(os.listdir("/dev")) == before_dev and os.listdir(work) == []
    assert "were not written (give --side-files DIR)" in stdout
    side = tmp_path / "side"
    side.mkdir()
    code, stdout, err = run_cli(
        "remediate", data, "--policy", policy, "--method", "generalize", "--out", "-", "--side-files", side
    )
    assert code == 0, err
    assert sorted(os.listdir(side)) == [
        "stdout.hierarchy-day.csv",
        "stdout.hierarchy-num.csv",
        "stdout.hierarchy-txt.csv",
        "stdout.reaudit.policy.yaml",
    ]
    code, _, err = run_cli(
        "remediate",
        data,
        "--policy",
        policy,
        "--method",
        "generalize",
        "--out",
        "-",
        "--side-files",
        tmp_path / "nothere",
    )
    assert code == 2 and "--side-files" in err and "not a folder" in err


def test_init_gives_columns_differing_in_punctuation_their_own_hierarchy(tmp_path, run_cli):
    rng = np.random.default_rng(4)
    data = tmp_path / "t.csv"
    pd.DataFrame(
        {
            "region (code)": rng.integers(1, 6, 400),  # coded categories: a flat hierarchy file each
            "region [code]": rng.integers(1, 6, 400),
            "sex": rng.choice(["F", "M"], 400),
            "income": rng.integers(0, 100_000, 400),
        }
    ).to_csv(data, index=False)
    code, stdout, err = run_cli(
        "init", data, "--role", "region [code]=quasi_identifier", "--role", "region (code)=quasi_identifier"
    )
    assert code == 0, err
    policy = tmp_path / "t.policy.yaml"
    text = policy.read_text()
    files = sorted(p.name for p in (tmp_path / "hierarchies").iterdir())
    assert len(files) >= 2 and len(set(f.casefold() for f in files)) == len(files)
    assert "hierarchies/region_code.csv" in text and "hierarchies/region_code-2.csv" in text
    code, out, err = run_cli("policy", "check", policy, "--data", data)
    assert code == 0, err + out


@pytest.mark.slow
def test_explore_release_with_negative_numbers_audits_again_and_names_its_files(tmp_path, run_cli):
    # CPS 1988-like (AER::CPS1988: experience = age - education - 6 runs from -4): the recommended release
    rng = np.random.default_rng(8)
    n = 1500
    education = rng.integers(0, 19, n)
    data = tmp_path / "cps.csv"
    pd.DataFrame(
        {
            "education": education,
            "experience": np.clip(rng.integers(14, 65, n) - education - 6, -4, None),
            "ethnicity": rng.choice(["cauc", "afam"], n, p=[0.9, 0.1]),
            "region": rng.choice(["northeast", "midwest", "south", "west"], n),
            "wage": rng.lognormal(6, 0.6, n).round(2),
        }
    ).to_csv(data, index=False)
    policy = write_policy(
        tmp_path,
        "version: 1\nname: cps\ncolumns:\n  education: {role: quasi_identifier, type: numeric}\n"
        "  experience: {role: quasi_identifier, type: numeric}\n  ethnicity: {role: quasi_identifier}\n"
        "  region: {role: quasi_identifier}\n  wage: {role: sensitive, type: numeric}\n"
        "checks:\n  - {assessor: k_anonymity, k: 5}\n",
    )
    out = tmp_path / "best.csv"
    code, stdout, err = run_cli(
        "remediate", data, "--policy", policy, "--explore", "--methods", "generalize", "--out", out,
        "--json", tmp_path / "r.json", "--html", tmp_path / "r.html",
    )  # fmt: skip
    assert code == 0, err
    report = json.loads((tmp_path / "r.json").read_text())
    built = report["explore"]["built_hierarchies"]
    assert built["experience"]["file"] == "best.hierarchy-experience.csv"
    html = (tmp_path / "r.html").read_text()
    for entry in built.values():
        assert (tmp_path / entry["file"]).is_file() and entry["file"] in html
    assert "hierarchy-experience.csv<" not in html.replace("best.hierarchy-experience.csv<", "")
    assert "[-5, -1]" in (tmp_path / "best.hierarchy-experience.csv").read_text()
    assert "'" not in out.read_text()  # no label the formula guard changes
    assert _figures(_audit_again(run_cli, tmp_path, out, report, policy, data)) == _figures(report)


def test_a_table_audited_again_with_the_given_policy_says_so(tmp_path, run_cli):
    # carData::Arrests (tests/data/surveys/PROVENANCE.md) through local suppression: no column changes type or
    # hierarchy, so no policy is written beside the table; the command line printed no way to audit it again
    data = Path(__file__).parent / "data" / "surveys" / "Arrests.csv"
    policy = tmp_path / "policy.yaml"
    policy.write_text(
        "version: 1\nname: arrests\ncolumns:\n"
        + "".join(f"  {c}: {{role: quasi_identifier}}\n" for c in ("colour", "age", "sex", "employed", "citizen"))
        + "  released: {role: other}\n  year: {role: other}\n  checks: {role: other}\n"
        + "checks:\n  - {id: k3, assessor: k_anonymity, k: 3}\n"
    )
    out = tmp_path / "o.csv"
    code, stdout, err = run_cli("remediate", data, "--policy", policy, "--method", "local_suppression", "--out", out)
    assert code == 0, err
    assert not (tmp_path / "o.reaudit.policy.yaml").exists()
    assert f"audit it again: privaudit audit {out} --policy {policy}\n" in stdout
    assert run_cli("audit", out, "--policy", policy, "--quiet")[0] == 0
