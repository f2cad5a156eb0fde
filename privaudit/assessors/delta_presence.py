"""delta_presence: an intruder who knows a person is in the population cannot tell too well whether they
are in the release (Nergiz, Atzori & Clifton 2007, "Hiding the Presence of Individuals from Shared
Databases", SIGMOD, Definition 3; ARX 3.9 ``DPresence``).

The release R is a subset of a population table P (``population: FILE``, with the quasi-identifier
columns). For every combination of quasi-identifier values in P (a population class C), δ(C) = |R ∩ C| /
|P ∩ C|, the probability that a person of C is in the release. The release is (δ_min, δ_max)-present when
δ_min <= δ(C) <= δ_max for every population class (classes absent from the release have δ = 0). value =
max δ; pass iff max δ <= ``delta_max`` and min δ >= ``delta_min``. details: ``delta_min_measured``,
``delta_max_measured``, ``population_classes``, ``classes_above`` / ``classes_below`` and their records.
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field, model_validator

from privaudit.core.errors import DataError
from privaudit.plugin.assessor import Assessor, Details, Measurement, Params
from privaudit.plugin.helpers import exceeds, population_classes, reaches
from privaudit.plugin.hookspecs import hookimpl


class DeltaPresenceParams(Params):
    better: ClassVar[str] = "lower"  # which way the value improves (privaudit diff)
    delta_min: float = Field(default=0.0, ge=0, le=1, description="Smallest allowed δ of a population class.")
    delta_max: float = Field(ge=0, le=1, description="Largest allowed δ of a population class.")
    population: str = Field(description="CSV/Parquet of the population that contains the release.")

    @model_validator(mode="after")
    def _ordered(self) -> DeltaPresenceParams:
        if self.delta_min > self.delta_max:
            raise ValueError("delta_min is larger than delta_max")
        return self


class DeltaPresenceDetails(Details):
    """What a delta_presence check's details hold."""

    delta_min_measured: float
    delta_max_measured: float
    population_classes: int
    population_records: int
    classes_above: int
    records_above: int
    classes_below: int
    population_records_below: int
    histogram: list[int] = Field(description="population classes by δ in ten bins of width 0.1")


def validate(params: DeltaPresenceParams, policy) -> str | None:
    if not policy.resolve_path(params.population, "population").exists():
        return f"population: file {params.population!r} not found (paths are relative to the policy)"
    return None


def run(ctx, params: DeltaPresenceParams) -> Measurement:
    import numpy as np

    big_f, pop_sizes, in_release, path = population_classes(ctx, params.population)
    if np.isnan(big_f).any() or (big_f < np.asarray(ctx.summary.sizes)).any():
        raise DataError(f"{path}: the population table does not contain the release")
    delta = in_release / pop_sizes
    above, below = exceeds(delta, params.delta_max), ~reaches(delta, params.delta_min)
    value = float(delta.max())
    details = {
        "delta_min_measured": float(delta.min()),
        "delta_max_measured": value,
        "population_classes": int(len(delta)),
        "population_records": int(pop_sizes.sum()),
        "classes_above": int(above.sum()),
        "records_above": int(in_release[above].sum()),
        "classes_below": int(below.sum()),
        "population_records_below": int(pop_sizes[below].sum()),
        "histogram": np.histogram(delta, bins=np.linspace(0, 1, 11))[0].tolist(),
    }
    passed = not above.any() and not below.any()
    message = (
        f"δ ranges over {details['delta_min_measured']:.3g}–{value:.3g} across {len(delta)} population "
        f"classes (allowed {params.delta_min:g}–{params.delta_max:g}); {details['classes_above']} above, "
        f"{details['classes_below']} below"
    )
    return Measurement(value, {"delta_min": params.delta_min, "delta_max": params.delta_max}, passed, message, details)


ASSESSOR = Assessor(
    name="delta_presence",
    params=DeltaPresenceParams,
    details=DeltaPresenceDetails,
    run=run,
    title="δ-presence",
    standards=frozenset({"wp29:inference", "ico:membership"}),
    protects="identity",
    measures="how well an intruder can tell whether a person of the population is in the release",
    formula="δ(C) = |R ∩ C| / |P ∩ C| for every population class C; pass iff δ_min <= δ(C) <= δ_max",
    reference="M. E. Nergiz, M. Atzori, C. Clifton, SIGMOD 2007, Definition 3; ARX 3.9 DPresence",
    validate_policy=validate,
    concurrent=True,
)


@hookimpl
def privaudit_assessors():
    return [ASSESSOR]
