"""record_swap: targeted record swapping of households across geography levels, as sdcMicro 5.8 defines it.

sdcMicro's ``recordSwap(data, hid, hierarchy, similar, swaprate = 0.05, risk = NULL, risk_threshold = 0,
k_anonymity = 3, risk_variables, carry_along = NULL, seed)`` (R/recordSwap.R and src/recordSwap/recordSwap.cpp,
sdcTools/sdcMicro commit cf32510; the ONS targeted record swapping of the 2011 census, Shlomo, Tudor & Groom,
"Data swapping for protecting census tables", PSD 2010): households at risk in a small area are exchanged with
households of the same similarity profile in other areas, then more are drawn by risk until ``swaprate`` of the
households are swapped. The algorithm, and where it departs from sdcMicro's code, is
:mod:`privaudit.remediation.record_swapping`. Options:

* ``hid``: the household id column (default: the policy's column of role ``household_id``); every record of
  a household moves with it;
* ``hierarchy``: the geography columns, coarse to fine (required): a pair exchanges the values of all of them;
* ``similar``: a similarity profile, the columns a donor must share (``[hsize]``), or several tried in turn
  (``[[hsize, htype], [hsize]]``); required, as in sdcMicro; household-level columns (the first record's
  values are compared);
* ``risk_variables``: the columns whose counts with the geography give the risk (default: the policy's
  quasi-identifiers that are not geography, as sdcMicro's ``recordSwap`` of an sdcMicroObj takes its
  ``keyVars``); ``k_anonymity`` (default 3): a household with a combination counted fewer than k times at a
  level must be swapped across that level (0: none must); or ``risk``, one numeric column per level, with
  ``risk_threshold`` (a household whose risk exceeds it must be swapped; 0: 1 / k_anonymity);
* ``swaprate`` in [0, 1] (default 0.05): the share of households swapped (a swap moves two);
* ``carry_along``: more columns exchanged with the geography (household-level: the first record's value);
* ``seed`` (NumPy's generator: not sdcMicro's draws).

Households that had to be swapped and found no donor are counted in the report and their ids written beside
the output, ``<out>.record_swap-unswapped.csv`` (sdcMicro's ``log_file_name``); sdcMicro's
``return_swapped_id`` column is not written (it would undo the swap). A pair keeps its two households' counts
in every area, and per area and similarity profile; record counts per area only when the household size is in
the profile. sdcMicro warns for PRAM, and it holds for swapping too, that class sizes of the output do not
measure its risk: explore offers it only with a check that measures the risk of perturbed values.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import Field

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

UNSWAPPED = ".record_swap-unswapped.csv"


class RecordSwapOptions(Params):
    hid: str | None = Field(default=None, description="Household id column (default: the policy's household_id).")
    hierarchy: list[str] | None = Field(default=None, description="Geography columns, coarse to fine (required).")
    similar: list[str] | list[list[str]] | None = Field(
        default=None, description="Similarity profile(s): columns a donor household must share (required)."
    )
    risk_variables: list[str] | None = Field(
        default=None, description="Columns counted with the geography for the risk (default: non-geography QIs)."
    )
    risk: list[str] | None = Field(default=None, description="Numeric risk columns, one per hierarchy level.")
    k_anonymity: int = Field(default=3, ge=0, description="Counts below it at a level: swapped across that level.")
    risk_threshold: float = Field(default=0, ge=0, description="With risk: above it must be swapped (0: 1/k).")
    swaprate: float = Field(default=0.05, ge=0, le=1, description="Share of households swapped.")
    carry_along: list[str] | None = Field(default=None, description="More columns exchanged with the geography.")
    seed: int = Field(default=0, description="Seed of the draws (NumPy's generator).")


def _columns(ctx, option: str, names: list[str] | None, least: int = 0) -> list[str]:
    names = list(dict.fromkeys(names or []))
    if len(names) < least:
        raise ValueError(f"{option}: give at least {least} column{'s' if least > 1 else ''} of the table")
    for name in names:
        if name not in ctx.table.columns:
            raise ValueError(f"{option}: {name!r} is not a column of the table")
    return names


def _hid(ctx, options: RecordSwapOptions) -> str:
    if options.hid is not None:
        return _columns(ctx, "hid", [options.hid])[0]
    found = [c for c in ctx.policy.columns_with("household_id") if c in ctx.table.columns]
    if len(found) != 1:
        raise ValueError(
            "hid: the policy has no column of role household_id; give the household id, --option hid=<column>"
            if not found
            else f"hid: the policy has {len(found)} household_id columns ({', '.join(found)}); name one"
        )
    return found[0]


def _profiles(ctx, options: RecordSwapOptions) -> list[list[str]]:
    given = options.similar
    if not given:
        raise ValueError("similar: give a similarity profile, the columns a donor must share, e.g. [hsize]")
    profiles = [list(given)] if isinstance(given[0], str) else [list(p) for p in given]  # type: ignore[arg-type]
    return [_columns(ctx, "similar", profile, least=1) for profile in profiles]


def _risk_variables(ctx, options: RecordSwapOptions, hierarchy: list[str], hid: str) -> list[str]:
    if options.risk is not None:
        return []
    if options.risk_variables is not None:
        return _columns(ctx, "risk_variables", options.risk_variables, least=1)
    default = [c for c in ctx.policy.quasi_identifiers if c not in hierarchy and c != hid and c in ctx.table.columns]
    if not default:
        raise ValueError("risk_variables: the policy has no quasi-identifier besides the geography; name them")
    return default


def _complete(ctx, option: str, names: list[str]) -> None:
    """sdcMicro refuses a missing value in the columns it compares or counts."""
    for name in names:
        missing = ctx.table[name].isna().to_numpy()
        if missing.any():
            row = int(missing.argmax()) + 1
            raise ValueError(f"{option}: column {name!r} has a missing value (row {row}); every record needs one")


def _user_risk(ctx, options: RecordSwapOptions, hierarchy: list[str]) -> list[str]:
    from privaudit.common.numeric import to_numeric

    names = _columns(ctx, "risk", options.risk, least=1)
    if len(names) != len(hierarchy):
        raise ValueError(f"risk: {len(names)} columns for {len(hierarchy)} hierarchy levels; give one per level")
    for name in names:
        values = to_numeric(ctx.table[name], errors="coerce")
        if values.isna().any() or (values < 0).any():
            raise ValueError(f"risk: column {name!r} must hold numbers >= 0 in every record")
    return names


def _inputs(ctx, options: RecordSwapOptions) -> dict[str, Any]:
    """The options resolved against the policy and the table (each refusal names its option)."""
    hid = _hid(ctx, options)
    if not options.hierarchy:
        raise ValueError("hierarchy: give the geography columns, coarse to fine, e.g. [region, district]")
    hierarchy = _columns(ctx, "hierarchy", options.hierarchy)
    profiles = _profiles(ctx, options)
    risk_variables = _risk_variables(ctx, options, hierarchy, hid)
    risk = _user_risk(ctx, options, hierarchy) if options.risk is not None else []
    carry = [c for c in _columns(ctx, "carry_along", options.carry_along) if c not in hierarchy]
    for option, names in (("hid", [hid]), ("hierarchy", hierarchy), ("risk_variables", risk_variables)):
        _complete(ctx, option, names)
    _complete(ctx, "similar", sorted({c for p in profiles for c in p}))
    if hid in hierarchy or hid in carry or any(hid in p for p in profiles):
        raise ValueError(f"hid: {hid!r} is also a geography, carry-along or similarity column")
    return {
        "hid": hid,
        "hierarchy": hierarchy,
        "profiles": profiles,
        "risk_variables": risk_variables,
        "risk": risk,
        "carry": carry,
    }


def run(ctx, options: RecordSwapOptions) -> Remediation:
    import numpy as np

    from privaudit.remediation import record_swapping as rs

    given = _inputs(ctx, options)
    table = ctx.table
    household, first = rs.households(table[given["hid"]])
    rows = np.column_stack([rs.codes_of(table[[c]]) for c in given["hierarchy"]])
    if given["risk"]:
        values = table[given["risk"]].apply(lambda s: s.astype(float)).to_numpy(dtype=np.float64)
        risk = rs.household_max(values, household, len(first))
    else:
        risk = rs.count_risk(rs.codes_of(table[given["risk_variables"]]), rows, household, len(first))
    heads = table.iloc[first]
    data = rs.SwapInput(rows[first], risk, [rs.codes_of(heads[p]) for p in given["profiles"]])
    result = rs.record_swap(data, options.swaprate, options.k_anonymity, options.risk_threshold, options.seed)
    return _remediation(ctx, options, given, household, first, result)


def _swapped_table(ctx, columns: list[str], household: np.ndarray, first: np.ndarray, partner: np.ndarray):
    """The table with each swapped household's records given its partner's first record's values of
    ``columns`` (sdcMicro's output loop over ``swappedIndex``)."""
    import numpy as np

    table = ctx.table.copy()
    theirs = partner[household]
    source = np.where(theirs >= 0, first[np.maximum(theirs, 0)], np.arange(len(table)))
    for column in columns:
        table[column] = ctx.table[column].iloc[source].set_axis(table.index)
    return table


def _remediation(ctx, options: RecordSwapOptions, given: dict[str, Any], household, first, result) -> Remediation:
    import numpy as np

    hierarchy, carry = given["hierarchy"], given["carry"]
    table = _swapped_table(ctx, hierarchy + carry, household, first, result.partner)
    swapped = result.partner >= 0
    H, levels = len(first), len(hierarchy)
    failed = np.flatnonzero(result.failed)
    moved = swapped[household]
    per_level = np.bincount(result.level, minlength=levels + 1)
    at_level = np.bincount(result.swapped_at[swapped], minlength=levels)
    notes = [
        "as for PRAM (sdcMicro's warning), class sizes of the swapped release do not measure its risk: an "
        "intruder cannot tell a swapped household from one in its own area"
    ]
    for column in carry:
        if (ctx.table[column].astype(object).groupby(household).nunique(dropna=False) > 1).any():
            notes.append(f"carry_along {column!r} is not at household level: each household takes its first record's")
    artefacts: dict[str, bytes] = {}
    if len(failed):
        artefacts[UNSWAPPED] = _id_file(ctx, given["hid"], first[failed])
        notes.append(
            f"{len(failed):,} households found no donor of the same similarity profile in another area "
            f"(their ids: <out stem>{UNSWAPPED})"
        )
    changes = {
        "hid": given["hid"],
        "hierarchy": hierarchy,
        "similar": given["profiles"],
        **({"risk": given["risk"]} if given["risk"] else {"risk_variables": given["risk_variables"]}),
        "k_anonymity": options.k_anonymity,
        "risk_threshold": options.risk_threshold,
        "swaprate": options.swaprate,
        "carry_along": carry,
        "seed": options.seed,
        "households": H,
        "households_target": 2 * result.target,
        "households_swapped": int(swapped.sum()),
        "records_swapped": int(moved.sum()),
        "households_at_risk": {c: int(per_level[h]) for h, c in enumerate(hierarchy)},
        "households_swapped_across": {c: int(at_level[h]) for h, c in enumerate(hierarchy)},
        "households_without_donor": len(failed),
        "of_which_swapped_as_donor": int(swapped[failed].sum()),  # at a finer level, as sdcMicro's log counts them
        **({"unswapped_file": UNSWAPPED} if len(failed) else {}),
    }
    return Remediation(
        table=table,
        changes=changes,
        loss={
            "share_households_swapped": int(swapped.sum()) / max(H, 1),
            "share_records_swapped": int(moved.sum()) / max(len(table), 1),
            "largest_area_record_shift": _record_shift(ctx.table, table, hierarchy[-1]),
        },
        artefacts=artefacts,
        notes=notes,
    )


def _record_shift(before: pd.DataFrame, after: pd.DataFrame, column: str) -> float:
    """The largest change of a finest area's share of the records (0 when the profile holds household size)."""
    shares = before[column].astype(object).value_counts(normalize=True, dropna=False)
    now = after[column].astype(object).value_counts(normalize=True, dropna=False)
    return float(shares.sub(now, fill_value=0).abs().max()) if len(shares) else 0.0


def _id_file(ctx, hid: str, rows: np.ndarray) -> bytes:
    """The ids of the households without a donor, one a line under the id column's name (ids only: never
    their values)."""
    import io

    import pandas as pd

    from privaudit.remediation.export import neutralise

    ids = pd.DataFrame({hid: ctx.table[hid].iloc[rows].to_numpy()})
    buffer = io.StringIO()
    neutralise(ids).to_csv(buffer, index=False, lineterminator="\n")
    return buffer.getvalue().encode("utf-8")


def explore(ctx, request: ExploreRequest) -> list[ExploreCandidate]:
    """Swap rates 0.01, 0.05 (sdcMicro's default) and 0.10 at k_anonymity 3, with the hierarchy and similarity
    profile the user fixes (``--option 'record_swap.hierarchy=[[region, district]]'``, ``similar=[[hsize]]``: one
    value, a list, to explore): the policy does not say which columns are geography."""

    if not ({"hierarchy", "similar"} <= set(request.fixed)):
        request.notes.append(
            "record_swap: left out, give the geography and the similarity profile: "
            "--option 'record_swap.hierarchy=[[<coarse>, <fine>]]' --option 'record_swap.similar=[[<column>]]' "
            "(a list inside the list: one value to explore)"
        )
        return []
    if not perturbation_measured(
        ctx, randomized_response=True
    ):  # class sizes of swapped records say nothing of the risk: a candidate would pass k-anonymity unearned
        request.notes.append(
            "record_swap: left out, no error-severity check measures the risk of perturbed values (record "
            "linkage against --original); class sizes of a swapped release do not measure its risk"
        )
        return []
    base = [{"swaprate": rate} for rate in (0.01, 0.05, 0.1)]
    return sweep(ctx, base, request, RecordSwapOptions, run)


REMEDIATOR = Remediator(
    name="record_swap",
    options=RecordSwapOptions,
    run=run,
    title="Targeted record swapping",
    description="exchange the geography of households at risk (and a swap rate of others) with households of "
    "the same similarity profile in other areas (sdcMicro's recordSwap)",
    explore=explore,
)


@hookimpl
def privaudit_remediators() -> list[Remediator]:
    return [REMEDIATOR]
