"""HIPAA's Safe Harbor method, 45 CFR 164.514(b)(2): the 18 identifiers of (b)(2)(i)(A)-(R), each looked for in a
table's columns by header and by value, with the method's own rules for geography, dates and ages.

- (B) geographic subdivisions smaller than a state: a ZIP code only as its first three digits, and those of the
  restricted list (areas of 20,000 people or fewer; HHS, *Guidance Regarding Methods for De-identification*,
  2012, section 3.3: ``data/hipaa_restricted_zip3.csv``, see its PROVENANCE.md) as ``000``; a city, county,
  street, census tract, geocode or coordinates not at all;
- (C) every element of a date finer than the year (day, month) of a date related to the person; ages over 89,
  and years of birth implying them, aggregated into "90 or older";
- (R) any other unique identifying number, characteristic or code, except a re-identification code as
  164.514(c) allows (not derived from information about the person, its key not disclosed): a declared
  ``record_id`` is listed for that attestation rather than failed.

Headers are matched with :mod:`privaudit.discovery.headers`' tokens; values with the identifier scan's findings
(:mod:`privaudit.discovery.scan`: e-mail, phone, IP, URL, MAC, IBAN, names ...) and the patterns below, over
whole columns (vectorised with pandas' string methods). The 18 rows keep the regulation's letters and words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

    from privaudit.discovery.scan import Finding

#: (letter, the identifier as 164.514(b)(2)(i) names it)
IDENTIFIERS: tuple[tuple[str, str], ...] = (
    ("A", "Names"),
    ("B", "Geographic subdivisions smaller than a state"),
    ("C", "Elements of dates (except year) related to the person; ages over 89"),
    ("D", "Telephone numbers"),
    ("E", "Fax numbers"),
    ("F", "Electronic mail addresses"),
    ("G", "Social security numbers"),
    ("H", "Medical record numbers"),
    ("I", "Health plan beneficiary numbers"),
    ("J", "Account numbers"),
    ("K", "Certificate/license numbers"),
    ("L", "Vehicle identifiers and serial numbers, including license plate numbers"),
    ("M", "Device identifiers and serial numbers"),
    ("N", "Web Universal Resource Locators (URLs)"),
    ("O", "Internet Protocol (IP) address numbers"),
    ("P", "Biometric identifiers, including finger and voice prints"),
    ("Q", "Full face photographic images and any comparable images"),
    ("R", "Any other unique identifying number, characteristic, or code"),
)

#: header tokens (or joined headers) per letter, beside the identifier scan's header kinds
_HEADER_WORDS: dict[str, frozenset[str]] = {
    "B": frozenset(
        "city town village municipality county borough parish precinct tract censustract block blockgroup "
        "geocode latitude longitude lat lon lng coordinates street address streetaddress neighborhood "
        "neighbourhood district ward fips countyfips puma".split()
    ),
    "E": frozenset({"fax", "facsimile", "faxnumber"}),
    "H": frozenset({"mrn", "medicalrecord", "medicalrecordnumber", "chartnumber", "patientid", "patientnumber"}),
    "I": frozenset(
        {
            "memberid",
            "membernumber",
            "beneficiary",
            "beneficiaryid",
            "medicaid",
            "medicaidid",
            "medicare",
            "medicareid",
            "subscriberid",
            "insuranceid",
            "healthplan",
            "planmemberid",
            "policynumber",
        }
    ),
    "K": frozenset(
        {
            "license",
            "licence",
            "licensenumber",
            "licencenumber",
            "certificate",
            "certificatenumber",
            "driverslicense",
            "dea",
        }
    ),
    "P": frozenset({"fingerprint", "voiceprint", "retina", "iris", "biometric", "biometrics", "faceprint"}),
    "Q": frozenset({"photo", "photograph", "image", "picture", "portrait", "selfie", "headshot"}),
}
_ZIP_WORDS = frozenset({"zip", "zipcode", "zip3", "zip5", "postcode", "postal", "postalcode", "plz"})
#: the identifier scan's kinds (header or value) per letter
_SCAN_KINDS: dict[str, frozenset[str]] = {
    "A": frozenset({"person_name"}),
    "B": frozenset({"street_address"}),
    "D": frozenset({"phone", "phone_international"}),
    "F": frozenset({"email"}),
    "G": frozenset({"us_ssn"}),
    "J": frozenset({"account", "iban"}),
    "L": frozenset({"vin", "licence_plate"}),
    "M": frozenset({"device", "mac_address"}),
    "N": frozenset({"url"}),
    "O": frozenset({"ip", "ipv4", "ipv6"}),
    "R": frozenset({"record_key", "uuid", "national_id", "es_dni", "nl_bsn"}),
}
_SSN = r"\d{3}-\d{2}-\d{4}"
#: a date with a month or a day: 2021-03-04, 2021-03, 20210304, 4/3/2021, 04.03.2021, 4 Mar 2021
_DATE = (
    r"(?:\d{4}-\d{1,2}(?:-\d{1,2})?(?:[ T]\d{1,2}:\d{2}(?::\d{2})?)?|(?:19|20)\d{2}(?:0[1-9]|1[0-2])(?:[0-2]\d|3[01])"
    r"|\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}|\d{1,2} [A-Za-z]{3,9} \d{4}|[A-Za-z]{3,9} \d{1,2},? \d{4})"
)
_IMAGE = r".*\.(?:jpe?g|png|gif|bmp|tiff?|heic|webp)"
#: the share of a column's values that must match a pattern for the column to hold it
MATCH_SHARE = 0.5


@dataclass
class Item:
    """One of the 18 identifiers: whether the table holds it, in which columns, and why."""

    letter: str
    identifier: str
    status: str = "absent"  # "absent", "present" or "attest" (allowed only with an attestation: 164.514(c))
    columns: list[str] = field(default_factory=list)
    evidence: list[str] = field(default_factory=list)

    def add(self, column: str, why: str, status: str = "present") -> None:
        if status == "present" or self.status == "absent":
            self.status = status
        if column not in self.columns:
            self.columns.append(column)
        self.evidence.append(f"{column}: {why}")


def restricted_zip3(path: str | Path | None = None) -> frozenset[str]:
    """The restricted three-digit ZIP codes: HHS's list shipped here, or a newer table of the same shape (a CSV
    whose first line is ``zip3`` and whose every other line is three digits). Raises ValueError naming the
    file and line otherwise."""
    if path is None:
        text = resources.files("privaudit.discovery").joinpath("data/hipaa_restricted_zip3.csv").read_text()
        where = "the shipped HHS list"
    else:
        try:
            text = Path(path).read_text(encoding="utf-8-sig")
        except (OSError, UnicodeDecodeError) as exc:
            raise ValueError(f"{path}: cannot read the restricted ZIP table ({type(exc).__name__})") from None
        where = str(path)
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines or lines[0].lower() != "zip3":
        raise ValueError(f"{where}: a restricted ZIP table has the header 'zip3' and one three-digit code per line")
    for number, line in enumerate(lines[1:], start=2):
        if not re.fullmatch(r"\d{3}", line):
            raise ValueError(f"{where}: line {number}: {line[:20]!r} is not a three-digit ZIP code")
    return frozenset(lines[1:])


def _share(text: pd.Series, pattern: str) -> float:
    return float(text.str.fullmatch(pattern).mean()) if len(text) else 0.0


def _zip(item: Item, name: str, text: pd.Series, restricted: frozenset[str]) -> None:
    digits = text.str.replace(r"[\s-]", "", regex=True)
    five = digits.str.fullmatch(r"\d{5}(?:\d{4})?")
    if five.mean() >= MATCH_SHARE:
        item.add(name, f"{int(five.sum()):,} five-digit ZIP codes: only the first three digits may be released")
        return
    three = digits[digits.str.fullmatch(r"\d{3}")]
    bad = three[three.isin(restricted)]
    if len(bad):
        item.add(
            name,
            f"{len(bad):,} records in restricted three-digit ZIP areas ({bad.nunique()} areas of "
            "20,000 people or fewer) not coded 000",
        )


def _age(item: Item, name: str, text: pd.Series, reference_year: int) -> None:
    from privaudit.common.numeric import to_numeric

    numbers = to_numeric(text)
    if numbers.notna().mean() < MATCH_SHARE:
        return
    known = numbers.dropna()
    if known.between(1800, reference_year).mean() >= 0.9:  # a year of birth
        old = known[known <= reference_year - 90]
        if len(old):
            item.add(name, f"{len(old):,} years of birth imply an age over 89: aggregate them (90 or older)")
    elif (known > 90).any():
        item.add(
            name, f"{int((known > 90).sum()):,} ages over 90: aggregate ages over 89 into one category, 90 or older"
        )


def assess(
    frame: pd.DataFrame,
    roles: dict[str, str],
    findings: list[Finding],
    restricted: frozenset[str],
    reference_year: int,
) -> list[Item]:
    """The 18 rows of Safe Harbor for ``frame`` (every column as loaded; ``roles`` the policy's declared roles,
    ``findings`` the identifier scan's). A column holding no value is skipped (an identifier removed)."""
    from privaudit.discovery.headers import header_kinds, tokens
    from privaudit.discovery.key_variables import key_variable_match

    items = {letter: Item(letter, what) for letter, what in IDENTIFIERS}
    by_column: dict[str, list[Finding]] = {}
    for f in findings:
        by_column.setdefault(f.column, []).append(f)
    for name in map(str, frame.columns):
        text = frame[name].dropna().astype(str).str.strip()
        text = text[text != ""]
        if text.empty:
            continue
        parts = tokens(name)
        words = set(parts) | {"".join(parts)}
        kinds = header_kinds(name) | {f.kind for f in by_column.get(name, [])}
        match = key_variable_match(name)
        if roles.get(name) == "record_id":
            items["R"].add(name, "declared record_id: allowed only as a re-identification code (164.514(c))", "attest")
        for letter, wanted in _SCAN_KINDS.items():
            if kinds & wanted:
                _scan(items[letter], name, kinds & wanted, by_column.get(name, []), roles.get(name))
        for letter, wanted in _HEADER_WORDS.items():
            if words & wanted:
                items[letter].add(name, f"its header ({', '.join(sorted(words & wanted))})")
        if words & _ZIP_WORDS:
            _zip(items["B"], name, text, restricted)
        if match is not None and match.category.key == "age":
            _age(items["C"], name, text, reference_year)
        if _share(text, _DATE) >= MATCH_SHARE:
            items["C"].add(name, f"{_share(text, _DATE):.0%} of values are dates with a month or day")
        if "G" not in [i.letter for i in items.values() if name in i.columns] and _share(text, _SSN) >= MATCH_SHARE:
            items["G"].add(name, f"{_share(text, _SSN):.0%} of values are formed as SSNs")
        if _share(text, _IMAGE) >= MATCH_SHARE:
            items["Q"].add(name, f"{_share(text, _IMAGE):.0%} of values are image files")
    return list(items.values())


def _scan(item: Item, name: str, kinds: set[str], findings: list[Finding], role: str | None) -> None:
    valued = [f for f in findings if f.kind in kinds]
    why = f"{valued[0].share:.0%} of sampled values are {valued[0].label}" if valued else "its header"
    if item.letter == "R" and role == "record_id":
        return  # listed for the attestation of 164.514(c) already
    if item.letter == "R" and role == "household_id":
        item.add(name, f"declared {role}: allowed only as a re-identification code (164.514(c))", status="attest")
    elif item.letter == "D" and {"fax", "facsimile"} & set(name.lower().replace("_", " ").split()):
        return
    else:
        item.add(name, why)
