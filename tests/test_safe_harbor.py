"""safe_harbor: the 18 identifiers of HIPAA's Safe Harbor method (45 CFR 164.514(b)(2)(i)(A)-(R)) and its rules
on three-digit ZIP codes (HHS OCR, *Guidance Regarding Methods for De-identification*, 2012, section 3.3: the 17
restricted ZIP3 areas), dates finer than the year and ages over 89."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from privaudit.discovery.safe_harbor import IDENTIFIERS, restricted_zip3
from privaudit.testing import audit_frame, check_result, run_cli

N = 40


def _policy(**params) -> dict:
    return {
        "version": 1,
        "name": "safe harbor test",
        "columns": {"sex": {"role": "quasi_identifier", "type": "nominal"}},
        "checks": [{"id": "sh", "assessor": "safe_harbor", "reference_year": 2026, **params}],
    }


def _every_identifier() -> pd.DataFrame:
    i = pd.Series(range(N))
    return pd.DataFrame(
        {
            "full_name": [
                f"{f} {s}"
                for f, s in zip(["Mary", "John", "Linda", "James"] * 10, ["Smith", "Jones"] * 20, strict=True)
            ],
            "city": ["Springfield", "Shelbyville"] * 20,
            "admission_date": [f"2021-03-{d:02d}" for d in (i % 28 + 1)],
            "phone": [f"+1 202 555 {1000 + k:04d}" for k in i],
            "fax": [f"+1 202 555 {2000 + k:04d}" for k in i],
            "email": [f"person{k}@example.org" for k in i],
            "ssn": [f"{100 + k:03d}-45-{6789 - k:04d}" for k in i],
            "mrn": [f"MRN{k:06d}" for k in i],
            "medicaid_id": [f"MCD{k:07d}" for k in i],
            "account_number": [f"AC{k:08d}" for k in i],
            "license_number": [f"D{k:07d}" for k in i],
            "vin": ["1HGCM82633A004352"] * N,
            "device_serial": [f"SN-{k:05d}" for k in i],
            "homepage": [f"https://example.org/~p{k}" for k in i],
            "ip_address": [f"192.168.1.{k}" for k in i],
            "fingerprint": [f"fp{k:04x}" for k in i],
            "photo": [f"img_{k}.jpg" for k in i],
            "badge": [f"{k * 7919 % 100000:05d}-{k}" for k in i],
            "sex": ["F", "M"] * 20,
        }
    )


def test_each_of_the_18_identifiers_is_found(tmp_path):
    frame = _every_identifier()
    check = check_result(audit_frame(frame, _policy(actual_knowledge_attested=True, attested_by="A. Officer")), "sh")
    items = {i["letter"]: i for i in check["details"]["items"]}
    assert [i["letter"] for i in check["details"]["items"]] == [letter for letter, _ in IDENTIFIERS]
    expected = {
        "A": "full_name",
        "B": "city",
        "C": "admission_date",
        "D": "phone",
        "E": "fax",
        "F": "email",
        "G": "ssn",
        "H": "mrn",
        "I": "medicaid_id",
        "J": "account_number",
        "K": "license_number",
        "L": "vin",
        "M": "device_serial",
        "N": "homepage",
        "O": "ip_address",
        "P": "fingerprint",
        "Q": "photo",
    }
    for letter, column in expected.items():
        assert items[letter]["status"] == "present", (letter, items[letter])
        assert column in items[letter]["columns"], (letter, items[letter])
    assert "fax" not in items["D"]["columns"]  # a fax number is (E), not (D)
    assert check["status"] == "fail" and check["value"] >= 17


@pytest.mark.parametrize(
    ("zips", "present"),
    [
        (["021", "100", "000"] * 4, False),  # three digits, no restricted area
        (["036", "100"] * 6, True),  # 036 is restricted (HHS 2012): must be 000
        (["000", "100"] * 6, False),
        (["02139", "10001"] * 6, True),  # five digits
    ],
)
def test_three_digit_zip_rule(zips, present):
    frame = pd.DataFrame({"zip": zips, "sex": ["F", "M"] * (len(zips) // 2)})
    check = check_result(audit_frame(frame, _policy(actual_knowledge_attested=True, attested_by="A")), "sh")
    item = next(i for i in check["details"]["items"] if i["letter"] == "B")
    assert (item["status"] == "present") is present, item
    assert check["status"] == ("fail" if present else "pass")


@pytest.mark.parametrize(
    ("column", "values", "present"),
    [
        ("age", [89, 90, 45, 12], False),  # 90 stands for "90 or older"
        ("age", [89, 91, 45, 12], True),
        ("birth_year", [1937, 1980, 1990, 2001], False),  # 2026 - 1937 = 89
        ("birth_year", [1936, 1980, 1990, 2001], True),
        ("visit_year", [2019, 2020, 2021, 2022], False),  # only the year of a date
        ("visit", ["2019-04", "2020-05", "2021-06", "2022-07"], True),  # a month is finer than the year
    ],
)
def test_dates_and_ages(column, values, present):
    frame = pd.DataFrame({column: values * 3, "sex": ["F", "M"] * 6})
    check = check_result(audit_frame(frame, _policy(actual_knowledge_attested=True, attested_by="A")), "sh")
    item = next(i for i in check["details"]["items"] if i["letter"] == "C")
    assert (item["status"] == "present") is present, item


def test_a_clean_table_passes_only_with_the_attestation(tmp_path):
    frame = pd.DataFrame({"zip3": ["021", "100"] * 6, "age": [34, 90] * 6, "sex": ["F", "M"] * 6})
    frame.to_csv(tmp_path / "r.csv", index=False)
    (tmp_path / "p.yaml").write_text(json.dumps(_policy()))
    result = run_cli("audit", tmp_path / "r.csv", "--policy", tmp_path / "p.yaml", "--json", tmp_path / "r.json")
    assert result.code == 1
    check = next(c for c in json.loads((tmp_path / "r.json").read_text())["checks"] if c["id"] == "sh")
    assert check["value"] == 0 and "attestation" in check["message"]
    (tmp_path / "p.yaml").write_text(json.dumps(_policy(actual_knowledge_attested=True, attested_by="A. Officer, CPO")))
    assert run_cli("audit", tmp_path / "r.csv", "--policy", tmp_path / "p.yaml").code == 0


def test_a_declared_record_id_is_left_to_attest():
    frame = pd.DataFrame({"pid": [f"P{k:05d}" for k in range(12)], "sex": ["F", "M"] * 6})
    policy = _policy(actual_knowledge_attested=True, attested_by="A")
    policy["columns"]["pid"] = {"role": "record_id"}
    check = check_result(audit_frame(frame, policy), "sh")
    item = next(i for i in check["details"]["items"] if i["letter"] == "R")
    assert item["status"] == "attest" and check["status"] == "pass"


def test_the_shipped_list_is_hhs_2012():
    assert restricted_zip3() == frozenset("036 059 063 102 203 556 692 790 821 823 830 831 878 879 884 890 893".split())


@pytest.mark.parametrize(
    ("table", "params", "words"),
    [
        ("zip3\n036\n12\n", {}, "line 3"),
        ("code\n036\n", {}, "header 'zip3'"),
        (None, {"actual_knowledge_attested": True}, "attested_by"),
        (None, {"restricted_zip3_file": "../outside.csv"}, "leads outside the policy's folder"),
    ],
)
def test_bad_input_is_one_line(tmp_path, table, params, words):
    pd.DataFrame({"sex": ["F", "M"]}).to_csv(tmp_path / "r.csv", index=False)
    if table is not None:
        (tmp_path / "zips.csv").write_text(table)
        params = {**params, "restricted_zip3_file": "zips.csv"}
    (tmp_path / "p.yaml").write_text(json.dumps(_policy(**params)))
    result = run_cli("audit", tmp_path / "r.csv", "--policy", tmp_path / "p.yaml", "--json", tmp_path / "out.json")
    assert result.code == 2 and words in result.stderr, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and not (tmp_path / "out.json").exists()
