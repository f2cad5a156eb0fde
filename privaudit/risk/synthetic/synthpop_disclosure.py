"""synthpop's disclosure measures of a release against its original (Raab, Nowok & Dibben, "Practical privacy
metrics for synthetic data", 2024; synthpop 1.9's ``disclosure()``).

Replicates ``disclosure.synds`` (synthpop 1.9-3, ``R/disclosure.R``, github.com/bnowok/synthpop commit
9cc308184cd906d5176ff87b70d6c240ea0676c4) for one release (m = 1). With q the composite of the keys and t the
target, d(q, t) and s(q, t) the original's and the release's counts, d(q) and s(q) their key margins, N_d and
N_s the record counts, every attribute figure is a share of the N_d original records:

* Dorig   = Σ d(q,t) [d(q,t) = d(q)] / N_d            (disclosive in original: the baseline)
* Dsyn    = Σ s(q,t) [s(q,t) = s(q)] / N_s            (disclosive in synthetic, of the synthetic records)
* iS      = Σ d(q,t) [s(q) > 0] / N_d                 (key in synthetic)
* DiS     = Σ d(q,t) [∃t': s(q,t') = s(q) > 0] / N_d  (disclosive in synthetic)
* DiSCO   = Σ d(q,t) [s(q,t) = s(q) > 0] / N_d        (disclosive in synthetic, correct in original)
* DiSDiO  = DiSCO's cells also with d(q,t) = d(q)     (... and disclosive in original)
* max_denom / mean_denom: the largest / mean positive DiSCO cell count (synthpop's names)

then identity figures from the key margins after the exclusions below: UiO = #{q: d(q) = 1}/N_d, UiS =
#{q: s(q) = 1}/N_s, UiOiS = #{q: d(q) = 1, q in the release}/N_d, repU = #{q: d(q) = s(q) = 1}/N_d; and the
CAP family: baseCAPd = Σ_t (d(t)/N_d)², CAPd = Σ_q d(q) Σ_t (d(q,t)/d(q))² / N_d, CAPs likewise on s / N_s,
DCAP = Σ_q,t d(q,t) s(q,t)/s(q) / N_d and TCAP = Σ DiSCO cells / Σ_{q: s(q)>0} d(q).

The disclosive cells are found before the exclusions; the exclusions (``tab_exclude``) then zero cells of each
of the eight tables in synthpop's order, each cell counted under the first reason: target level in
``not_targetlev``; target missing when ``usetargetNA`` is false (only if the original has a missing target,
as synthpop tests); a key missing where its ``usekeysNA`` is false; a (key level, target level) pair of
``exclude``; and, with ``exclude_ov_denom_lim``, cells of that table over ``denom_lim`` records. The
1-way and 2-way checks (``thresh_1way``, ``thresh_2way``) are synthpop's flags of disclosure that may come
from common knowledge.

Values: a missing value is the level "Missing" (synthpop's ``tomissing``, which merges it with a literal
"Missing"); a numeric column is a factor of its distinct values (synthpop's default, ``ngroups`` NULL),
unless ``ngroups`` asks for synthpop's ``group_num`` quantile groups (:func:`group_numeric`). Everything is
counted with ``numpy.bincount`` over cell codes: no per-record loop.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from privaudit.common.numeric import to_numeric

MISSING = "Missing"
REASONS = ("excluded_target", "missing_target", "missing_keys", "set_to_exclude", "over_denom_lim", "remaining")
TABLES = ("original", "synthetic", "Dorig", "Dsyn", "iS", "DiS", "DiSCO", "DiSDiO")


@dataclass(frozen=True)
class Options:
    """synthpop's arguments of ``disclosure()`` (one target)."""

    denom_lim: int = 5
    exclude_ov_denom_lim: bool = False
    not_targetlev: tuple[str, ...] = ()
    usetargetNA: bool = True
    usekeysNA: tuple[bool, ...] | None = None  # per key; None: all True
    exclude: tuple[tuple[str, str, str], ...] = ()  # (key, key level, target level)
    thresh_1way: tuple[float, float] = (50, 90)
    thresh_2way: tuple[float, float] = (4, 80)
    ngroups: dict[str, int] = field(default_factory=dict)  # numeric column -> groups (0: its distinct values)
    cont_na: dict[str, tuple[float, ...]] = field(default_factory=dict)  # numeric codes kept as levels


@dataclass
class Disclosure:
    """One target's figures (shares of the original records, synthpop's ×100 figures / 100)."""

    UiO: float
    UiS: float
    UiOiS: float
    repU: float
    Dorig: float
    Dsyn: float
    iS: float
    DiS: float
    DiSCO: float
    DiSDiO: float
    max_denom: int
    mean_denom: float | None
    baseCAPd: float
    CAPd: float
    CAPs: float
    DCAP: float
    TCAP: float | None
    n_original: int
    n_synthetic: int
    exclusions: dict[str, dict[str, int]] = field(default_factory=dict)
    check_1way: dict | None = None  # the target level that makes most of DiSCO, when flagged
    check_2way: list[dict] = field(default_factory=list)  # the flagged (target level, key level) pairs


def r_label(value: float) -> str:
    """A number as R's ``as.character`` writes it (15 significant digits), the label ``factor()`` gives it."""
    if float(value).is_integer() and abs(value) < 1e15:
        return str(int(value))
    return f"{value:.15g}"


def _labels(original: pd.Series, release: pd.Series, numeric: bool) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Both columns coded on one set of levels (codes into the returned labels); missing is "Missing". Each
    column is factorized on its own (a categorical one through its codes) and only the distinct values are
    matched: numbers by value, other values by their text (a literal "Missing" joins the missing, as in R)."""
    levels: dict[object, int] = {}
    labels: list[str] = []

    def level(value: object, label: str) -> int:
        if value not in levels:
            levels[value] = len(labels)
            labels.append(label)
        return levels[value]

    coded = []
    for column in (original, release):
        values = to_numeric(column, errors="coerce").astype(float) if numeric else column
        codes, uniques = pd.factorize(values, use_na_sentinel=True)
        if numeric:
            index = [level(float(u), r_label(float(u))) for u in uniques]
        else:
            index = [level(str(u), str(u)) for u in uniques]
        table = np.asarray([*index, level(MISSING, MISSING) if (codes < 0).any() else -1], dtype=np.int64)
        coded.append(table[np.asarray(codes, dtype=np.int64)])  # code -1 (missing) takes the table's last entry
    return coded[0], coded[1], labels


# ------------------------------------------------------------------------------------------ grouping
def _r_quantile7(x: np.ndarray, n: int) -> np.ndarray:
    """R's ``quantile(x, seq(0, 1, 1/n))`` (type 7) as R computes it: (1 - h) x[lo] + h x[hi]."""
    x = np.sort(x)
    probs = np.arange(n + 1) * (1 / n)
    index = 1 + (len(x) - 1) * probs
    lo, hi = np.floor(index).astype(int) - 1, np.ceil(index).astype(int) - 1
    q = x[lo].astype(float)
    h = index - (lo + 1)
    move = (index > lo + 1) & (x[hi] != q)
    q[move] = (1 - h[move]) * q[move] + h[move] * x[hi[move]]
    return q


def _breaks(values: np.ndarray, n: int, style: str) -> np.ndarray:
    """classInt's ``classIntervals(values, n, style)$brks`` (quantile or equal), made unique as group_num does;
    n at least the distinct values: classInt's ``unique`` style (midpoints between the sorted values)."""
    distinct = np.unique(values)
    if len(distinct) < 2:
        return distinct.astype(float)
    if n >= len(distinct):
        step = np.diff(distinct)
        return np.concatenate(
            [[distinct[0] - step.mean() / 2], distinct[:-1] + step / 2, [distinct[-1] + step.mean() / 2]]
        )
    if style == "equal":
        return np.unique(np.linspace(values.min(), values.max(), n + 1))
    return np.unique(_r_quantile7(values, n))


def _interval_labels(breaks: np.ndarray) -> list[str]:
    """R's ``cut(..., right = FALSE, include.lowest = TRUE, dig.lab = 8)`` labels: "[a,b)", the last "[a,b]"."""
    for digits in range(8, 13):
        text = [f"{b:.{digits}g}" for b in breaks]
        if len(set(text)) == len(text):
            break
    return [
        f"[{a},{b}{']' if i == len(text) - 2 else ')'}"
        for i, (a, b) in enumerate(zip(text[:-1], text[1:], strict=True))
    ]


def _cut(values: pd.Series, breaks: np.ndarray, labels: list[str], special: tuple[float, ...]) -> pd.Series:
    v = to_numeric(values, errors="coerce").astype(float).to_numpy()
    out = np.full(len(v), None, dtype=object)
    plain = ~np.isnan(v) & ~np.isin(v, special)
    idx = np.clip(np.searchsorted(breaks, v[plain], side="right") - 1, 0, len(labels) - 1)
    out[plain] = np.asarray(labels, dtype=object)[idx]
    is_special = np.isin(v, special)
    out[is_special] = [r_label(x) for x in v[is_special]]
    return pd.Series(out, index=values.index, dtype=object)


def group_numeric(original: pd.Series, release: pd.Series, n: int, special: tuple[float, ...] = ()):
    """synthpop's ``group_num`` (R/utility.syn.r) as ``disclosure()`` calls it: quantile groups of the original's
    and the release's values together (the ``special`` codes of ``cont.na`` and missing values apart), redone
    with equal-width groups when that gives fewer than 3 levels. Returns the two columns as labels."""
    o = to_numeric(original, errors="coerce").astype(float)
    r = to_numeric(release, errors="coerce").astype(float)
    both = np.concatenate([o.to_numpy(), r.to_numpy()])
    values = both[~np.isnan(both) & ~np.isin(both, special)]
    if len(np.unique(values)) < 2:  # classInt stops ("single unique value"): the values stay as they are
        return o, r
    for style in ("quantile", "equal"):
        breaks = _breaks(values, n, style)
        labels = _interval_labels(breaks)
        if len(labels) + len(special) >= 3:
            break
    return _cut(o, breaks, labels, special), _cut(r, breaks, labels, special)


@dataclass
class Coded:
    """The two tables coded: per record its key (composite) and target codes; per key its components."""

    key_o: np.ndarray
    key_s: np.ndarray
    tgt_o: np.ndarray
    tgt_s: np.ndarray
    key_parts: np.ndarray  # (n keys, n key columns): each key's component codes
    key_labels: list[list[str]]  # per key column, its labels
    target_labels: list[str]
    parts_o: np.ndarray  # (n original, n key columns) component codes of the original records


def _column(original: pd.DataFrame, release: pd.DataFrame, name: str, numeric: set[str], opt: Options):
    """One column of both tables coded, grouped first when ``opt.ngroups`` asks it of a numeric column."""
    groups = opt.ngroups.get(name, 0)
    if groups and name in numeric:
        o, r = group_numeric(original[name], release[name], groups, tuple(opt.cont_na.get(name, ())))
        return _labels(o, r, numeric=o.dtype != object)
    return _labels(original[name], release[name], name in numeric)


def code(original, release, keys: list[str], target: str | None, numeric: set[str], opt: Options) -> Coded:
    """:class:`Coded` of the two tables (no target: a constant one, for the identity figures alone)."""
    parts_o, parts_s, key_labels = [], [], []
    for k in keys:
        o, s, lab = _column(original, release, k, numeric, opt)
        parts_o.append(o)
        parts_s.append(s)
        key_labels.append(lab)
    po, ps = np.column_stack(parts_o), np.column_stack(parts_s)
    both = np.vstack([po, ps])
    inverse = np.zeros(len(both), np.int64)
    for i, labels in enumerate(key_labels):  # hashed pairwise: the running key code times the next column's codes
        inverse = np.asarray(pd.factorize(inverse * len(labels) + both[:, i])[0], dtype=np.int64)
    first = np.empty(int(inverse.max()) + 1 if len(inverse) else 0, np.int64)
    first[inverse[::-1]] = np.arange(len(inverse))[::-1]  # each key's first record
    unique = both[first]
    if target is None:
        tgt_o, tgt_s, target_labels = np.zeros(len(original), np.int64), np.zeros(len(release), np.int64), ["·"]
    else:
        tgt_o, tgt_s, target_labels = _column(original, release, target, numeric, opt)
    n = len(original)
    return Coded(inverse[:n], inverse[n:], tgt_o, tgt_s, unique, key_labels, target_labels, po)


def _cells(c: Coded):
    """Cells (key, target) present in either table, with their original and synthetic counts."""
    width = len(c.target_labels)
    ids = np.concatenate([c.key_o * width + c.tgt_o, c.key_s * width + c.tgt_s])
    inverse, cells = pd.factorize(ids)
    n = len(c.key_o)
    d = np.bincount(inverse[:n], minlength=len(cells)).astype(float)
    s = np.bincount(inverse[n:], minlength=len(cells)).astype(float)
    return cells // width, cells % width, d, s


def _tables(cell_key, d, s, n_keys):
    """synthpop's eight tables, as arrays over the cells (before the exclusions)."""
    dk = np.bincount(cell_key, weights=d, minlength=n_keys)
    sk = np.bincount(cell_key, weights=s, minlength=n_keys)
    pd1 = (d > 0) & (d == dk[cell_key])
    ps1 = (s > 0) & (s == sk[cell_key])
    anydis = np.bincount(cell_key, weights=ps1, minlength=n_keys) > 0
    in_s = sk[cell_key] > 0
    disco = d * (in_s & ps1)
    return {
        "original": d,
        "synthetic": s,
        "Dorig": d * pd1,
        "Dsyn": s * ps1,
        "iS": d * in_s,
        "DiS": d * anydis[cell_key],
        "DiSCO": disco,
        "DiSDiO": disco * pd1,
    }, sk > 0


def _reasons(c: Coded, cell_key, cell_tgt, keys: list[str], opt: Options) -> list[np.ndarray]:
    """Per exclusion reason before ``over_denom_lim``, the cells it names (synthpop's order)."""
    tl = np.asarray(c.target_labels, dtype=object)[cell_tgt]
    excluded = np.isin(tl, list(opt.not_targetlev)) if opt.not_targetlev else np.zeros(len(cell_key), bool)
    missing_target = np.zeros(len(cell_key), bool)
    if not opt.usetargetNA and MISSING in c.target_labels:
        has = (np.asarray(c.target_labels, dtype=object)[c.tgt_o] == MISSING).any()
        missing_target = (tl == MISSING) & bool(has)
    use = opt.usekeysNA or (True,) * len(keys)
    missing_keys = np.zeros(len(cell_key), bool)
    set_out = np.zeros(len(cell_key), bool)
    for i, k in enumerate(keys):
        kl = np.asarray(c.key_labels[i], dtype=object)[c.key_parts[cell_key, i]]
        if not use[i]:
            missing_keys |= kl == MISSING
        for key, key_level, target_level in opt.exclude:
            if key == k:
                set_out |= (kl == key_level) & (tl == target_level)
    return [excluded, missing_target, missing_keys, set_out]


def _exclude(table: np.ndarray, reasons: list[np.ndarray], opt: Options) -> tuple[np.ndarray, dict[str, int]]:
    """``tab_exclude``: the table with its excluded cells zeroed, and the records each reason took."""
    out = table.copy()
    counts = []
    for mask in reasons:
        counts.append(int(out[mask].sum()))
        out[mask] = 0
    over = out > opt.denom_lim if opt.exclude_ov_denom_lim else np.zeros(len(out), bool)
    counts.append(int(out[over].sum()))
    out[over] = 0
    counts.append(int(table.sum()) - sum(counts))
    return out, dict(zip(REASONS, counts, strict=True))


def _caps(tab, cell_key, cell_tgt, n_keys, nd, ns, base_td):
    """synthpop's CAP family from the excluded original and synthetic tables."""
    d, s, disco = tab["original"], tab["synthetic"], tab["DiSCO"]
    dk = np.bincount(cell_key, weights=d, minlength=n_keys)
    sk = np.bincount(cell_key, weights=s, minlength=n_keys)
    with np.errstate(invalid="ignore", divide="ignore"):
        pd_ = np.where(dk[cell_key] > 0, d / dk[cell_key], 0.0)
        ps_ = np.where(sk[cell_key] > 0, s / sk[cell_key], 0.0)
    tcap_denom = dk[sk > 0].sum()
    return (
        {
            "baseCAPd": float(((base_td / nd) ** 2).sum()),
            "CAPd": float((pd_**2 * dk[cell_key]).sum() / nd),
            "CAPs": float((ps_**2 * sk[cell_key]).sum() / ns),
            "DCAP": float((ps_ * d).sum() / nd),
            "TCAP": float(disco.sum() / tcap_denom) if tcap_denom > 0 else None,
        },
        dk,
        sk,
    )


def disclosure(
    original: pd.DataFrame,
    release: pd.DataFrame,
    keys: list[str],
    target: str | None,
    numeric: set[str],
    opt: Options | None = None,
) -> Disclosure:
    """synthpop's ``disclosure(release, original, keys, target, ...)`` for one release (see the module)."""
    opt = opt or Options()
    c = code(original, release, keys, target, numeric, opt)
    n_keys = len(c.key_parts)
    nd, ns = len(original), len(release)
    cell_key, cell_tgt, d, s = _cells(c)
    base, key_in_s = _tables(cell_key, d, s, n_keys)
    base_td = np.bincount(cell_tgt, weights=d, minlength=len(c.target_labels))
    reasons = _reasons(c, cell_key, cell_tgt, keys, opt)
    tab, exclusions = {}, {}
    for name in TABLES:
        tab[name], exclusions[name] = _exclude(base[name], reasons, opt)
    caps, dk, sk = _caps(tab, cell_key, cell_tgt, n_keys, nd, ns, base_td)
    disco = tab["DiSCO"]
    positive = disco[disco > 0]
    return Disclosure(
        UiO=float((dk == 1).sum() / nd),
        UiS=float((sk == 1).sum() / ns),
        UiOiS=float(((dk == 1) & key_in_s).sum() / nd),
        repU=float(((dk == 1) & (sk == 1)).sum() / nd),
        Dorig=float(tab["Dorig"].sum() / nd),
        Dsyn=float(tab["Dsyn"].sum() / ns),
        iS=float(tab["iS"].sum() / nd),
        DiS=float(tab["DiS"].sum() / nd),
        DiSCO=float(disco.sum() / nd),
        DiSDiO=float(tab["DiSDiO"].sum() / nd),
        max_denom=int(disco.max()) if len(disco) else 0,
        mean_denom=float(positive.mean()) if len(positive) else None,
        n_original=nd,
        n_synthetic=ns,
        exclusions=exclusions,
        check_1way=_check_1way(tab, cell_tgt, c, opt) if target is not None else None,
        check_2way=_check_2way(disco, cell_key, cell_tgt, c, keys, opt) if target is not None else [],
        **caps,
    )


def _check_1way(tab, cell_tgt, c: Coded, opt: Options) -> dict | None:
    """synthpop's 1-way check: one target level makes more than thresh_1way[1] % of DiSCO and more than
    thresh_1way[0] disclosive records."""
    n_levels = len(c.target_labels)
    per_level = np.bincount(cell_tgt, weights=tab["DiSCO"], minlength=n_levels)
    total = per_level.sum()
    if total <= 0:
        return None
    top = int(np.argmax(per_level))
    all_records = np.bincount(cell_tgt, weights=tab["original"], minlength=n_levels)
    n_level, pct = float(per_level[top]), per_level[top] / total * 100  # synthpop's order
    if not (n_level > opt.thresh_1way[0] and pct > opt.thresh_1way[1]):
        return None
    return {
        "level": c.target_labels[top],
        "all": int(all_records.sum()),
        "level_share_of_all": float(all_records[top] / all_records.sum()),
        "disclosive": int(total),
        "level_disclosive": int(n_level),
        "level_share_of_disclosive": float(per_level[top] / total),
    }


def _check_2way(disco, cell_key, cell_tgt, c: Coded, keys: list[str], opt: Options) -> list[dict]:
    """synthpop's 2-way check: DiSCO cells of more than thresh_2way[0] records, summed per (target level, one
    key's level); a pair is flagged when over thresh_2way[1] % of the original records with that key level
    have that target level (a relation an intruder may know without the release)."""
    big = disco > opt.thresh_2way[0]
    if not big.any():
        return []
    out = []
    n_t = len(c.target_labels)
    for i, k in enumerate(keys):
        n_l = len(c.key_labels[i])
        level = c.key_parts[cell_key[big], i]
        pair = cell_tgt[big] * n_l + level
        npairs = np.bincount(pair, weights=disco[big], minlength=n_t * n_l)
        # the original records (before exclusions) per key level and per (target level, key level)
        key_total = np.bincount(c.parts_o[:, i], minlength=n_l)
        key_target = np.bincount(c.tgt_o * n_l + c.parts_o[:, i], minlength=n_t * n_l)
        pairs = np.flatnonzero(npairs)
        t, lev = np.divmod(pairs, n_l)
        with np.errstate(invalid="ignore", divide="ignore"):
            pct = np.where(key_total[lev] > 0, key_target[pairs] * 100 / np.maximum(key_total[lev], 1), 0.0)
        flagged = pct > opt.thresh_2way[1]  # synthpop: key_target_total*100/key_total
        out += [
            {
                "key": k,
                "key_level": c.key_labels[i][lv],
                "target_level": c.target_labels[tt],
                "disclosive": int(n),
                "share_of_key_level": float(sh / 100),
            }
            for tt, lv, n, sh in zip(t[flagged], lev[flagged], npairs[pairs][flagged], pct[flagged], strict=True)
        ]
    out.sort(key=lambda r: -r["disclosive"])
    return out
