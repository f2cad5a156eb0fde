"""Combination rules and the risky_cells check: golden against sdcMicro's riskyCells, µ-ARGUS's combinations from
identification levels, bad policies, and local suppression / explore steering the rules (through the CLI and
privaudit.audit)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from conftest import write_policy

import privaudit
from privaudit.core.combinations import CombinationRules, level_combinations, resolve

DATA = Path(__file__).parent / "data" / "sdcmicro"
KEYS = ["urbrur", "roof", "walls", "water", "electcon", "relat", "sex"]  # sdcMicro's riskyCells examples
LETTER = dict(zip("URWAELS", KEYS, strict=True))

# sdcMicro 5.8.1 (sdcTools/sdcMicro cf3251017482bb215f0a9abf4a930f502399fb72), riskyCells data.frame method on
# data(testdata), keyVars = KEYS; benchmarks/sdcmicro/run_riskycells.R prints these. unsafe_cells per combination
# (letters: U urbrur, R roof, W walls, A water, E electcon, L relat, S sex). riskyCells' threshold t is k = t + 1.
GOLDEN = {
    # threshold = c(50, 25, 10), useIdentificationLevel = FALSE, maxDim = 3
    "dims": """
    U:0 R:3 W:1 A:3 E:0 L:4 S:0 UR:4 UW:1 UA:1 UE:1 UL:7 US:0 RW:4 RA:14 RE:6 RL:19 RS:6 WA:4 WE:1 WL:12
    WS:1 AE:6 AL:33 AS:6 EL:10 ES:0 LS:7 URW:3 URA:14 URE:7 URL:27 URS:8 UWA:4 UWE:3 UWL:22 UWS:2 UAE:7
    UAL:37 UAS:2 UEL:12 UES:2 ULS:14 RWA:15 RWE:3 RWL:28 RWS:6 RAE:18 RAL:77 RAS:25 REL:33 RES:10 RLS:29
    WAE:9 WAL:58 WAS:7 WEL:17 WES:1 WLS:21 AEL:49 AES:11 ALS:51 ELS:15""",
    # threshold = 5, useIdentificationLevel = TRUE, level = c(1, 1, 2, 3, 3, 4, 4): riskyCells lists all 98
    # combinations up to 4 variables; these are its rows for the 19 µ-ARGUS forms from those levels
    "levels": """
    URWA:10 URWE:4 URWL:39 URWS:7 URAE:15 URAL:87 URAS:27 UREL:43 URES:14 UWAE:9 UWAL:64 UWAS:8 UWEL:29
    UWES:6 RWAE:12 RWAL:105 RWAS:29 RWEL:48 RWES:8""",
    # threshold = c(0, 39, 19, 9), maxDim = 4: the rows of dimensions 2-4, i.e. combs = c(4, 3, 2), k = c(10, 20, 40)
    "combs": """
    UR:6 UW:1 UA:4 UE:1 UL:8 US:0 RW:6 RA:16 RE:6 RL:20 RS:6 WA:8 WE:2 WL:14 WS:2 AE:9 AL:36 AS:8 EL:11 ES:0
    LS:11 URW:6 URA:17 URE:10 URL:33 URS:11 UWA:4 UWE:4 UWL:23 UWS:3 UAE:8 UAL:46 UAS:7 UEL:18 UES:2 ULS:14
    RWA:20 RWE:10 RWL:34 RWS:11 RAE:21 RAL:86 RAS:32 REL:36 RES:12 RLS:31 WAE:13 WAL:64 WAS:15 WEL:26 WES:4
    WLS:23 AEL:59 AES:17 ALS:61 ELS:17 URWA:19 URWE:9 URWL:46 URWS:11 URAE:24 URAL:97 URAS:32 UREL:52
    URES:19 URLS:51 UWAE:13 UWAL:78 UWAS:9 UWEL:34 UWES:8 UWLS:40 UAEL:67 UAES:15 UALS:73 UELS:29 RWAE:23
    RWAL:118 RWAS:38 RWEL:54 RWES:17 RWLS:53 RAEL:108 RAES:40 RALS:122 RELS:56 WAEL:94 WAES:26 WALS:99
    WELS:38 AELS:88""",
    # NA injected (rows 1+37i of roof, 5+53i of relat, 2+101i of walls, 1-based); threshold = c(3, 2), maxDim = 2
    "missing": """
    U:0 R:0 W:0 A:0 E:0 L:1 S:0 UR:0 UW:0 UA:0 UE:0 UL:1 US:0 RW:3 RA:2 RE:1 RL:8 RS:0 WA:1 WE:1 WL:4 WS:0
    AE:1 AL:10 AS:0 EL:3 ES:0 LS:3""",
}
RULES = {
    "dims": [{"up_to": 3, "k": [51, 26, 11]}],
    "levels": [{"levels": dict(zip(KEYS, [1, 1, 2, 3, 3, 4, 4], strict=True)), "k": 6}],
    "combs": [{"sizes": [4, 3, 2], "k": [10, 20, 40]}],
    "missing": [{"up_to": 2, "k": [4, 3]}],
}


def _golden(name: str) -> dict[tuple[str, ...], int]:
    pairs = (item.split(":") for item in GOLDEN[name].split())
    return {tuple(LETTER[ch] for ch in combo): int(n) for combo, n in pairs}


def _testdata(missing: bool = False) -> pd.DataFrame:
    frame = pd.read_csv(DATA / "testdata.csv")
    if missing:
        for column, start, step in (("roof", 0, 37), ("relat", 4, 53), ("walls", 1, 101)):
            frame.loc[frame.index[start::step], column] = None
    return frame


def _policy(rules: list[dict], missing_qi: str = "value", **extra) -> dict:
    return {
        "columns": {c: {"role": "quasi_identifier", "type": "nominal"} for c in KEYS},
        "data": {"missing_qi": missing_qi},
        "combinations": {"rules": rules},
        "checks": [{"assessor": "risky_cells"}],
        **extra,
    }


def _check(report):
    return next(c for c in report.checks if c.assessor == "risky_cells")


@pytest.mark.slow
@pytest.mark.parametrize("setting", ["dims", "levels", "combs", "missing"])
def test_unsafe_cells_are_sdcmicros(setting):
    report = privaudit.audit(_testdata(setting == "missing"), _policy(RULES[setting]))
    check = _check(report)
    got = {tuple(c["columns"]): c["risky_cells"] for c in check.details["per_combination"]}
    assert got == _golden(setting)
    assert check.value == sum(got.values()) and check.status == "fail"


def test_missing_values_are_values_of_their_own_as_in_riskycells():
    frame = pd.DataFrame({"a": ["x", "x", "x", None, None, "y"], "b": ["p", "p", None, "p", None, "q"]})
    policy = {
        "columns": {"a": {"role": "quasi_identifier"}, "b": {"role": "quasi_identifier"}},
        "combinations": {"rules": [{"columns": ["a", "b"], "k": 2}]},
        "checks": [{"assessor": "risky_cells"}],
    }
    # cells (x,p):2 (x,NA):1 (NA,p):1 (NA,NA):1 (y,q):1
    check = _check(privaudit.audit(frame, policy))
    assert check.details["per_combination"][0] == {
        "columns": ["a", "b"], "k": 2, "cells": 5, "risky_cells": 4, "risky_records": 4, "smallest_cell": 1,
    }  # fmt: skip
    # wildcard: (x,NA) matches x-p, x-p, itself (3); (NA,p) 4; (NA,NA) all 6; (y,q) 2; (x,p) 2 + (x,NA) + (NA,p)
    # + (NA,NA) = 5: nothing below 2
    wild = _check(privaudit.audit(frame, {**policy, "data": {"missing_qi": "wildcard"}}))
    assert wild.value == 0 and wild.details["per_combination"][0]["smallest_cell"] == 2
    # at k = 3 the cells of two (y,q) and (z,r) are short: each matches itself and (NA,NA)
    lone = pd.concat([frame, pd.DataFrame({"a": ["z"], "b": ["r"]})], ignore_index=True)
    three = {**policy, "combinations": {"rules": [{"columns": ["a", "b"], "k": 3}]}, "data": {"missing_qi": "wildcard"}}
    wild = _check(privaudit.audit(lone, three))
    assert wild.value == 2
    assert [(c["values"], c["count"], c["records"]) for c in wild.details["worst_cells"]] == [
        ({"a": "y", "b": "q"}, 2, 1),
        ({"a": "z", "b": "r"}, 2, 1),
    ]


def test_identification_levels_form_combinations_as_mu_argus():
    # SelectCombinationsController.calculateTablesForID: one column per level in use, a more identifying
    # column standing in for a less identifying one
    levels = {"a": 1, "b": 1, "c": 2, "d": 3, "e": 0}
    got = {frozenset(c) for c in level_combinations(levels, list("abcde"))}
    assert got == {frozenset("abc"), frozenset("abd"), frozenset("acd"), frozenset("bcd")}
    got = {frozenset(c) for c in level_combinations({"a": 1, "b": 3, "c": 3, "d": 3}, list("abcd"))}
    assert got == {frozenset("ab"), frozenset("ac"), frozenset("ad")}  # never b x c: no level-1 column
    counted = sum(1 for _ in level_combinations(dict(zip(KEYS, [1, 1, 2, 3, 3, 4, 4], strict=True)), KEYS))
    assert counted == 19


def test_a_combination_two_rules_give_is_checked_with_the_larger_k():
    block = CombinationRules.model_validate(
        {"rules": [{"up_to": 2, "k": 3}, {"columns": ["b", "a"], "k": 7}, {"sizes": [2], "k": 5}]}
    )
    found, problem = resolve(block, ["a", "b", "c"], {})
    assert problem is None
    by = {c.columns: c.k for c in found}
    assert by == {("a",): 3, ("b",): 3, ("c",): 3, ("a", "b"): 7, ("a", "c"): 5, ("b", "c"): 5}


BAD = [
    ("up_to: 4", "combinations.rules[0].up_to: 4 is more than the 3 quasi-identifiers"),
    ("sizes: [2, 5]", "combinations.rules[0].sizes: 5 is more than the 3 quasi-identifiers"),
    ("columns: [a, zz]", "combinations.rules[0].columns: 'zz' is not a quasi-identifier (no column of the policy"),
    ("columns: [a, s]", "combinations.rules[0].columns: 's' is not a quasi-identifier (its role is 'sensitive'"),
    ("levels: {a: 1, b: 7}", "combinations.rules[0].levels: the level of 'b' is 7"),
    ("up_to: 2, columns: [a]", "combinations.rules[0]: give exactly one of up_to, sizes, levels, columns"),
]


@pytest.mark.parametrize(("rule", "message"), BAD)
def test_a_bad_rule_is_one_line_naming_the_field(run_cli, tmp_path, rule, message):
    (tmp_path / "t.csv").write_text("a,b,c,s\n1,2,3,4\n")
    policy = write_policy(
        tmp_path,
        "version: 1\nname: t\ncolumns:\n  a: {role: quasi_identifier}\n  b: {role: quasi_identifier}\n"
        "  c: {role: quasi_identifier}\n  s: {role: sensitive}\n"
        f"combinations:\n  rules:\n    - {{{rule}, k: 2}}\nchecks:\n  - {{assessor: risky_cells}}\n",
    )
    code, out, err = run_cli("audit", tmp_path / "t.csv", "--policy", policy)
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


@pytest.mark.parametrize(
    ("block", "message"),
    [
        ("{rules: [{up_to: 2, k: 0}]}", "combinations.rules[0].k: k must be a whole number >= 1"),
        ("{rules: [{up_to: 2, k: [3, 2, 1]}]}", "combinations.rules[0]: k: 3 values for 2 dimensions"),
        ("{rules: [{up_to: 3, k: 2}], max_combinations: 5}", "combinations.max_combinations: the rules give 7"),
        ("{rules: [{levels: {a: 1, b: 1, c: 1}, k: 2}], max_combinations: 2}", "the rules give more than 2"),
        ("{rules: []}", "combinations.rules"),
    ],
)
def test_a_bad_block_is_one_line_naming_the_field(run_cli, tmp_path, block, message):
    (tmp_path / "t.csv").write_text("a,b,c\n1,2,3\n")
    policy = write_policy(
        tmp_path,
        "version: 1\nname: t\ncolumns:\n  a: {role: quasi_identifier}\n  b: {role: quasi_identifier}\n"
        f"  c: {{role: quasi_identifier}}\ncombinations: {block}\nchecks:\n  - {{assessor: risky_cells}}\n",
    )
    code, _, err = run_cli("audit", tmp_path / "t.csv", "--policy", policy)
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1, err


def test_the_check_without_rules_is_refused(run_cli, tmp_path):
    (tmp_path / "t.csv").write_text("a,b\n1,2\n")
    policy = write_policy(
        tmp_path, "version: 1\nname: t\ncolumns:\n  a: {role: quasi_identifier}\n  b: {role: quasi_identifier}\n"
        "checks:\n  - {assessor: risky_cells}\n",
    )  # fmt: skip
    code, _, err = run_cli("audit", tmp_path / "t.csv", "--policy", policy)
    assert code == 2 and "checks[0]: risky_cells needs the policy's 'combinations' block" in err


def _yaml_policy(tmp_path: Path, keys: list[str], rules: str, extra: str = "") -> Path:
    lines = ["version: 1", "name: combinations", "columns:"]
    lines += [f"  {c}: {{role: quasi_identifier, type: nominal}}" for c in keys]
    lines += ["combinations:", "  rules:", *[f"    - {r}" for r in rules.split("\n")], "checks:"]
    lines += ["  - {assessor: risky_cells}", extra]
    return write_policy(tmp_path, "\n".join(lines) + "\n")


@pytest.mark.slow
def test_cli_audit_then_local_suppression_reaudits_clean(run_cli, tmp_path, audit_json):
    table = tmp_path / "testdata.csv"
    _testdata()[KEYS].to_csv(table, index=False)
    policy = _yaml_policy(tmp_path, KEYS, "{up_to: 2, k: [20, 10]}\n{columns: [urbrur, roof, relat], k: 5}")
    code, report = audit_json(table, policy)
    check = next(c for c in report["checks"] if c["assessor"] == "risky_cells")
    assert code == 1 and check["status"] == "fail" and check["details"]["combinations"] == 29
    assert check["value"] == sum(c["risky_cells"] for c in check["details"]["per_combination"]) > 0
    out = tmp_path / "fixed.csv"
    code, stdout, err = run_cli(
        "remediate", table, "--policy", policy, "--method", "local_suppression", "--out", out, "--json",
        tmp_path / "rem.json",
    )  # fmt: skip
    assert code == 0, err
    assert "29 combinations of quasi-identifiers were made safe" in stdout
    code, again = audit_json(out, policy)
    check = next(c for c in again["checks"] if c["assessor"] == "risky_cells")
    assert code == 0 and check["status"] == "pass" and check["value"] == 0


@pytest.mark.slow
def test_explore_recommends_a_table_that_passes_the_rules(run_cli, tmp_path, audit_json):
    keys = ["urbrur", "roof", "water", "relat"]
    table = tmp_path / "testdata.csv"
    _testdata()[keys].head(1500).to_csv(table, index=False)
    policy = _yaml_policy(tmp_path, keys, "{up_to: 2, k: [10, 5]}")
    out = tmp_path / "best.csv"
    code, stdout, err = run_cli(
        "remediate", table, "--policy", policy, "--explore", "--out", out, "--json", tmp_path / "explore.json"
    )
    assert code == 0, err
    explored = json.loads((tmp_path / "explore.json").read_text())["explore"]
    judged = [c for c in explored["candidates"] if not c["passes"]]
    assert judged and all(c["worst_check"]["id"] == "risky_cells" for c in judged)  # the re-audit sees the check
    assert explored["candidates"][explored["recommended"]]["passes"]
    code, again = audit_json(out, policy)
    check = next(c for c in again["checks"] if c["assessor"] == "risky_cells")
    assert code == 0 and check["status"] == "pass"


def test_report_lists_are_capped_and_hold_no_sensitive_value(tmp_path):
    frame = _testdata().head(600)
    policy = _policy([{"up_to": 2, "k": 30}], report={"max_classes": 3})
    policy["columns"]["income"] = {"role": "sensitive"}
    report = privaudit.audit(frame[[*KEYS, "income"]], policy)
    check = _check(report)
    assert len(check.details["worst_cells"]) == 3 and check.value > 3
    html = report.to_html()
    assert f"and {check.value - 3:,} more risky cells" in html
    assert f"and {check.details['combinations'] - 3:,} more combinations" in html
    incomes = {str(v) for v in frame["income"]} - {str(v) for v in frame[KEYS].to_numpy().ravel()}
    assert not any(f">{v}<" in html for v in incomes)
    text = json.dumps(report.to_dict())
    assert "income" not in json.dumps(check.details)
    assert text


def test_a_scenario_checks_the_combinations_within_it():
    policy = _policy([{"up_to": 2, "k": 2}])
    policy["checks"] = [{"assessor": "risky_cells", "quasi_identifiers": ["urbrur", "sex"]}]
    check = _check(privaudit.audit(_testdata().head(300), policy))
    assert check.details["combinations"] == 3 and check.details["combinations_outside_scenario"] == 25


def test_a_column_holding_identifiers_is_masked_in_the_cells(tmp_path):
    # the report masks quasi-identifier values the identifier scan recognises, in the cells as in worst classes
    n = 60
    frame = pd.DataFrame({"contact": [f"person{i}@example.org" for i in range(n)], "sex": ["f", "m"] * (n // 2)})
    policy = {
        "columns": {"contact": {"role": "quasi_identifier"}, "sex": {"role": "quasi_identifier"}},
        "combinations": {"rules": [{"columns": ["contact", "sex"], "k": 2}]},
        "checks": [{"assessor": "risky_cells"}],
    }
    report = privaudit.audit(frame, policy)
    text = json.dumps(report.to_dict()) + report.to_html()
    cells = _check(report).details["worst_cells"]
    assert cells and all("@example.org" not in c["values"]["contact"] for c in cells)
    assert "person0@example.org" not in text


@pytest.mark.slow
@pytest.mark.parametrize("engine", ["chunked", "duckdb"])
def test_engines_count_the_cells_alike(tmp_path, engine):
    table = tmp_path / "t.csv"
    _testdata(missing=True)[KEYS].to_csv(table, index=False)
    policy = _policy(RULES["missing"])
    base = _check(privaudit.audit(str(table), policy))
    other = _check(privaudit.audit(str(table), policy, engine=engine))
    assert other.details["per_combination"] == base.details["per_combination"]
    assert other.value == base.value == sum(_golden("missing").values())


def test_rules_no_check_reads_are_said():
    from privaudit.core.errors import PrivauditWarning

    policy = _policy([{"up_to": 1, "k": 2}])
    policy["checks"] = [{"assessor": "k_anonymity", "k": 1}]
    with pytest.warns(PrivauditWarning, match="combinations: no check of the policy reads the combination rules"):
        privaudit.audit(_testdata().head(50), policy)


# sdcMicro 5.8.1 (commit as above): localSuppression(testdata, keyVars = KEYS, k = c(10, 20, 40), combs = c(4, 3, 2))
# $supps with the key variables as factors and the default importance (benchmarks/sdcmicro/run_riskycells.R)
SDCMICRO_COMBS_SUPPS = (0, 83, 50, 129, 45, 288, 0)


@pytest.mark.slow
def test_local_suppression_of_the_rules_blanks_no_more_than_sdcmicros_combs():
    frame = _testdata()[KEYS]
    importance = [1, 5, 3, 6, 4, 7, 2]  # sdcMicro's default importance on testdata, written out
    policy = _policy([{"sizes": [4, 3, 2], "k": [10, 20, 40]}], missing_qi="wildcard")
    for column, rank in zip(KEYS, importance, strict=True):
        policy["columns"][column]["importance"] = rank
    result = privaudit.remediate(frame, policy, method="local_suppression")
    assert result.after.passed
    ours = (result.table[KEYS].isna() & frame.notna()).sum().to_numpy()
    assert ours.sum() <= sum(SDCMICRO_COMBS_SUPPS)
    assert (ours <= SDCMICRO_COMBS_SUPPS).all(), ours
