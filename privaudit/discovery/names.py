"""Person names, from the first- and last-name lists Faker ships for its locales.

Why Faker: its person providers hold curated first- and last-name lists for dozens of locales (about 2,000
first names for ``de_DE`` alone), pure Python under the MIT licence, and it installs from PyPI on a fresh
machine with nothing else to download. Presidio's analyzers recognise names with spaCy models fetched
from a model hub, which a gate running offline cannot rely on.

A value is a person's name when it has two to four alphabetic words, one of them a known first name and
another a known last name (``Maria Schmidt``, ``Dupont, Jean``); with a header that says names, one known
word is enough (a column of first names only).
"""

from __future__ import annotations

import importlib
import re
import unicodedata
from functools import lru_cache

import numpy as np

LOCALES = (
    "en_US",
    "en_GB",
    "de_DE",
    "fr_FR",
    "es_ES",
    "it_IT",
    "nl_NL",
    "pt_PT",
    "pt_BR",
    "pl_PL",
    "sv_SE",
    "da_DK",
    "no_NO",
    "fi_FI",
    "cs_CZ",
    "hu_HU",
    "ro_RO",
    "tr_TR",
    "el_GR",
    "en_IE",
    "de_AT",
    "de_CH",
    "fr_CH",
    "es_MX",
    "en_IN",
)
_WORD = re.compile(r"[^\W\d_]+(?:['-][^\W\d_]+)*")


def _plain(word: str) -> str:
    """``word`` lower-case with its accents removed (NFKD, combining marks dropped)."""
    if word.isascii():  # nothing to decompose (most names): no normalisation
        return word.lower()
    text = unicodedata.normalize("NFKD", word.lower())
    return "".join(c for c in text if not unicodedata.combining(c))


def _names(provider, attributes: tuple[str, ...]) -> set[str]:
    out: set[str] = set()
    for attribute in attributes:
        values = getattr(provider, attribute, None) or ()
        out.update(_plain(v) for v in values if isinstance(v, str) and len(v) > 1)
    return out


@lru_cache(maxsize=1)
def lexicon() -> tuple[frozenset[str], frozenset[str]]:
    """(first names, last names) of every locale in :data:`LOCALES` Faker has, lower-case, accents removed.
    Words that are also common English words of three letters or fewer are left out (``May``, ``Lee`` stay)."""
    first: set[str] = set()
    last: set[str] = set()
    for locale in LOCALES:
        try:
            provider = importlib.import_module(f"faker.providers.person.{locale}").Provider
        except ImportError:  # a locale a Faker version lacks
            continue
        first |= _names(provider, ("first_names", "first_names_female", "first_names_male"))
        last |= _names(provider, ("last_names",))
    return frozenset(first), frozenset(last)


def has_full_name_shape(values) -> bool:
    """Whether any of ``values`` has the two to four words a full name needs (:func:`name_shares` counts no
    other value as a full name): where none has, the name lists (Faker's, slow to import) need not be
    loaded."""
    return any(2 <= len(_WORD.findall(str(value))) <= 4 for value in values)


def name_shares(values: np.ndarray) -> tuple[float, float]:
    """(share of values that are full names, share with at least one known name word)."""
    first, last = lexicon()
    full = known = 0
    for value in values:
        words = [_plain(w) for w in _WORD.findall(str(value))]
        if not words or len(words) > 4:
            continue
        is_first = [w in first for w in words]
        is_last = [w in last for w in words]
        if any(is_first) or any(is_last):
            known += 1
            if len(words) >= 2 and any(
                f and any(l for j, l in enumerate(is_last) if j != i) for i, f in enumerate(is_first)
            ):
                full += 1
    n = max(len(values), 1)
    return full / n, known / n
