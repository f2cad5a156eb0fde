"""What a column's header says it holds, in English, German, French, Spanish, Italian, Dutch and Portuguese.

A header is split into lower-case tokens without accents (``Vorname``, ``first_name``, ``FirstName``,
``e-mail``, ``Téléphone`` -> ``vorname``; ``first``, ``name``; ``e``, ``mail`` ...); a kind is suggested when
one of its words is a token, or one of its phrases is the joined header. Meaningless headers (``col_17``,
``V3``) suggest nothing: the values alone must then be enough (:mod:`privaudit.discovery.scan`).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator

_WORDS: dict[str, set[str]] = {
    "person_name": {
        "name",
        "names",
        "fullname",
        "firstname",
        "lastname",
        "surname",
        "forename",
        "givenname",
        "familyname",
        "middlename",
        "maidenname",
        "nom",
        "prenom",
        "prenoms",
        "nombre",
        "apellido",
        "apellidos",
        "nome",
        "cognome",
        "vorname",
        "nachname",
        "familienname",
        "geburtsname",
        "naam",
        "voornaam",
        "achternaam",
        "sobrenome",
        "patient",
        "patientname",
        "contact",
        "person",
    },
    "email": {"email", "mail", "emailaddress", "courriel", "correo", "correoelectronico", "posta"},
    "phone_international": {
        "phone",
        "telephone",
        "tel",
        "mobile",
        "cell",
        "cellphone",
        "fax",
        "telefon",
        "telefono",
        "telefone",
        "handy",
        "portable",
        "movil",
        "cellulare",
        "telefoonnummer",
        "mobiel",
        "phonenumber",
        "telefonnummer",
    },
    "us_ssn": {"ssn", "socialsecurity", "socialsecuritynumber"},
    "national_id": {
        "nin",
        "nino",
        "nir",
        "insee",
        "dni",
        "nie",
        "nif",
        "bsn",
        "codicefiscale",
        "steuerid",
        "steueridentifikationsnummer",
        "passport",
        "passportnumber",
        "reisepass",
        "pasaporte",
        "passeport",
        "passaporto",
        "nationalid",
        "idcard",
        "personalausweis",
        "cpf",
        "burgerservicenummer",
        "sozialversicherungsnummer",
        "taxid",
        "tin",
    },
    "street_address": {
        "address",
        "street",
        "streetaddress",
        "adresse",
        "strasse",
        "direccion",
        "calle",
        "indirizzo",
        "adres",
        "straat",
        "endereco",
        "rua",
        "addressline",
        "addr",
    },
    "account": {
        "iban",
        "account",
        "accountnumber",
        "konto",
        "kontonummer",
        "compte",
        "cuenta",
        "conto",
        "rekening",
        "rekeningnummer",
        "card",
        "creditcard",
        "cardnumber",
        "kreditkarte",
        "carte",
        "tarjeta",
        "bic",
    },
    "ip": {"ip", "ipaddress", "ipaddr", "ipv4", "ipv6"},
    "url": {"url", "website", "homepage", "webpage", "link", "uri"},
    "licence_plate": {
        "plate",
        "licenseplate",
        "licenceplate",
        "numberplate",
        "kennzeichen",
        "immatriculation",
        "matricula",
        "targa",
        "kenteken",
        "registration",
    },
    "vin": {"vin", "chassis", "fahrgestellnummer"},
    "device": {"imei", "deviceid", "serial", "serialnumber", "mac", "macaddress", "udid"},
    "record_key": {
        "id",
        "identifier",
        "key",
        "mrn",
        "medicalrecord",
        "medicalrecordnumber",
        "patientid",
        "memberid",
        "customerid",
        "clientid",
        "userid",
        "username",
        "login",
        "accountid",
        "recordid",
        "uuid",
        "guid",
        "nr",
        "no",
        "number",
        "nummer",
        "numero",
        "num",
        "dossier",
        "fallnummer",
        "ref",
        "reference",
    },
}
#: tokens that say a name-like header is not a person's (``company_name``, ``product_name``, ``file_name``)
_NOT_PERSON = {
    "company",
    "firm",
    "org",
    "organisation",
    "organization",
    "product",
    "file",
    "brand",
    "city",
    "country",
    "street",
    "town",
    "state",
    "region",
    "department",
    "dept",
    "unit",
    "school",
    "hospital",
    "drug",
    "item",
    "category",
    "entreprise",
    "empresa",
    "firma",
    "ville",
    "pays",
    "stadt",
    "land",
    "host",
    "domain",
    "user",
    "display",
    "screen",
    "table",
    "column",
    "field",
    "variable",
}
_KIND_OF = {kind: kind for kind in _WORDS}
_PREFIXES = {w[:i] for words in _WORDS.values() for w in words for i in range(1, len(w) + 1)}
_KINDS_OF_WORD: dict[str, set[str]] = {}
for _kind, _words in _WORDS.items():
    for _word in _words:
        _KINDS_OF_WORD.setdefault(_word, set()).add(_kind)
# recognizer kinds a header kind stands for
HEADER_KINDS = {
    "person_name": ("person_name",),
    "email": ("email",),
    "phone_international": ("phone_international", "phone"),
    "us_ssn": ("us_ssn",),
    "national_id": ("us_ssn", "de_tax_id", "fr_nir", "es_dni", "gb_nino", "nl_bsn", "it_codice_fiscale"),
    "street_address": ("street_address",),
    "account": ("iban", "payment_card"),
    "ip": ("ipv4", "ipv6"),
    "url": ("url",),
    "licence_plate": ("licence_plate",),
    "vin": ("vin",),
    "device": ("uuid", "mac_address"),
    "record_key": ("record_key", "uuid"),
}


def tokens(header: str) -> list[str]:
    """Lower-case, accent-free tokens of a header (camelCase and any non-alphanumeric split)."""
    text = unicodedata.normalize("NFKD", str(header))
    text = "".join(c for c in text if not unicodedata.combining(c)).replace("ß", "ss")
    text = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", text)
    return [t for t in re.split(r"[^a-z0-9]+", text.lower()) if t]


def _phrases(parts: list[str]) -> Iterator[str]:
    """Runs of two or more consecutive tokens, joined, extended only while they begin a known word: a run
    that begins none is no word, and every run of a hostile 100 kB header cost cubic time (1,600 tokens
    took minutes); now each token starts few runs."""
    for i in range(len(parts)):
        text = parts[i]
        if text not in _PREFIXES:
            continue
        for j in range(i + 1, len(parts)):
            text += parts[j]
            if text not in _PREFIXES:
                break
            yield text


def header_kinds(header: str) -> set[str]:
    """The header kinds (keys of :data:`HEADER_KINDS`) a column's header suggests."""
    parts = tokens(header)
    joined = "".join(parts)
    found: set[str] = set()
    for text in (joined, *parts, *_phrases(parts)):
        found |= _KINDS_OF_WORD.get(text, set())
    if "person_name" in found and any(p in _NOT_PERSON for p in parts):
        found.discard("person_name")
        if "user" in parts or "login" in parts:
            found.add("record_key")
    if "record_key" in found and parts and parts[-1] not in _WORDS["record_key"] and joined not in _WORDS["record_key"]:
        found.discard("record_key")  # "id" must end the header: "idle_time" or "number_of_children" is no key
    return found


def matches(parts: list[str], words: frozenset[str] | set[str], stems: tuple[str, ...] = ()) -> bool:
    """Whether a header's tokens name one of ``words`` (a token, the joined header, or consecutive tokens
    joined: ``hh_size`` -> ``hhsize``; a numbered variant counts: ``water2``, ``educ_1``) or begin with one
    of ``stems`` (``religi`` in ``religiosity``)."""
    parts = [p.rstrip("0123456789") or p for p in parts]
    parts = [p for p in parts if not p.isdigit()] or parts
    if any(p in words for p in parts) or "".join(parts) in words:
        return True
    if any("".join(parts[i:j]) in words for i in range(len(parts)) for j in range(i + 2, min(len(parts), i + 4) + 1)):
        return True
    return any(p.startswith(s) for p in parts for s in stems)


def transliterated(words: list[str]) -> frozenset[str]:
    """``words`` and, for German words written with ae/oe/ue for an umlaut, the form :func:`tokens` gives a
    header written with the umlaut (``Staatsangehörigkeit`` -> ``staatsangehorigkeit``)."""
    out = set(words)
    out |= {re.sub(r"(?<=[a-z])([aou])e", r"\1", w) for w in words if re.search(r"[a-z][aou]e", w)}
    return frozenset(out)
