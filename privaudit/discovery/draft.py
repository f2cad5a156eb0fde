"""A complete, valid, commented policy drafted from a table (``privaudit init``).

Every column gets a role and a type with the evidence as a YAML comment:

* ``identifier`` -- the identifier scan's findings (:mod:`privaudit.discovery.scan`);
* ``weight`` -- a positive numeric column whose header says weight (``weight``, ``wgt``, ``fnlwgt``,
  ``poids``, ``gewicht``, ``peso``, ``factor``);
* ``household_id`` -- a column whose header says household id (``hid``, ``hhid``, ``household``/``hh`` with
  ``id``/``nr``) and whose values repeat (several records per household), as in sdcMicro's testdata's
  ``ori_hid``: the uniqueness check then counts k in households and gives household risk;
* ``quasi_identifier`` -- what an intruder can know from elsewhere, by header (date of birth, postcode,
  age, sex, geography, marital status, race or ethnicity, education, work class, nationality);
  candidates are ranked by how much each adds to sample uniqueness: the drop in sample-unique records
  when it is left out;
* ``sensitive`` -- by header (diagnosis, disease, health, income, salary, religion, occupation ...);
* ``other`` -- the rest.

Types: ``numeric`` when every value is a number; ``ordinal`` with an ``order`` for dates and number ranges
(``20-29``, ``[30, 40)``); ``nominal`` otherwise (a column mixing numbers and text is nominal, with a comment
saying so). Numeric quasi-identifiers get an interval hierarchy (5, 10, 20 wide, then ``*``), or a flat one
(each value, then ``*``) when they hold at most :data:`CODES` distinct values spanning less than :data:`CODES`
(coded categories such as sex 1/2, where intervals would mean nothing); postcodes (a header such as ``zip``,
``postcode``, ``plz``, every value the same number of digits) a masking hierarchy, one more trailing digit
replaced by ``*`` per level, as ARX's example ZIP-code hierarchies do (``47677;4767*;476**;47***;4****;*``);
date quasi-identifiers a date hierarchy (day, month, year, decade, ``*``), written as ARX-style CSV files
beside the policy. A quasi-identifier with a hierarchy is typed ``nominal`` (its leaves are the values as
written in the file), so that ``remediate --method generalize`` can publish the hierarchy's labels with the
drafted policy unchanged: a numeric or ordinal column cannot hold labels such as ``20-24``. The starter checks
are k-anonymity, distinct l-diversity and t-closeness on each sensitive column, and uniqueness -- or a
profile's (``policies/profiles/``).
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from privaudit.core.errors import DataError
from privaudit.discovery.headers import tokens
from privaudit.discovery.scan import SAMPLE_ROWS, column_sample, scan_column

_QI_WORDS = {"age", "birth", "birthdate", "dob", "born", "sex", "gender", "zip", "zipcode", "postcode", "postal",
             "plz", "cp", "city", "town", "municipality", "county", "district", "region", "state", "province",
             "country", "nationality", "native", "citizenship", "marital", "race", "ethnicity", "ethnic",
             "education", "degree", "workclass", "alter", "geschlecht", "geburtsdatum", "wohnort", "ort", "sexe",
             "naissance", "ville", "edad", "sexo", "nacimiento", "eta", "sesso", "leeftijd", "geslacht", "geboortedatum"}
_SENSITIVE_WORDS = {"diagnosis", "disease", "illness", "condition", "health", "income", "salary", "wage", "religion",
                    "hiv", "treatment", "medication", "drug", "occupation", "diagnose", "krankheit", "einkommen",
                    "maladie", "revenu", "salaire", "enfermedad", "ingresos", "malattia", "reddito"}
_WEIGHT_WORDS = {"weight", "wgt", "fnlwgt", "poids", "gewicht", "peso", "factor", "expansion"}
_HOUSEHOLD_IDS = {"hid", "hhid", "householdid"}
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


@dataclass
class Draft:
    columns: list[Column]
    checks: list[dict]
    hierarchies: dict[str, str]  # relative path -> CSV text
    qi_ranking: list[tuple[str, float]]
    delimiter: str | None = None

    def yaml_text(self, source: str, profile: str | None) -> str:
        lines = [f"# Drafted by `privaudit init` from {source}" + (f", starting from the profile {profile!r}" if profile
                                                                  else "") + ".",
                 "# Review every role: the evidence of each choice is in the comment beside it.",
                 "version: 1", f"name: {json.dumps(Path(source).stem + ' release', ensure_ascii=False)}"]
        if self.delimiter:
            lines.append(f"data: {{delimiter: {json.dumps(self.delimiter)}}}")
        if self.qi_ranking:
            lines.append("# Quasi-identifiers ranked by the share of records that stop being unique when the column "
                         "is left out:")
            lines += [f"#   {name}: {drop:.1%}" for name, drop in self.qi_ranking]
        lines.append("columns:")
        for c in self.columns:
            spec = {"role": c.role}
            if c.role != "identifier":
                spec["type"] = c.type
            if c.order is not None:
                spec["order"] = c.order
            if c.hierarchy is not None:
                spec["hierarchy"] = c.hierarchy
            key = yaml.safe_dump([c.name], default_flow_style=True, allow_unicode=True, width=10**6).strip()[1:-1]
            value = yaml.safe_dump(spec, default_flow_style=True, allow_unicode=True, width=10**6,
                                   sort_keys=False).strip()
            text = f"{key}: {value}"
            comment = f"  # {'; '.join(c.notes)}" if c.notes else ""
            lines.append(f"  {text}{comment}")
        if not any(c.role == "quasi_identifier" for c in self.columns):
            lines.append("# No column's header names a quasi-identifier: mark the columns an intruder can know from "
                         "elsewhere,")
            lines.append("# then add the class-based checks (k_anonymity, l_diversity, t_closeness, uniqueness).")
        lines.append("checks:" if self.checks else "checks: []")
        for check in self.checks:
            lines.append("  - " + yaml.safe_dump(check, default_flow_style=True, width=10**6, sort_keys=False).strip())
        return "\n".join(lines) + "\n"


def _is_number(values: np.ndarray) -> np.ndarray:
    return np.isfinite(pd.to_numeric(pd.Series(values, dtype=object), errors="coerce").to_numpy(dtype=float))


def _type_of(name: str, distinct: np.ndarray) -> tuple[str, list[str] | None, list[str]]:
    numbers = _is_number(distinct)
    if len(distinct) and numbers.all():
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


_POSTCODE_WORDS = {"zip", "zipcode", "postcode", "postal", "plz", "cp", "postleitzahl"}


def _masking_hierarchy(distinct: np.ndarray) -> tuple[str, str] | None:
    """Postcodes of one length: each level masks one more trailing digit (the last level is ``*``)."""
    raw = sorted(pd.Series(distinct, dtype=object).astype(str))
    if len(raw) < 2 or len({len(v) for v in raw}) != 1 or not all(v.isdigit() for v in raw):
        return None
    width = len(raw[0])
    rows = [";".join([v] + [v[:width - i] + "*" * i for i in range(1, width)] + ["*"]) for v in raw]
    return "\n".join(rows) + "\n", f"postcodes of {width} digits: a masking hierarchy (one more digit masked per level)"


#: A numeric quasi-identifier with at most this many distinct values is taken for coded categories.
CODES = 10


def _numeric_hierarchy(distinct: np.ndarray) -> tuple[str, str] | None:
    """An interval hierarchy (5, 10, 20 wide, ``*``) for whole numbers, a flat one for coded categories;
    with the note that says which. Leaves are the values as written (the column is typed nominal)."""
    raw = pd.Series(distinct, dtype=object).astype(str)
    numbers = pd.to_numeric(raw, errors="coerce").to_numpy(dtype=float)
    order = np.lexsort((raw.to_numpy(), numbers))
    raw, numbers = raw.to_numpy()[order], numbers[order]
    if len(raw) < 2 or len(raw) > 5000:
        return None
    if len(np.unique(numbers)) <= CODES and numbers.max() - numbers.min() < CODES:  # 1/2, 0-9: not magnitudes
        return "".join(f"{v};*\n" for v in raw), f"{len(raw)} codes: a flat hierarchy (value, then *)"
    if not (numbers == np.round(numbers)).all():
        return None
    rows = []
    for text, v in zip(raw, numbers):
        cells = [text]
        for width in (5, 10, 20):
            low = int(math.floor(v / width) * width)
            cells.append(f"{low}-{low + width - 1}")
        cells.append("*")
        rows.append(";".join(cells))
    return "\n".join(rows) + "\n", "whole numbers: an interval hierarchy (5, 10, 20 wide, then *)"


def _hierarchy_for(parts: set[str], kind: str, order: list[str] | None, notes: list[str],
                   distinct: np.ndarray) -> tuple[str, str] | None:
    """The drafted hierarchy of a quasi-identifier (CSV text, the note saying which), or None."""
    if parts & _POSTCODE_WORDS and (masked := _masking_hierarchy(distinct)) is not None:
        return masked
    if kind == "numeric":
        return _numeric_hierarchy(distinct)
    if order is not None and notes and notes[0].startswith("dates"):
        return _date_hierarchy(order), "dates: day, month, year, decade, then *"
    return None


def _date_hierarchy(order: list[str]) -> str:
    rows = [f"{d};{d[:7]};{d[:4]};{d[:3]}0s;*" for d in order]
    return "\n".join(rows) + "\n"


def _unique_share(frame: pd.DataFrame, columns: list[str]) -> float:
    if not columns:
        return 0.0
    sizes = frame.groupby(columns, dropna=False, observed=True).size()
    return float(sizes[sizes == 1].sum()) / max(len(frame), 1)


def draft(frame: pd.DataFrame, source: str, profile: dict | None = None) -> Draft:
    """Draft a policy for ``frame`` (every column as text; missing values as empty strings)."""
    if frame.shape[1] < 2:
        raise DataError(f"{source}: a table needs at least two columns to draft a policy (it has {frame.shape[1]})")
    if len(frame) == 0:
        raise DataError(f"{source}: the table has a header but no data rows")
    sample = frame.head(SAMPLE_ROWS)
    columns: list[Column] = []
    hierarchies: dict[str, str] = {}
    for name in frame.columns:
        series = sample[name].replace("", np.nan)
        n = int(series.notna().sum())
        parts = set(tokens(name))
        finding = scan_column(str(name), series) if n else None
        distinct, _, _ = column_sample(frame[name].replace("", np.nan))  # types and hierarchies: every value
        kind, order, notes = _type_of(name, distinct)
        if finding is not None and finding.confidence == "high":
            columns.append(Column(str(name), "identifier", "nominal",
                                  [f"{finding.share:.0%} look like {finding.label}"]))
            continue
        if parts & _WEIGHT_WORDS and kind == "numeric" and (pd.to_numeric(pd.Series(distinct)) > 0).all():
            columns.append(Column(str(name), "weight", "numeric", ["a positive number named like a sampling weight"]))
            continue
        if (parts & _HOUSEHOLD_IDS or (parts & _HOUSEHOLD_WORDS and parts & _ID_WORDS)) \
                and frame[name].replace("", np.nan).notna().all() and len(distinct) < len(frame):
            columns.append(Column(str(name), "household_id", kind, ["named like a household id; its values repeat "
                                                                    "(several records per household)"]))
            continue
        if parts & _QI_WORDS:
            col = Column(str(name), "quasi_identifier", kind, notes + ["known from elsewhere (its header)"], order)
            drafted = _hierarchy_for(parts, kind, order, notes, distinct)
            if drafted is not None:
                col.hierarchy = f"hierarchies/{_file_name(name)}.csv"
                hierarchies[col.hierarchy] = drafted[0]
                # nominal, so that the generalized labels fit the same policy (module docstring)
                col.type, col.order = "nominal", None
                col.notes = [drafted[1] + "; nominal, so that generalization can publish its labels",
                             "known from elsewhere (its header)"]
            columns.append(col)
        elif parts & _SENSITIVE_WORDS:
            columns.append(Column(str(name), "sensitive", kind, notes + ["what a person would not want known (its "
                                                                         "header)"], order))
        else:
            if finding is not None:
                notes = notes + [f"possibly {finding.label} ({finding.share:.0%}, {finding.confidence} confidence): "
                                 "review"]
            columns.append(Column(str(name), "other", kind, notes or ["not named as identifying or sensitive"], order))
    qis = [c.name for c in columns if c.role == "quasi_identifier"]
    typed = sample[qis].replace("", np.nan)
    full = _unique_share(typed, qis)
    ranking = sorted(((q, full - _unique_share(typed, [x for x in qis if x != q])) for q in qis),
                     key=lambda item: -item[1])
    sensitive = [c.name for c in columns if c.role == "sensitive"]
    checks = _checks(profile, sensitive, bool(qis), any(c.role == "weight" for c in columns))
    return Draft(columns, checks, hierarchies, ranking)


def _file_name(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", str(name)).strip("._") or "column"


def _checks(profile: dict | None, sensitive: list[str], has_qi: bool, has_weight: bool) -> list[dict]:
    """A profile's checks (its sensitive-column checks repeated for each drafted sensitive column), or the
    starter set."""
    if profile is not None:
        out = []
        for check in profile.get("checks", []):
            check = {k: v for k, v in check.items() if k != "id"}
            if "sensitive" in check:
                out += [{**check, "sensitive": s} for s in sensitive]
            elif has_qi or check.get("assessor") not in ("k_anonymity", "uniqueness"):
                if check.get("assessor") == "uniqueness" and not has_weight:
                    check.pop("individual_risk_threshold", None)
                out.append(check)
        return out
    checks: list[dict] = []
    if has_qi:
        checks.append({"assessor": "k_anonymity", "k": 5})
    for s in sensitive:
        checks.append({"assessor": "l_diversity", "sensitive": s, "l": 2})
        checks.append({"assessor": "t_closeness", "sensitive": s, "t": 0.2, "severity": "warning"})
    if has_qi:
        checks.append({"assessor": "uniqueness", "max_share": 0.0})
    return checks
