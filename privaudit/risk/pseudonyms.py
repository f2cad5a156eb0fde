"""Pseudonyms that are not: a column of digests or tokens tested for what an intruder can undo.

EDPB Guidelines 01/2025 on pseudonymisation (section 3.2 and annex, examples 4-6) expect a pseudonymising
transformation to be keyed (a MAC or an encryption under a secret key): a plain cryptographic hash of a value
taken from a space an intruder can enumerate (dates of birth, national numbers, phone numbers, record numbers
in a range, the values of another column) is reversed by hashing every candidate and looking the digests up
(the "dictionary attack" of ENISA, *Pseudonymisation techniques and best practices*, 2019, section 5.2). An
order-preserving or sequential id keeps the order in which people were registered.

This module is the mathematics, apart from policies and reports: :func:`kind_of` says what a column of tokens
looks like; :func:`reverse` hashes candidate spaces (:func:`date_space`, :func:`number_space`,
:func:`value_space`) under a time budget and returns the digests it reversed. The hashing itself is
``hashlib`` (C); candidates are produced as whole lists per format, so the Python work per candidate is one
encode and one digest call.
"""

from __future__ import annotations

import hashlib
import re
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta

#: hex digest length -> the unkeyed hash functions that give it (the first is the common one)
HEX_ALGORITHMS: dict[int, tuple[str, ...]] = {
    32: ("md5",),
    40: ("sha1",),
    56: ("sha224", "sha3_224"),
    64: ("sha256", "sha3_256", "blake2s"),
    96: ("sha384", "sha3_384"),
    128: ("sha512", "sha3_512", "blake2b"),
}
_HEX = re.compile(r"[0-9a-f]+")
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_BASE64 = re.compile(r"[A-Za-z0-9+/_-]{16,}={0,2}")

#: the spellings of a date an intruder tries
DATE_FORMATS = ("%Y-%m-%d", "%Y%m%d", "%d/%m/%Y", "%m/%d/%Y", "%d.%m.%Y", "%d-%m-%Y")


@dataclass
class Kind:
    """What a column of tokens looks like."""

    kind: str  # "hex digest", "uuid", "base64 token", "sequential integers", "integers", "text"
    algorithms: tuple[str, ...] = ()  # the unkeyed hashes whose digests have this form
    detail: str = ""


def kind_of(values: Sequence[str]) -> Kind:
    """The form of a column's distinct non-empty values (lower-cased hex digests of one length, UUIDs, base64
    tokens, whole numbers -- sequential when they fill their range --, or text)."""
    vals = [v.strip() for v in values if v and v.strip()]
    if not vals:
        return Kind("text")
    lowered = [v.lower() for v in vals]
    lengths = {len(v) for v in lowered}
    if len(lengths) == 1 and all(_HEX.fullmatch(v) for v in lowered):
        n = lengths.pop()
        if n in HEX_ALGORITHMS:
            return Kind("hex digest", HEX_ALGORITHMS[n], f"{n} hex characters ({n * 4} bits)")
    if all(_UUID.fullmatch(v) for v in lowered):
        versions = {v[14] for v in lowered}
        return Kind("uuid", (), f"version {'/'.join(sorted(versions))}")
    if all(v.lstrip("-").isdigit() for v in vals):
        numbers = sorted({int(v) for v in vals})
        if len(numbers) > 1 and numbers[-1] - numbers[0] + 1 == len(numbers):
            return Kind("sequential integers", (), f"every number from {numbers[0]:,} to {numbers[-1]:,}")
        return Kind("integers", (), f"{len(numbers):,} distinct numbers")
    if all(_BASE64.fullmatch(v) for v in vals) and len(lengths) <= 2:
        return Kind("base64 token", (), f"{max(lengths)} characters")
    return Kind("text")


def date_space(
    years: int, today: date | None = None, formats: Sequence[str] = DATE_FORMATS
) -> Iterator[tuple[str, list[str]]]:
    """Every date of the last ``years`` years, in each of ``formats``: (what, candidates) per format."""
    end = today or date.today()
    start = date(end.year - years, 1, 1)
    days = [start + timedelta(d) for d in range((end - start).days + 1)]
    for fmt in formats:
        yield f"dates of the last {years} years written {_spelled(fmt)}", [d.strftime(fmt) for d in days]


def _spelled(fmt: str) -> str:
    return fmt.replace("%Y", "YYYY").replace("%m", "MM").replace("%d", "DD")


def number_space(ranges: Sequence[tuple[int, int]], chunk: int = 200_000) -> Iterator[tuple[str, list[str]]]:
    """Whole numbers of each inclusive range, as digits and, where they have 9 digits, also as a US SSN
    (``123-45-6789``) and zero-padded to nine; in chunks so that the budget is checked between them."""
    for low, high in ranges:
        for first in range(low, high + 1, chunk):
            last = min(high, first + chunk - 1)
            what = f"whole numbers {low:,} to {high:,}"
            numbers = range(first, last + 1)
            yield what, [str(n) for n in numbers]
            if high >= 10**7 and low < 10**9:
                if first < 10**8:  # nine digits with leading zeros (numbers of nine digits are written so already)
                    yield what + " written as nine digits", [f"{n:09d}" for n in numbers if n < 10**8]
                yield (
                    what + " written as US SSNs",
                    [f"{n // 1000000:03d}-{n // 10000 % 100:02d}-{n % 10000:04d}" for n in numbers if 0 <= n < 10**9],
                )


def value_space(columns: dict[str, Iterable[str]]) -> Iterator[tuple[str, list[str]]]:
    """The values of other columns (of the release, or of its original): as written, trimmed, lower-cased."""
    for name, values in columns.items():
        distinct = {str(v) for v in values if v is not None and str(v) != ""}
        variants = distinct | {v.strip() for v in distinct} | {v.strip().lower() for v in distinct}
        yield f"the values of column {name!r}", sorted(variants)


@dataclass
class Reversal:
    """What a dictionary attack on a column of digests found."""

    reversed: dict[str, str] = field(default_factory=dict)  # digest -> the value it hashes
    spaces: list[str] = field(default_factory=list)  # the spaces that reversed at least one digest
    tried: int = 0  # candidates hashed (per algorithm)
    exhausted: bool = True  # False: the time budget ran out before every space was tried
    algorithm: str | None = None


def _digests(algorithm: str, encoded: list[bytes]) -> list[str]:
    """The hex digests of ``encoded`` (hashlib's named constructor: ``hashlib.new`` costs a lookup per call)."""
    h = getattr(hashlib, algorithm, None)
    if h is None:
        return [hashlib.new(algorithm, b).hexdigest() for b in encoded]
    return [h(b).hexdigest() for b in encoded]


def reverse(
    digests: set[str],
    algorithms: Sequence[str],
    spaces: Callable[[], Iterable[tuple[str, list[str]]]],
    budget_seconds: float,
    clock: Callable[[], float] = time.monotonic,
) -> Reversal:
    """Hash every candidate of every space and look the digests up, until all digests are reversed or
    ``budget_seconds`` have passed. The hash the digests' form points to first (``algorithms[0]``) is tried
    over every space before the next one is; once one reverses a digest, the others are not tried (a column is
    hashed one way). ``spaces()`` gives the candidate spaces afresh for each hash; ``digests`` lower-cased
    hex."""
    found = Reversal()
    deadline = clock() + budget_seconds
    wanted = set(digests)
    for algorithm in algorithms:
        for what, candidates in spaces():
            if not wanted:
                return found
            if clock() > deadline:
                found.exhausted = False
                return found
            encoded = [c.encode("utf-8") for c in candidates]
            found.tried += len(encoded)
            hits = {d: c for d, c in zip(_digests(algorithm, encoded), candidates, strict=True) if d in wanted}
            if hits:
                found.reversed.update(hits)
                found.algorithm = algorithm
                wanted -= hits.keys()
                if what not in found.spaces:
                    found.spaces.append(what)
        if found.reversed:
            break
    return found
