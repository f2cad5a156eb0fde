"""One pass over all candidate pairs, chunk by chunk: pattern codes per blocking rule (pairs an earlier
rule scored are skipped), pattern counts, and each intruder record's best weight and ties."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from privaudit.risk.linkage.blocking import BlockKeys, RangeChunk, iter_rule_chunks
from privaudit.risk.linkage.fellegi_sunter.patterns import MAX_TABLE, PatternSpace, byte_disagreement_mask


class RuleContext:
    """Per blocking rule: right-side arrays in the rule's sorted order and the de-duplication plan.

    A pair of rule ``r`` that agrees on an earlier rule ``k`` was already
    scored by ``k``.  When ``k``'s columns are all categorical comparisons,
    "agrees on ``k``" is a property of the agreement pattern (all those
    attributes at level 0), so it is precomputed once per pattern
    (``dup_patterns``) and costs nothing per pair; otherwise the rule keys
    are compared per pair and duplicates get the sentinel code ``space.size``.
    Categorical generic attributes that belong to rule ``r`` itself agree by
    construction and are not compared.
    """

    def __init__(self, r: int, rules: Sequence[BlockKeys], order: np.ndarray, space: PatternSpace):
        self.order = order
        self.words = np.ascontiguousarray(space.words_right[:, order])
        own_cols = set(rules[r].columns)
        self.generic = []
        self.known_exact = []
        for a in space.generic:
            enc = space.encoded[a]
            if enc.spec.kind == "categorical" and enc.spec.name in own_cols:
                self.known_exact.append(a)
            else:
                self.generic.append((a, enc, enc.right[order]))
        categorical = {e.spec.name: a for a, e in enumerate(space.encoded) if e.spec.kind == "categorical"}
        self.dup_patterns = None
        self.pair_checks = []
        for earlier in rules[:r]:
            cols = earlier.columns
            if cols and all(c in categorical for c in cols) and space.size <= MAX_TABLE:
                codes = np.arange(space.size, dtype=np.int64)
                agree = np.ones(space.size, dtype=bool)
                for c in cols:
                    a = categorical[c]
                    agree &= (codes // space.stride[a]) % space.radix[a] == 0
                self.dup_patterns = agree if self.dup_patterns is None else self.dup_patterns | agree
            else:
                self.pair_checks.append((earlier.left, earlier.right[order]))

    def codes(self, space: PatternSpace, ch: RangeChunk) -> tuple[np.ndarray, np.ndarray | None]:
        """Pattern codes of the chunk's pairs and the per-pair duplicate mask (or None)."""
        cnt, sl, pos = ch.counts, slice(ch.start, ch.stop), ch.pos
        code = None
        for w in range(self.words.shape[0]):
            x = np.repeat(space.words_left[w, sl], cnt)
            x ^= self.words[w][pos]
            mask = byte_disagreement_mask(x)
            if w:
                mask <<= np.uint64(8 * w)
            code = mask.astype(space.dtype) if code is None else code + mask.astype(space.dtype)
        if code is None:
            code = np.zeros(pos.size, dtype=space.dtype)
        for a, enc, right_sorted in self.generic:
            lev = enc.levels_of(np.repeat(enc.left[sl], cnt), right_sorted[pos])
            stride = space.stride[a]
            code += lev if stride == 1 else np.multiply(lev, space.dtype(stride), dtype=space.dtype)
        dup = None
        if self.pair_checks:
            dup = np.zeros(pos.size, dtype=bool)
            for keys_left, keys_right_sorted in self.pair_checks:
                kl = np.repeat(keys_left[sl], cnt)
                dup |= (kl == keys_right_sorted[pos]) & (kl >= 0)
        return code, dup


class Best:
    """Running per-record best weight and the number of candidates tied at it."""

    def __init__(self, n: int):
        self.best = np.full(n, -np.inf)
        self.n_best = np.zeros(n, dtype=np.int64)

    def update(self, ids: np.ndarray, seg: np.ndarray, lengths: np.ndarray, w: np.ndarray) -> None:
        """Merge a chunk: ``w[seg[k] : seg[k] + lengths[k]]`` are candidates of record ``ids[k]``."""
        seg_max = np.maximum.reduceat(w, seg)
        at_max = w == np.repeat(seg_max, lengths)
        seg_cnt = np.add.reduceat(at_max, seg, dtype=np.int64)
        cur, cur_n = self.best[ids], self.n_best[ids]
        self.n_best[ids] = np.where(seg_max > cur, seg_cnt, np.where(seg_max == cur, cur_n + seg_cnt, cur_n))
        self.best[ids] = np.maximum(seg_max, cur)


def weight_lookup(space: PatternSpace, attr_weights: Sequence[np.ndarray], dup_patterns: np.ndarray | None):
    """Map pattern codes to total weights; duplicates and the sentinel map to ``-inf``.

    A table of ``size + 1`` weights when the pattern space is small, else the
    weights are summed per pair from the decoded levels.
    """
    if space.size <= MAX_TABLE:
        table = np.empty(space.size + 1)
        table[: space.size] = space.weights(attr_weights, np.arange(space.size))
        table[space.size] = -np.inf
        if dup_patterns is not None:
            table[: space.size][dup_patterns] = -np.inf
        return lambda codes: table[codes]

    def lookup(codes: np.ndarray) -> np.ndarray:
        sentinel = codes == space.size
        w = space.weights(attr_weights, np.where(sentinel, 0, codes))
        w[sentinel] = -np.inf
        return w

    return lookup


def scan(space, rules, orders, contexts, chunk_size, weight_sets, counter, rule_counters, progress, done, total):
    """One pass over all candidate pairs.

    ``weight_sets``: one list of attribute weights per estimation whose
    per-record best is wanted.  ``counter``: a :class:`PatternCounter` of the
    de-duplicated candidate pairs, or None.  ``rule_counters``: one counter
    per rule of *all* its pairs (duplicates included, as needed for per-rule
    EM), or None.  Per-pair duplicates get the sentinel code ``space.size``.
    """
    n_left = rules[0].left.size
    lookups = [[weight_lookup(space, ws, ctx.dup_patterns) for ctx in contexts] for ws in weight_sets]
    bests = [Best(n_left) for _ in weight_sets]
    for ch in iter_rule_chunks(rules, orders, chunk_size):
        ctx = contexts[ch.rule]
        codes, dup = ctx.codes(space, ch)
        if rule_counters is not None:
            rule_counters[ch.rule].add(codes, None)
        if dup is not None:
            np.putmask(codes, dup, space.size)
        if counter is not None:
            counter.add(codes, ctx.dup_patterns)
        if bests:
            nz = ch.counts > 0
            seg = (np.cumsum(ch.counts) - ch.counts)[nz]
            ids = np.arange(ch.start, ch.stop)[nz]
            lengths = ch.counts[nz]
            for best, lk in zip(bests, lookups, strict=False):
                best.update(ids, seg, lengths, lk[ch.rule](codes))
        done += ch.size
        if progress is not None:
            progress(done, total)
    return bests, done
