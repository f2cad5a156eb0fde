"""k_map: every class of the release matches at least k people of the population (ARX 3.9 ``KMap``).

With ``population: FILE`` (a population table that contains the release, with the quasi-identifier
columns): F_k is the number of population records in the release class's combination; value = min F_k;
pass iff value >= k. Without a table, with ``population_size`` or ``sampling_fraction``: the population
cell sizes are estimated as ARX does (``estimator``: ``poisson``, ARX's default, or
``zero_truncated_poisson``; ``significance`` α, default 0.01), which gives a threshold k' on the release's
own class sizes (:mod:`privaudit.risk.kmap`); value = min f_k; pass iff value >= k'. details: ``k``,
``derived_k``, ``type1_error``, ``estimator``, ``sampling_fraction``, ``population`` ("file" or
"estimate"), ``classes_failing``, ``records_failing``, ``worst_classes``.
"""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import Field, model_validator

from privaudit.common.numbers import fmt
from privaudit.core.errors import DataError
from privaudit.plugin.assessor import Assessor, Details, Disclosure, Measurement, Params, SampleCriterion
from privaudit.plugin.details import WorstClass
from privaudit.plugin.helpers import population_classes, reaches
from privaudit.plugin.hookspecs import hookimpl


class KMapParams(Params):
    better: ClassVar[str] = "higher"  # which way the value improves (privaudit diff)
    k: int = Field(ge=1, description="People of the population each release class must match.")
    population: str | None = Field(default=None, description="CSV/Parquet of the population (contains the release).")
    population_size: int | None = Field(default=None, ge=1, description="Size of the population sampled.")
    sampling_fraction: float | None = Field(default=None, gt=0, le=1, description="Release size / population size.")
    estimator: Literal["poisson", "zero_truncated_poisson"] = "poisson"
    significance: float = Field(default=0.01, ge=0, le=1, description="α of the estimate (type-1 error bound).")

    @model_validator(mode="after")
    def _one_population(self) -> KMapParams:
        given = [x is not None for x in (self.population, self.population_size, self.sampling_fraction)]
        if sum(given) != 1:
            raise ValueError("give exactly one of population (a file), population_size or sampling_fraction")
        return self


class KMapWorstClass(WorstClass):
    matches: float | None


class KMapDetails(Details):
    """What a k_map check's details hold: a population file's figures, or the estimate's."""

    k: int
    population: Literal["file", "estimate"]
    population_records: int | None = None
    estimator: Literal["poisson", "zero_truncated_poisson"] | None = None
    significance: float | None = None
    sampling_fraction: float | None = None
    derived_k: int | None = None
    type1_error: float | None = None
    poisson_mean: float | None = None
    classes: int
    classes_failing: int
    records_failing: int
    threshold_used: int
    worst_classes: list[KMapWorstClass]


def validate(params: KMapParams, policy) -> str | None:
    if params.population is not None:
        if not policy.resolve_path(params.population, "population").exists():
            return f"population: file {params.population!r} not found (paths are relative to the policy)"
    return None


def run(ctx, params: KMapParams) -> Measurement:
    import numpy as np

    s = ctx.summary
    sizes = np.asarray(s.class_fk, dtype=float)
    details = {"k": params.k}
    if params.population is not None:
        big_f, _, _, path = population_classes(ctx, params.population)
        if np.isnan(big_f).any():
            raise DataError(
                f"{path}: the population table does not contain the release "
                f"({int(np.isnan(big_f).sum())} classes of the release are not in it)"
            )
        per_class, limit = big_f, params.k
        details.update(population="file", population_records=int(np.nansum(big_f)))
    else:
        from privaudit.risk.kmap import derived_k

        fraction = params.sampling_fraction or s.n_records / params.population_size
        if fraction > 1:
            raise ValueError(f"population_size {params.population_size} is smaller than the release ({s.n_records})")
        d = derived_k(params.k, fraction, params.significance, params.estimator, s.n_records)
        per_class, limit = sizes, d.k
        details.update(
            population="estimate",
            estimator=params.estimator,
            significance=params.significance,
            sampling_fraction=fraction,
            derived_k=d.k,
            type1_error=d.type1_error,
            poisson_mean=d.lam,
        )
    failing = per_class < limit
    value = float(per_class.min())
    details.update(
        classes=int(s.n_classes),
        classes_failing=int(failing.sum()),
        records_failing=int(np.asarray(s.sizes)[failing].sum()),
        threshold_used=limit,
        worst_classes=ctx.worst_classes(per_class, failing=failing, extra={"matches": per_class}),
    )
    passed = reaches(value, limit)
    where = (
        ("person" if value == 1 else "people") + " of the population"
        if details["population"] == "file"
        else f"{'record' if value == 1 else 'records'} (derived k' = {limit} for k = {params.k} at sampling fraction {details['sampling_fraction']:.3g})"
    )
    message = f"the smallest class matches {value:g} {where}; {fmt(details['classes_failing'])} classes below"
    return Measurement(value, limit, passed, message, details)


def sample_criterion(params: KMapParams, n_records: int) -> SampleCriterion | None:
    """With ``population_size`` or ``sampling_fraction``, ARX's ``KMap`` with a cell-size estimator: the
    derived k' (:func:`privaudit.risk.kmap.derived_k`) on the release's own class sizes, every retained class
    of at least k' records. None with a population table."""
    if params.population is not None:
        return None
    from privaudit.risk.kmap import derived_k
    from privaudit.risk.population import sampling_fraction_from_population_size
    from privaudit.risk.sample_criteria import smallest

    fraction = params.sampling_fraction or sampling_fraction_from_population_size(n_records, params.population_size)
    d = derived_k(params.k, fraction, params.significance, params.estimator, n_records)
    return SampleCriterion(f"KMap({params.k}, derived k' = {d.k})", smallest(int(d.k)))


ASSESSOR = Assessor(
    name="k_map",
    params=KMapParams,
    details=KMapDetails,
    run=run,
    title="k-map",
    protects="identity",
    measures="how many people of the population each group of the release matches",
    formula="population table: min_k F_k >= k; estimate (ARX KMap): k' from a Poisson (or zero-truncated "
    "Poisson) law of mean (n/N)·k at significance α, min_k f_k >= min(k, k')",
    reference="L. Sweeney, IJUFKS 10(5) 2002; K. El Emam & F. Dankar, JAMIA 15(5) 2008; ARX 3.9 KMap",
    validate_policy=validate,
    concurrent=True,
    sample_criterion=sample_criterion,
    disclosure=Disclosure(show_values_from=lambda p: p.k),
)


@hookimpl
def privaudit_assessors():
    return [ASSESSOR]
