"""Straightforward (slow, loop-per-class) reference implementations for the tests.

They follow the papers' definitions directly on a pandas frame, independently of privaudit's class
summary, plus the conventions of pycanon (``pycanon.anonymity``) and ARX (``org.deidentifier.arx.
criteria``) where those differ from ours, as read from their sources:

* pycanon ``enhanced_beta_likeness`` returns ``max_s min(β*, -ln p_t(s))`` with β* the basic figure;
* pycanon ``delta_disclosure`` returns ``max |ln(p_c/p_t)|`` over the values *present* in each class;
* ARX ``EnhancedBLikeness`` fails a class iff some present value has ``D > min(β, -ln p_t)``;
* ARX ``DDisclosurePrivacy`` fails a class iff some *present* value has ``|log2(p_c/p_t)| >= δ``.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

import pandas as pd


@dataclass
class ClassDist:
    key: tuple
    size: int
    share: dict  # value -> p_c over ALL values of the table (0 for absent); empty without values


def distributions(frame: pd.DataFrame, qis: list[str], col: str) -> tuple[dict, list[ClassDist]]:
    """The table's distribution ``p_t`` and each class's ``p_c`` (missing sensitive values left out),
    classes in sorted order of their QI values."""
    keys = list(zip(*(frame[q].tolist() for q in qis), strict=False))
    values = [None if pd.isna(v) else v for v in frame[col].tolist()]
    known = [v for v in values if v is not None]
    prior = {s: n / len(known) for s, n in Counter(known).items()}
    members: dict[tuple, list] = {}
    for key, v in zip(keys, values, strict=False):
        members.setdefault(key, []).append(v)
    classes = []
    for key in sorted(members):
        held = Counter(v for v in members[key] if v is not None)
        n_c = sum(held.values())
        share = {s: held.get(s, 0) / n_c for s in prior} if n_c else {}
        classes.append(ClassDist(key, len(members[key]), share))
    return prior, classes


def gains(prior: dict, c: ClassDist) -> dict:
    return {s: (c.share[s] - prior[s]) / prior[s] for s in c.share}


def basic_beta(prior, classes) -> float:
    figures = [max(gains(prior, c).values()) for c in classes if c.share]
    return max(figures, default=0.0)


def class_enhanced_beta(prior, c) -> float:
    g = gains(prior, c)
    if any(d > 0 and d > -math.log(prior[s]) + 1e-12 for s, d in g.items()):
        return math.inf
    return max(g.values())


def enhanced_beta(prior, classes) -> float:
    return max((class_enhanced_beta(prior, c) for c in classes if c.share), default=0.0)


def class_delta(prior, c, base=math.e, present_only=False) -> float:
    out = 0.0
    for s, p in c.share.items():
        if p == 0:
            if present_only:
                continue
            return math.inf
        out = max(out, abs(math.log(p / prior[s], base)))
    return out


def delta(prior, classes, base=math.e, present_only=False) -> float:
    return max((class_delta(prior, c, base, present_only) for c in classes if c.share), default=0.0)


# ------------------------------------------------------------------ other tools' conventions
def pycanon_enhanced(prior, classes) -> float:
    b = basic_beta(prior, classes)
    return max(min(b, -math.log(p)) for p in prior.values())


def pycanon_delta(prior, classes) -> float:
    return delta(prior, classes, present_only=True)


def arx_enhanced_fails(prior, c, beta) -> bool:
    return any(p > 0 and (p - prior[s]) / prior[s] > min(beta, -math.log(prior[s])) for s, p in c.share.items())


def arx_basic_fails(prior, c, beta) -> bool:
    return any(p > 0 and (p - prior[s]) / prior[s] > beta for s, p in c.share.items())


def arx_delta_fails(prior, c, delta_) -> bool:
    return any(p > 0 and abs(math.log2(p / prior[s])) >= delta_ for s, p in c.share.items())
