"""pseudonyms: plain hashes of enumerable values are reversed; keyed ones are not (EDPB Guidelines 01/2025 on
pseudonymisation, section 3.2: a keyed function is expected; ENISA, *Pseudonymisation techniques and best
practices*, 2019, section 5.2: the dictionary attack on an unkeyed hash)."""

from __future__ import annotations

import hashlib
import hmac
import json
from datetime import date, timedelta

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privaudit.risk.pseudonyms import date_space, kind_of, number_space, reverse
from privaudit.testing import audit_frame, check_result, run_cli

POLICY = {
    "version": 1,
    "name": "pseudonyms test",
    "columns": {"sex": {"role": "quasi_identifier", "type": "nominal"}},
    "checks": [{"id": "pseudonyms", "assessor": "pseudonyms", "budget_seconds": 20}],
}


def _births(n: int) -> list[date]:
    return [date(1931, 3, 2) + timedelta(days=100 * i) for i in range(n)]


def test_sha256_of_dates_of_birth_is_reversed(tmp_path):
    births = _births(300)
    frame = pd.DataFrame(
        {
            "pid": [hashlib.sha256(d.isoformat().encode()).hexdigest() for d in births],
            "sex": ["F", "M"] * 150,
        }
    )
    frame.to_csv(tmp_path / "release.csv", index=False)
    (tmp_path / "policy.yaml").write_text(json.dumps(POLICY))
    result = run_cli(
        "audit", tmp_path / "release.csv", "--policy", tmp_path / "policy.yaml", "--json", tmp_path / "r.json"
    )
    assert result.code == 1
    check = next(c for c in json.loads((tmp_path / "r.json").read_text())["checks"] if c["id"] == "pseudonyms")
    assert check["status"] == "fail"
    column = check["details"]["columns"][0]
    assert (column["column"], column["kind"], column["algorithm"]) == ("pid", "hex digest", "sha256")
    assert column["reversed_values"] == 300 and check["value"] == 1.0
    assert column["spaces"] == ["dates of the last 120 years written YYYY-MM-DD"]
    report = (tmp_path / "r.json").read_text()
    assert births[0].isoformat() not in report  # what was reversed is never written


@pytest.mark.slow
def test_sha256_of_nine_digit_numbers_in_a_range_is_reversed():
    numbers = list(range(123_450_000, 123_450_400))
    frame = pd.DataFrame(
        {"pid": [hashlib.sha256(f"{n:09d}".encode()).hexdigest() for n in numbers], "sex": ["F"] * 400}
    )
    policy = dict(POLICY, checks=[{"id": "p", "assessor": "pseudonyms", "ranges": [[123_400_000, 123_499_999]]}])
    check = check_result(audit_frame(frame, policy), "p")
    assert check["status"] == "fail"
    assert check["details"]["columns"][0]["reversed_values"] == 400


@pytest.mark.slow
def test_a_keyed_hmac_is_not_reversed():
    key = b"a secret the intruder does not have"
    births = _births(200)
    frame = pd.DataFrame(
        {"pid": [hmac.new(key, d.isoformat().encode(), "sha256").hexdigest() for d in births], "sex": ["F"] * 200}
    )
    policy = dict(POLICY, checks=[{"id": "pseudonyms", "assessor": "pseudonyms", "ranges": [[0, 999]]}])
    check = check_result(audit_frame(frame, policy), "pseudonyms")
    assert check["status"] == "pass"
    column = check["details"]["columns"][0]
    assert column["reversed_values"] == 0 and column["candidates_tried"] > 6 * 120 * 365
    assert "no digest reversed" in check["message"]


def test_a_hash_of_another_columns_values_is_reversed_from_the_original():
    names = [f"person-{i}" for i in range(50)]
    release = pd.DataFrame({"token": [hashlib.md5(n.encode()).hexdigest() for n in names], "sex": ["M"] * 50})
    original = pd.DataFrame({"name": names, "sex": ["M"] * 50})
    check = check_result(audit_frame(release, POLICY, original=original), "pseudonyms")
    column = check["details"]["columns"][0]
    assert column["algorithm"] == "md5" and column["reversed_values"] == 50
    assert column["spaces"] == ["the values of column 'name (original)'"]


def test_forms_are_named():
    assert kind_of([hashlib.sha1(b"x").hexdigest()]).algorithms == ("sha1",)
    assert kind_of(["1", "2", "3", "4"]).kind == "sequential integers"
    assert kind_of(["12", "40", "7"]).kind == "integers"
    assert kind_of(["123e4567-e89b-12d3-a456-426614174000"]).kind == "uuid"
    assert kind_of(["Smith", "Jones"]).kind == "text"


@settings(max_examples=25, deadline=None)
@given(st.sets(st.integers(0, 9_999), min_size=1, max_size=30), st.sampled_from(["md5", "sha1", "sha256"]))
def test_every_number_of_the_range_is_reversed(numbers, algorithm):
    digests = {hashlib.new(algorithm, str(n).encode()).hexdigest(): str(n) for n in numbers}
    found = reverse(set(digests), (algorithm,), lambda: number_space([(0, 9_999)]), budget_seconds=60)
    assert found.reversed == digests


def test_the_budget_stops_the_attack():
    ticks = iter(range(1000))
    found = reverse({"0" * 64}, ("sha256",), lambda: date_space(120), budget_seconds=2, clock=lambda: next(ticks))
    assert not found.exhausted and found.tried < 6 * 44_000


@pytest.mark.parametrize("ranges", [[[5, 1]], [[-1, 3]]])
def test_a_range_that_is_not_one_is_refused(tmp_path, ranges):
    pd.DataFrame({"sex": ["F", "M"]}).to_csv(tmp_path / "r.csv", index=False)
    policy = dict(POLICY, checks=[{"id": "p", "assessor": "pseudonyms", "ranges": ranges}])
    (tmp_path / "p.yaml").write_text(json.dumps(policy))
    result = run_cli("audit", tmp_path / "r.csv", "--policy", tmp_path / "p.yaml")
    assert result.code == 2 and "ranges" in result.stderr and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


@pytest.mark.slow
def test_a_pseudonym_kept_across_releases_is_reported(tmp_path):
    """EDPB Guidelines 01/2025, section 3.2: the same pseudonym for the same person in two releases links
    them. Keyed (HMAC) pseudonyms, so nothing is reversed: only the reuse is found, through the CLI."""
    key = b"a secret the intruder does not have"

    def token(i: int, salt: bytes = b"") -> str:
        return hmac.new(key + salt, f"person {i}".encode(), "sha256").hexdigest()

    policy = dict(POLICY, columns={**POLICY["columns"], "rid": {"role": "record_id"}})
    policy["checks"] = [{"id": "pseudonyms", "assessor": "pseudonyms", "columns": ["pid"], "ranges": [[0, 9]]}]
    now = pd.DataFrame({"rid": range(100), "pid": [token(i) for i in range(100)], "sex": ["F", "M"] * 50})
    # the previous release: persons 20..119; persons 20..79 kept their pseudonym, 80..99 got a new one
    before_ids = list(range(20, 120))
    before = pd.DataFrame(
        {
            "rid": before_ids,
            "pid": [token(i) if i < 80 else token(i, b"new") for i in before_ids],
            "sex": ["F", "M"] * 50,
        }
    )
    now.to_csv(tmp_path / "now.csv", index=False)
    before.to_csv(tmp_path / "before.csv", index=False)
    (tmp_path / "policy.yaml").write_text(json.dumps(policy))
    out = tmp_path / "r.json"
    result = run_cli(
        "audit",
        tmp_path / "now.csv",
        "--policy",
        tmp_path / "policy.yaml",
        "--previous",
        tmp_path / "before.csv",
        "--json",
        out,
        "--html",
        tmp_path / "r.html",
    )
    assert result.code == 0, result.stderr  # reuse is reported, not failed: only a reversal fails
    check = next(c for c in json.loads(out.read_text())["checks"] if c["id"] == "pseudonyms")
    (reuse,) = check["details"]["columns"][0]["reused"]
    assert reuse["release"] == "before.csv" and reuse["shared"] == 60 and reuse["shared_share"] == 0.6
    assert (reuse["same_person"], reuse["linked_persons"]) == (60, 80)
    assert "reused across releases" in check["message"] and "60 of 80 persons" in check["message"]
    page = (tmp_path / "r.html").read_text()
    assert "Pseudonyms kept across releases" in page and token(0) not in page
