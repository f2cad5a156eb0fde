"""singling_out, linkability, inference: attacks on a synthetic release.

The three criteria of the Article 29 Working Party's opinion on anonymisation (WP216), measured as in
Giomi et al., "A Unified Framework for Quantifying Privacy Risk in Synthetic Data" (PETS 2023; the
method of the ``anonymeter`` package): each attack runs against records of the training table
(``--original``, loaded as is) and against control records from the same population that the
generator never saw (``--control``), and as a naive baseline. The risk is
``(r_train - r_control) / (1 - r_control)`` of the two Wilson success rates, with its confidence
interval (see :mod:`privaudit.risk.synthetic_attacks`).

* ``singling_out``: predicates that isolate one synthetic record also isolate one real person
  (``mode: univariate`` from rare values, ``multivariate`` from ``n_cols`` conditions; over ``columns``,
  default: the quasi-identifiers and sensitive columns);
* ``linkability``: two files holding the ``aux_columns`` subsets (default: the quasi-identifiers split
  in two halves) are joined through the ``n_neighbors`` nearest synthetic records;
* ``inference``: the ``secret`` column (or each of several) (default: every sensitive column) is guessed from
  ``aux_columns`` (default: the other quasi-identifiers and sensitive columns) through the nearest
  synthetic record; the check's value is the largest risk.

value = the risk's point estimate; pass iff it is <= ``max_risk`` (``judge_by: lower_bound``: iff the
interval's lower bound is, i.e. fail only when the excess risk is established at the confidence
level). The message warns when the attack does no better than the naive baseline: its risk then says
little. A training or control table of fewer than :data:`MIN_TARGETS` records (or ``n_attacks``, if
smaller) is refused (one line, exit 2): its rate would mostly be the Wilson estimate's pull towards 1/2.
"""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import Field

from privaudit.core.errors import DataError
from privaudit.plugin.assessor import Assessor, Details, Measurement, Params, SyntheticDefault
from privaudit.plugin.details import AttackCounts, Rate, Risk
from privaudit.plugin.helpers import exceeds
from privaudit.plugin.hookspecs import hookimpl

REFERENCE = (
    "Giomi, Boenisch, Wehmeyer & Tasnádi, A Unified Framework for Quantifying Privacy Risk in "
    "Synthetic Data, PoPETs 2023(2); Article 29 Working Party, Opinion 05/2014 on Anonymisation "
    "Techniques (WP216); Wilson, JASA 22 (1927)"
)
RISK_FORMULA = (
    "rates r = (s + z²/2)/(n + z²) (Wilson) of the attack on n training records and on n control "
    "records; risk = (r_train − r_control)/(1 − r_control), interval by error propagation, clipped "
    "to [0, 1]; pass iff risk (or its lower bound) <= max_risk"
)
NOT_RELEASED = ("identifier", "record_id", "weight")
#: fewest training and control records an attack runs on (``n_attacks`` if smaller). Wilson's estimate moves
#: a rate measured on n attacks towards 1/2 by up to z²/(2(n + z²)): 0.018 at n = 100, 0.28 at n = 3 (95 %),
#: so a control table of a few records pulls the control rate towards 1/2 and the risk towards 0 (a copy
#: of the training table: linkability risk 0.10 with 400 control records, 0.00 with 3)
MIN_TARGETS = 100


class SyntheticAttackParams(Params):
    better: ClassVar[str] = "lower"  # which way the value improves (privaudit diff)
    n_attacks: int = Field(default=500, ge=1, le=1_000_000, description="Records (or predicates) attacked.")
    confidence_level: float = Field(default=0.95, gt=0, lt=1, description="Level of the confidence intervals.")
    seed: int = Field(default=0, description="Seed of every random draw (targets, predicates, ties, baseline).")
    max_risk: float = Field(ge=0, le=1, description="Largest allowed risk.")
    judge_by: Literal["estimate", "lower_bound"] = Field(
        default="estimate", description="Compare max_risk with the point estimate or the interval's lower bound."
    )


class SinglingOutParams(SyntheticAttackParams):
    mode: Literal["univariate", "multivariate"] = "multivariate"
    columns: list[str] | None = Field(
        default=None, description="Columns the predicates use (default: quasi-identifiers and sensitive columns)."
    )
    n_cols: int = Field(default=3, ge=1, description="Conditions per multivariate predicate.")
    max_attempts: int = Field(default=10_000_000, ge=1, description="Most predicates tried (multivariate).")


class LinkabilityParams(SyntheticAttackParams):
    aux_columns: tuple[list[str], list[str]] | None = Field(
        default=None,
        description="The two attribute subsets the attacker's files hold (default: the "
        "quasi-identifiers split in two halves).",
    )
    n_neighbors: int = Field(default=1, ge=1, le=1000, description="Nearest synthetic records compared.")


class InferenceParams(SyntheticAttackParams):
    secret: str | list[str] | None = Field(
        default=None,
        description="The column to guess, or several (the check reports the worst); default: every sensitive column.",
    )
    aux_columns: list[str] | None = Field(
        default=None,
        description="What the attacker knows (default: the quasi-identifiers and the other sensitive columns).",
    )
    tolerance: float = Field(default=0.05, ge=0, le=1, description="Relative error of a right numeric guess.")


# ----------------------------------------------------------------------------------------- columns
def _secrets(params) -> list[str]:
    """The ``secret`` parameter as a list (one column or several)."""
    if params.secret is None:
        return []
    return [params.secret] if isinstance(params.secret, str) else list(params.secret)


def _attributes(policy) -> list[str]:
    return [*policy.quasi_identifiers, *policy.sensitive]


def _column_problem(names, policy, field: str) -> str | None:
    for name in names:
        spec = policy.columns.get(name)
        if spec is None:
            return f"{field}: {name!r} is not a column of the policy (columns: {', '.join(policy.columns)})"
        if spec.role in NOT_RELEASED:
            return f"{field}: {name!r} has role {spec.role!r}; it is not an attribute an attacker can use"
    if len(set(names)) != len(names):
        return f"{field}: a column is listed twice"
    return None


def singling_out_columns(params: SinglingOutParams, policy) -> list[str]:
    return list(params.columns) if params.columns else _attributes(policy)


def linkability_columns(params: LinkabilityParams, policy) -> tuple[list[str], list[str]]:
    if params.aux_columns is not None:
        return list(params.aux_columns[0]), list(params.aux_columns[1])
    qi = policy.quasi_identifiers
    half = (len(qi) + 1) // 2
    return qi[:half], qi[half:]


def inference_columns(params: InferenceParams, policy) -> list[tuple[str, list[str]]]:
    """``(secret, auxiliary columns)`` per secret."""
    secrets = _secrets(params) or policy.sensitive
    known = list(params.aux_columns) if params.aux_columns else _attributes(policy)
    return [(s, [c for c in known if c != s]) for s in secrets]


def validate_singling_out(params: SinglingOutParams, policy) -> str | None:
    columns = singling_out_columns(params, policy)
    if not columns:
        return "columns: the policy has no quasi-identifier or sensitive column to write predicates on"
    problem = _column_problem(columns, policy, "columns")
    if problem:
        return problem
    if params.mode == "multivariate" and params.n_cols > len(columns):
        return f"n_cols: {params.n_cols} conditions per predicate but only {len(columns)} columns"
    return None


def validate_linkability(params: LinkabilityParams, policy) -> str | None:
    first, second = linkability_columns(params, policy)
    for i, part in enumerate((first, second)):
        field = f"aux_columns[{i}]" if params.aux_columns is not None else "aux_columns"
        if not part:
            return (
                f"{field}: an attribute subset is empty"
                if params.aux_columns is not None
                else "aux_columns: the policy has fewer than two quasi-identifiers to split; give aux_columns"
            )
        problem = _column_problem(part, policy, field)
        if problem:
            return problem
    return None


def validate_inference(params: InferenceParams, policy) -> str | None:
    if not _secrets(params) and not policy.sensitive:
        return "secret: the policy has no sensitive column to infer; give secret"
    problem = _column_problem(_secrets(params) or policy.sensitive, policy, "secret")
    if problem:
        return problem
    if params.aux_columns:
        problem = _column_problem(params.aux_columns, policy, "aux_columns")
        if problem:
            return problem
        for secret in _secrets(params) or policy.sensitive:
            if secret in params.aux_columns:
                return f"aux_columns: {secret!r} is the secret to infer; the attacker cannot know it"
    for secret, aux in inference_columns(params, policy):
        if not aux:
            return f"aux_columns: nothing is left for the attacker to know besides the secret {secret!r}"
    return None


# --------------------------------------------------------------------------------------------- run
def _numeric(policy, columns) -> dict[str, bool]:
    return {c: policy.columns[c].type == "numeric" for c in columns}


def _tables(ctx):
    return ctx.training, ctx.table, ctx.control


def _encoded(ctx):
    """The three tables encoded once per audit and shared by its synthetic checks
    (:func:`privaudit.risk.synthetic_attacks.shared.tables_of`)."""
    from privaudit.risk.synthetic_attacks.shared import tables_of

    return tables_of(ctx)


def _refuse_small(ctx, params: SyntheticAttackParams, attack: str) -> None:
    """One line (exit 2) when the training or control table is too small for the attack's rates to mean
    anything (:data:`MIN_TARGETS`)."""
    need = min(params.n_attacks, MIN_TARGETS)
    for option, table in (("--original", ctx.training), ("--control", ctx.control)):
        if len(table) < need:
            raise DataError(
                f"{option}: {len(table)} record(s), fewer than the {need} the {attack} attack needs "
                f"(its success rate on so few records is mostly the Wilson estimate's pull towards "
                f"50%); give a larger table or lower n_attacks"
            )


def judged(risk: dict, judge_by: str) -> float:
    """The figure a check compares with max_risk: the interval's lower bound or the point estimate."""
    return float(risk["ci"][0] if judge_by == "lower_bound" else risk["value"])


def _measurement(what: str, result: dict, params: SyntheticAttackParams, scope: str, details: dict) -> Measurement:
    risk, level = result["risk"], f"{params.confidence_level:.0%}"
    figure = judged(risk, params.judge_by)
    passed = not exceeds(figure, params.max_risk)
    message = (
        f"{what} risk {risk['value']:.3f} ({level} CI {risk['ci'][0]:.3f}–{risk['ci'][1]:.3f}) {scope}: "
        f"attack rate {result['attack_rate']['value']:.3f}, control {result['control_rate']['value']:.3f}, "
        f"baseline {result['baseline_rate']['value']:.3f}; max_risk {params.max_risk:g}"
        + (" (judged by the lower bound)" if params.judge_by == "lower_bound" else "")
    )
    if not result["beats_baseline"]:
        message += "; warning: the attack does no better than the naive baseline, so this risk cannot be trusted"
    details = {**details, "risk_ci": list(risk["ci"])}
    return Measurement(float(risk["value"]), params.max_risk, passed, message, details)


def run_singling_out(ctx, params: SinglingOutParams) -> Measurement:
    from privaudit.risk.synthetic_attacks import singling_out_attack

    _refuse_small(ctx, params, "singling-out")
    columns = singling_out_columns(params, ctx.policy)
    training, synthetic, control = _tables(ctx)
    found = singling_out_attack(
        training,
        synthetic,
        control,
        columns,
        _numeric(ctx.policy, columns),
        mode=params.mode,
        n_attacks=params.n_attacks,
        n_cols=params.n_cols,
        max_attempts=params.max_attempts,
        confidence_level=params.confidence_level,
        seed=params.seed,
        tables=_encoded(ctx),
    )
    result = found.outcome.to_dict()
    details = {
        "attack": "singling_out",
        "mode": params.mode,
        "columns": columns,
        "n_cols": 1 if params.mode == "univariate" else min(params.n_cols, len(columns)),
        "n_predicates": found.n_predicates,
        "judge_by": params.judge_by,
        **result,
    }
    scope = f"over {found.n_predicates} {params.mode} predicates" + (
        f" (of {params.n_attacks} requested: no more single out the release)"
        if found.n_predicates < params.n_attacks
        else ""
    )
    return _measurement("singling-out", result, params, scope, details)


def run_linkability(ctx, params: LinkabilityParams) -> Measurement:
    from privaudit.risk.synthetic_attacks import linkability_attack

    _refuse_small(ctx, params, "linkability")
    first, second = linkability_columns(params, ctx.policy)
    training, synthetic, control = _tables(ctx)
    found = linkability_attack(
        training,
        synthetic,
        control,
        (first, second),
        _numeric(ctx.policy, [*first, *second]),
        n_attacks=params.n_attacks,
        n_neighbors=params.n_neighbors,
        confidence_level=params.confidence_level,
        seed=params.seed,
        tables=_encoded(ctx),
    )
    result = found.to_dict()
    details = {
        "attack": "linkability",
        "aux_columns": [first, second],
        "n_neighbors": params.n_neighbors,
        "judge_by": params.judge_by,
        **result,
    }
    scope = f"linking ({', '.join(first)}) to ({', '.join(second)}) over {params.n_neighbors} nearest record(s)"
    return _measurement("linkability", result, params, scope, details)


def run_inference(ctx, params: InferenceParams) -> Measurement:
    from privaudit.risk.synthetic_attacks import inference_attack

    _refuse_small(ctx, params, "inference")
    training, synthetic, control = _tables(ctx)
    per_secret = []
    for secret, aux in inference_columns(params, ctx.policy):
        found = inference_attack(
            training,
            synthetic,
            control,
            aux,
            secret,
            _numeric(ctx.policy, [*aux, secret]),
            n_attacks=params.n_attacks,
            tolerance=params.tolerance,
            confidence_level=params.confidence_level,
            seed=params.seed,
            tables=_encoded(ctx),
        )
        per_secret.append({"secret": secret, "aux_columns": aux, **found.to_dict()})
    worst = max(per_secret, key=lambda r: (judged(r["risk"], params.judge_by), r["risk"]["value"]))
    details = {
        "attack": "inference",
        "worst_secret": worst["secret"],
        "tolerance": params.tolerance,
        "judge_by": params.judge_by,
        "secrets": per_secret,
        **{k: v for k, v in worst.items() if k not in ("secret",)},
    }
    scope = f"for {worst['secret']!r}" + (f" (the worst of {len(per_secret)} secrets)" if len(per_secret) > 1 else "")
    return _measurement("inference", worst, params, scope, details)


class AttackFigures(Details):
    """One attack's figures (Giomi et al. 2023): the residual risk, the three success rates behind it and
    their trials."""

    risk: Risk
    attack_rate: Rate
    control_rate: Rate
    baseline_rate: Rate
    n_attacks: AttackCounts
    confidence_level: float
    beats_baseline: bool
    notes: list[str]


class AttackDetails(AttackFigures):
    """What every synthetic-release attack's details hold: its figures, how the check judges them and the
    risk's interval. ``synthetic_attack`` names the attack in the report's synthetic-release chapter, which
    lists every check whose details model declares one."""

    synthetic_attack: ClassVar[str]

    attack: Literal["singling_out", "linkability", "inference"]
    judge_by: Literal["estimate", "lower_bound"]
    risk_ci: list[float]


class SinglingOutDetails(AttackDetails):
    synthetic_attack: ClassVar[str] = "singling out"
    mode: Literal["univariate", "multivariate"]
    columns: list[str]
    n_cols: int
    n_predicates: int


class LinkabilityDetails(AttackDetails):
    synthetic_attack: ClassVar[str] = "linkability"
    aux_columns: tuple[list[str], list[str]]
    n_neighbors: int


class SecretOutcome(AttackFigures):
    """One secret column's inference attack."""

    secret: str
    aux_columns: list[str]


class InferenceDetails(AttackDetails):
    synthetic_attack: ClassVar[str] = "inference"
    worst_secret: str
    tolerance: float
    secrets: list[SecretOutcome]
    aux_columns: list[str]


#: each attack's details model, by assessor
DETAILS = {"singling_out": SinglingOutDetails, "linkability": LinkabilityDetails, "inference": InferenceDetails}

NEEDS = frozenset({"training", "control", "table"})

SINGLING_OUT = Assessor(
    name="singling_out",
    params=SinglingOutParams,
    details=SinglingOutDetails,
    run=run_singling_out,
    title="Singling-out risk (synthetic)",
    standards=frozenset({"wp29:singling_out", "ico:singling_out"}),
    protects="identity",
    measures="how much more often predicates written on the synthetic release isolate exactly one of the people "
    "it was generated from than one of comparable people it was not",
    formula=f"success = a predicate singling out one synthetic record singles out one record; {RISK_FORMULA}",
    reference=REFERENCE,
    needs=NEEDS,
    validate_policy=validate_singling_out,
    synthetic_default=SyntheticDefault({"max_risk": 0.1}),
)
LINKABILITY = Assessor(
    name="linkability",
    params=LinkabilityParams,
    details=LinkabilityDetails,
    run=run_linkability,
    title="Linkability risk (synthetic)",
    standards=frozenset({"wp29:linkability", "ico:linkage"}),
    protects="identity",
    measures="how much more often two partial records of one person can be joined through the synthetic release "
    "for the people it was generated from than for comparable people it was not",
    formula=f"success = the k Gower-nearest synthetic records of both attribute subsets intersect; {RISK_FORMULA}",
    reference=REFERENCE,
    needs=NEEDS,
    validate_policy=validate_linkability,
    synthetic_default=SyntheticDefault({"max_risk": 0.1}, applies=lambda policy: len(policy.quasi_identifiers) >= 2),
)
INFERENCE = Assessor(
    name="inference",
    params=InferenceParams,
    details=InferenceDetails,
    run=run_inference,
    title="Inference risk (synthetic)",
    standards=frozenset({"wp29:inference", "ico:inference"}),
    protects="attribute",
    measures="how much better a sensitive attribute of the people the release was generated from is guessed "
    "from the nearest synthetic record than that of comparable people it was not generated from",
    formula=f"success = the Gower-nearest synthetic record's secret is right (numeric: within tolerance); "
    f"{RISK_FORMULA}; value = the largest risk over the secrets",
    reference=REFERENCE,
    needs=NEEDS,
    validate_policy=validate_inference,
    synthetic_default=SyntheticDefault({"max_risk": 0.1}, applies=lambda policy: bool(policy.sensitive)),
)


@hookimpl
def privaudit_assessors():
    return [SINGLING_OUT, LINKABILITY, INFERENCE]
