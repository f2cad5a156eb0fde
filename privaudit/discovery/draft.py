"""A complete, valid, commented policy drafted from a table (``privaudit init``): what a
disclosure-control expert would draft, with the evidence of each role as a YAML comment.

* ``identifier`` -- the identifier scan's findings (:mod:`privaudit.discovery.scan`);
* ``weight`` -- a positive numeric column whose header says weight (``weight``, ``wgt``, ``fnlwgt``,
  ``poids``, ``gewicht``, ``peso``, ``factor``; with a survey's qualifier: ``perweight``, ``hhwt``, ``pwgtp``),
  not a body weight (``bwght``, or ``weight`` in a table that measures height); one per table;
* ``household_id`` -- a column whose header says household id (``hid``, ``hhid``, ``household``/``hh`` with
  ``id``/``nr``) and whose values repeat (several records per household), as in sdcMicro's testdata's
  ``ori_hid``, or a person's id (``id``, ``idnum``, ``personid``) whose values repeat (a panel's waves):
  the uniqueness check then counts k in households (persons) and gives household risk;
* ``quasi_identifier`` -- the key variables an intruder can observe or find elsewhere, by header
  (:mod:`privaudit.discovery.key_variables`: the IHSN/World Bank guide's and the ESSnet handbook's lists,
  in six languages and codebook spellings: :mod:`privaudit.discovery.codebook`), by a variable label
  (``labels``), as a two-valued dummy of one category (``nwhite``, ``catholic``, ``south``), as an income
  band (a few brackets), or because its values map one to one to a quasi-identifier's (``agesq``); a
  quantity of a key variable (``hrs_work``) is left out, the comment saying why. Religion and ethnicity are
  key variables *and* special categories (``special_category`` in the policy, said in the comment), but a
  religious practice or belief (``churchatd``, ``religimp``) is sensitive. Where a header says nothing
  (``V3``, ``col_17``), coded columns (at most :data:`MAX_CODES` values) whose combination makes records
  unique are proposed by content (:func:`privaudit.discovery.uniques.unique_makers`), weighed on every row
  (a random sample of :data:`CONTENT_ROWS` of a larger table, said in the draft). Quasi-identifiers are
  ranked by how much each adds to sample uniqueness (the drop in sample-unique records when it is left out)
  and given an ``importance`` (:func:`importance`);
* ``sensitive`` -- GDPR Art. 9 special categories (health, sex life, religious beliefs, political opinions,
  trade-union membership, ethnic origin, genetic, biometric), Art. 10 (criminal convictions) -- marked
  ``special_category`` -- and the confidential economics (income, wages, debt, benefits), by header or by
  value labels (:mod:`privaudit.discovery.special_categories`);
* ``other`` -- the rest (an opinion such as ``rate_marriage`` is not observable).

``roles`` (``init --role COLUMN=ROLE``) fixes the roles the user knows; the rest is drafted around them.
The attacker scenarios are *demographics* (the key variables of age, sex and geography) and *every key
variable*; with both, each class-based check is written once per scenario (its id names it), so the
verdict is the stricter; :attr:`Draft.uniques` gives the share of sample uniques under each.

Types: ``numeric`` when every value is a number; ``ordinal`` with an ``order`` for dates and number ranges
(``20-29``, ``[30, 40)``); ``nominal`` otherwise (a column mixing numbers and text is nominal, with a comment
saying so). Numeric quasi-identifiers of magnitudes (ages, years) stay ``numeric`` without a file:
``remediate`` builds the same interval hierarchy (5, 10, 20 wide, then ``*``) when it generalizes, and
microaggregation can work on their numbers. Coded categories (at most :data:`CODES` distinct numbers spanning
less than :data:`CODES`, such as sex 1/2, where intervals would mean nothing) get a flat hierarchy (each value,
then ``*``); postcodes (a header such as ``zip``,
``postcode``, ``plz``, every value the same number of digits) a masking hierarchy, one more trailing digit
replaced by ``*`` per level, as ARX's example ZIP-code hierarchies do (``47677;4767*;476**;47***;4****;*``);
date quasi-identifiers a date hierarchy (day, month, year, decade, ``*``), written as ARX-style CSV files
beside the policy. A quasi-identifier with a hierarchy is typed ``nominal`` (its leaves are the values as
written in the file), so that ``remediate --method generalize`` can publish the hierarchy's labels with the
drafted policy unchanged: a numeric or ordinal column cannot hold labels such as ``20-24``. The starter checks
are k-anonymity, distinct l-diversity and t-closeness on each sensitive column, and uniqueness -- or a
profile's (``policies/``); :mod:`privaudit.assessors.starter` writes them.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import yaml

from privaudit.common.numeric import to_numeric
from privaudit.core.errors import DataError
from privaudit.discovery import hierarchies as builders
from privaudit.discovery.headers import tokens
from privaudit.discovery.key_variables import DEMOGRAPHIC, KeyMatch, key_variable_match
from privaudit.discovery.scan import SAMPLE_ROWS, column_sample, scan_column
from privaudit.discovery.special_categories import (
    OBSERVABLE,
    Special,
    religious_practice,
    special_by_values,
    special_category,
)
from privaudit.discovery.uniques import Codes, share_text, unique_makers

_WEIGHT_WORDS = {
    "weight",
    "wgt",
    "wt",
    "fnlwgt",
    "afnlwgt",
    "marsupwt",
    "perwt",
    "pweight",
    "poids",
    "gewicht",
    "peso",
    "factor",
    "expansion",
    "hochrechnungsfaktor",
    "ponderacion",
    "ponderazione",
}
_HOUSEHOLD_IDS = {"hid", "hhid", "householdid"}
#: a header of only these words is a person's or a case's id; when its values repeat, several records are one
#: person's (a panel's waves, as AER's PSID7682 ``id`` over the years 1976-82): sdcMicro's ``hhId`` is for
#: a cluster of records too (``createSdcObj(hhId=)``), and the uniqueness check counts k in persons beside records
_PERSON_IDS = {"id", "idnum", "idno", "personid", "persid", "pidp", "caseid", "respid", "subjectid"}
_HOUSEHOLD_WORDS, _ID_WORDS = {"household", "hh", "haushalt", "menage", "hogar"}, {"id", "nr", "no", "number", "code"}
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_RANGE = re.compile(r"[\[(]?\s*(-?\d+(?:\.\d+)?)\s*(?:-|–|,|to|bis)\s*(-?\d+(?:\.\d+)?)\s*[\])]?")


@dataclass
class Column:
    name: str
    role: str
    type: str
    notes: list[str] = field(default_factory=list)
    order: list[str] | None = None
    hierarchy: str | None = None  # file name, beside the policy
    special_category: str | None = None  # GDPR Art. 9/10 (special_categories.LABELS)
    importance: int | None = None  # quasi-identifiers: 1 is suppressed last (:func:`importance`)


def _starter_checks(
    starter: Starter | None, profile: dict | None, columns: list[Column], has_qi: bool, scenarios: dict
) -> tuple[list[dict], list]:
    """The starter's checks for the drafted columns and their limits on the share of uniques (none without a
    starter)."""
    if starter is None:
        return [], []
    sensitive = [c.name for c in columns if c.role == "sensitive"]
    weight = any(c.role == "weight" for c in columns)
    checks = starter.checks(profile, sensitive, has_qi, weight, scenarios, **_per_person(columns))
    return checks, starter.unique_share_limits(checks)


def _per_person(columns: list[Column]) -> dict[str, bool]:
    """``{"per_person": True}`` when a person's id was drafted ``household_id`` (several records are one
    person's, a panel's waves): the starter's k then counts persons, not records."""
    panel = any(c.role == "household_id" and any("person or case" in n for n in c.notes) for c in columns)
    return {"per_person": True} if panel else {}


@dataclass(frozen=True)
class Starter:
    """The starter checks a draft writes, given by its caller (``privaudit init`` passes those of
    :mod:`privaudit.assessors.starter`): discovery knows columns, and names no assessor. ``checks(profile,
    sensitive, has_quasi_identifiers, has_weight, scenarios)`` gives the checks, ``unique_share_limits(checks)``
    their limits on the share of sample uniques."""

    checks: Callable[..., list[dict]]
    unique_share_limits: Callable[[list[dict]], list]


@dataclass
class Draft:
    columns: list[Column]
    checks: list[dict]
    hierarchies: dict[str, str]  # relative path -> CSV text
    qi_ranking: list[tuple[str, float]]
    delimiter: str | None = None
    encoding: str | None = None  # the file's encoding when it is not UTF-8 (privaudit init --encoding)
    sheet: str | None = None  # the spreadsheet's sheet it was drafted from (privaudit init --sheet)
    scenarios: dict[str, list[str]] = field(default_factory=dict)  # name -> the intruder's key variables
    uniques: dict[str, float] = field(default_factory=dict)  # name -> share of sample uniques (whole table)
    unique_limits: list = field(default_factory=list)  # the drafted checks' limits on the share of sample uniques
    unique_counts: dict[str, int] = field(default_factory=dict)  # name -> number of sample uniques
    rows: int = 0
    limits_applied: list[str] = field(default_factory=list)  # what a cap or a sample left out of the draft
    missing: list[str] = field(default_factory=list)  # data.missing: codes imported from a tool's metadata
    header: list[str] = field(default_factory=list)  # comment lines an import adds (privaudit.discovery.decided)

    def yaml_text(self, source: str, profile: str | None) -> str:
        lines = [
            f"# Drafted by `privaudit init` from {source}"
            + (f", starting from the profile {profile!r}" if profile else "")
            + ".",
            "# Review every role: the evidence of each choice is in the comment beside it.",
            *[f"# {line}" for line in self.header],
            "version: 1",
            f"name: {json.dumps(Path(source).stem + ' release', ensure_ascii=False)}",
        ]
        data: dict[str, Any] = {
            "delimiter": self.delimiter,
            "encoding": self.encoding,
            "missing": self.missing,
            "sheet": self.sheet,
        }
        if any(data.values()):
            lines.append(
                "data: {" + ", ".join(f"{k}: {json.dumps(v, ensure_ascii=False)}" for k, v in data.items() if v) + "}"
            )
        if self.qi_ranking:
            lines.append(
                "# Quasi-identifiers ranked by the share of records that stop being unique when the column is left out:"
            )
            lines += [f"#   {name}: {share_text(drop, 1.0)}" for name, drop in self.qi_ranking]
        if self.scenarios:
            lines.append("# Attacker scenarios (the checks hold in each; sample uniques in the whole table):")
            lines += [
                f"#   {name}: {', '.join(cols)} -- {self.unique_text(name)} unique"
                for name, cols in self.scenarios.items()
            ]
        lines.append("columns:")
        for c in self.columns:
            spec: dict[str, object] = {"role": c.role}
            if c.role != "identifier":
                spec["type"] = c.type
            if c.order is not None:
                spec["order"] = c.order
            if c.hierarchy is not None:
                spec["hierarchy"] = c.hierarchy
            if c.special_category is not None:
                spec["special_category"] = c.special_category
            if c.importance is not None:
                spec["importance"] = c.importance
            key = yaml.safe_dump([c.name], default_flow_style=True, allow_unicode=True, width=10**6).strip()[1:-1]
            value = yaml.safe_dump(
                spec, default_flow_style=True, allow_unicode=True, width=10**6, sort_keys=False
            ).strip()
            text = f"{key}: {value}"
            comment = f"  # {'; '.join(c.notes)}" if c.notes else ""
            lines.append(f"  {text}{comment}")
        if not any(c.role == "quasi_identifier" for c in self.columns):
            lines.append(
                "# No column's header names a quasi-identifier: mark the columns an intruder can know from elsewhere,"
            )
            lines.append("# then add the class-based checks (k_anonymity, l_diversity, t_closeness, uniqueness).")
        lines += [f"# Note: {text}" for text in self.limits_applied]
        lines.append("checks:" if self.checks else "checks: []")
        for check in self.checks:
            lines.append("  - " + yaml.safe_dump(check, default_flow_style=True, width=10**6, sort_keys=False).strip())
        return "\n".join(lines) + "\n"

    def unique_text(self, name: str) -> str:
        """The share of sample uniques under a scenario, with the count: never a failing figure shown as 0."""
        return share_text(self.uniques.get(name, 0.0), 1.0, self.unique_counts.get(name))


def _is_number(values: np.ndarray) -> np.ndarray:
    return np.isfinite(to_numeric(pd.Series(values, dtype=object), errors="coerce").to_numpy(dtype=float))


def _type_of(name: str, distinct: np.ndarray) -> tuple[str, list[str] | None, list[str]]:
    numbers = _is_number(distinct)
    if len(distinct) and numbers.all():
        if set(tokens(name)) & builders.POSTCODE_WORDS:  # digits, but a code: no magnitude to band
            return "nominal", None, ["postcodes: codes written in digits, not magnitudes"]
        return "numeric", None, []
    if len(distinct) and pd.Series(distinct, dtype=object).str.fullmatch(_DATE.pattern).all():
        return "ordinal", sorted(str(v) for v in distinct), ["dates: ordered by day"]
    ranges = pd.Series(distinct, dtype=object).str.fullmatch(_RANGE.pattern)
    if len(distinct) and ranges.all() and len(distinct) <= 200:
        lows = pd.Series(distinct, dtype=object).str.extract(_RANGE.pattern)[0].astype(float)
        order = [str(v) for v in np.asarray(distinct, dtype=object)[np.argsort(lows.to_numpy(), kind="stable")]]
        return "ordinal", order, ["number ranges: ordered by their lower bound"]
    if numbers.any() and not numbers.all() and numbers.mean() > 0.2:
        return "nominal", None, [f"mixed types: {numbers.mean():.0%} of distinct values are numbers, the rest text"]
    return "nominal", None, []


def _hierarchy_for(
    parts: set[str], kind: str, order: list[str] | None, notes: list[str], values: np.ndarray | pd.Series
) -> tuple[str, str] | None:
    """The drafted hierarchy of a quasi-identifier (CSV text, the note saying which), or None: the builders
    of :mod:`privaudit.discovery.hierarchies` on its ``values`` (one per record, or the distinct ones) --
    known domains, numbers, postcodes, dates; other categories are left to the user."""
    if order is not None and notes and notes[0].startswith("number ranges"):
        return None
    return builders.build(parts, values, kind, categories=False)


_GENERIC = re.compile(
    r"(?:[a-z]|var|col|column|item|field|attr|key|num|quest|question)?\d+[a-z]?|[a-z]|unnamed|column|"
    r"col|var|variable|field|attr|attribute|item|value"
)
#: a column is a coded candidate key variable by content when it has at most this many distinct values
MAX_CODES = 50
_ROLES = ("identifier", "quasi_identifier", "sensitive", "other", "weight", "record_id", "household_id")


#: a header of these words only names a colour, not whose: the value labels say it (``colour``: Black, White
#: in carData's Arrests is the arrestee's skin colour; early US censuses asked a person's "color", and
#: Brazil's IBGE still asks "cor ou raça"), while ``car_colour`` names a thing and is not a person's
_COLOUR = frozenset({"colour", "color", "skin", "skincolour", "skincolor", "cor", "couleur", "farbe", "hautfarbe"})


def _says_nothing(parts: list[str]) -> bool:
    """A header such as ``V3``, ``col_17``, ``q12a`` or ``Unnamed: 4``: it names nothing."""
    return not parts or all(_GENERIC.fullmatch(p) for p in parts)


def _special_note(special: Special, how: str) -> str:
    return f"special category ({special.article}): {special.label}, by {how}"


@dataclass
class _Evidence:
    """What one column says of itself: its header's words (and its label's, when the input carries labels),
    its values, the type they suggest, the key variable and the special category its header, its label or
    its value labels name."""

    name: str
    parts: list[str]
    distinct: np.ndarray  # every value of the column, distinct
    kind: str
    order: list[str] | None
    notes: list[str]
    kv: KeyMatch | None
    special: Special | None
    by_values: str | None  # why the header, label or value labels name the special category, when they do
    finding: Any  # what the identifier scan found in the sample's values, or None
    label: str | None = None

    @property
    def practice(self) -> bool:
        """A religion column of practice or belief (attendance, prayer, importance; a scale with many values),
        not the affiliation others know."""
        return (
            religious_practice(self.name)
            or (self.label is not None and religious_practice(self.label))
            or (self.kind == "numeric" and len(self.distinct) > MAX_CODES)
        )


@dataclass
class _Drafted:
    """One column drafted on its own, with the key-variable category of a quasi-identifier and whether its
    content may yet make it one (its header says nothing)."""

    column: Column
    category: str | None = None
    candidate: bool = False


def _refuse_unknown_roles(roles: dict[str, str], names: list[str], source: str) -> None:
    for column, role in roles.items():
        if column not in names:
            close = difflib.get_close_matches(column, names, n=1)
            raise DataError(
                f"--role {column}={role}: {source} has no column {column!r}"
                + (f" (did you mean {close[0]!r}?)" if close else "")
            )
        if role not in _ROLES:
            raise DataError(f"--role {column}={role}: unknown role {role!r} (roles: {', '.join(_ROLES)})")


def _is_dummy(distinct: np.ndarray) -> bool:
    """Whether a column has two values (0/1, no/yes, hispanic/not): named after one category, it says who is
    of it."""
    return len(distinct) == 2


def _evidence(name: str, frame: pd.DataFrame, sample: pd.DataFrame, label: str | None = None) -> _Evidence:
    parts = tokens(name)
    distinct, counts, _ = column_sample(frame[name].replace("", np.nan))  # types and hierarchies: every value
    kind, order, notes = _type_of(name, distinct)
    dummy = _is_dummy(distinct)
    kv = key_variable_match(name, dummy)
    special, by_values = special_category(name), None
    if special is None and label and kv is None and (special := special_category(label)) is not None:
        by_values = f"its label {label!r}"  # a label naming a special category says what the column is
    elif (kv is None or kv.weak) and label and (by_label := key_variable_match(label, dummy, first=True)):
        kv = KeyMatch(by_label.category, f"its label {label!r}", by_label.weak)
    # value labels are evidence where the header says nothing (q17: Catholic, Protestant ...); a header
    # that says something else (car_colour: white, black) is not overruled by them
    if special is None and (
        (kv is None and (_says_nothing(parts) or set(parts) <= _COLOUR))
        or (kv is not None and kv.category.key in OBSERVABLE)
    ):
        found = special_by_values(distinct, counts)
        if found is not None:
            special, share = found
            by_values = f"{share:.0%} of values are labels of {special.label}"
    if special is None and kv is not None and kv.weak is None and kv.category.key in OBSERVABLE:
        special = _special(kv.category.key)  # a dummy of one religion or race (catholic, nwhite)
    if special is not None and special.key in _CODED_ONLY and len(distinct) > MAX_CODES:
        special = None  # "pid" with thousands of values is a person id, not party identification
    series = sample[name].replace("", np.nan)
    finding = scan_column(name, series) if series.notna().any() else None
    return _Evidence(name, parts, distinct, kind, order, notes, kv, special, by_values, finding, label)


def _special(key: str) -> Special:
    from privaudit.discovery.special_categories import special

    return special(key)


def _given_role(e: _Evidence, role: str, source: str) -> _Drafted:
    """A column whose role the user gave (``--role``)."""
    if role == "weight" and not (e.kind == "numeric" and (to_numeric(pd.Series(e.distinct)) > 0).all()):
        raise DataError(f"--role {e.name}={role}: a weight must be a positive number in every row of {source}")
    col = Column(e.name, role, e.kind, e.notes + ["the role given by --role"], e.order)
    category = None
    if role == "quasi_identifier" and e.kv is not None:
        category = e.kv.category.key
    elif role == "quasi_identifier" and e.special is not None and e.special.key in OBSERVABLE:
        category = e.special.key
    if e.special is not None and e.special.article and role in ("quasi_identifier", "sensitive"):
        col.special_category = e.special.key
        col.notes.append(_special_note(e.special, e.by_values or "its header"))
    return _Drafted(col, category)


#: a header word of a sampling weight with a survey's qualifier before it (person, household, final, sample,
#: replicate ...) or a short one after it: ``perweight``, ``hhwt``, ``pwgtp``, ``wtfinl`` -- not ``bwght``, a
#: birth weight
_WEIGHT = re.compile(
    r"(?:p|per|pers|person|hh|h|house|household|fam|samp|sample|fin|final|ind|pop|base|design|post|strat|cal|"
    r"rep|r|w|x|s)?(?:weight|wght|wgt|wt)(?:[a-z]{0,4}|\d*)"
)
#: words that make a weight a person's body weight, not a sampling weight
_BODY = {
    "body",
    "birth",
    "bw",
    "bwt",
    "birthwt",
    "kg",
    "kgs",
    "lb",
    "lbs",
    "pounds",
    "gram",
    "grams",
    "bmi",
    "baby",
    "infant",
    "newborn",
    "overweight",
    "underweight",
    "height",
}


#: a table that measures these measures bodies: its "weight" is a person's, not a sampling weight
_BODY_MEASURES = {"height", "bmi", "waist", "hip", "cm", "kg", "heightcm", "weightkg", "stature"}


def _weight_header(parts: list[str], headers: set[str] = frozenset()) -> bool:  # type: ignore[assignment]
    """A sampling weight's header: a weight word with a survey's qualifier, and not a body weight (a word of
    one, or a table that also measures height or BMI)."""
    words = set(parts)
    if words & _BODY or (headers & _BODY_MEASURES and not words - {"weight"}):
        return False
    return bool(words & _WEIGHT_WORDS) or any(_WEIGHT.fullmatch(p) for p in parts)


def _structural_role(e: _Evidence, frame: pd.DataFrame) -> Column | None:
    """A direct identifier by its values, a sampling weight or a household id by header and values; or None."""
    finding = e.finding
    if finding is not None and finding.confidence == "high":
        return Column(e.name, "identifier", "nominal", [f"{finding.share:.0%} look like {finding.label}"])
    words = set(e.parts)
    person = bool(words) and words <= _PERSON_IDS and len(e.distinct) > MAX_CODES  # not a few codes
    headers = {t for c in frame.columns for t in tokens(str(c))}
    if _weight_header(e.parts, headers) and e.kind == "numeric" and (to_numeric(pd.Series(e.distinct)) > 0).all():
        return Column(e.name, "weight", "numeric", ["a positive number named like a sampling weight"])
    if (
        (words & _HOUSEHOLD_IDS or (words & _HOUSEHOLD_WORDS and words & _ID_WORDS) or person)
        and frame[e.name].replace("", np.nan).notna().all()
        and len(e.distinct) < len(frame)
    ):
        whose = "person or case, e.g. a panel's waves" if person else "household"
        notes = [
            f"named like a {'person' if person else 'household'} id; its values repeat (several records per {whose})"
        ]
        return Column(e.name, "household_id", e.kind, notes)
    return None


#: an economic column with at most this many distinct values is banded (an income band): a key variable
INCOME_BANDS = 30


def _banded(e: _Evidence) -> bool:
    """Income bands: a few numbers (bracket codes or midpoints) or number ranges, not amounts."""
    ranges = e.order is not None and bool(e.notes) and e.notes[0].startswith("number ranges")
    return ranges or (e.kind == "numeric" and 2 < len(e.distinct) <= INCOME_BANDS)


def _how(e: _Evidence) -> str:
    return e.by_values or "its header"


def _observable_special(e: _Evidence, special: Special) -> _Drafted:
    """Religion or ethnicity: a key variable and a special category, unless a religious practice or belief."""
    if special.key == "religion" and e.practice:
        notes = e.notes + [
            "a religious practice or belief, not an affiliation others can know",
            _special_note(special, _how(e)),
        ]
        return _Drafted(Column(e.name, "sensitive", e.kind, notes, e.order, special_category=special.key))
    kv = e.kv.category if e.kv is not None and e.kv.weak is None else None
    label = kv.label if kv is not None else special.label
    evidence = "its values" if e.by_values and "values" in e.by_values else (e.kv.how if e.kv else _how(e))
    notes = e.notes + [f"known from elsewhere: {label} ({evidence})", _special_note(special, _how(e))]
    column = Column(e.name, "quasi_identifier", e.kind, notes, e.order, special_category=special.key)
    return _Drafted(column, kv.key if kv is not None else special.key)


def _meaning_role(e: _Evidence) -> _Drafted:
    """What the header, the label or the value labels say the column means: a key variable, a special category,
    confidential economics, a date; else "other", perhaps a key variable by content."""
    name, kind, order, notes, kv, special = e.name, e.kind, e.order, e.notes, e.kv, e.special
    if special is not None and special.key in OBSERVABLE:
        return _observable_special(e, special)
    if special is not None and special.article:
        notes = notes + ["what a person would not want known", _special_note(special, _how(e))]
        return _Drafted(Column(name, "sensitive", kind, notes, order, special_category=special.key))
    if special is not None and _banded(e):  # income bands: known roughly from elsewhere (the IHSN's key variables)
        notes = notes + [
            f"known from elsewhere: {special.label} in {len(e.distinct)} bands ({_how(e)}); confidential too"
        ]
        return _Drafted(Column(name, "quasi_identifier", kind, notes, order), "economic")
    if special is not None:  # confidential economics before key variables: employment_income
        notes = notes + [f"confidential: {special.label} ({_how(e)})"]
        return _Drafted(Column(name, "sensitive", kind, notes, order))
    if kv is not None and kv.weak is None:
        notes = notes + [f"known from elsewhere: {kv.category.label} ({kv.how})"]
        return _Drafted(Column(name, "quasi_identifier", kind, notes, order), kv.category.key)
    if order is not None and notes and notes[0].startswith("dates"):
        notes = notes + ["known from elsewhere: a date of an event (its values are dates)"]
        return _Drafted(Column(name, "quasi_identifier", kind, notes, order), "date")
    finding, candidate = e.finding, False
    if kv is not None:  # hrs_work, time_to_work
        notes = notes + [f"not a key variable: {kv.weak} ({kv.category.label}, {kv.how})"]
    if finding is not None:
        notes = notes + [f"possibly {finding.label} ({finding.share:.0%}, {finding.confidence} confidence): review"]
    elif kv is None and _says_nothing(e.parts) and 2 <= len(e.distinct) <= MAX_CODES:
        candidate = True
    return _Drafted(
        Column(name, "other", kind, notes or ["not named as identifying or sensitive"], order), None, candidate
    )


def _add_key_variables_by_content(
    columns: list[Column], codes: Codes, candidates: list[str], distincts: dict[str, np.ndarray]
) -> list[str]:
    """Columns whose header says nothing become quasi-identifiers where their codes make records unique;
    what a cap left out (said in the draft)."""
    by_name = {c.name: c for c in columns}
    qis = [c.name for c in columns if c.role == "quasi_identifier"]
    left_out = []
    if len(candidates) > MAX_CANDIDATES:
        left_out.append(
            f"{len(candidates) - MAX_CANDIDATES} coded columns whose header says nothing, past the first "
            f"{MAX_CANDIDATES}, were not weighed as key variables: review them"
        )
    for name, gain in unique_makers(codes, qis, candidates[:MAX_CANDIDATES]):
        col = by_name[name]
        col.role = "quasi_identifier"
        col.notes = [n for n in col.notes if n != "not named as identifying or sensitive"] + [
            f"by content: {len(distincts[name])} codes whose combination with the other key variables makes "
            f"{gain:.1%} more records unique (the header says nothing: review)"
        ]
    return left_out


def _add_derived(columns: list[Column], codes: Codes, given: set[str], category: dict[str, str]) -> None:
    """A column whose values map one to one to a quasi-identifier's (``agesq`` and ``age``) gives it back:
    drafted a quasi-identifier with it, so that generalizing one does not leave the other exact."""
    qis = [c for c in columns if c.role == "quasi_identifier"]
    cardinality = {c.name: codes.of(c.name)[1] for c in columns}
    for col in columns:
        if col.role != "other" or col.name in given or cardinality[col.name] < 2:
            continue
        for qi in qis:
            if cardinality[qi.name] == cardinality[col.name] and (
                int(codes.classes([col.name, qi.name]).max()) + 1 == cardinality[qi.name]
            ):
                col.role = "quasi_identifier"
                col.notes = [n for n in col.notes if n != "not named as identifying or sensitive"] + [
                    f"derived from {qi.name}: its values map one to one to {qi.name}'s, so it gives {qi.name} back"
                ]
                if qi.name in category:
                    category[col.name] = category[qi.name]
                break


def _add_dummy_siblings(columns: list[Column], frame: pd.DataFrame, given: set[str], category: dict[str, str]) -> None:
    """The dummies of one variable (:mod:`privaudit.discovery.dummies`) are key variables together: where one of
    them is a quasi-identifier, its siblings left ``other`` become quasi-identifiers of its category."""
    from privaudit.discovery.dummies import one_hot_groups

    by_name = {c.name: c for c in columns}
    for group in one_hot_groups(frame, [c.name for c in columns]):
        keys = [n for n in group if by_name[n].role == "quasi_identifier"]
        if not keys:
            continue
        for name in group:
            col = by_name[name]
            if col.role != "other" or name in given:
                continue
            col.role = "quasi_identifier"
            col.notes = [n for n in col.notes if n != "not named as identifying or sensitive"] + [
                f"one of {len(group)} dummies no record has two of ({', '.join(group)}): one variable, "
                f"a key variable as {keys[0]} is"
            ]
            if keys[0] in category:
                category[name] = category[keys[0]]


def _add_hierarchies(
    columns: list[Column], distincts: dict[str, np.ndarray], frame: pd.DataFrame | None = None
) -> dict[str, str]:
    """A hierarchy for each quasi-identifier that has a builder; the files' texts by file name. A numeric
    quasi-identifier of magnitudes (ages, years) stays numeric without a file: ``remediate`` builds the same
    intervals for generalization, and microaggregation can work on its numbers."""
    hierarchies: dict[str, str] = {}
    taken: set[str] = set()  # file names already given, case-folded (age (years) and age [years] differ)
    for col in columns:
        if col.role == "quasi_identifier":
            values = frame[col.name] if frame is not None else distincts[col.name]
            drafted = _hierarchy_for(set(tokens(col.name)), col.type, col.order, col.notes, values)
            if drafted is not None and col.type == "numeric" and drafted[1].startswith("numbers"):
                col.notes = [
                    drafted[1] + " is built by remediate; numeric, so that microaggregation can work on it"
                ] + col.notes
                continue
            if drafted is not None:
                stem, n = _file_name(col.name), 2
                while f"{stem}.csv".casefold() in taken:
                    stem, n = f"{_file_name(col.name)}-{n}", n + 1
                taken.add(f"{stem}.csv".casefold())
                col.hierarchy = f"hierarchies/{stem}.csv"
                hierarchies[col.hierarchy] = drafted[0]
                # nominal, so that the generalized labels fit the same policy (module docstring)
                col.type, col.order = "nominal", None
                col.notes = [drafted[1] + "; nominal, so that generalization can publish its labels"] + [
                    n for n in col.notes if not n.startswith(("dates:", "number ranges:"))
                ]
    return hierarchies


#: the key-variable categories an intruder knows best, most important first (suppressed last)
_FIRST = ("sex", "age", "geography")


def importance(qis: list[str], category: dict[str, str]) -> dict[str, int]:
    """Each quasi-identifier's ``importance`` (1 = most important, suppressed last, as sdcMicro's
    ``localSuppression(importance=)``): sex, age and geography first, as the ESSnet handbook (Hundepool et
    al. 2012, section 3.3) and the IHSN guide rank what an intruder most surely knows; the rest in the
    table's order."""
    rank = {key: i for i, key in enumerate(_FIRST)}
    ordered = sorted(qis, key=lambda q: (rank.get(category.get(q, ""), len(_FIRST)), qis.index(q)))
    return {q: i for i, q in enumerate(ordered, start=1)}


#: tables of more rows have their key variables by content weighed on a sample of this many rows
CONTENT_ROWS = 100_000


def _content_rows(frame: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """The rows key variables are weighed on: all of them, or a seeded random sample of a large table, said in
    the draft. A sample cannot hide a key variable: a combination's classes are smaller in a sample, so it
    makes at least as large a share of the sample's records unique as of the table's (Hundepool et al. 2012,
    section 3.4.2: sample uniques outnumber population uniques)."""
    if len(frame) <= CONTENT_ROWS:
        return frame, []
    sample = frame.sample(n=CONTENT_ROWS, random_state=0)
    note = (
        f"key variables by content were weighed on a random sample of {CONTENT_ROWS:,} of the {len(frame):,} "
        "rows; the shares of uniques are of the whole table"
    )
    return sample, [note]


def draft(
    frame: pd.DataFrame,
    source: str,
    profile: dict | None = None,
    roles: dict[str, str] | None = None,
    starter: Starter | None = None,
    labels: dict[str, str] | None = None,
) -> Draft:
    """Draft a policy for ``frame`` (every column as text; missing values as empty strings). ``roles``
    fixes the roles the user knows (``init --role COLUMN=ROLE``); the rest is drafted around them.
    ``labels`` are the columns' variable labels, evidence as the headers are (``init --labels``; a reader of
    SPSS, Stata or SAS files would hand its own). ``starter`` writes the checks (``privaudit init`` passes
    the built-in starter checks); without it the draft has roles, hierarchies and scenarios but no checks."""
    if frame.shape[1] < 2:
        raise DataError(f"{source}: a table needs at least two columns to draft a policy (it has {frame.shape[1]})")
    if len(frame) == 0:
        raise DataError(f"{source}: the table has a header but no data rows")
    roles, labels = dict(roles or {}), dict(labels or {})
    _refuse_unknown_roles(roles, [str(c) for c in frame.columns], source)
    sample = frame.head(SAMPLE_ROWS)
    columns: list[Column] = []
    kv_category: dict[str, str] = {}  # quasi-identifier -> key-variable category key
    candidates: list[str] = []  # columns whose header says nothing: key variables by content?
    distincts: dict[str, np.ndarray] = {}
    for name in map(str, frame.columns):
        e = _evidence(name, frame, sample, labels.get(name))
        distincts[name] = e.distinct
        if name in roles:
            drafted = _given_role(e, roles[name], source)
        else:
            structural = _structural_role(e, frame)
            drafted = _Drafted(structural) if structural is not None else _meaning_role(e)
        columns.append(drafted.column)
        if drafted.category is not None:
            kv_category[name] = drafted.category
        if drafted.candidate:
            candidates.append(name)
    if sum(c.role == "weight" for c in columns) > 1:  # one sampling weight: the first, the rest stay other
        for c in [c for c in columns if c.role == "weight" and c.name not in roles][1:]:
            c.role, c.notes = "other", c.notes + ["named like a weight, but the table's weight is another column"]
    rows, limits_applied = _content_rows(frame)
    codes = Codes(rows)
    limits_applied += _add_key_variables_by_content(columns, codes, candidates, distincts)
    whole = Codes(frame)
    _add_derived(columns, whole, set(roles), kv_category)
    _add_dummy_siblings(columns, frame, set(roles), kv_category)
    hierarchies = _add_hierarchies(columns, distincts, frame)
    qis = [c.name for c in columns if c.role == "quasi_identifier"]
    for c in columns:
        c.importance = importance(qis, kv_category).get(c.name)
    full = codes.unique_share(qis)
    ranking = sorted(
        ((q, full - codes.unique_share([x for x in qis if x != q])) for q in qis), key=lambda item: -item[1]
    )
    demographic = [q for q in qis if kv_category.get(q) in DEMOGRAPHIC]
    scenarios: dict[str, list[str]] = {}
    if demographic and len(demographic) < len(qis):
        scenarios["demographics"] = demographic
    if qis:
        scenarios["all_key_variables"] = qis
    counts = {name: whole.unique_count(cols) for name, cols in scenarios.items()}
    uniques = {name: count / len(frame) for name, count in counts.items()}
    checks, limits = _starter_checks(starter, profile, columns, bool(qis), scenarios)
    return Draft(
        columns,
        checks,
        hierarchies,
        ranking,
        scenarios=scenarios,
        uniques=uniques,
        unique_limits=limits,
        unique_counts=counts,
        rows=len(frame),
        limits_applied=limits_applied,
    )


#: ambiguous header words (``pid``: party identification or person id) that need a coded column
_CODED_ONLY = ("political",)
#: at most this many columns whose header says nothing are weighed as key variables by content (each step of
#: the greedy selection weighs every one left); past it, the draft says so
MAX_CANDIDATES = 200


def _file_name(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", str(name)).strip("._") or "column"
