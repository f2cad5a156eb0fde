"""The identifier scan: every column of a release, declared or not, by header, value patterns with
check digits, person-name lists and uniqueness; the direct_identifiers gate and ``policy check --data``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import DATA, ROOT

from privaudit.discovery.headers import header_kinds
from privaudit.discovery.scan import mask, scan_column, scan_frame
from privaudit.testing import run_cli

RELEASE = ROOT / "examples" / "adult" / "release.csv"
POLICY = ROOT / "policies" / "adult.yaml"


def kind_of(values, header="col_17"):
    finding = scan_column(header, pd.Series(values, dtype=object))
    return None if finding is None else finding.kind


# ---------------------------------------------------------------------------------------- recognizers
@pytest.mark.parametrize(
    "kind, valid, invalid",
    [
        ("email", ["ana.lopez@example.org", "j.smith+x@mail.co.uk"], ["ana.lopez@", "example.org"]),
        ("iban", ["DE89 3704 0044 0532 0130 00", "GB82WEST12345698765432"], ["DE89370400440532013001"]),
        ("payment_card", ["4111 1111 1111 1111", "5555-5555-5555-4444"], ["4111 1111 1111 1112"]),
        ("us_ssn", ["123-45-6789", "234-56-7890"], ["000-45-6789", "666-12-3456"]),
        ("fr_nir", ["2 55 08 14 168 025 38"], ["2 55 08 14 168 025 39"]),
        ("es_dni", ["12345678Z", "X1234567L"], ["12345678A"]),
        ("gb_nino", ["AB 12 34 56 C", "JG103759A"], ["BG123456A", "QQ123456A"]),
        ("it_codice_fiscale", ["RSSMRA85T10A562S"], ["RSSMRA85T10A562T"]),
        ("ipv4", ["192.168.1.20", "10.0.0.1"], ["300.1.1.1"]),
        ("ipv6", ["2001:db8::1", "fe80::1ff:fe23:4567:890a"], ["2001:db8:::1"]),
        ("uuid", ["123e4567-e89b-12d3-a456-426614174000"], ["123e4567-e89b-12d3-a456"]),
        ("url", ["https://example.org/patient/17", "www.example.com"], ["example"]),
        ("phone_international", ["+49 30 12345678", "+1 (415) 555-0132"], ["+1 2"]),
    ],
)
def test_each_kind_by_its_values_alone(kind, valid, invalid):
    """A meaningless header: the values (forms and check digits) must be enough."""
    assert kind_of(valid * 20) == kind
    assert kind_of(invalid * 20) != kind


@pytest.mark.parametrize(
    "kind, header, values",
    [
        ("de_tax_id", "Steuer-ID", ["86095742719"]),  # 11 digits: a tax id only with a header (and its check digit)
        ("nl_bsn", "BSN", ["111222333"]),
        ("licence_plate", "Kennzeichen", ["B-MW 1234", "M-AB 123"]),
        ("vin", "vin", ["1M8GDM9AXKP042788"]),
    ],
)
def test_weak_kinds_need_their_header(kind, header, values):
    values = values * 30
    assert kind_of(values, header) == kind
    assert kind_of(values, "code") != kind


def test_telephone_numbers_in_four_national_formats_under_a_meaningless_header():
    """libphonenumber's metadata (phonenumbers) reads Berlin in international form, Paris, New York and
    London national numbers in one column; random digit strings of the same shapes are not valid numbers
    of any plan the column uses (the hand-written patterns missed this column)."""
    phones = [
        "+49 30 1234 5678",
        "01 42 68 53 00",
        "(212) 253-0123",
        "020 7946 0958",
        "0171 2345678",
        "030 1234567",
    ] * 20
    assert kind_of(phones) == "phone"
    assert kind_of(["00 00 00 00 00", "(000) 000-0000", "000 0000 0000"] * 40) is None
    assert kind_of(["+49 30 1234 5678", "+33 1 42 68 53 00"] * 30) == "phone_international"
    codes = [f"0{n}" for n in range(1_234_567, 1_234_567 + 7 * 120, 7)]  # zero-padded codes, bare digits
    assert kind_of(codes) != "phone" and kind_of(codes, "Telefon") == "phone"


def test_check_digits_come_from_python_stdnum():
    from privaudit.discovery import checksums

    assert checksums.nl_bsn(["111222333", "111222334"]).tolist() == [True, False]
    assert checksums.de_idnr(["86095742719", "86095742718"]).tolist() == [True, False]
    assert checksums.us_ssn(["536-90-4399", "987-65-4320"]).tolist() == [True, False]


def test_street_addresses_in_several_languages():
    for values in (
        ["221B Baker Street", "10 Downing Street"],
        ["Hauptstraße 12", "Kastanienallee 7a"],
        ["12 rue de Rivoli", "3 avenue Foch"],
        ["Calle Mayor 5", "Via Roma 10"],
    ):
        assert kind_of(values * 30) == "street_address", values


def test_headers_in_several_languages():
    assert "person_name" in header_kinds("Vorname") and "person_name" in header_kinds("apellidos")
    assert "email" in header_kinds("E-Mail") and "email" in header_kinds("courriel")
    assert "phone_international" in header_kinds("Téléphone") and "account" in header_kinds("Kontonummer")
    assert "record_key" in header_kinds("patientId") and "record_key" in header_kinds("customer_id")
    assert not header_kinds("company_name") and not header_kinds("number_of_children")
    assert not header_kinds("col_17")


def test_person_names_from_the_name_lists():
    rng = np.random.default_rng(1)
    first = ["Maria", "John", "Jean", "Anna", "Lukas", "Sofia", "Pierre", "Lucia", "Jan", "Emma"]
    last = ["Schmidt", "Smith", "Dupont", "Rossi", "Garcia", "Jansen", "Martin", "Müller", "Bianchi", "Nowak"]
    names = [f"{rng.choice(first)} {rng.choice(last)}" for _ in range(500)]
    assert kind_of(names) == "person_name"
    assert kind_of([f"{b}, {a}" for a, b in (n.split() for n in names)]) == "person_name"
    organisations = [
        f"{rng.choice(['Acme', 'Globex', 'Initech', 'Umbrella', 'Hooli'])} "
        f"{rng.choice(['Corp', 'GmbH', 'Ltd', 'SA', 'Inc'])}"
        for _ in range(500)
    ]
    assert kind_of(organisations, "employer") is None
    assert kind_of(list(rng.choice(first, 500)), "first_name") == "person_name"  # a first-name column


def test_free_text_holding_identifiers():
    texts = [
        f"Patient called from +44 20 7946 09{i % 100:02d} about the results"
        if i % 4 == 0
        else "Follow-up visit scheduled, no complications reported"
        for i in range(400)
    ]
    assert kind_of(texts, "notes") == "free_text:phone_international"
    assert kind_of(["Follow-up visit scheduled, no complications reported"] * 400, "notes") is None


def test_record_keys_by_uniqueness():
    assert kind_of([f"P-{i:06d}" for i in range(300)]) == "record_key"
    assert kind_of([str(i) for i in range(1000, 1300)]) == "record_key"  # consecutive: a row number
    assert kind_of([str(i) for i in np.random.default_rng(2).permutation(100000)[:300]], "patient_id") == "record_key"
    # unique whole amounts and measurements are not keys
    assert kind_of([str(v) for v in np.random.default_rng(3).choice(10**6, 300, replace=False)], "income") is None
    assert kind_of([f"{v:.2f}" for v in np.random.default_rng(4).normal(50, 9, 300)], "weight") is None


def test_masked_examples_never_show_a_value():
    assert mask("john.smith@example.org", "email") == "j***.s***@e***.org"
    assert mask("DE89 3704 0044 0532 0130 00") == "D*** 3*** 0*** 0*** 0*** 0***"
    emails = [f"{n}{i}@{h}{i}.org" for i, (n, h) in enumerate(zip("abcdefghij" * 10, "klmnopqrst" * 10, strict=False))]
    finding = scan_column("col_9", pd.Series(emails))
    assert len(finding.examples) == 3 and len(set(finding.examples)) == 3
    for example in finding.examples:
        assert example not in emails and "***" in example


@pytest.mark.parametrize(
    "path",
    [
        ROOT / "examples/adult/adult.csv",
        ROOT / "examples/adult/release.csv",
        DATA / "casc/CASCrefmicrodata.csv",
        DATA / "sdcmicro/testdata.csv",
        DATA / "sdcmicro/testdata2.csv",
        DATA / "sdcmicro/francdat.csv",
        DATA / "sdcmicro/free1.csv",
    ],
)
def test_no_false_alarms_on_the_shipped_data(path):
    """Codes, counts, years, money amounts, weights and categories of real public data: nothing found."""
    frame = pd.read_csv(path, sep=None, engine="python", dtype=str, keep_default_na=False)
    assert scan_frame(frame) == []


# ---------------------------------------------------------------------------------------- the gate
@pytest.fixture(scope="module")
def with_email(tmp_path_factory) -> Path:
    frame = pd.read_csv(RELEASE, sep=";", dtype=str, keep_default_na=False)
    frame["contact_email"] = [f"person{i}@mail{i % 13}.org" for i in range(len(frame))]
    path = tmp_path_factory.mktemp("release") / "release.csv"
    frame.to_csv(path, sep=";", index=False)
    return path


@pytest.mark.parametrize("engine", ["in-process", "chunked", "duckdb"])
def test_an_undeclared_column_of_emails_fails_the_gate_on_every_engine(with_email, tmp_path, engine):
    out = tmp_path / "report.json"
    result = run_cli("audit", with_email, "--policy", POLICY, "--engine", engine, "--json", out)
    assert result.code == 1, result.stderr
    assert (
        "undeclared column 'contact_email' (e-mail addresses, 100% of sampled values) holds direct identifiers"
        in result.stdout
    )
    check = json.loads(out.read_text())["checks"][0]
    assert check["assessor"] == "direct_identifiers" and check["status"] == "fail" and check["value"] == 1
    finding = check["details"]["undeclared_findings"][0]
    assert finding["kind"] == "email" and finding["share"] == 1.0
    assert all("@" in e and "***" in e for e in finding["examples"])
    assert "person1@mail1.org" not in out.read_text()  # no raw value in the report


def test_a_declared_column_is_trusted_with_a_warning(with_email, tmp_path):
    policy = tmp_path / "policy.yaml"
    text = POLICY.read_text().replace("columns:\n", "columns:\n  contact_email: {role: other}\n", 1)
    policy.write_text(text)
    shutil.copytree(POLICY.parent / "hierarchies", tmp_path / "hierarchies")
    out = tmp_path / "report.json"
    result = run_cli("audit", with_email, "--policy", policy, "--json", out, "--html", tmp_path / "report.html")
    assert result.code == 0, result.stderr + result.stdout
    check = json.loads(out.read_text())["checks"][0]
    assert check["status"] == "pass" and check["details"]["declared_warnings"][0]["column"] == "contact_email"
    assert (
        "warning: declared column 'contact_email' (e-mail addresses) looks like direct identifiers" in check["message"]
    )
    html = (tmp_path / "report.html").read_text()
    assert "Declared columns that look like direct identifiers (warnings)" in html and "person1@mail1.org" not in html


def test_policy_check_lists_undeclared_columns_and_findings(with_email):
    result = run_cli("policy", "check", POLICY, "--data", with_email)
    assert result.code == 0, result.stderr
    assert "undeclared columns (not in the policy): contact_email" in result.stdout
    assert "finding: contact_email (undeclared): e-mail addresses, 100% of sampled values" in result.stdout
    clean = run_cli("policy", "check", POLICY, "--data", RELEASE)
    assert "finding" not in clean.stdout and "undeclared" not in clean.stdout
