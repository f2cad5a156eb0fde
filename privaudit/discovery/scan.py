"""Scan every column of a release for direct identifiers, declared or not.

For each column the scan reads a bounded sample -- its first :data:`SAMPLE_ROWS` rows, the same rows
whatever the engine -- and combines three kinds of evidence:

* the header (:mod:`privaudit.discovery.headers`; not required: ``col_17`` full of e-mail addresses is
  found by its values);
* the values' forms and check digits (:mod:`privaudit.discovery.recognizers`), run over the sample's
  distinct values and weighted by their counts; person names against Faker's name lists
  (:mod:`privaudit.discovery.names`); free text searched for e-mail addresses, URLs, IP addresses,
  international phone numbers and SSNs;
* uniqueness: a column whose sampled values are (nearly) all distinct codes, or consecutive integers,
  or has an identifier-like header, is a record key (HIPAA's "any other unique identifying number").

A *strong* recognizer's match is evidence on its own when at least ``min_share`` of the sampled values
match (and pass their check digits); a weak one (plain 9- or 11-digit numbers, licence plates, local
phone numbers, VINs) also needs a header of its kind. What is not found: numbers, years, money amounts,
counts, low-cardinality categories, organisation names (the name lists hold people's names).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from privaudit.common.numeric import to_numeric
from privaudit.discovery.headers import HEADER_KINDS, header_kinds
from privaudit.discovery.names import has_full_name_shape, name_shares
from privaudit.discovery.recognizers import RECOGNIZERS, TEXT_KINDS, compacted

SAMPLE_ROWS = 10_000
#: the share of sampled values a header-supported weak recognizer needs
HEADER_SHARE = 0.3
KEY_UNIQUENESS = 0.95  # distinct / sampled values for a record key
MIN_KEY_SAMPLE = 20
MIN_ROW_NUMBERS = 100  # consecutive integers in row order read as row numbers from this many rows on
MIN_NAMES = 20  # distinct values a column of person names has at the least
MAX_VALUE = 256  # longer values are not matched as one identifier (a 3 MB field costs no regex time)
MAX_TEXT = 2_000  # free text is searched in its first characters
TEXT_SHARE = 0.05  # free text: this share of values holding an identifier


@dataclass
class Finding:
    """A column found to hold direct identifiers."""

    column: str
    kind: str
    label: str
    share: float  # of the sampled non-missing values
    examples: list[str]  # masked
    evidence: list[str] = field(default_factory=list)
    confidence: str = "high"  # "high" or "medium"

    def to_dict(self) -> dict:
        return {
            "column": self.column,
            "kind": self.kind,
            "label": self.label,
            "share": round(self.share, 4),
            "examples": self.examples,
            "evidence": self.evidence,
            "confidence": self.confidence,
        }


# ------------------------------------------------------------------------------------------ masking
_RUN = re.compile(r"[^\W_]+")


def mask(value: str, kind: str = "") -> str:
    """A value shown without showing it: every run of letters or digits keeps its first character, then
    ``***`` (``john.smith@example.org`` -> ``j***.s***@e***.org``: an e-mail address keeps its top-level
    domain). Separators stay, so the form can still be recognised."""
    text = str(value)
    if kind == "email" and "@" in text:
        local, _, domain = text.rpartition("@")
        head, _, tld = domain.rpartition(".")
        return f"{mask(local)}@{mask(head)}.{tld}" if head else f"{mask(local)}@{mask(domain)}"
    return _RUN.sub(lambda m: m.group(0)[0] + "***", text)[:60]


# ------------------------------------------------------------------------------------------ sampling
def column_sample(series: pd.Series) -> tuple[np.ndarray, np.ndarray, int]:
    """(distinct values as text, their counts, number of non-missing values) of a column's sample. Numbers
    are written as the text they came from would be (integers without ``.0``)."""
    values = series.dropna()
    if isinstance(values.dtype, pd.CategoricalDtype):
        values = values.astype(str)
    elif pd.api.types.is_float_dtype(values.dtype):
        arr = values.to_numpy(dtype=float)
        whole = np.isfinite(arr) & (arr == np.round(arr)) & (np.abs(arr) < 1e15)
        values = (
            pd.Series(np.where(whole, arr.astype(np.int64).astype(str), arr.astype(str)), dtype=object)
            if whole.all()
            else pd.Series(arr.astype(str), dtype=object)
        )
    else:
        values = values.astype(str)
    values = values.str.strip()
    values = values[values != ""]
    counts = values.value_counts(sort=False)
    return counts.index.to_numpy(dtype=object), counts.to_numpy(), int(len(values))


# ------------------------------------------------------------------------------------------ scan
def scan_column(name: str, series: pd.Series) -> Finding | None:
    """The strongest finding in one column's sample, or None."""
    distinct, counts, n = column_sample(series)
    if n == 0:
        return None
    hinted = header_kinds(name)
    wanted = {kind for h in hinted for kind in HEADER_KINDS.get(h, ())}
    text = pd.Series(distinct, dtype=object).str.slice(0, MAX_TEXT)  # free text is searched in its beginning
    short = np.fromiter((len(v) <= MAX_VALUE for v in distinct), dtype=bool, count=len(distinct))
    best: Finding | None = None
    for r in RECOGNIZERS:
        if not r.strong and r.kind not in wanted:
            continue
        values = compacted(distinct) if r.compact else distinct
        candidates = pd.Series(np.where(short, values, ""), dtype=object)  # identifiers are short values
        hit = candidates.str.fullmatch(r.pattern, case=False).to_numpy(dtype=bool) & short
        formed = int(hit.sum())
        if hit.any() and r.check is not None:
            ok = np.zeros(len(hit), dtype=bool)
            ok[hit] = _checked(r.check, np.asarray(values[hit], dtype=object), counts[hit])
            hit = ok
        share = float(counts[hit].sum()) / n
        need = HEADER_SHARE if r.kind in wanted else r.min_share
        published = r.strong and _published(share, int(hit.sum()), formed)
        if (share >= need or published) and (best is None or share > best.share):
            evidence = [f"{share:.0%} of sampled values look like {r.label}"]
            if r.check is not None:
                evidence[0] += " (check digits valid)"
            if share < need:
                evidence.append(f"fewer than {need:.0%} of the values, but each one published identifies a person")
            if r.kind in wanted:
                evidence.append(f"the header {name!r} says so")
            best = Finding(name, r.kind, r.label, share, _examples(distinct[hit], r.kind), evidence)
    if best is not None:
        return best
    return (
        _names(name, distinct, counts, n, "person_name" in hinted)
        or _free_text(name, text, counts, n)
        or _record_key(name, series, distinct, n, "record_key" in hinted)
    )


#: a strong recognizer's matches below its ``min_share`` still publish identifiers from this share of the sampled
#: values on (a column half of whose values are valid social security numbers publishes them all the same) ...
PUBLISHED_SHARE = 0.05
#: ... when at least this many distinct values match and nearly all that have the form pass their check digits
#: (random numbers pass a Luhn check one time in ten: a few matches among codes are chance)
PUBLISHED_VALUES, PUBLISHED_VALID = 5, 0.9


def _published(share: float, valid: int, formed: int) -> bool:
    """Whether a strong recognizer's matches, too few for its ``min_share``, are still identifiers published."""
    return share >= PUBLISHED_SHARE and valid >= PUBLISHED_VALUES and valid >= PUBLISHED_VALID * formed


#: check digits are verified on at most this many distinct matched values of a column's sample
MAX_CHECKED = 1_000


def _checked(check, values: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """``check`` (a per-value library validator) on the matched distinct values; past :data:`MAX_CHECKED`
    of them, on the most frequent :data:`MAX_CHECKED`, the rest given the verdict of their majority (a
    share of the sample is all a finding needs)."""
    if len(values) <= MAX_CHECKED:
        return np.asarray(check(values), dtype=bool)
    order = np.argsort(-counts, kind="stable")[:MAX_CHECKED]
    out = np.full(len(values), False)
    verdict = np.asarray(check(values[order]), dtype=bool)
    out[:] = verdict.mean() >= 0.5
    out[order] = verdict
    return out


def _examples(values: np.ndarray, kind: str, count: int = 3) -> list[str]:
    """Up to ``count`` masked examples, different from each other where the values allow."""
    out: list[str] = []
    for value in list(values[:200]):
        masked = mask(value, kind)
        if masked not in out:
            out.append(masked)
        if len(out) == count:
            break
    return out


def _names(name: str, distinct: np.ndarray, counts: np.ndarray, n: int, hinted: bool) -> Finding | None:
    alphabetic = (
        pd.Series(distinct, dtype=object)
        .str.slice(0, MAX_VALUE)
        .str.fullmatch(r"[^\W\d_]+(?:[\s,.'-]+[^\W\d_]+){0,3}\.?")
    )
    alphabetic = alphabetic.to_numpy(dtype=bool)
    if float(counts[alphabetic].sum()) / n < 0.5:
        return None
    if len(distinct) < (5 if hinted else MIN_NAMES):
        return None  # a handful of repeated labels ("North America") is a category, not people's names
    if not hinted and not has_full_name_shape(distinct[alphabetic]):
        return None  # no full name can be found, and only a header makes single known words count
    full, known = _weighted_name_shares(distinct[alphabetic], counts[alphabetic], n)
    if full >= 0.5:
        return Finding(
            name,
            "person_name",
            "person names",
            full,
            _examples(distinct[alphabetic], "person_name"),
            [f"{full:.0%} of sampled values are a known first name with a known last name"],
        )
    if hinted and known >= HEADER_SHARE:
        return Finding(
            name,
            "person_name",
            "person names",
            known,
            _examples(distinct[alphabetic], "person_name"),
            [f"{known:.0%} of sampled values are known first or last names", f"the header {name!r} says names"],
        )
    return None


def _weighted_name_shares(values: np.ndarray, counts: np.ndarray, n: int) -> tuple[float, float]:
    full = known = 0.0
    for value, count in zip(values, counts, strict=False):  # distinct values of a bounded sample
        f, k = name_shares(np.array([value], dtype=object))
        full += f * count
        known += k * count
    return full / n, known / n


_TEXT = {r.kind: r for r in RECOGNIZERS if r.kind in TEXT_KINDS}


def _free_text(name: str, text: pd.Series, counts: np.ndarray, n: int) -> Finding | None:
    lengths = text.str.len().to_numpy(dtype=float)
    spaced = text.str.contains(" ", regex=False).to_numpy(dtype=bool)
    if float((counts * lengths).sum()) / n < 25 or float(counts[spaced].sum()) / n < 0.5:
        return None
    for kind in TEXT_KINDS:
        r = _TEXT[kind]
        pattern = r.pattern.replace("(?:", "(?:", 1)
        hit = text.str.contains(rf"(?<![\w@.]){pattern}(?![\w@])", case=False, regex=True).to_numpy(dtype=bool)
        share = float(counts[hit].sum()) / n
        if share >= TEXT_SHARE:
            found = text[hit].str.extract(rf"({pattern})", flags=re.IGNORECASE)[0].to_numpy(dtype=object)
            return Finding(
                name,
                f"free_text:{kind}",
                f"free text holding {r.label}",
                share,
                _examples(found, kind),
                [f"{share:.0%} of sampled texts contain {r.label}"],
            )
    return None


def _record_key(name: str, series: pd.Series, distinct: np.ndarray, n: int, hinted: bool) -> Finding | None:
    if n < MIN_KEY_SAMPLE or len(distinct) / n < KEY_UNIQUENESS:
        return None
    numeric = to_numeric(pd.Series(distinct, dtype=object), errors="coerce").to_numpy(dtype=float)
    if np.isfinite(numeric).all():
        if not (numeric == np.round(numeric)).all():
            return None  # measurements and money amounts with decimals are not keys
        span = numeric.max() - numeric.min() + 1
        in_rows = to_numeric(series.dropna().astype(str), errors="coerce").to_numpy(dtype=float)
        consecutive = (
            span <= 1.1 * len(distinct) and n >= MIN_ROW_NUMBERS and bool(np.all(np.diff(in_rows) > 0))
        )  # increasing in row order: a row number
        if not (hinted or consecutive):
            return None  # unique whole numbers (amounts, counts) without an identifier header
        evidence = [f"{len(distinct) / n:.0%} of sampled values are distinct"]
        evidence.append(
            "they are consecutive integers (a row number)"
            if consecutive and not hinted
            else f"the header {name!r} names an identifier"
        )
        return Finding(
            name,
            "record_key",
            "record keys",
            len(distinct) / n,
            _examples(distinct, "record_key"),
            evidence,
            "high" if hinted else "medium",
        )
    codes = pd.Series(distinct, dtype=object).str.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_./:#-]{3,39}")
    share = float(codes.mean())
    if share < 0.9 or not (hinted or pd.Series(distinct).str.contains(r"\d").mean() > 0.9):
        return None
    return Finding(
        name,
        "record_key",
        "record keys",
        len(distinct) / n,
        _examples(distinct, "record_key"),
        [f"{len(distinct) / n:.0%} of sampled values are distinct codes"]
        + ([f"the header {name!r} names an identifier"] if hinted else []),
        "high" if hinted else "medium",
    )


def scan_frame(frame: pd.DataFrame, columns: list[str] | None = None) -> list[Finding]:
    """Findings of every column (or of ``columns``) of ``frame``'s first :data:`SAMPLE_ROWS` rows."""
    sample = frame.head(SAMPLE_ROWS)
    out = []
    for column in columns if columns is not None else list(sample.columns):
        finding = scan_column(str(column), sample[column])
        if finding is not None:
            out.append(finding)
    return out
