"""One categorical variable coded as several 0/1 dummies: ``construc``, ``ndurman``, ``trcommpu``, ``trade``,
``services``, ``profserv`` (Wooldridge's ``wage1``: the industry a person works in), ``northcen``, ``south``,
``west`` (the region). Each row has a 1 in at most one of them; together they say what one column would.

An intruder who knows a person's industry knows every dummy of it, so a draft that makes some of them key
variables must make all of them key variables: leaving ``ndurman`` out while ``construc`` is in leaves the
records of that industry told apart by the column left out (the same reasoning as sdcMicro's guidance on
key variables: "the combination of categories", Templ, Kowarik & Meindl 2015, section 3; and the ESSnet
handbook's key variables of one concept, Hundepool et al. 2012, section 3.3).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

#: the codes a dummy holds: 0 and 1, as a CSV spells them
_ZERO = frozenset({"0", "0.0", "0.00"})
_ONE = frozenset({"1", "1.0", "1.00"})


def zero_one(series: pd.Series) -> pd.Series | None:
    """A column of 0/1 codes as 0/1 integers (a missing value counts 0), or None when it holds other values or
    only one of the two."""
    text = series.astype("string").str.strip()
    present = text[text.notna() & (text != "")]
    values = set(present.unique())
    if not values or not values <= (_ZERO | _ONE) or not values & _ONE or not values & _ZERO:
        return None
    return text.isin(_ONE).astype("int8")


def one_hot_groups(frame: pd.DataFrame, names: list[str]) -> list[list[str]]:
    """Runs of consecutive 0/1 columns (in ``names``' order, the table's) that no row has two 1s in: each
    run of two or more is one variable's dummies. A run is extended while the next dummy is exclusive of
    every dummy in it, and a new one starts where it is not (``profserv`` then ``profocc``: an industry, then
    an occupation)."""
    groups: list[list[str]] = []
    current: list[str] = []
    total = None
    for name in names:
        coded = zero_one(frame[name])
        if coded is None:
            if len(current) > 1:
                groups.append(current)
            current, total = [], None
            continue
        if total is not None and int((total + coded).max()) <= 1:
            current.append(name)
            total = total + coded
            continue
        if len(current) > 1:
            groups.append(current)
        current, total = [name], coded.astype("int16")
    if len(current) > 1:
        groups.append(current)
    return groups
