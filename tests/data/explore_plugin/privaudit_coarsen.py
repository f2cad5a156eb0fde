"""A third party's remediators for tests/test_explore_plugins.py, installed by the tests through an entry
point (a ``privaudit_coarsen-2.1.0.dist-info`` folder made beside a copy of this file), never into the shared
site-packages.

``coarsen`` keeps the first ``digits`` characters of a ZIP-like column and bands a numeric one by ``width``
(sdcMicro's ``globalRecode`` and a ZIP prefix, the recodings a statistical office tries first); its explore
hook declares one candidate per ``digits`` (the ``--option digits=...`` values, else 3, 2 and 1), each run
by explore when it asks (``make``). ``misexplore`` fails as its ``how`` option says, to show that a
failing third-party remediator is one failed row, never a crash.
"""

from __future__ import annotations

import sys
import time
from functools import partial
from typing import Literal

import numpy as np
from pydantic import Field

from privaudit import ExploreCandidate, ExploreRequest, Params, Remediation, Remediator, hookimpl

__version__ = "2.1.0"


class CoarsenOptions(Params):
    digits: int = Field(default=3, ge=1, le=5, description="Characters of the ZIP column kept.")
    width: int = Field(default=20, ge=1, description="Width of the bands of the numeric column.")
    zip_column: str = Field(default="zip", description="The ZIP-like column.")
    band_column: str = Field(default="age", description="The numeric column banded.")


def coarsen(ctx, options: CoarsenOptions) -> Remediation:
    table = ctx.table.copy()
    table[options.zip_column] = table[options.zip_column].astype(str).str[: options.digits]
    values = table[options.band_column].to_numpy(dtype=float)
    table[options.band_column] = np.floor(values / options.width) * options.width
    return Remediation(table, {"digits": options.digits, "width": options.width}, {})


def coarsen_candidates(ctx, request: ExploreRequest) -> list[ExploreCandidate]:
    digits = request.fixed.get("digits", [3, 2, 1])
    widths = request.fixed.get("width", [20])
    out = []
    for d in digits:
        for w in widths:
            options = CoarsenOptions(digits=d, width=w)
            out.append(ExploreCandidate({"digits": d, "width": w}, make=partial(coarsen, ctx, options)))
    return out[: request.limit]


class MisexploreOptions(Params):
    how: Literal["raise", "exit0", "hang", "garbage", "not_a_list", "shape"] = "raise"


def _misbehave(how: str, ctx):
    if how == "raise":
        raise RuntimeError("the explorer broke")
    if how == "exit0":
        sys.exit(0)
    if how == "hang":
        while True:
            time.sleep(0.01)
    if how == "shape":
        return Remediation(ctx.table.iloc[:, :2], {}, {})
    return ctx.table  # garbage: a DataFrame, not a Remediation


def misexplore_candidates(how: str, ctx, request: ExploreRequest):
    if how == "not_a_list":
        return "three candidates"
    if how == "raise":  # the declaring itself fails
        raise RuntimeError("the explorer broke")
    return [ExploreCandidate({"how": how}, make=partial(_misbehave, how, ctx)) for _ in range(3)]


@hookimpl
def privaudit_remediators():
    out = [
        Remediator(
            "coarsen",
            CoarsenOptions,
            coarsen,
            "ZIP prefix and bands",
            "keep the first digits of the ZIP code and band the numeric column",
            explore=coarsen_candidates,
        )
    ]
    for how in ("raise", "exit0", "hang", "garbage", "not_a_list", "shape"):
        out.append(
            Remediator(
                f"mis_{how}",
                MisexploreOptions,
                lambda ctx, options, how=how: _misbehave(how, ctx),
                f"Misbehaving ({how})",
                "fails on purpose",
                explore=partial(misexplore_candidates, how),
            )
        )
    return out
