"""cap: correct attribution probability of a synthetic release, judged as disclosure protection.

An attacker who knows a real person's key values (default: the quasi-identifiers) looks them up in the
synthetic table and guesses the person's target value in proportion to the synthetic records with that key
(:mod:`privaudit.risk.synthetic.cap`: Taub et al. 2018, section 2; SDMetrics ``CategoricalCAP`` and
``DisclosureProtection``). Needs the training table (``--original``); computed on class summaries of the
two tables.

Parameters: ``keys`` (default: the quasi-identifiers), ``target`` (one column or several, each judged on
its own; default every sensitive column), ``unmatched`` (``skip``: real records whose key is absent from
the synthetic table are not counted, as CategoricalCAP; ``zero``: they count as CAP 0, as
CategoricalZeroCAP), ``bins`` (numeric columns cut into this many equal-width intervals, 10),
``min_protection`` (required).

value = the smallest disclosure protection over the targets, min(1, (1 - CAP) / (1 - 1/m)); pass iff
value >= ``min_protection``. details: ``targets`` (per target: ``cap``, ``safety``, ``baseline_safety``,
``protection``, ``evaluated``, ``unmatched``, ``target_values``), ``worst_target``, ``keys``.
"""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import Field

from privaudit.plugin.assessor import Assessor, Details, Measurement, Params, SyntheticDefault
from privaudit.plugin.helpers import reaches
from privaudit.plugin.hookspecs import hookimpl


class CapParams(Params):
    better: ClassVar[str] = "higher"  # which way the value improves (privaudit diff)
    keys: list[str] | None = Field(
        default=None, description="Columns the attacker knows (default: the quasi-identifiers)."
    )
    target: str | list[str] | None = Field(
        default=None, description="The column(s) to attribute (default: every sensitive column)."
    )
    unmatched: Literal["skip", "zero"] = Field(
        default="skip",
        description="Real records whose key is not in the "
        "synthetic table: not counted (CategoricalCAP) or CAP 0 (ZeroCAP).",
    )
    bins: int = Field(default=10, ge=2, le=10_000, description="Equal-width intervals of numeric columns.")
    min_protection: float = Field(ge=0, le=1, description="Smallest allowed disclosure protection.")


class CapTarget(Details):
    target: str
    cap: float | None
    safety: float | None
    baseline_safety: float | None
    protection: float
    evaluated: int
    unmatched: int
    records: int
    target_values: int


class CapDetails(Details):
    """What a cap check's details hold: one entry per target column, the least protected named."""

    keys: list[str]
    unmatched: Literal["skip", "zero"]
    bins: int
    worst_target: str
    targets: list[CapTarget]


def keys_of(params: CapParams, policy) -> list[str]:
    return list(params.keys) if params.keys else list(policy.quasi_identifiers)


def targets_of(params: CapParams, policy) -> list[str]:
    if params.target is None:
        return list(policy.sensitive)
    return [params.target] if isinstance(params.target, str) else list(params.target)


def validate(params: CapParams, policy) -> str | None:
    for field, names in (("keys", params.keys or []), ("target", targets_of(params, policy))):
        for name in names:
            if name not in policy.columns:
                return f"{field}: {name!r} is not a column of the policy"
    if not keys_of(params, policy):
        return "keys: the policy has no quasi-identifier; give keys"
    targets = targets_of(params, policy)
    if not targets:
        return "target: the policy has no sensitive column; give target"
    overlap = set(targets) & set(keys_of(params, policy))
    if overlap:
        return f"target: {sorted(overlap)[0]!r} is also a key; the attacker would know it already"
    return None


def run(ctx, params: CapParams) -> Measurement:
    from privaudit.risk.synthetic.cap import correct_attribution_probability

    keys = keys_of(params, ctx.policy)
    numeric = {c for c in ctx.policy.columns if ctx.policy.columns[c].type == "numeric"}
    per_target = []
    for target in targets_of(params, ctx.policy):
        r = correct_attribution_probability(
            ctx.training, ctx.table, keys, target, numeric, params.bins, params.unmatched
        )
        per_target.append(
            {
                "target": target,
                "cap": r.cap,
                "safety": r.safety,
                "baseline_safety": r.baseline_safety,
                "protection": r.protection,
                "evaluated": r.evaluated,
                "unmatched": r.unmatched,
                "records": r.records,
                "target_values": r.target_values,
            }
        )
    worst = min(per_target, key=lambda t: t["protection"])
    value = worst["protection"]
    passed = reaches(value, params.min_protection)
    message = (
        f"disclosure protection {value:.3f} for {worst['target']!r} (CAP {worst['cap']:.3f} against a random "
        f"guess's {1 - worst['baseline_safety']:.3f}; {worst['evaluated']} of {worst['records']} training "
        f"records' keys found in the release); min_protection {params.min_protection:g}"
    )
    details = {
        "keys": keys,
        "unmatched": params.unmatched,
        "bins": params.bins,
        "worst_target": worst["target"],
        "targets": per_target,
    }
    return Measurement(value, params.min_protection, passed, message, details)


ASSESSOR = Assessor(
    name="cap",
    params=CapParams,
    details=CapDetails,
    run=run,
    title="Correct attribution probability (synthetic data)",
    protects="attribute",
    measures="how often an intruder who knows a real person's key values guesses their sensitive value from the "
    "synthetic records with the same key, compared with a random guess",
    formula="CAP_r = |{s: K_s = K_r, T_s = T_r}| / |{s: K_s = K_r}| over synthetic records s, mean over real "
    "records r whose key occurs (or 0 for the others: unmatched zero); protection = min(1, (1 - CAP)/(1 - 1/m)) "
    "with m the target's values; pass iff protection >= min_protection",
    reference="Taub, Elliot, Pampaka & Smith, Differential Correct Attribution Probability for Synthetic Data, "
    "PSD 2018, LNCS 11126, section 2; SDMetrics CategoricalCAP / DisclosureProtection (docs.sdv.dev)",
    needs=frozenset({"training", "table"}),
    validate_policy=validate,
    synthetic_default=SyntheticDefault({"min_protection": 0.5}, applies=lambda policy: bool(policy.sensitive)),
)


@hookimpl
def privaudit_assessors():
    return [ASSESSOR]
