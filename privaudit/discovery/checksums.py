"""Check digits of identifier numbers, vectorised over arrays of candidate strings (already matched by the
recognizers' patterns, so every string holds the expected characters).

* :func:`luhn` -- payment cards (ISO/IEC 7812), Canadian SIN ...
* :func:`iban_mod97` -- IBAN (ISO 13616: move the first four characters to the end, letters as 10..35,
  the number mod 97 must be 1).
* :func:`nir_key` -- French NIR (key = 97 - (first 13 digits mod 97); Corsica's 2A/2B as 19/18).
* :func:`elfproef` -- Dutch BSN (the "11-proof": sum of the digits weighted 9..2 and -1 is a multiple of 11).
* :func:`dni_letter` -- Spanish DNI/NIE (the letter of the number mod 23).
* :func:`steuer_id` -- German tax identification number (ISO 7064 MOD 11,10 check digit).
* :func:`codice_fiscale` -- Italian fiscal code (the check letter from the odd/even tables).
"""

from __future__ import annotations

import numpy as np


def _digits(values, width: int) -> np.ndarray:
    """(n, width) digit matrix of digit strings, right-aligned (left-padded with zeros): the code points of
    fixed-width unicode strings, read as int32."""
    if not len(values):
        return np.zeros((0, width), dtype=np.int64)
    padded = np.array([str(s).rjust(width, "0")[-width:] for s in values], dtype=f"<U{width}")
    return padded.view(np.int32).reshape(len(values), width).astype(np.int64) - ord("0")


def luhn(values: np.ndarray) -> np.ndarray:
    """Luhn check of digit strings (any length up to 19)."""
    values = np.asarray(values, dtype=object)
    if not len(values):
        return np.zeros(0, dtype=bool)
    d = _digits(values, 19)
    doubled = d[:, -2::-2] * 2
    doubled = np.where(doubled > 9, doubled - 9, doubled)
    total = d[:, ::-2].sum(axis=1) + doubled.sum(axis=1)
    return total % 10 == 0


def _mod97(digit_strings: list[str]) -> np.ndarray:
    """Each decimal string mod 97, vectorised digit by digit (left-padded: leading zeros change nothing)."""
    width = max((len(s) for s in digit_strings), default=1)
    d = _digits(np.asarray(digit_strings, dtype=object), width)
    r = np.zeros(len(digit_strings), dtype=np.int64)
    for j in range(width):
        r = (r * 10 + d[:, j]) % 97
    return r


def iban_mod97(values: np.ndarray) -> np.ndarray:
    """IBAN check (ISO 13616) of compact upper-case IBAN strings."""
    values = [str(v) for v in values]
    if not values:
        return np.zeros(0, dtype=bool)
    digits = ["".join(str(int(c, 36)) for c in v[4:] + v[:4]) for v in values]
    return _mod97(digits) == 1


def nir_key(values: np.ndarray) -> np.ndarray:
    """French NIR of 15 characters: 13 (Corsica: 2A / 2B in the department) then a 2-digit key."""
    values = [str(v).upper() for v in values]
    if not values:
        return np.zeros(0, dtype=bool)
    body = [v[:13].replace("2A", "19", 1) if v[5:7] == "2A" else v[:13].replace("2B", "18", 1) if v[5:7] == "2B"
            else v[:13] for v in values]
    keys = np.array([int(v[13:15]) for v in values])
    return 97 - _mod97(body) == keys


def elfproef(values: np.ndarray) -> np.ndarray:
    """Dutch BSN (9 digits): sum_{i=1..8} (10 - i) d_i - d_9 is a multiple of 11 (and not all zeros)."""
    values = np.asarray(values, dtype=object)
    if not len(values):
        return np.zeros(0, dtype=bool)
    d = _digits(values, 9)
    weights = np.array([9, 8, 7, 6, 5, 4, 3, 2, -1])
    return ((d @ weights) % 11 == 0) & (d.sum(axis=1) > 0)


_DNI_LETTERS = np.array(list("TRWAGMYFPDXBNJZSQVHLCKE"))


def dni_letter(values: np.ndarray) -> np.ndarray:
    """Spanish DNI (8 digits + letter) or NIE (X/Y/Z + 7 digits + letter): the letter is number mod 23."""
    values = [str(v).upper() for v in values]
    if not values:
        return np.zeros(0, dtype=bool)
    numbers = np.array([int(str("XYZ".index(v[0])) + v[1:-1]) if v[0] in "XYZ" else int(v[:-1]) for v in values])
    return _DNI_LETTERS[numbers % 23] == np.array([v[-1] for v in values])


def steuer_id(values: np.ndarray) -> np.ndarray:
    """German Steuer-ID (11 digits, first not 0): ISO 7064 MOD 11,10 over the first 10 digits."""
    values = np.asarray(values, dtype=object)
    if not len(values):
        return np.zeros(0, dtype=bool)
    d = _digits(values, 11)
    product = np.full(len(values), 10)
    for j in range(10):
        total = (d[:, j] + product) % 10
        total = np.where(total == 0, 10, total)
        product = (2 * total) % 11
    check = (11 - product) % 10
    return (check == d[:, 10]) & (d[:, 0] != 0)


_CF_ODD = {**{str(i): v for i, v in enumerate([1, 0, 5, 7, 9, 13, 15, 17, 19, 21])},
           **dict(zip("ABCDEFGHIJKLMNOPQRSTUVWXYZ",
                      [1, 0, 5, 7, 9, 13, 15, 17, 19, 21, 2, 4, 18, 20, 11, 3, 6, 8, 12, 14, 16, 10, 22, 25, 24, 23]))}
_CF_EVEN = {**{str(i): i for i in range(10)}, **{c: i for i, c in enumerate("ABCDEFGHIJKLMNOPQRSTUVWXYZ")}}


def codice_fiscale(values: np.ndarray) -> np.ndarray:
    """Italian codice fiscale (16 characters): the last letter from the odd/even position tables, mod 26."""
    out = []
    for v in (str(x).upper() for x in values):
        total = sum(_CF_ODD[c] if i % 2 == 0 else _CF_EVEN[c] for i, c in enumerate(v[:15]))
        out.append(chr(ord("A") + total % 26) == v[15])
    return np.array(out, dtype=bool)
