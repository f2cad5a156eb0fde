"""Telephone numbers by libphonenumber's metadata (the ``phonenumbers`` package: every region's numbering
plan), instead of hand-written patterns.

* International numbers (``+49 30 1234 5678``, ``0049 ...``) are parsed without a region and must be valid
  numbers of the region their country code names (``phonenumbers.is_valid_number``).
* National numbers (``030 1234 5678``, ``01 23 45 67 89``, ``(020) 7946 0958``) carry no country code, so a
  column's regions are found first: each region's national number pattern (its metadata's
  ``general_desc``, after the region's national prefix) is matched against a sample of the
  column's distinct candidates, the best-matching regions validate the sample number by number, and the
  regions covering most of it (up to :data:`MAX_REGIONS`, so that a column mixing four national formats is
  read) are kept; each candidate must then be a valid number of one of them.

Only the sampled distinct values a loose telephone shape matched are parsed (at most :data:`MAX_PARSED` of
them, the rest judged by the share of those), so the scan's cost stays bounded whatever the column.
"""

from __future__ import annotations

import functools
import re

import numpy as np

#: at most this many regions are read in one column of national numbers
MAX_REGIONS = 6
#: distinct candidates used to find a column's regions, and parsed to validate it
REGION_SAMPLE, MAX_PARSED = 24, 200
#: regions whose national number pattern matched most of the sample, checked number by number
SHORTLIST = 20
_NON_DIGIT = re.compile(r"\D")


@functools.lru_cache(maxsize=1)
def _regions() -> tuple[tuple[str, str, re.Pattern], ...]:
    """(region, national prefix, national number pattern) of every region libphonenumber knows."""
    import phonenumbers
    from phonenumbers import PhoneMetadata

    out = []
    for region in sorted(phonenumbers.SUPPORTED_REGIONS):
        meta = PhoneMetadata.metadata_for_region(region)
        if meta is None or meta.general_desc is None or not meta.general_desc.national_number_pattern:
            continue
        out.append((region, meta.national_prefix or "", re.compile(meta.general_desc.national_number_pattern)))
    return tuple(out)


def _valid(value: str, region: str | None) -> bool:
    import phonenumbers

    try:
        return bool(phonenumbers.is_valid_number(phonenumbers.parse(value, region)))
    except phonenumbers.NumberParseException:
        return False


def _column_regions(national: np.ndarray) -> list[str]:
    """The regions in which most of these national numbers are valid: regions ranked by how many sampled
    numbers their national number pattern matches, the best :data:`SHORTLIST` checked number by number
    (``is_valid_number``), then a greedy cover of the sample."""
    sample = [str(v) for v in national[:REGION_SAMPLE]]
    digits = [_NON_DIGIT.sub("", v) for v in sample]
    ranked = []
    for region, prefix, pattern in _regions():  # a few thousand matches of compiled patterns
        hit = np.array(
            [pattern.fullmatch(d[len(prefix) :] if prefix and d.startswith(prefix) else d) is not None for d in digits],
            dtype=bool,
        )
        if hit.any():
            ranked.append((int(hit.sum()), region, hit))
    ranked.sort(key=lambda item: -item[0])
    covers = [
        (region, np.array([bool(h) and _valid(v, region) for v, h in zip(sample, hit, strict=False)], dtype=bool))
        for _, region, hit in ranked[:SHORTLIST]
    ]
    chosen: list[str] = []
    covered = np.zeros(len(sample), dtype=bool)
    while covers and len(chosen) < MAX_REGIONS:
        region, hit = max(covers, key=lambda rc: int((rc[1] & ~covered).sum()))
        if not (hit & ~covered).any():
            break
        chosen.append(region)
        covered |= hit
    return chosen


def valid_phone_numbers(values: np.ndarray) -> np.ndarray:
    """Whether each candidate (a distinct value of a column's sample) is a valid telephone number: an
    international one of its country, or a national one of the column's regions. Beyond
    :data:`MAX_PARSED` candidates, the rest get the verdict of the share of the parsed ones (True when at
    least half were valid), which is all a share of the column needs."""
    values = np.asarray(values, dtype=object)
    out = np.zeros(len(values), dtype=bool)
    if not len(values):
        return out
    parsed = values[:MAX_PARSED]
    international = np.array([v.startswith(("+", "00")) for v in parsed], dtype=bool)
    for i in np.flatnonzero(international):
        v = parsed[i]
        out[i] = _valid("+" + v[2:] if v.startswith("00") else v, None)
    national = np.flatnonzero(~international)
    if len(national):
        regions = _column_regions(parsed[national])
        for i in national:
            out[i] = any(_valid(parsed[i], r) for r in regions)
    if len(values) > MAX_PARSED:
        out[MAX_PARSED:] = out[:MAX_PARSED].mean() >= 0.5
    return out
