"""suppress: local suppression of the quasi-identifiers of records in violating classes.

Repeatedly: find the classes that break an error-severity class-based check of the policy, and
replace the quasi-identifier values of their records by ``*`` (when the policy ranks the quasi-identifiers'
``importance``, the least important first, the next ones only for records that still violate) (mode ``cells``; with the default
``missing_qi: value`` the suppressed records then form one class of their own) or remove the records
(mode ``records``). When only the suppressed class itself still violates (too small, or not diverse
enough), the smallest remaining class joins it. Stops when the policy's class-based checks hold or the
budget ``max_suppression`` (share of records) is spent.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Literal

from pydantic import Field

from privaudit.common.numbers import fmt
from privaudit.common.params import Params
from privaudit.plugin.hookspecs import hookimpl
from privaudit.plugin.remediator import (
    ExploreCandidate,
    ExploreRequest,
    Remediation,
    Remediator,
    class_violations,
    option_settings,
)

if TYPE_CHECKING:  # numpy and the audit context load when a remediation runs, not with the registry
    import numpy as np

    from privaudit.core.context import AuditContext

MAX_ROUNDS = 200


class SuppressOptions(Params):
    mode: Literal["cells", "records"] = Field(default="cells", description="Blank the QIs, or remove records.")
    max_suppression: float = Field(default=0.1, ge=0, le=1, description="Largest share of records to suppress.")
    columns: list[str] | None = Field(default=None, description="QIs to blank in mode 'cells' (default all).")


def run(ctx: AuditContext, options: SuppressOptions) -> Remediation:
    import numpy as np

    from privaudit.core.context import AuditContext

    policy = ctx.policy
    columns = options.columns or policy.quasi_identifiers
    unknown = [c for c in columns if c not in policy.quasi_identifiers]
    if unknown:
        raise ValueError(f"columns: {unknown[0]!r} is not a quasi-identifier of the policy")
    frame = ctx.table.copy()
    n = len(frame)
    budget = int(np.floor(options.max_suppression * n))
    hit = np.zeros(n, dtype=bool)  # records suppressed (or removed) so far, in input row order
    keep = np.ones(n, dtype=bool)
    tiers = _tiers(ctx, columns) if options.mode == "cells" else [columns]
    depth = np.zeros(n, dtype=np.int64)  # how many tiers of each record's QIs are blanked
    notes: list[str] = []
    for round_ in range(MAX_ROUNDS):
        current = frame[keep] if options.mode == "records" else frame
        sub = AuditContext(policy, current.reset_index(drop=True))
        bad_classes = class_violations(sub)
        if not bad_classes.any():
            break
        rows_now = bad_classes[sub.summary.class_of]
        positions = np.flatnonzero(keep) if options.mode == "records" else np.arange(n)
        deeper = np.zeros(n, dtype=bool)
        deeper[positions[rows_now]] = True
        deeper &= depth < len(tiers)
        if deeper.any() and len(tiers) > 1:  # blank the next, more important tier of records still violating
            if hit.sum() + (deeper & ~hit).sum() > budget:
                notes.append(f"suppressing more records would exceed the budget ({options.max_suppression:.1%})")
                break
            for t, tier in enumerate(tiers):
                rows = deeper & (depth == t)
                if rows.any():
                    _apply(frame, keep, rows, tier, options.mode)
            depth[deeper] += 1
            hit |= deeper
            continue
        new = np.zeros(n, dtype=bool)
        new[positions[rows_now]] = True
        new &= ~hit
        if not new.any():  # only already-suppressed records violate: let the smallest other class join them
            sizes = sub.summary.sizes.astype(float)
            untouched = ~bad_classes & np.bincount(
                sub.summary.class_of, weights=(~hit[positions]).astype(float), minlength=len(sizes)
            ).astype(bool)
            if not untouched.any():
                notes.append("every record is suppressed and the policy still fails")
                break
            smallest = np.flatnonzero(untouched)[np.argmin(sizes[untouched])]
            new[positions[sub.summary.class_of == smallest]] = True
        if hit.sum() + new.sum() > budget:  # the best attempt is the state before this round
            notes.append(
                f"suppressing {fmt(int(hit.sum() + new.sum()))} records would exceed the budget of "
                f"{fmt(budget)} ({options.max_suppression:.1%})"
            )
            break
        hit |= new
        depth[new] = len(tiers)
        _apply(frame, keep, new, columns, options.mode)
        if ctx.progress:
            ctx.progress("suppressing", round_ + 1, MAX_ROUNDS)
    return _remediation(frame, keep, hit, depth, tiers, columns, options, notes)


def _remediation(
    frame,
    keep: np.ndarray,
    hit: np.ndarray,
    depth: np.ndarray,
    tiers: list[list[str]],
    columns: list[str],
    options: SuppressOptions,
    notes: list[str],
) -> Remediation:
    """The output of :func:`run` (the kept records in mode ``records``), the records and cells suppressed and
    the records removed."""
    n = len(frame)
    out = frame[keep].reset_index(drop=True) if options.mode == "records" else frame
    suppressed = int(hit.sum())
    loss = {
        "records_suppressed": suppressed,
        "share_suppressed": suppressed / n if n else 0.0,
        "cells_suppressed": _cells(depth, tiers) if options.mode == "cells" else suppressed * frame.shape[1],
    }
    changes = {"mode": options.mode, "columns": columns, "records_affected": suppressed, "rows_out": int(len(out))}
    removed = n - len(out)
    if options.mode == "records":  # say it in words: the output's rows no longer line up with the input's
        changes["records_removed"] = removed
        if removed:
            notes.append(
                f"{fmt(removed)} records removed: the output has {fmt(len(out))} of the input's "
                f"{fmt(n)} rows (the others keep their order)"
            )
    return Remediation(out, changes, loss, notes=notes, records_removed=removed)


def _tiers(ctx: AuditContext, columns: list[str]) -> list[list[str]]:
    """The QIs to blank in turn, least important first, when the policy ranks any
    (:mod:`privaudit.remediation.importance`): a record still violating once a tier is blank loses the next
    one. Without importance, one tier: every QI at once."""
    if not any(ctx.policy.columns[c].importance is not None for c in columns):
        return [columns]
    from privaudit.remediation import importance as importance_of

    importance = importance_of.resolve(ctx.policy, columns, ctx.table)
    levels = sorted(set(importance.tolist()), reverse=True)
    return [[c for c, i in zip(columns, importance.tolist(), strict=True) if i == level] for level in levels]


def _cells(depth: np.ndarray, tiers: list[list[str]]) -> int:
    import numpy as np

    widths = np.concatenate(([0], np.cumsum([len(t) for t in tiers])))
    return int(widths[depth].sum())


def _apply(frame, keep: np.ndarray, rows: np.ndarray, columns: list[str], mode: str) -> None:
    if mode == "records":
        keep &= ~rows
        return
    for column in columns:
        frame.loc[rows, column] = float("nan")


#: Suppression budgets (share of records) of the candidates ``remediate --explore`` tries.
EXPLORE_BUDGETS = (0.01, 0.02, 0.05, 0.1, 0.2)


def explore(ctx: AuditContext, request: ExploreRequest) -> list[ExploreCandidate]:
    """Cell suppression at each budget: the records of the classes breaking a class-based error check,
    smallest classes first, while they fit in the budget (every QI published as missing); with risk-based
    checks (declaring a sample criterion) the other classes follow, smallest first, as ARX's
    ``RiskBasedCriterion.enforce`` suppresses. One class summary serves every budget; budgets that suppress
    the same records give one candidate. Options other than the budget given with ``--option``: the
    remediator itself, once per setting."""
    import numpy as np

    from privaudit.remediation.generalization.risk_targets import risk_targets
    from privaudit.remediation.methods.generalize import spread

    fixed = dict(request.fixed)
    if fixed.keys() - {"max_suppression"} - ({"mode"} if fixed.get("mode") == ["cells"] else set()):
        settings = option_settings([], fixed)[: request.limit]
        return [ExploreCandidate(s, make=partial(run, ctx, SuppressOptions.model_validate(s))) for s in settings]
    s = ctx.summary
    n = s.n_records
    violating = class_violations(ctx)
    bad = np.flatnonzero(violating)
    bad = bad[np.argsort(s.sizes[bad], kind="stable")]
    if risk_targets(ctx.policy, n)[0]:  # risk-based checks: then the other classes, smallest first, as ARX does
        rest = np.flatnonzero(~violating & (s.sizes > 0))
        bad = np.concatenate([bad, rest[np.argsort(s.sizes[rest], kind="stable")]])
    if not len(bad):
        request.notes.append("suppress: no class breaks a class-based error check, nothing to suppress")
    cumulative = np.cumsum(s.sizes[bad])
    qi = ctx.policy.quasi_identifiers
    budgets = [float(b) for b in fixed.get("max_suppression", EXPLORE_BUDGETS)]
    out, seen = [], set()
    for budget in spread(budgets, request.limit):
        allowed = int(np.floor(budget * n + 1e-9))
        take = int(np.searchsorted(cumulative, allowed, side="right"))
        if take in seen:
            continue
        seen.add(take)
        rows = np.isin(s.class_of, bad[:take])
        table = ctx.table.copy()
        for column in qi:
            table[column] = table[column].where(~rows)
        count = int(rows.sum())
        rem = Remediation(
            table,
            {"mode": "cells", "columns": qi, "records_affected": count},
            {"records_suppressed": count, "share_suppressed": count / n if n else 0.0},
        )
        out.append(ExploreCandidate({"mode": "cells", "max_suppression": budget}, rem))
    return out


REMEDIATOR = Remediator(
    name="suppress",
    options=SuppressOptions,
    run=run,
    title="Local suppression",
    description="blank (or remove) the quasi-identifiers of records in classes that break the policy",
    explore=explore,
)


@hookimpl
def privaudit_remediators():
    return [REMEDIATOR]
