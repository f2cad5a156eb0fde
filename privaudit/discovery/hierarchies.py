"""Hierarchies built from a column's values, as a statistical office would draft them.

Shared by ``privaudit init`` (:mod:`privaudit.discovery.draft`) and by generalization of a quasi-identifier
the policy gives no hierarchy (:mod:`privaudit.remediation.generalization.builders`). The builders follow
ARX's (``org.deidentifier.arx.aggregates``, commit aacd487):

* **numbers** -- ``HierarchyBuilderIntervalBased``: intervals ``[min, max)`` repeated over the range, adjacent
  intervals grouped level by level, and its ``Range`` of bottom and top coding (values below the lower
  bound get ARX's out-of-bounds label ``<bound``; above the upper bound, ``bound+``). Where ARX asks the user
  for the bounds and the width, they are read from the distribution here: the bottom and top codes hold the
  1st and 99th percentiles of the records and all beyond (so one woman with 20 years of schooling joins the
  top code instead of being a class of her own; a code no wider than one interval is left out), the width the smallest of 1, 2, 5 x 10^e giving at most 20
  intervals between them, each level 2 or 5 times wider (widths nest: 1, 2, 10, 20, 100 ... or 5, 10, 20,
  100 ...), its codes moved inwards to its own width, until fewer than three groups are left;
* **postcodes** -- ``HierarchyBuilderRedactionBased``: one more trailing digit masked per level;
* **dates** -- ``HierarchyBuilderDate``: day, month, year, decade;
* **categories** -- ``HierarchyBuilderOrderBased`` groups adjacent values of an order; a domain of more
  than :data:`FLAT_MAX` values is ordered by frequency here and grouped rare values first: the values past
  the 50 most frequent become ``other``, then past the 10 most frequent, then ``*``;
* **known domains**, built semantically: US states (postal codes, names or FIPS codes) into the Census
  Bureau's 9 divisions and 4 regions; ISO 3166-1 alpha-2 country codes into continents (UN M49's
  grouping of Cyprus, Turkey and the Caucasus with Asia); years of schooling into ISCED 2011 levels (the
  usual 6 + 3 + 3 school years: the level completed, so 11 years is lower secondary; 16 a bachelor's
  degree) and OECD's three attainment groups.

Every interval label comes from :func:`interval_label`, the one place its text is written.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from privaudit.common.numeric import to_numeric

#: A categorical domain with at most this many values gets a flat hierarchy (value, then *).
FLAT_MAX = 50
#: A numeric column with at most this many values spanning less than this is taken for coded categories.
CODES = 10
#: The most intervals between the bottom and the top code.
MAX_INTERVALS = 20
#: Percentiles of the records where the bottom and the top code go.
CODE_QUANTILES = (0.01, 0.99)

_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
MAX_POSTCODE_DIGITS = 12  # the world's postcodes have at most 10 characters
POSTCODE_WORDS = frozenset(
    {"zip", "zipcode", "postcode", "postal", "plz", "cp", "postleitzahl", "postalcode", "codicepostale", "codigopostal"}
)
STATE_WORDS = frozenset({"state", "states", "statefip", "stfips", "st"})
COUNTRY_WORDS = frozenset({"country", "countries", "nation", "nationality", "citizenship", "iso2", "birthplace"})
SCHOOLING_WORDS = frozenset({"educ", "education", "schooling", "school", "yrsed", "yrseduc", "yearsed", "edyears"})


def interval_label(low: float, high: float | None, whole: bool, *, below: bool = False, closed: bool = False) -> str:
    """The label of an interval ``[low, high)``: ``15-19`` for whole numbers, ``[15, 20)`` otherwise; a top code
    (``high`` None) ``80+``; a bottom code (``below``) ARX's ``<15``. Below zero, whole numbers read as closed
    brackets (``[-5, -1]``, every interval of the column when ``closed``: one style per column) and a top code
    as ``>=-5``: ``-5--1`` is hard to read, and a CSV cell that starts
    with ``-`` is taken for a formula, which the writer's guard would change (``remediation/export.py``)."""
    if below:
        return f"<{_num(low)}"
    if high is None:
        return f">={_num(low)}" if low < 0 else f"{_num(low)}+"
    if whole:
        if high - low == 1:
            return _num(low)
        return f"[{_num(low)}, {_num(high - 1)}]" if closed or low < 0 else f"{_num(low)}-{_num(high - 1)}"
    return f"[{_num(low)}, {_num(high)})"


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else format(x, ".10g")


# ---------------------------------------------------------------------------------------------- numbers
def _nice_width(span: float) -> float:
    """The smallest of 1, 2, 5 x 10^e at least ``span / MAX_INTERVALS``."""
    target = max(span / MAX_INTERVALS, 1e-12)
    exp = math.floor(math.log10(target))
    for e in (exp, exp + 1):
        for mantissa in (1, 2, 5):
            width = mantissa * 10.0**e
            if width >= target * (1 - 1e-12):
                return width
    return 10.0 ** (exp + 1)


def _next_width(width: float) -> float:
    mantissa = round(width / 10.0 ** math.floor(math.log10(width) + 1e-12))
    return width * (5 if mantissa == 2 else 2)


def _quantile(values: np.ndarray, counts: np.ndarray, q: float) -> float:
    order = np.argsort(values)
    cum = np.cumsum(counts[order])
    return float(values[order][min(np.searchsorted(cum, q * cum[-1]), len(values) - 1)])


#: Relative tolerance (of an interval's width) within which a value counts as lying on an interval's bound.
_GRID_TOLERANCE = 1e-9


def _grid_floor(numbers: np.ndarray[Any, Any], start: float, width: float) -> np.ndarray[Any, Any]:
    """The index of the interval ``[start + i * width, start + (i + 1) * width)`` holding each number, with a
    value on a bound placed above it despite float error: ``(7.0 - 6.6) / 0.2`` is 1.9999999999999996 in binary
    floating point, so a bare ``floor`` would put 7.0 into ``[6.8, 7)`` at one level and ``[7, 8)`` at the next,
    two parents for one interval (ARX's ``HierarchyBuilderIntervalBased`` compares exact decimal bounds)."""
    return np.asarray(np.floor((numbers - start) / width + _GRID_TOLERANCE), dtype=float)


def interval_levels(numbers: np.ndarray, counts: np.ndarray, whole: bool) -> list[list[str]]:
    """The levels above the leaves for the distinct ``numbers`` (ascending; each held by ``counts`` records): one list of
    labels per level, each aligned with ``numbers``; the last level is ``*``."""
    lo_q, hi_q = (_quantile(numbers, counts, q) for q in CODE_QUANTILES)
    lo, hi = float(numbers.min()), float(numbers.max())
    if hi_q <= lo_q:
        lo_q, hi_q = lo, hi
    width = _nice_width(hi_q - lo_q)
    if whole:
        width = max(width, 1.0)
    # the codes hold the 1st and 99th percentiles' values and all beyond (so at least 1 % of the records each)
    bottom = math.floor(lo_q / width) * width + width
    top = math.floor(hi_q / width) * width
    levels: list[list[str]] = []
    while True:
        b = math.ceil(bottom / width) * width
        t = math.floor(top / width) * width
        # a code no wider than an interval is none, unless a finer level has one (an "80+" stays a code above)
        b = b if lo < b - width or (levels and levels[-1][0].startswith("<")) else None
        top_coded = bool(levels) and levels[-1][-1].endswith("+") or bool(levels) and levels[-1][-1].startswith(">=")
        t = t if hi >= t + width or top_coded else None
        start = b if b is not None else math.floor(lo / width) * width
        stop = t if t is not None else math.floor(hi / width) * width + width
        groups = round((stop - start) / width) + (b is not None) + (t is not None)
        if stop <= start or groups < 3 or (levels and groups >= len(set(levels[-1]))):
            break
        low = _grid_floor(numbers, start, width) * width + start
        labels = [interval_label(x, x + width, whole, closed=whole and lo < 0) for x in low.tolist()]
        # the codes' bounds on the same grid (a value on a bound belongs above it, whatever the float error)
        eps = width * _GRID_TOLERANCE
        if b is not None:
            labels = [
                interval_label(b, None, whole, below=True) if v < b - eps else s
                for v, s in zip(numbers, labels, strict=True)
            ]
        if t is not None:
            labels = [
                interval_label(t, None, whole) if v >= t - eps else s for v, s in zip(numbers, labels, strict=True)
            ]
        if not levels and len(set(labels)) == len(numbers):  # nothing grouped yet: widen first
            width = _next_width(width)
            continue
        levels.append(labels)
        width = _next_width(width)
    levels.append(["*"] * len(numbers))
    return levels


def numeric_hierarchy(texts: np.ndarray, counts: np.ndarray) -> tuple[str, str] | None:
    """The hierarchy of a numeric column (distinct ``texts``, each held by ``counts`` records), with the note
    saying which: coded categories (few values on a short range) get a flat one."""
    numbers = to_numeric(pd.Series(texts, dtype=object), errors="coerce").to_numpy(dtype=float)
    ok = np.isfinite(numbers)
    texts, numbers, counts = np.asarray(texts, dtype=object)[ok], numbers[ok], np.asarray(counts)[ok]
    if len(texts) < 2 or len(texts) > 5000:
        return None
    order = np.lexsort((texts.astype(str), numbers))
    texts, numbers, counts = texts[order], numbers[order], counts[order]
    if len(np.unique(numbers)) <= CODES and numbers.max() - numbers.min() < CODES:  # 1/2, 0-9: not magnitudes
        return "".join(f"{v};*\n" for v in texts), f"{len(texts)} codes: a flat hierarchy (value, then *)"
    whole = bool((numbers == np.round(numbers)).all())
    levels = interval_levels(numbers, counts, whole)
    rows = [";".join([str(t), *(level[i] for level in levels)]) for i, t in enumerate(texts)]
    first = sorted(set(levels[0]) - {"*"}, key=levels[0].index)
    codes = [s for s in first if s.startswith("<") or s.endswith("+")]
    note = (
        f"numbers: intervals from the distribution ({len(levels) - 1} levels"
        + (f", bottom/top codes {' and '.join(codes)}" if codes else "")
        + ", then *)"
    )
    return "\n".join(rows) + "\n", note


# ----------------------------------------------------------------------------------------- known domains
_REGIONS = {
    "Northeast": {"New England": "CT ME MA NH RI VT", "Middle Atlantic": "NJ NY PA"},
    "Midwest": {"East North Central": "IL IN MI OH WI", "West North Central": "IA KS MN MO NE ND SD"},
    "South": {
        "South Atlantic": "DE DC FL GA MD NC SC VA WV",
        "East South Central": "AL KY MS TN",
        "West South Central": "AR LA OK TX",
    },
    "West": {"Mountain": "AZ CO ID MT NV NM UT WY", "Pacific": "AK CA HI OR WA"},
}
_STATE_NAMES = (
    "AL Alabama|AK Alaska|AZ Arizona|AR Arkansas|CA California|CO Colorado|CT Connecticut|DE Delaware|"
    "DC District of Columbia|FL Florida|GA Georgia|HI Hawaii|ID Idaho|IL Illinois|IN Indiana|IA Iowa|KS Kansas|"
    "KY Kentucky|LA Louisiana|ME Maine|MD Maryland|MA Massachusetts|MI Michigan|MN Minnesota|MS Mississippi|"
    "MO Missouri|MT Montana|NE Nebraska|NV Nevada|NH New Hampshire|NJ New Jersey|NM New Mexico|NY New York|"
    "NC North Carolina|ND North Dakota|OH Ohio|OK Oklahoma|OR Oregon|PA Pennsylvania|RI Rhode Island|"
    "SC South Carolina|SD South Dakota|TN Tennessee|TX Texas|UT Utah|VT Vermont|VA Virginia|WA Washington|"
    "WV West Virginia|WI Wisconsin|WY Wyoming"
)
_FIPS = (
    "AL 1|AK 2|AZ 4|AR 5|CA 6|CO 8|CT 9|DE 10|DC 11|FL 12|GA 13|HI 15|ID 16|IL 17|IN 18|IA 19|KS 20|KY 21|LA 22|"
    "ME 23|MD 24|MA 25|MI 26|MN 27|MS 28|MO 29|MT 30|NE 31|NV 32|NH 33|NJ 34|NM 35|NY 36|NC 37|ND 38|OH 39|OK 40|"
    "OR 41|PA 42|RI 44|SC 45|SD 46|TN 47|TX 48|UT 49|VT 50|VA 51|WA 53|WV 54|WI 55|WY 56"
)


def _state_table() -> dict[str, tuple[str, str]]:
    """Postal code, name (lower case, spaces or dots as written) and FIPS code -> (division, region)."""
    by_code = {
        code: (division, region)
        for region, divisions in _REGIONS.items()
        for division, codes in divisions.items()
        for code in codes.split()
    }
    table = {code.lower(): place for code, place in by_code.items()}
    for entry in _STATE_NAMES.split("|"):
        code, name = entry.split(" ", 1)
        table[name.lower()] = by_code[code]
        table[name.lower().replace(" ", ".")] = by_code[code]
        table[name.lower().replace(" ", "")] = by_code[code]
    for entry in _FIPS.split("|"):
        code, fips = entry.split()
        table[fips] = by_code[code]
        table[fips.zfill(2)] = by_code[code]
    return table


_CONTINENTS = {
    "Africa": "DZ AO BJ BW BF BI CV CM CF TD KM CG CD CI DJ EG GQ ER SZ ET GA GM GH GN GW KE LS LR LY MG MW ML MR "
    "MU YT MA MZ NA NE NG RE RW SH ST SN SC SL SO ZA SS SD TZ TG TN UG EH ZM ZW",
    "Asia": "AF AM AZ BH BD BT BN KH CN CY GE HK IN ID IR IQ IL JP JO KZ KW KG LA LB MO MY MV MN MM NP KP OM PK PS "
    "PH QA SA SG KR LK SY TW TJ TH TL TR TM AE UZ VN YE IO",
    "Europe": "AX AL AD AT BY BE BA BG HR CZ DK EE FO FI FR DE GI GR GG VA HU IS IE IM IT JE XK LV LI LT LU MT MD MC "
    "ME NL MK NO PL PT RO RU SM RS SK SI ES SJ SE CH UA GB",
    "North America": "AI AG AW BS BB BZ BM BQ VG CA KY CR CU CW DM DO SV GL GD GP GT HT HN JM MQ MX MS NI PA PR BL "
    "KN LC MF PM VC SX TT TC US VI UM",
    "South America": "AR BO BV BR CL CO EC FK GF GY PY PE GS SR UY VE",
    "Oceania": "AS AU CK FJ PF GU HM KI MH FM NR NC NZ NU NF MP PW PG PN WS SB TK TO TV VU WF CC CX",
    "Antarctica": "AQ TF",
}
_COUNTRY = {code: continent for continent, codes in _CONTINENTS.items() for code in codes.split()}

#: ISCED 2011 attainment (the highest level completed) of a number of years of schooling, with the usual
#: 6 primary, 3 lower and 3 upper secondary years: 10 or 11 years is lower secondary attained, not upper
_ISCED = [
    (0, "ISCED 0 (less than primary)", "below upper secondary (ISCED 0-2)"),
    (6, "ISCED 1 (primary)", "below upper secondary (ISCED 0-2)"),
    (9, "ISCED 2 (lower secondary)", "below upper secondary (ISCED 0-2)"),
    (12, "ISCED 3 (upper secondary)", "upper secondary (ISCED 3-4)"),
    (13, "ISCED 5 (short-cycle tertiary)", "tertiary (ISCED 5-8)"),
    (16, "ISCED 6 (bachelor)", "tertiary (ISCED 5-8)"),
    (17, "ISCED 7 (master)", "tertiary (ISCED 5-8)"),
    (19, "ISCED 8 (doctoral)", "tertiary (ISCED 5-8)"),
]


def us_states(texts: np.ndarray) -> str:
    """States (postal codes, names or FIPS codes) -> Census division -> Census region -> ``*``. ValueError
    names the first value that is no US state."""
    table = _state_table()
    rows = []
    for text in texts:
        place = table.get(str(text).strip().lower())
        if place is None:
            raise ValueError(f"{str(text)!r} is not a US state (postal code, name or FIPS code)")
        rows.append(f"{text};{place[0]};{place[1]};*")
    return "\n".join(rows) + "\n"


def countries(texts: np.ndarray) -> str:
    """ISO 3166-1 alpha-2 country codes -> continent -> ``*``. ValueError names the first unknown code."""
    rows = []
    for text in texts:
        continent = _COUNTRY.get(str(text).strip().upper())
        if continent is None:
            raise ValueError(f"{str(text)!r} is not an ISO 3166-1 alpha-2 country code")
        rows.append(f"{text};{continent};*")
    return "\n".join(rows) + "\n"


def schooling(texts: np.ndarray) -> str:
    """Years of schooling -> ISCED 2011 level -> OECD attainment group -> ``*``. ValueError names the first
    value that is not a whole number of years from 0 to 30."""
    starts = [s for s, _, _ in _ISCED]
    rows = []
    for text in texts:
        try:
            years = float(str(text))
        except ValueError:
            years = float("nan")
        if not (years == years and years == int(years) and 0 <= years <= 30):
            raise ValueError(f"{str(text)!r} is not a number of years of schooling (a whole number 0-30)")
        _, level, group = _ISCED[int(np.searchsorted(starts, years, side="right")) - 1]
        rows.append(f"{text};{level};{group};*")
    return "\n".join(rows) + "\n"


def postcodes(texts: np.ndarray) -> str:
    """Postcodes of one length in digits, one more trailing digit masked per level (ARX's
    ``HierarchyBuilderRedactionBased``). ValueError when they are not."""
    raw = sorted(str(v) for v in texts)
    if len({len(v) for v in raw}) != 1 or not all(v.isdigit() for v in raw):
        bad = next((v for v in raw if not v.isdigit()), raw[0])
        raise ValueError(f"{bad!r}: postcodes must all be digits of one length")
    width = len(raw[0])
    if width > MAX_POSTCODE_DIGITS:  # no postcode: a hierarchy of as many levels would be width^2 per value
        raise ValueError(f"postcodes of {width} digits: no postcode has more than {MAX_POSTCODE_DIGITS}")
    rows = [";".join([v] + [v[: width - i] + "*" * i for i in range(1, width)] + ["*"]) for v in raw]
    return "\n".join(rows) + "\n"


#: The semantic builders a user may ask for by name.
SEMANTIC = {"us_states": us_states, "countries": countries, "schooling": schooling, "postcodes": postcodes}
_NOTES = {
    "us_states": "US states: Census divisions, then regions, then *",
    "countries": "ISO country codes: continents, then *",
    "schooling": "years of schooling: ISCED 2011 levels, then OECD's three attainment groups, then *",
    "postcodes": "postcodes: a masking hierarchy (one more digit masked per level)",
}


def semantic(name: str, texts: np.ndarray) -> tuple[str, str]:
    """The hierarchy the semantic builder ``name`` gives ``texts``, and its note. ValueError for an unknown
    builder or a value it does not know."""
    builder = SEMANTIC.get(name)
    if builder is None:
        raise ValueError(f"unknown hierarchy builder {name!r} (known: {', '.join(SEMANTIC)})")
    return builder(texts), _NOTES[name]


def _recognised(parts: set[str], texts: np.ndarray, kind: str) -> tuple[str, str] | None:
    """A known domain recognised by the header and every value, or None."""
    candidates = []
    if parts & POSTCODE_WORDS:
        candidates.append("postcodes")
    if parts & STATE_WORDS:
        candidates.append("us_states")
    if parts & COUNTRY_WORDS:
        candidates.append("countries")
    if parts & SCHOOLING_WORDS and kind == "numeric":
        candidates.append("schooling")
    for name in candidates:
        try:
            return semantic(name, texts)
        except ValueError:
            continue
    return None


# ------------------------------------------------------------------------------------------ categories
def grouped_categories(texts: np.ndarray, counts: np.ndarray) -> str:
    """A domain too large for a flat hierarchy, grouped rare values first (ARX's ``HierarchyBuilderOrderBased``
    on the order of decreasing frequency): the values past the 50 most frequent become ``other``, then
    those past the 10 most frequent, then ``*``."""
    order = np.lexsort((np.asarray(texts, dtype=str), -np.asarray(counts)))
    rank = np.empty(len(texts), dtype=np.int64)
    rank[order] = np.arange(len(texts))
    taken = {str(t) for t in texts}
    other = next(label for label in ("other", "other values", "(other)", "other (grouped)") if label not in taken)
    rows = []
    for text, r in zip(texts, rank, strict=True):
        first = str(text) if r < FLAT_MAX else other
        second = str(text) if r < 10 else other
        rows.append(f"{text};{first};{second};*")
    return "\n".join(rows) + "\n"


def dates(order: list[str]) -> str:
    """ISO dates: day, month, year, decade, ``*`` (ARX's ``HierarchyBuilderDate``)."""
    return "\n".join(f"{d};{d[:7]};{d[:4]};{d[:3]}0s;*" for d in order) + "\n"


def build(
    parts: set[str], values: pd.Series | np.ndarray, kind: str, categories: bool = True
) -> tuple[str, str] | None:
    """The hierarchy (CSV text, the note saying which builder) of a quasi-identifier whose header has the words
    ``parts``, from its ``values`` (one per record, as text; missing as None, NaN or ""), typed ``kind``; None
    when no builder fits (fewer than two values; without ``categories``, a domain of no known kind)."""
    series = pd.Series(values, dtype=object)
    series = series[series.notna() & (series.astype(str) != "")].astype(str)
    counted = series.value_counts(sort=False)
    texts = counted.index.to_numpy(dtype=object)
    counts = counted.to_numpy()
    if len(texts) < 2:
        return None
    known = _recognised(parts, texts, kind)
    if known is not None:
        return known
    if kind == "numeric":
        return numeric_hierarchy(texts, counts)
    if pd.Series(texts, dtype=object).str.fullmatch(_DATE.pattern).all():
        return dates(sorted(texts)), "dates: day, month, year, decade, then *"
    if not categories:
        return None
    if len(texts) <= FLAT_MAX:
        return "".join(f"{v};*\n" for v in texts), f"{len(texts)} categories: a flat hierarchy (value, then *)"
    return grouped_categories(texts, counts), (
        f"{len(texts)} categories: the rarest grouped as other (past the 50, then the 10 most frequent), then *"
    )


def by_name(name: str, values: pd.Series | np.ndarray) -> tuple[str, str]:
    """The semantic builder ``name`` on ``values`` (one per record; missing as None, NaN or "")."""
    series = pd.Series(values, dtype=object)
    texts = pd.unique(series[series.notna() & (series.astype(str) != "")].astype(str))
    return semantic(name, np.asarray(texts, dtype=object))


def builders_option(
    value: Mapping[str, str | Mapping[str, Any]] | None, quasi_identifiers: list[str]
) -> dict[str, str | Mapping[str, Any]]:
    """A ``column -> builder`` option checked: ValueError names a column that is no quasi-identifier or an
    unknown builder. A builder is a semantic one's name, or a mapping naming one of ARX's builders with its
    parameters (``{builder: intervals, width: 5, ...}``: :mod:`privaudit.discovery.arx_builders`)."""
    from privaudit.discovery import arx_builders

    out = dict(value or {})
    for column, name in out.items():
        if column not in quasi_identifiers:
            raise ValueError(f"hierarchy builder for {column!r}: not a quasi-identifier of the policy")
        if isinstance(name, Mapping):
            try:
                arx_builders.check(name)
            except ValueError as exc:
                raise ValueError(f"hierarchy builder for {column!r}: {exc}") from None
        elif name not in SEMANTIC:
            raise ValueError(f"unknown hierarchy builder {name!r} for {column!r} (known: {', '.join(SEMANTIC)})")
    return out
