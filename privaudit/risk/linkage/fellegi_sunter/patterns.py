"""The agreement-pattern space: comparison vectors coded as one integer (mixed radix), byte-packed
categorical comparisons (SWAR), and pattern counts over all chunks of pairs.

Speed trick, isolated here: up to 8 categorical attributes are compared with one XOR per pair and word,
and :func:`byte_disagreement_mask` turns the XOR into their 8 agreement bits.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from privaudit.risk.linkage.fellegi_sunter.comparisons import Encoded

#: Above this many patterns, weights are summed per pair instead of looked up.
MAX_TABLE = 1 << 20
#: Above this many patterns, pattern counts are kept sparse (np.unique) not dense.
MAX_DENSE_COUNTS = 1 << 16


_LOW7 = np.uint64(0x7F7F7F7F7F7F7F7F)
_ONES = np.uint64(0x0101010101010101)
_MAGIC = np.uint64(0x0102040810204080)


def byte_disagreement_mask(x: np.ndarray) -> np.ndarray:
    """For 8 byte lanes of ``x`` (uint64), bit ``k`` of the result is 1 iff lane ``k`` is non-zero.

    SWAR: ``((x & 0x7F..) + 0x7F..) | x`` sets the top bit of every non-zero
    byte without carries between lanes; the multiply by ``0x0102040810204080``
    gathers the 8 top bits into the top byte (lane ``k`` -> bit ``56 + k``).
    """
    y = x & _LOW7  # in place from here on: no temporaries
    y += _LOW7
    y |= x
    y >>= np.uint64(7)
    y &= _ONES
    y *= _MAGIC
    y >>= np.uint64(56)
    return y


class PatternCoding:
    """Mixed-radix coding of comparison vectors: ``code = sum_a level_a * stride_a``, a missing comparison
    coded ``n_levels_a`` (only attributes with missing values get that extra level).

    The ``packed`` attributes get the strides ``1, 2, 4, ...`` first, the others follow in column order.
    Shared by the in-process :class:`PatternSpace` and the SQL path (:mod:`.sql`), so that both number
    the patterns alike and EM sees them in the same order (the same sums, to the last bit).
    """

    def __init__(self, specs: Sequence, has_missing: Sequence[bool], packed: Sequence[int]):
        self.specs = list(specs)
        self.n_levels = [s.n_levels for s in self.specs]
        self.packed = list(packed)
        self.generic = [a for a in range(len(self.specs)) if a not in self.packed]
        self.radix = np.array(
            [s.n_levels + (1 if m else 0) for s, m in zip(self.specs, has_missing, strict=False)], dtype=np.int64
        )
        self.stride = np.zeros(len(self.specs), dtype=np.int64)
        size = 1
        for a in self.packed + self.generic:
            self.stride[a] = size
            size *= int(self.radix[a])
        if size >= 2**62:
            raise ValueError("too many comparison levels: the pattern space exceeds 2**62")
        self.size = size
        self.dtype = np.int32 if size < 2**31 - 1 else np.int64

    def decode(self, codes: np.ndarray) -> np.ndarray:
        """``(K, A)`` levels of the given codes, ``-1`` for missing."""
        codes = np.asarray(codes, dtype=np.int64)
        out = (codes[:, None] // self.stride[None, :]) % self.radix[None, :]
        out[out == np.asarray(self.n_levels)[None, :]] = -1
        return out

    def weights(self, attr_weights: Sequence[np.ndarray], codes: np.ndarray) -> np.ndarray:
        """Total weight of every code; missing comparisons weigh 0."""
        codes = np.asarray(codes, dtype=np.int64)
        w = np.zeros(codes.shape[0])
        for a, wa in enumerate(attr_weights):
            level = (codes // self.stride[a]) % self.radix[a]
            w += np.r_[wa, 0.0][level]  # level n_levels (missing) -> 0
        return w


class PatternSpace(PatternCoding):
    """The coding of :class:`PatternCoding` over encoded columns held in memory.

    Categorical attributes without missing values and with < 256 codes are
    *packed*: they get the strides ``1, 2, 4, ...`` and their codes are stored
    8 per uint64 word, one byte each, so that all of them are compared with
    one XOR and :func:`byte_disagreement_mask` per word and pair.  The other
    attributes are compared one by one (:meth:`Encoded.levels`).
    """

    def __init__(self, encoded: Sequence[Encoded]):
        self.encoded = list(encoded)
        packed = [
            a
            for a, e in enumerate(encoded)
            if e.spec.kind == "categorical"
            and not e.has_missing
            and max(e.left.max(initial=0), e.right.max(initial=0)) < 256
        ]
        super().__init__([e.spec for e in encoded], [e.has_missing for e in encoded], packed)
        n_words = (len(self.packed) + 7) // 8
        self.words_left = np.zeros((n_words, encoded[0].left.size), dtype=np.uint64)
        self.words_right = np.zeros((n_words, encoded[0].right.size), dtype=np.uint64)
        for p, a in enumerate(self.packed):
            shift = np.uint64(8 * (p % 8))
            self.words_left[p // 8] |= encoded[a].left.astype(np.uint64) << shift
            self.words_right[p // 8] |= encoded[a].right.astype(np.uint64) << shift

    def codes(self, li: np.ndarray, ri: np.ndarray) -> np.ndarray:
        """Codes of arbitrary pairs ``(li[k], ri[k])``, attribute by attribute (reference path)."""
        code = np.zeros(len(li), dtype=self.dtype)
        for enc, s in zip(self.encoded, self.stride, strict=False):
            code += enc.levels(li, ri).astype(self.dtype) * self.dtype(s)
        return code


class PatternCounter:
    """Counts of pattern codes over all chunks (dense bincount or sparse unique)."""

    def __init__(self, size: int, chunk_size: int):
        self.size = size
        self.dense = np.zeros(size, dtype=np.int64) if size <= MAX_DENSE_COUNTS else None
        self._codes: list[np.ndarray] = []
        self._counts: list[np.ndarray] = []
        self._pending = 0
        self._limit = 4 * max(chunk_size, 1024)

    def add(self, codes: np.ndarray, dup_patterns: np.ndarray | None) -> None:
        if self.dense is not None:
            counts = np.bincount(codes, minlength=self.size + 1)[: self.size]
            if dup_patterns is not None:
                counts[dup_patterns] = 0
            self.dense += counts
            return
        c, n = np.unique(codes, return_counts=True)
        keep = c < self.size
        c, n = c[keep], n[keep]
        if dup_patterns is not None:
            keep = ~dup_patterns[c]
            c, n = c[keep], n[keep]
        self._codes.append(c.astype(np.int64))
        self._counts.append(n.astype(np.int64))
        self._pending += c.size
        if self._pending > self._limit:
            self._merge()

    def _merge(self) -> None:
        if len(self._codes) > 1:
            c, inv = np.unique(np.concatenate(self._codes), return_inverse=True)
            n = np.bincount(inv, weights=np.concatenate(self._counts)).astype(np.int64)
            self._codes, self._counts = [c], [n]
        self._pending = self._codes[0].size if self._codes else 0

    def result(self) -> tuple[np.ndarray, np.ndarray]:
        if self.dense is not None:
            nz = np.flatnonzero(self.dense)
            return nz.astype(np.int64), self.dense[nz]
        self._merge()
        if not self._codes:
            return np.zeros(0, np.int64), np.zeros(0, np.int64)
        return self._codes[0], self._counts[0]
