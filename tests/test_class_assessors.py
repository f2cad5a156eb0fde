"""k-anonymity, p-sensitive k-anonymity, l-diversity variants and uniqueness on hand-made tables,
through the CLI; plus the figures where our definitions differ from pycanon's."""

from __future__ import annotations

import math

import pytest
from conftest import write_policy

POLICY = """
version: 1
name: small
columns:
  zip: {{role: quasi_identifier}}
  age: {{role: quasi_identifier, type: numeric}}
  disease: {{role: sensitive}}
  income: {{role: sensitive, type: numeric}}
checks:
{checks}
"""

# classes: (A,30) x3: flu,flu,cold ; (A,40) x2: flu,cancer ; (B,30) x4: flu,flu,flu,cold ; (B,50) x1: cancer
ROWS = """zip,age,disease,income
A,30,flu,10
A,30,flu,20
A,30,cold,30
A,40,flu,10
A,40,cancer,10
B,30,flu,10
B,30,flu,20
B,30,flu,30
B,30,cold,40
B,50,cancer,50
"""


@pytest.fixture
def small(tmp_path):
    def make(checks: str, rows: str = ROWS):
        data = tmp_path / "data.csv"
        data.write_text(rows)
        return data, write_policy(tmp_path, POLICY.format(checks=checks))

    return make


def checks_of(audit_json, data, policy):
    code, report = audit_json(data, policy)
    return code, {c["id"]: c for c in report["checks"]}


def test_k_anonymity_details(small, audit_json):
    code, c = checks_of(audit_json, *small("  - {assessor: k_anonymity, k: 2}"))
    k = c["k_anonymity"]
    assert code == 1 and k["status"] == "fail" and k["value"] == 1 and k["threshold"] == 2
    d = k["details"]
    assert (d["classes"], d["records_below_k"], d["classes_below_k"]) == (4, 1, 1)
    assert d["class_size_histogram"] == [[1, 1], [2, 1], [3, 1], [4, 1]]
    assert d["worst_classes"][0]["values"] == {"zip": "B", "age": "50"}
    assert "sensitive_values" not in d["worst_classes"][0]


def test_p_sensitive(small, audit_json):
    code, c = checks_of(audit_json, *small("  - {assessor: p_sensitive_k_anonymity, p: 2, k: 1, sensitive: [disease]}"))
    ps = c["p_sensitive_k_anonymity"]
    assert ps["value"] == 1 and ps["status"] == "fail"
    assert ps["details"]["classes_failing"] == 1 and ps["details"]["records_failing"] == 1


def test_l_diversity_variants(small, audit_json):
    checks = "\n".join(
        [
            "  - {id: d, assessor: l_diversity, sensitive: disease, variant: distinct, l: 1}",
            "  - {id: e, assessor: l_diversity, sensitive: disease, variant: entropy, l: 1}",
            "  - {id: r, assessor: l_diversity, sensitive: disease, variant: recursive, l: 2, c: 3}",
        ]
    )
    _, c = checks_of(audit_json, *small(checks))
    assert c["d"]["value"] == 1
    assert c["e"]["value"] == pytest.approx(1.0)  # the single-record class
    assert c["r"]["value"] == "inf" and c["r"]["status"] == "fail"  # a class with one value
    assert c["r"]["details"]["classes_failing"] == 2  # (B,50) has one value; (B,30): 3/1 is not < 3


def test_entropy_two_fifty_fifty_classes_give_exactly_two(small, audit_json):
    rows = "zip,age,disease,income\nA,1,x,1\nA,1,y,1\nB,1,x,1\nB,1,y,1\n"
    _, c = checks_of(
        audit_json, *small("  - {id: e, assessor: l_diversity, sensitive: disease, variant: entropy, l: 2}", rows)
    )
    assert c["e"]["value"] == 2.0 and c["e"]["status"] == "pass"


def test_entropy_is_not_truncated_unlike_pycanon(small, audit_json):
    """Counts 2:1 give exp(H) = 1.8899 (pycanon truncates to 1)."""
    rows = "zip,age,disease,income\nA,1,x,1\nA,1,x,1\nA,1,y,1\n"
    _, c = checks_of(
        audit_json, *small("  - {id: e, assessor: l_diversity, sensitive: disease, variant: entropy, l: 1.5}", rows)
    )
    expected = math.exp(-(2 / 3 * math.log(2 / 3) + 1 / 3 * math.log(1 / 3)))
    assert c["e"]["value"] == pytest.approx(expected) and c["e"]["value"] == pytest.approx(1.8899, abs=1e-4)
    assert c["e"]["status"] == "pass"


def test_recursive_sorts_descending_unlike_pycanon(small, audit_json):
    """Counts 5,1,2 (l=2): r sorted descending = 5,2,1 -> 5 / (2+1) = 1.6667.
    Sorting ascending (pycanon) would give r = 1,2,5 -> 1 / 7."""
    rows = "zip,age,disease,income\n" + "".join(f"A,1,{v},1\n" for v in "xxxxxyzz")
    _, c = checks_of(
        audit_json,
        *small("  - {id: r, assessor: l_diversity, sensitive: disease, variant: recursive, l: 2, c: 2}", rows),
    )
    assert c["r"]["value"] == pytest.approx(5 / 3)
    assert c["r"]["status"] == "pass"
    _, c = checks_of(
        audit_json,
        *small("  - {id: r, assessor: l_diversity, sensitive: disease, variant: recursive, l: 3, c: 5}", rows),
    )
    assert c["r"]["value"] == pytest.approx(5.0) and c["r"]["status"] == "fail"  # 5/1 is not < 5


def test_uniqueness_and_risk(small, audit_json):
    _, c = checks_of(audit_json, *small("  - {assessor: uniqueness, max_share: 0.05, risk_threshold: 0.4}"))
    u = c["uniqueness"]
    assert u["value"] == pytest.approx(0.1) and u["status"] == "fail"
    d = u["details"]
    assert d["sample_uniques"] == 1
    assert d["average_risk"] == pytest.approx((3 * 1 / 3 + 2 * 1 / 2 + 4 * 1 / 4 + 1) / 10)
    assert d["max_risk"] == 1.0
    assert d["records_above_risk_threshold"] == 3  # the pair (0.5) and the unique (1.0)


def test_uniqueness_population(small, audit_json, tmp_path):
    data, policy = small("  - {assessor: uniqueness, max_share: 1, population: population.csv}")
    # sample uniques: (B,50) only. Population: (B,50) appears once -> P(PU|SU) = 1
    (tmp_path / "population.csv").write_text(ROWS.split("\n", 1)[0] + "\n" + ROWS.split("\n", 1)[1] + "C,20,flu,1\n")
    _, c = checks_of(audit_json, data, policy)
    assert c["uniqueness"]["details"]["pu_given_su"] == 1.0
    (tmp_path / "population.csv").write_text(ROWS + "B,50,flu,1\n")
    _, c = checks_of(audit_json, data, policy)
    assert c["uniqueness"]["details"]["pu_given_su"] == 0.0


def test_wildcard_missing_semantics(tmp_path, audit_json):
    """sdcMicro's freqCalc: a missing key value matches any value."""
    rows = "zip,age,disease,income\nA,30,x,1\nA,30,y,1\nA,*,x,1\nB,40,y,1\n"
    text = POLICY.format(checks="  - {assessor: k_anonymity, k: 1}").replace(
        "name: small", "name: small\ndata: {missing_qi: wildcard}"
    )
    data = tmp_path / "data.csv"
    data.write_text(rows)
    _, report = audit_json(data, write_policy(tmp_path, text))
    k = report["checks"][1]
    # (A,30) records match each other and (A,*): f = 3; (A,*) matches both (A,30): f = 3; (B,40): 1
    assert k["value"] == 1
    assert k["details"]["class_size_histogram"] == [[1, 1], [3, 2]]
    assert report["scope"]["missing_qi"] == "wildcard"
    text_value = text.replace("missing_qi: wildcard", "missing_qi: value")
    _, report = audit_json(data, write_policy(tmp_path, text_value))
    assert report["checks"][1]["details"]["class_size_histogram"] == [[1, 2], [2, 1]]


def test_sensitive_column_entirely_missing(small, audit_json):
    rows = "zip,age,disease,income\nA,1,,1\nB,2,,2\n"
    checks = (
        "  - {id: l, assessor: l_diversity, sensitive: disease, l: 1}\n"
        "  - {id: t, assessor: t_closeness, sensitive: disease, t: 0.5}"
    )
    code, c = checks_of(audit_json, *small(checks, rows))
    assert c["l"]["status"] == "fail" and c["l"]["value"] == 0  # no class holds a value
    assert c["t"]["status"] == "pass" and c["t"]["details"]["classes_without_values"] == 2


def test_wildcard_diversity_counts_every_matching_record(tmp_path, audit_json):
    """Under missing_qi: wildcard a class's sensitive values are those of every record it matches, as its f_k
    counts every matching record (sdcMicro's freqCalc semantics). The records (A,30,x), (A,30,y), (A,*,z) and
    (B,40,y): (A,30) matches (A,*) and sees x, y, z; (A,*) matches both (A,30) and sees x, y, z; (B,40) sees
    only y. Exact-match classes would give (A,*) one value. (sdcMicro 5.8.1's ``ldiversity`` counts exact
    matches only, even where its ``fk`` counts wildcards: the two figures then describe different groups.)"""
    rows = "zip,age,disease,income\nA,30,x,1\nA,30,y,1\nA,*,z,1\nB,40,y,1\n"
    checks = "  - {id: l3, assessor: l_diversity, sensitive: disease, l: 3}\n  - {id: l1, assessor: l_diversity, sensitive: disease, l: 1}"
    text = POLICY.format(checks=checks).replace("name: small", "name: small\ndata: {missing_qi: wildcard}")
    data = tmp_path / "data.csv"
    data.write_text(rows)
    _, c = checks_of(audit_json, data, write_policy(tmp_path, text))
    assert c["l1"]["value"] == 1  # (B,40) sees one value
    assert c["l3"]["status"] == "fail"
    assert c["l3"]["details"]["records_failing"] == 1  # only (B,40): the (A,…) records see 3
    _, c = checks_of(audit_json, data, write_policy(tmp_path, text.replace("wildcard", "value")))
    assert c["l3"]["details"]["records_failing"] == 4  # exact classes: 2, 1 and 1 values
