"""pram: invariant post-randomisation of nominal quasi-identifiers, as sdcMicro 5.8 defines it.

sdcMicro's ``pram(obj, variables = NULL, strata_variables = NULL, pd = 0.8, alpha = 0.5)`` (R/pram.R, commit
cf32510; Gouweleeuw, Kooiman, Willenborg & de Wolf, J. Official Statistics 14(4), 1998; Hundepool et al.,
*Statistical Disclosure Control*, Wiley 2012, §3.4.6): each record's category of a variable is replaced by one
drawn from row i of an invariant transition matrix (P's diagonal drawn in [pd, 1], its Bayes inverse Q,
``Rs = alpha P Q + (1 - alpha) I``: the expected released marginal is the original one), within each stratum of
``strata_variables``. The algorithm is :mod:`privaudit.remediation.perturbation`. Options: ``variables`` (default
every nominal quasi-identifier), ``strata_variables``, ``pd`` in (0, 1], ``alpha`` in [0, 1], ``seed`` (NumPy's
generator: not R's draws).

The matrices used are written beside the output, as ``randomize`` writes its distortion matrices: without
strata, ``<out>.pram-<column>.csv``, the square CSV ``rr_attribute_disclosure`` reads (rows the released value,
columns the original: the transpose of sdcMicro's ``Rs``, whose rows are the original), so a policy can
publish it as that check's ``randomized: {<column>: {matrix: <file>}}``; with strata,
``<out>.pram-<column>.strata.csv``, one such block per stratum under the strata's columns, which that check
cannot read (its model has one matrix per column for every record). sdcMicro warns that k-anonymity and
risk measures of pramed key variables are not useful anymore: the re-audit counts the released values.

Three more ways to give the matrix, per variable (the rest stay invariant):

- ``pd`` per variable or per category (sdcMicro's ``pd = list(...)`` whose element is a vector, one least
  diagonal of P per category; ``{region: 0.9, occupation: {o01: 0.95, "*": 0.7}}``: categories not named take
  ``"*"``, else sdcMicro's default 0.8). It bounds P, not the kept share of the invariant matrix.
- ``matrix``: ``{<column>: <CSV file>}``, the transition matrix itself (sdcMicro's ``pd = <matrix>``): first
  column and header the categories, rows the original category, columns the released one, each row summing
  to 1 (within 1e-9), no category the column does not have, and a row for every category it has; alpha, pd
  and strata do not change it.
- ``keep`` (µ-ARGUS 5.1's PRAM specification, §4.2.2: the probability of not changing a category, per
  variable or per category, ``"*"`` for the ones not named, else 1): a category is kept with that probability
  and otherwise released as one of the other categories, equally likely; with ``bandwidth`` (a number, or one
  per variable) only as one of those at most that many places from it in the column's order (sorted values,
  or a categorical column's categories). The kernel is :func:`privaudit.remediation.perturbation.keep_matrix`
  (µ-ARGUS's engine, sdcTools/libmuargus commit 5b25ec8, MuArgCtrl.cpp).

These matrices do not depend on the data, so each is written as the plain square CSV even with strata. A
singular one (keep 1/L of L categories without a bandwidth: every row the same) is written too, but
``rr_attribute_disclosure`` refuses it (a release under it cannot be corrected for); the notes say so.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from pydantic import Field, field_validator

from privaudit.common.params import Params
from privaudit.plugin.hookspecs import hookimpl
from privaudit.plugin.remediator import (
    ExploreCandidate,
    ExploreRequest,
    Remediation,
    Remediator,
    perturbation_measured,
    sweep,
)

if TYPE_CHECKING:  # numpy and pandas load when a remediation runs, not with the registry
    import numpy as np
    import pandas as pd


#: per variable, per category (``"*"``: the categories not named), or one number for every variable
PerCategory = float | dict[str, float | dict[str, float]]


class PramOptions(Params):
    variables: list[str] | None = Field(
        default=None, description="Nominal quasi-identifiers to pram (default: every nominal quasi-identifier)."
    )
    strata_variables: list[str] | None = Field(
        default=None, description="Columns whose combinations are strata: records move only within their stratum."
    )
    pd: PerCategory = Field(
        default=0.8,
        description="Least diagonal of the matrix P (drawn in [pd, 1]): one number, or per variable / category.",
    )
    alpha: float = Field(default=0.5, ge=0, le=1, description="Share of the invariant matrix mixed with I.")
    matrix: dict[str, str] | None = Field(
        default=None, description="Per variable, a CSV transition matrix (rows original, columns released)."
    )
    keep: PerCategory | None = Field(
        default=None, description="µ-ARGUS's PRAM: probability of keeping a category (per variable / category)."
    )
    bandwidth: int | dict[str, int] | None = Field(
        default=None, description="µ-ARGUS's bandwidth: a kept-or-not category moves at most this far in order."
    )
    seed: int = Field(default=0, description="Seed of the draws (NumPy's generator: not R's).")

    @field_validator("pd")
    @classmethod
    def _pd_range(cls, value: PerCategory) -> PerCategory:
        for v in _numbers(value):
            if not v > 0:
                raise ValueError("Input should be greater than 0")
            if not v <= 1:
                raise ValueError("Input should be less than or equal to 1")
        return value

    @field_validator("keep")
    @classmethod
    def _keep_range(cls, value: PerCategory | None) -> PerCategory | None:
        if any(not 0 <= v <= 1 for v in _numbers(value)):
            raise ValueError("a probability in [0, 1] is expected")
        return value

    @field_validator("bandwidth")
    @classmethod
    def _bandwidth_range(cls, value: int | dict[str, int] | None) -> int | dict[str, int] | None:
        if any(v < 1 for v in _numbers(value)):
            raise ValueError("a bandwidth is a whole number of at least 1 (µ-ARGUS: 1, 2, ...)")
        return value


def _numbers(value: Any) -> list[float]:
    """Every number of an option given as one number or nested mappings of them."""
    if isinstance(value, dict):
        return [n for v in value.values() for n in _numbers(v)]
    return [] if value is None else [value]


def _variables(ctx, options: PramOptions) -> list[str]:
    policy = ctx.policy
    nominal = [c for c in policy.quasi_identifiers if policy.columns[c].type == "nominal"]
    if options.variables is None:
        if not nominal:
            raise ValueError("the policy has no nominal quasi-identifier to pram")
        return nominal
    for name in options.variables:
        if name not in nominal:
            raise ValueError(f"variables: {name!r} is not a nominal quasi-identifier of the policy")
    if not options.variables:
        raise ValueError("variables: give at least one nominal quasi-identifier")
    return list(dict.fromkeys(options.variables))


def _strata(ctx, options: PramOptions, variables: list[str]) -> tuple[np.ndarray[Any, Any], pd.DataFrame | None]:
    """Each record's stratum (0..S-1) and the strata's values (one row per stratum; None without strata)."""
    import numpy as np

    names = list(dict.fromkeys(options.strata_variables or []))
    for name in names:
        if name not in ctx.table.columns:
            raise ValueError(f"strata_variables: {name!r} is not a column of the table")
        if name in variables:
            raise ValueError(f"strata_variables: {name!r} is also pramed; a stratum must not change")
    if not names:
        return np.zeros(len(ctx.table), dtype=np.int64), None
    frame = ctx.table[names].astype(object).where(ctx.table[names].notna(), None)
    ids = frame.groupby(names, dropna=False, sort=True).ngroup().to_numpy(dtype=np.int64)
    keys = frame.assign(_stratum=ids).drop_duplicates("_stratum").set_index("_stratum")[names]
    return ids, keys.sort_index()


def _check_names(options: PramOptions, variables: list[str]) -> None:
    """Mappings of ``pd``, ``keep``, ``bandwidth`` and ``matrix`` name pramed variables; a variable has one way."""
    for name in ("pd", "keep", "bandwidth", "matrix"):
        value = getattr(options, name)
        for column in value if isinstance(value, dict) else []:
            if column not in variables:
                raise ValueError(f"{name}: {column!r} is not a pramed variable (variables: {', '.join(variables)})")
    for column, path in (options.matrix or {}).items():
        for name in ("keep", "bandwidth"):
            value = getattr(options, name)
            if isinstance(value, dict) and column in value:
                raise ValueError(f"{name}: {column!r} has a matrix (matrix: {path})")
    for column in variables:
        mode = _mode(options, column)
        if isinstance(options.pd, dict) and column in options.pd and mode != "invariant":
            raise ValueError(f"pd: {column!r} is pramed with its {mode} (pd is the invariant PRAM's)")
        if _of(options.bandwidth, column) is not None and mode != "keep":
            raise ValueError(f"bandwidth: {column!r} needs keep too (µ-ARGUS's bandwidth bounds its PRAM)")


def _of(value: Any, column: str) -> Any:
    """An option's entry for ``column``: its one value, its mapping's entry, or None."""
    return value.get(column) if isinstance(value, dict) else value


def _mode(options: PramOptions, column: str) -> str:
    if column in (options.matrix or {}):
        return "matrix"
    return "keep" if _of(options.keep, column) is not None else "invariant"


def _per_category(value: Any, labels: list[str], name: str, column: str, default: float) -> np.ndarray[Any, Any]:
    """One number per category (in ``labels``' order) of an option's entry for ``column``."""
    import numpy as np

    if not isinstance(value, dict):
        return np.full(len(labels), default if value is None else float(value))
    for category in value:
        if category != "*" and category not in labels:
            raise ValueError(f"{name}: {column}: {category!r} is not a category of the column")
    fill = float(value.get("*", default))
    return np.array([float(value.get(label, fill)) for label in labels])


def _released(ctx, options: PramOptions, column: str, strata, rng) -> tuple[Any, Any, list[Any], Any, bool]:
    """One variable's categories before and after (codes), its categories, the matrices (S x L x L; rows
    the original), and whether they are fixed (one for every stratum)."""
    import numpy as np
    import pandas as pd

    from privaudit.remediation.perturbation import keep_matrix, pram_codes, pram_fixed

    values = ctx.table[column]
    mode = _mode(options, column)
    if mode == "matrix":
        labels, matrix = _read_matrix((options.matrix or {})[column], column, values)
        found, uniques = pd.factorize(values)  # the matrix's row of each distinct value, then of each record
        rows = pd.Index([str(v) for v in labels]).get_indexer([str(v) for v in uniques])
        codes = np.where(found >= 0, np.append(rows, -1)[found], -1).astype(np.int64)
        return codes, pram_fixed(codes, matrix, rng), labels, matrix[None], True
    codes, uniques = pd.factorize(values, sort=True)
    codes, labels = codes.astype(np.int64), list(uniques)
    if not labels:  # every value missing (a column a step before suppressed): nothing to draw from
        return codes, codes, labels, np.zeros((1, 0, 0)), True
    names = [str(v) for v in labels]
    if mode == "keep":
        keep = _per_category(_of(options.keep, column), names, "keep", column, 1.0)
        matrix = keep_matrix(keep, _of(options.bandwidth, column))
        return codes, pram_fixed(codes, matrix, rng), labels, matrix[None], True
    pd_ = _per_category(_of(options.pd, column), names, "pd", column, 0.8)
    result = pram_codes(codes, strata, len(labels), pd_, options.alpha, rng)
    return codes, result.codes, labels, result.matrices, False


def run(ctx, options: PramOptions) -> Remediation:
    import numpy as np
    import pandas as pd

    variables = _variables(ctx, options)
    _check_names(options, variables)
    strata, keys = _strata(ctx, options, variables)
    rng = np.random.default_rng(options.seed)
    table = ctx.table.copy()
    artefacts: dict[str, bytes] = {}
    changed: dict[str, int] = {}
    shift: dict[str, float] = {}
    modes = {column: _mode(options, column) for column in variables}
    singular: list[str] = []
    for column in variables:
        values = ctx.table[column]
        codes, out, labels, matrices, fixed = _released(ctx, options, column, strata, rng)
        changed[column] = int((out != codes).sum())
        present = max(int((codes >= 0).sum()), 1)
        before = np.bincount(codes[codes >= 0], minlength=len(labels)) / present
        after = np.bincount(out[out >= 0], minlength=len(labels)) / present
        shift[column] = float(np.abs(after - before).max()) if len(labels) else 0.0
        if not labels:
            continue
        released = np.where(out >= 0, np.asarray(labels + [None], dtype=object)[out], None)
        new = pd.Series(released, index=values.index, dtype=object).where(out >= 0, np.nan)
        table[column] = pd.Categorical(new, categories=values.cat.categories) if hasattr(values, "cat") else new
        artefacts.update(_matrix_files(column, [str(v) for v in labels], matrices, None if fixed else keys))
        if fixed and np.linalg.matrix_rank(matrices[0]) < len(labels):
            singular.append(column)
    return Remediation(
        table=table,
        changes={
            "variables": variables,
            "modes": modes,
            "strata_variables": list(options.strata_variables or []),
            "strata": 1 if keys is None else len(keys),
            **{name: getattr(options, name) for name in ("pd", "alpha", "keep", "bandwidth", "matrix", "seed")},
            "values_changed": changed,
        },
        loss={
            "share_values_changed": sum(changed.values()) / max(len(table) * len(variables), 1),
            "largest_marginal_shift": max(shift.values(), default=0.0),
        },
        artefacts=artefacts,
        notes=_notes(variables, modes, keys)
        + [f"the matrix of {c} is singular: rr_attribute_disclosure cannot correct for it" for c in singular],
    )


def _notes(variables: list[str], modes: dict[str, str], keys: pd.DataFrame | None) -> list[str]:
    notes = [
        "sdcMicro warns that k-anonymity and risk measures of pramed key variables are not useful anymore: "
        "the re-audit counts the released values, which may not be the records' own"
    ]
    plain = [c for c in variables if keys is None or modes[c] != "invariant"]
    if plain:
        published = ", ".join(f"{c}: {{matrix: <out stem>{_suffix(c)}}}" for c in plain)
        notes.append(
            f"to audit the output under randomized response, give an rr_attribute_disclosure check "
            f"randomized: {{{published}}} (the matrices written beside it)"
        )
    return notes


def _read_matrix(path: str, column: str, values: pd.Series) -> tuple[list[Any], np.ndarray[Any, Any]]:
    """A user's transition matrix (sdcMicro's ``pram(pd = <matrix>)`` checks, R/pram.R ``inputs_pram`` and
    ``calcTransitionMatrix``): square, labelled by the column's categories on both axes, rows (the original
    category) summing to 1. Returns its categories (as the column holds them) and the matrix."""
    import csv

    import numpy as np
    import pandas as pd

    where = f"matrix: {column}: {path}"
    try:
        frame = pd.read_csv(path, index_col=0, dtype=str, sep=None, engine="python", keep_default_na=False)
    except (OSError, UnicodeDecodeError, ValueError, csv.Error) as exc:  # ParserError is a ValueError
        raise ValueError(f"{where}: cannot read it ({type(exc).__name__}: {exc})".replace("\n", " ")) from None
    rows, cols = [str(v).strip() for v in frame.index], [str(v).strip() for v in frame.columns]
    if len(rows) != len(cols) or not rows:
        raise ValueError(f"{where}: not square ({len(rows)} rows x {len(cols)} columns)")
    if sorted(rows) != sorted(cols) or len(set(cols)) != len(cols):
        raise ValueError(
            f"{where}: the rows' categories are not the columns' (rows the original, columns the released)"
        )
    known = {str(v): v for v in (values.cat.categories if hasattr(values, "cat") else values.dropna().unique())}
    unknown = [c for c in cols if c not in known]
    if unknown:
        raise ValueError(f"{where}: {unknown[0]!r} is not a category of the column")
    missing = sorted({str(v) for v in values.dropna().unique()} - set(cols))
    if missing:
        raise ValueError(f"{where}: no row for the column's category {missing[0]!r}")
    try:
        matrix = frame.to_numpy().astype(np.float64)[[rows.index(c) for c in cols]]
    except ValueError as exc:
        raise ValueError(f"{where}: an entry is not a number ({exc})") from None
    if not np.isfinite(matrix).all() or (matrix < 0).any():
        raise ValueError(f"{where}: an entry is negative or not finite")
    sums = matrix.sum(axis=1)
    bad = np.flatnonzero(np.abs(sums - 1.0) > 1e-9)
    if bad.size:
        raise ValueError(f"{where}: the row of {cols[bad[0]]!r} sums to {sums[bad[0]]:.12g}, not 1 (tolerance 1e-9)")
    return [known[c] for c in cols], matrix


def _suffix(column: str, strata: bool = False) -> str:
    """The side file's suffix for ``column`` (a name reduced to characters safe in a file name)."""
    return f".pram-{re.sub(r'[^A-Za-z0-9_.-]', '_', column)}{'.strata' if strata else ''}.csv"


def _matrix_files(
    column: str, labels: list[str], matrices: np.ndarray[Any, Any], keys: pd.DataFrame | None
) -> dict[str, bytes]:
    """The matrices used, as ``rr_attribute_disclosure``'s square CSV (rows released, columns original); with
    strata, one block per stratum, the strata's values in front."""
    import io

    import pandas as pd

    from privaudit.remediation.export import neutralise
    from privaudit.remediation.methods.randomize import matrix_csv

    if keys is None:
        return {_suffix(column): matrix_csv(labels, matrices[0].T)}
    blocks = []
    for s, (_, key) in enumerate(keys.iterrows()):  # one block per stratum (not per record)
        block = pd.DataFrame(matrices[s].T, columns=labels)
        block.insert(0, "released \\ original", labels)
        for position, name in enumerate(keys.columns):
            block.insert(position, name, key[name])
        blocks.append(block)
    buffer = io.StringIO()
    neutralise(pd.concat(blocks, ignore_index=True)).to_csv(
        buffer, index=False, float_format="%.12g", lineterminator="\n"
    )
    return {_suffix(column, strata=True): buffer.getvalue().encode("utf-8")}


def explore(ctx, request: ExploreRequest) -> list[ExploreCandidate]:
    """Invariant PRAM of every nominal quasi-identifier at pd 0.9, 0.8 (sdcMicro's default), 0.7, 0.6 and
    0.5, alpha 0.5 (sdcMicro's default); ``--option pd=...`` (or alpha, strata_variables) crosses them. With
    ``--option keep=...`` or ``matrix=...`` (matrices that pd does not change), the values given only."""
    from privaudit.remediation.methods.generalize import spread

    policy = ctx.policy
    if not any(policy.columns[c].type == "nominal" for c in policy.quasi_identifiers):
        request.notes.append("pram: left out, the policy has no nominal quasi-identifier")
        return []

    if not perturbation_measured(
        ctx, randomized_response=True
    ):  # class sizes of pramed key variables say nothing of the risk: a candidate would pass k-anonymity unearned
        request.notes.append(
            "pram: left out, no error-severity check measures the risk of perturbed values (a randomized-response "
            "bound, or record linkage against --original); sdcMicro warns that k-anonymity and risk measures of "
            "pramed key variables are not useful anymore"
        )
        return []
    base = [{"pd": value} for value in spread([0.9, 0.8, 0.7, 0.6, 0.5], request.limit)]
    if "keep" in request.fixed or "matrix" in request.fixed:
        base = [{}]
    return sweep(ctx, base, request, PramOptions, run)


REMEDIATOR = Remediator(
    name="pram",
    options=PramOptions,
    run=run,
    title="Post-randomisation (PRAM)",
    description="replace nominal quasi-identifiers' categories by draws from an invariant transition matrix "
    "(sdcMicro's pram)",
    explore=explore,
)


@hookimpl
def privaudit_remediators() -> list[Remediator]:
    return [REMEDIATOR]
