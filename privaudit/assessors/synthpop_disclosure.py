"""synthpop_disclosure: synthpop 1.9's identity and attribute disclosure measures of a release beside its original.

Raab, Nowok & Dibben, "Practical privacy metrics for synthetic data" (2024; synthpop's disclosure vignette),
as synthpop 1.9-3 computes them (``disclosure()`` -> ``disclosure.synds``, ``R/disclosure.R``; see
:mod:`privaudit.risk.synthetic.synthpop_disclosure` for the equations). Needs ``--original``; the release may
be synthetic or perturbed (its rows need not match the original's).

* identity, from the ``keys`` (default: the quasi-identifiers): UiO, the share of original records unique on
  the keys, and repU, the share unique in the original whose key is also unique in the release (replicated
  uniques), with UiS and UiOiS;
* attribute, per ``target`` (default: every sensitive column): Dorig, the share of original records whose key
  gives away their target in the original itself (the baseline), and DiSCO, the share whose key's records in
  the release all hold one target value, which is theirs; with iS, DiS, DiSDiO, max/mean denominators and the
  CAP family (baseCAPd, CAPd, CAPs, DCAP, TCAP).

Parameters, named after synthpop's: ``denom_lim`` (5) with ``exclude_over_denom_lim`` (synthpop's
``exclude_ov_denom_lim``: cells of more than ``denom_lim`` records are left out), ``not_target_levels``
(``not.targetlev``, per target), ``use_target_na`` / ``use_keys_na`` (``usetargetNA`` / ``usekeysNA``),
``exclude`` (``exclude.keys`` / ``exclude.keylevs`` / ``exclude.targetlevs``: (key, key level, target level)
triples, optionally for one target), ``ngroups_target`` / ``ngroups_keys`` with ``cont_na`` (numeric
columns grouped by synthpop's ``group_num``; 0, the default as in synthpop, keeps every distinct value a
level), ``thresh_1way`` / ``thresh_2way`` (synthpop's flags of disclosure that may be common knowledge).

value = the largest of repU and the targets' DiSCO (all shares of the original records, synthpop's
percentages / 100); pass iff value <= ``max_share``. The original's own figures (UiO, Dorig) are reported
beside them: they say how much the keys would give away in the original itself.
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel, ConfigDict, Field

from privaudit.core.errors import DataError
from privaudit.plugin.assessor import Assessor, Details, Measurement, Params
from privaudit.plugin.helpers import exceeds
from privaudit.plugin.hookspecs import hookimpl

NAME = "synthpop_disclosure"
REFERENCE = (
    "Raab, Nowok & Dibben, Practical privacy metrics for synthetic data (2024), synthpop's disclosure vignette; "
    "synthpop 1.9-3 disclosure() (R/disclosure.R, github.com/bnowok/synthpop 9cc3081); Taub et al., PSD 2018"
)
NOT_ATTRIBUTES = ("identifier", "record_id", "weight")


class Exclusion(BaseModel):
    """One (key level, target level) pair left out of the measures (synthpop's ``exclude.*``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    key: str
    key_level: str
    target_level: str
    target: str | None = Field(default=None, description="The target it applies to (default: every target).")


class SynthpopDisclosureParams(Params):
    better: ClassVar[str] = "lower"  # which way the value improves (privaudit diff)
    keys: list[str] | None = Field(default=None, description="Key variables (default: the quasi-identifiers).")
    target: str | list[str] | None = Field(
        default=None, description="Target(s) (default: every sensitive column; none: identity measures only)."
    )
    max_share: float = Field(ge=0, le=1, description="Largest allowed repU and DiSCO (shares of original records).")
    denom_lim: int = Field(default=5, ge=1, description="synthpop's denom_lim.")
    exclude_over_denom_lim: bool = Field(default=False, description="Leave out cells over denom_lim records.")
    not_target_levels: dict[str, list[str]] = Field(
        default_factory=dict, description="Per target, levels left out (synthpop's not.targetlev)."
    )
    use_target_na: bool = Field(default=True, description="Count a missing target as a level (usetargetNA).")
    use_keys_na: bool | dict[str, bool] = Field(
        default=True, description="Count a missing key as a level (usekeysNA), for all keys or per key."
    )
    exclude: list[Exclusion] = Field(default_factory=list, description="(key level, target level) pairs left out.")
    ngroups_target: int | dict[str, int] = Field(
        default=0, description="Quantile groups of a numeric target (0: every value a level)."
    )
    ngroups_keys: int | dict[str, int] = Field(
        default=0, description="Quantile groups of numeric keys (0: every value a level)."
    )
    cont_na: dict[str, list[float]] = Field(
        default_factory=dict, description="Special numeric codes kept apart from the groups (synthpop's cont.na)."
    )
    thresh_1way: tuple[float, float] = Field(default=(50, 90), description="synthpop's 1-way check: records, %.")
    thresh_2way: tuple[float, float] = Field(default=(4, 80), description="synthpop's 2-way check: records, %.")


class Exclusions(Details):
    excluded_target: int
    missing_target: int
    missing_keys: int
    set_to_exclude: int
    over_denom_lim: int
    remaining: int


class Identity(Details):
    """synthpop's ``ident`` figures (shares; synthpop prints them × 100)."""

    UiO: float
    UiS: float
    UiOiS: float
    repU: float


class OneWay(Details):
    level: str
    all: int
    level_share_of_all: float
    disclosive: int
    level_disclosive: int
    level_share_of_disclosive: float


class TwoWay(Details):
    key: str
    key_level: str
    target_level: str
    disclosive: int
    share_of_key_level: float


class TargetFigures(Identity):
    """One target's figures: synthpop's ``ident``, ``attrib`` and ``allCAPs`` rows, its exclusions (per table:
    original, synthetic, Dorig, Dsyn, iS, DiS, DiSCO, DiSDiO) and its 1-way / 2-way flags."""

    target: str
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
    exclusions: dict[str, Exclusions]
    check_1way: OneWay | None
    check_2way: list[TwoWay]
    n_2way: int


class SynthpopDisclosureDetails(Details):
    """What a synthpop_disclosure check's details hold. ``disclosure_measures``: the report's synthetic-release
    chapter shows its figures beside the attacks' (synthpop's short print)."""

    disclosure_measures: ClassVar[bool] = True

    keys: list[str]
    n_original: int
    n_released: int
    identity: Identity  # from the keys alone (no target exclusions)
    targets: list[TargetFigures]
    worst_measure: str  # "repU" or "DiSCO"
    worst_target: str | None
    denom_lim: int
    exclude_over_denom_lim: bool


# ----------------------------------------------------------------------------------------- columns
def keys_of(params: SynthpopDisclosureParams, policy) -> list[str]:
    """The keys, in the policy's column order as synthpop orders them (its data's order)."""
    chosen = set(params.keys) if params.keys else set(policy.quasi_identifiers)
    return [c for c in policy.columns if c in chosen]


def targets_of(params: SynthpopDisclosureParams, policy) -> list[str]:
    if params.target is None:
        return list(policy.sensitive)
    return [params.target] if isinstance(params.target, str) else list(params.target)


def _per_column(setting, columns: list[str], default):
    if isinstance(setting, dict):
        return {c: setting.get(c, default) for c in columns}
    return dict.fromkeys(columns, setting)


def _column_problem(field: str, names, policy) -> str | None:
    for name in names:
        spec = policy.columns.get(name)
        if spec is None:
            return f"{field}: {name!r} is not a column of the policy"
        if spec.role in NOT_ATTRIBUTES:
            return f"{field}: {name!r} has role {spec.role!r}; it is not an attribute of a released record"
    return None


def validate(params: SynthpopDisclosureParams, policy) -> str | None:
    keys, targets = keys_of(params, policy), targets_of(params, policy)
    checks = [
        ("keys", params.keys or []),
        ("target", targets),
        ("not_target_levels", list(params.not_target_levels)),
        ("use_keys_na", list(params.use_keys_na) if isinstance(params.use_keys_na, dict) else []),
        ("ngroups_keys", list(params.ngroups_keys) if isinstance(params.ngroups_keys, dict) else []),
        ("ngroups_target", list(params.ngroups_target) if isinstance(params.ngroups_target, dict) else []),
        ("cont_na", list(params.cont_na)),
    ]
    for field, names in checks:
        problem = _column_problem(field, names, policy)
        if problem:
            return problem
    if not keys:
        return "keys: the policy has no quasi-identifier; give keys"
    if set(targets) & set(keys):
        return f"target: {sorted(set(targets) & set(keys))[0]!r} is also a key; the intruder would know it already"
    for field, names, within in (
        ("not_target_levels", list(params.not_target_levels), targets),
        ("use_keys_na", list(params.use_keys_na) if isinstance(params.use_keys_na, dict) else [], keys),
        ("ngroups_keys", list(params.ngroups_keys) if isinstance(params.ngroups_keys, dict) else [], keys),
        ("ngroups_target", list(params.ngroups_target) if isinstance(params.ngroups_target, dict) else [], targets),
    ):
        for name in names:
            if name not in within:
                return f"{field}: {name!r} is not one of the check's {'targets' if within is targets else 'keys'}"
    return _validate_exclude(params, keys, targets) or _validate_groups(params, policy, keys, targets)


def _validate_exclude(params: SynthpopDisclosureParams, keys: list[str], targets: list[str]) -> str | None:
    for i, e in enumerate(params.exclude):
        if e.key not in keys:
            return f"exclude[{i}].key: {e.key!r} is not one of the check's keys ({', '.join(keys)})"
        if e.target is not None and e.target not in targets:
            return f"exclude[{i}].target: {e.target!r} is not one of the check's targets"
        if not targets:
            return f"exclude[{i}]: the check has no target to exclude levels of"
    return None


def _groups(params: SynthpopDisclosureParams, keys: list[str], targets: list[str]) -> dict[str, int]:
    return {
        **{k: v for k, v in _per_column(params.ngroups_keys, keys, 0).items() if v},
        **{t: v for t, v in _per_column(params.ngroups_target, targets, 0).items() if v},
    }


def _validate_groups(params: SynthpopDisclosureParams, policy, keys: list[str], targets: list[str]) -> str | None:
    groups = _groups(params, keys, targets)
    for name, n in groups.items():
        if n == 1 or n < 0:
            return f"ngroups: {name!r} asks for {n} groups; give 0 (every value a level) or at least 2"
        if policy.columns[name].type != "numeric":
            return f"ngroups: {name!r} is not numeric; only numeric columns are grouped"
    for name in params.cont_na:
        if name not in groups:
            return f"cont_na: {name!r} is not grouped (cont_na applies to the columns ngroups groups)"
    return None


# --------------------------------------------------------------------------------------------- run
def _options(params: SynthpopDisclosureParams, keys: list[str], target: str | None, groups: dict[str, int]):
    from privaudit.risk.synthetic.synthpop_disclosure import Options

    use_na = _per_column(params.use_keys_na, keys, True)
    return Options(
        denom_lim=params.denom_lim,
        exclude_ov_denom_lim=params.exclude_over_denom_lim,
        not_targetlev=tuple(params.not_target_levels.get(target, ())) if target else (),
        usetargetNA=params.use_target_na,
        usekeysNA=tuple(bool(use_na[k]) for k in keys),
        exclude=tuple(
            (e.key, e.key_level, e.target_level) for e in params.exclude if target and e.target in (None, target)
        ),
        thresh_1way=tuple(params.thresh_1way),  # type: ignore[arg-type]
        thresh_2way=tuple(params.thresh_2way),  # type: ignore[arg-type]
        ngroups=groups,
        cont_na={c: tuple(v) for c, v in params.cont_na.items()},
    )


def _refuse_unknown_levels(target: str, opt, levels: dict[str, set[str]]) -> None:
    """One line (exit 2) for a level the parameters name that neither table holds: a typo would exclude nothing."""
    for level in opt.not_targetlev:
        if level not in levels[target]:
            raise DataError(f"not_target_levels: {target!r} has no level {level!r} in the original or the release")
    for key, key_level, target_level in opt.exclude:
        for column, level in ((key, key_level), (target, target_level)):
            if level not in levels[column]:
                raise DataError(f"exclude: {column!r} has no level {level!r} in the original or the release")


def _figures(result, target: str) -> dict:
    row = {name: getattr(result, name) for name in TargetFigures.model_fields if hasattr(result, name)}
    return {
        **row,
        "target": target,
        "check_2way": result.check_2way[:20],
        "n_2way": len(result.check_2way),
    }


def run(ctx, params: SynthpopDisclosureParams) -> Measurement:
    from privaudit.risk.synthetic.synthpop_disclosure import code, disclosure

    keys, targets = keys_of(params, ctx.policy), targets_of(params, ctx.policy)
    numeric = {c for c, spec in ctx.policy.columns.items() if spec.type == "numeric"}
    original, release = ctx.training, ctx.table
    for option, table in (("--original", original), ("the release", release)):
        if len(table) == 0:
            raise DataError(f"{option}: no record; synthpop's disclosure measures are shares of its records")
    groups = _groups(params, keys, targets)
    alone = disclosure(original, release, keys, None, numeric, _options(params, keys, None, groups))
    per_target = []
    for target in targets:
        opt = _options(params, keys, target, groups)
        if opt.not_targetlev or opt.exclude:
            coded = code(original, release, keys, target, numeric, opt)
            levels = {
                target: set(coded.target_labels),
                **{k: set(lab) for k, lab in zip(keys, coded.key_labels, strict=True)},
            }
            _refuse_unknown_levels(target, opt, levels)
        per_target.append(_figures(disclosure(original, release, keys, target, numeric, opt), target))
    candidates = [("repU", None, alone.repU)]
    candidates += [("repU", t["target"], t["repU"]) for t in per_target]
    candidates += [("DiSCO", t["target"], t["DiSCO"]) for t in per_target]
    measure, worst_target, value = max(candidates, key=lambda c: c[2])
    details = {
        "keys": keys,
        "n_original": len(original),
        "n_released": len(release),
        "identity": {"UiO": alone.UiO, "UiS": alone.UiS, "UiOiS": alone.UiOiS, "repU": alone.repU},
        "targets": per_target,
        "worst_measure": measure,
        "worst_target": worst_target,
        "denom_lim": params.denom_lim,
        "exclude_over_denom_lim": params.exclude_over_denom_lim,
    }
    return Measurement(
        value, params.max_share, not exceeds(value, params.max_share), _message(details, params), details
    )


def _message(d: dict, params: SynthpopDisclosureParams) -> str:
    ident = d["identity"]
    text = (
        f"repU {ident['repU']:.2%} of the {d['n_original']:,} original records (UiO {ident['UiO']:.2%}) on "
        f"{', '.join(d['keys'])}"
    )
    for t in d["targets"]:
        text += f"; {t['target']}: DiSCO {t['DiSCO']:.2%} (Dorig {t['Dorig']:.2%})"
    where = f" for {d['worst_target']!r}" if d["worst_target"] else ""
    return f"{text}; worst: {d['worst_measure']}{where}; max_share {params.max_share:g}"


ASSESSOR = Assessor(
    name=NAME,
    params=SynthpopDisclosureParams,
    details=SynthpopDisclosureDetails,
    run=run,
    title="synthpop disclosure measures (repU, DiSCO)",
    protects="attribute",
    measures="how many of the original's people the release still singles out on their key variables (replicated "
    "uniques) and how many it tells their sensitive value (disclosive in the release and correct in the original), "
    "beside what the original itself would give away",
    formula="repU = #{q: d(q) = s(q) = 1}/N_d; DiSCO = Σ_{q,t} d(q,t)[s(q,t) = s(q) > 0]/N_d (d, s: original and "
    "release counts per key q and target t, after synthpop's exclusions); value = max(repU, DiSCO over targets); "
    "pass iff value <= max_share",
    reference=REFERENCE,
    needs=frozenset({"training", "table"}),
    validate_policy=validate,
)


@hookimpl
def privaudit_assessors():
    return [ASSESSOR]
