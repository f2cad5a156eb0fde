"""What a value that is a direct identifier looks like: one recognizer per kind, each a full-match pattern
(run by pandas' vectorised regex engine over a column's sample) and, where the kind has one, a check digit
(:mod:`privaudit.discovery.checksums`, python-stdnum's validators), so that a column of 16-digit numbers is a column of payment cards
only when they pass Luhn.

The kinds follow the HIPAA Safe Harbor list of 18 identifiers (45 CFR 164.514(b)(2)(i)) where a value's
form can tell them: names (:mod:`privaudit.discovery.names`), street addresses, telephone and fax numbers
(valid numbers of libphonenumber's numbering plans: :mod:`privaudit.discovery.phones`; national numbers
written as bare digits need a header, zero-padded codes look the same),
e-mail addresses, social security and other national identification numbers (US SSN; DE Steuer-ID; FR NIR;
ES DNI/NIE; GB National Insurance number; NL BSN; IT codice fiscale), account numbers (IBAN, payment
cards), vehicle identifiers (VIN; licence plates need a header to tell them from product codes), device
identifiers (UUIDs, MAC addresses), URLs and IP addresses. Record keys and other unique numbers are found
by uniqueness (:mod:`privaudit.discovery.scan`).
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from privaudit.discovery import checksums
from privaudit.discovery.phones import valid_phone_numbers


@dataclass(frozen=True)
class Recognizer:
    kind: str  # the finding's kind, as reports name it
    label: str  # plain words for the report
    pattern: str  # full-match regular expression (case-insensitive) of a compacted value
    check: Callable[[np.ndarray], np.ndarray] | None = None  # check digits of the matched values
    compact: bool = False  # drop spaces, dots and dashes before matching (and checking)
    strong: bool = True  # a match alone is evidence; weak ones need the header too
    min_share: float = 0.6  # share of sampled values that must match, without a header hint


_OCTET = r"(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)"


def _ipv6(values: np.ndarray) -> np.ndarray:
    """Whether each candidate parses as an IPv6 address (the grammar's :: forms are many; the standard
    library knows them all)."""
    out = np.zeros(len(values), dtype=bool)
    for i, value in enumerate(values):
        try:
            ipaddress.IPv6Address(str(value))
            out[i] = True
        except ValueError:
            pass
    return out


RECOGNIZERS: tuple[Recognizer, ...] = (
    Recognizer("email", "e-mail addresses", r"[a-z0-9!#$%&'*+/=?^_`{|}~.-]+@[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}"),
    Recognizer("url", "URLs", r"(?:https?|ftp)://[^\s/$.?#][^\s]*|www\.[a-z0-9-]+(?:\.[a-z0-9-]+)+(?:/[^\s]*)?"),
    Recognizer("ipv4", "IPv4 addresses", rf"{_OCTET}(?:\.{_OCTET}){{3}}"),
    Recognizer("ipv6", "IPv6 addresses", r"(?=[0-9a-f:.]*:[0-9a-f:.]*:)[0-9a-f:.]{2,45}", _ipv6),
    Recognizer("mac_address", "device (MAC) addresses", r"[0-9a-f]{2}(?:[:-][0-9a-f]{2}){5}"),
    Recognizer("uuid", "UUIDs", r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"),
    Recognizer("iban", "IBAN account numbers", r"[a-z]{2}\d{2}[a-z0-9]{11,30}", checksums.iban, compact=True),
    Recognizer(
        "payment_card",
        "payment card numbers",
        r"(?:4\d{12}(?:\d{3,6})?|5[1-5]\d{14}|2[2-7]\d{14}|3[47]\d{13}|"
        r"6(?:011|5\d\d)\d{12,15}|3(?:0[0-5]|[68]\d)\d{11})",
        checksums.luhn,
        compact=True,
    ),
    Recognizer(
        "us_ssn", "US social security numbers", r"(?!000|666|9\d\d)\d{3}-(?!00)\d{2}-(?!0000)\d{4}", checksums.us_ssn
    ),
    Recognizer(
        "de_tax_id", "German tax identification numbers", r"[1-9]\d{10}", checksums.de_idnr, compact=True, strong=False
    ),
    Recognizer(
        "fr_nir",
        "French social security numbers (NIR)",
        r"[12]\d{2}(?:0[1-9]|1[0-2]|[2-9]\d)(?:\d{2}|2[ab])\d{8}",
        checksums.fr_nir,
        compact=True,
    ),
    Recognizer("es_dni", "Spanish DNI/NIE numbers", r"[xyz]?\d{7,8}[a-z]", checksums.es_dni_nie, compact=True),
    Recognizer(
        "gb_nino",
        "UK National Insurance numbers",
        r"(?!bg|gb|nk|kn|tn|nt|zz)[a-ceghj-pr-tw-z][a-ceghj-npr-tw-z]\d{6}[a-d]",
        compact=True,
    ),
    Recognizer("nl_bsn", "Dutch citizen service numbers (BSN)", r"\d{9}", checksums.nl_bsn, compact=True, strong=False),
    Recognizer(
        "it_codice_fiscale",
        "Italian fiscal codes",
        r"[a-z]{6}[a-z0-9]{2}[a-ehlmprst][a-z0-9]{2}[a-z][a-z0-9]{3}[a-z]",
        checksums.it_codice_fiscale,
    ),
    Recognizer(
        "vin", "vehicle identification numbers (VIN)", r"[a-hj-npr-z0-9]{8}[0-9x][a-hj-npr-z0-9]{8}", strong=False
    ),
    Recognizer(
        "licence_plate",
        "vehicle licence plates",
        r"[a-z]{1,3}[- ]?[a-z]{0,2}[- ]?\d{1,4}[a-z]{0,3}|"
        r"[a-z]{2}\d{2}\s?[a-z]{3}|[a-z]{2}-\d{3}-[a-z]{2}",
        strong=False,
    ),
    Recognizer(
        "phone_international",
        "telephone numbers",
        r"(?:\+|00)[1-9]\d{0,2}[\s.()-]*\d(?:[\s.()-]*\d){6,13}",
        valid_phone_numbers,
    ),
    Recognizer(
        "phone",
        "telephone numbers",
        r"(?:\+|00)[1-9]\d{0,2}[\s.()-]*\d(?:[\s.()-]*\d){6,13}|"
        r"(?:\(?0\d|\(\d)(?=[\d.()-]*[\s./()-])[\d\s./()-]{5,18}\d",
        valid_phone_numbers,
    ),
    # national numbers written as bare digits (0612345678) look like zero-padded codes: a header must say phone
    Recognizer("phone", "telephone numbers", r"0\d{6,14}", valid_phone_numbers, min_share=0.8, strong=False),
    Recognizer(
        "street_address",
        "street addresses",
        r"\d{1,5}[a-z]?,?\s+(?:[a-zà-ÿ'.-]+\s+){0,4}(?:street|st\.?|avenue|ave\.?|road|rd\.?|boulevard|blvd\.?|lane|"
        r"ln\.?|drive|dr\.?|way|court|ct\.?|place|pl\.?|square|sq\.?)(?:\s.*)?|"
        # up to three words, the last one perhaps glued to the street word (Hauptstraße): each word ends at a
        # space, so a long run of letters is split one way only (no cubic backtracking)
        r"(?:(?:[a-zà-ÿ'.-]+\s){0,3}|(?:[a-zà-ÿ'.-]+\s){0,2}[a-zà-ÿ'.-]+)"
        r"(?:stra(?:ss|ß)e|str\.|weg|gasse|platz|allee|straat|laan|plein|gracht)\s+\d{1,4}"
        r"[a-z]?(?:\s.*)?|"
        r"\d{1,4}(?:\s?(?:bis|ter))?,?\s+(?:rue|avenue|boulevard|bd|chemin|impasse|allée|place|quai)\s.+|"
        r"(?:calle|c/|avenida|avda\.?|plaza|paseo|via|viale|piazza|corso|rua)\s.+?,?\s*\d{1,4}.*",
    ),
)

#: recognizers run over free text (substring search, not a full match)
TEXT_KINDS = ("email", "url", "ipv4", "phone_international", "us_ssn")
_COMPACT = re.compile(r"[\s.\-/]")


def compacted(values: np.ndarray) -> np.ndarray:
    """Values with spaces, dots, dashes and slashes removed (how account numbers are written varies)."""
    return np.array([_COMPACT.sub("", v) for v in values], dtype=object)
