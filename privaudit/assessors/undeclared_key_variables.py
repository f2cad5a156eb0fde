"""undeclared_key_variables: what an intruder who also knew a column the policy left out would find.

Always run, like ``direct_identifiers``. For each column the policy does not declare (or declares ``other``
without a ``reason``) that an intruder could plausibly know -- its header names a key variable
(:func:`privaudit.discovery.key_variables.key_variable`: age, sex, marital status, education, occupation,
geography ...), or its content is a binary dummy, a small coded domain or a date; continuous measurements
and free text are not measured -- the check counts the records unique, and below the policy's k, on the
declared quasi-identifiers plus that column (the declared classes split by its values,
:class:`privaudit.risk.undeclared.Splitter`), and for the three worst columns the records unique on pairs of
them. This is the key-variable choice of Hundepool et al., *Statistical Disclosure Control* (Wiley 2012),
section 3.3, and of the *SDC Practice Guide* (Benschop, Machingauta and Welch), "Classifying variables":
the risk is measured on every combination an intruder may know, not only the one a policy names.

The policy's own bounds are those of its error checks over every quasi-identifier that declare a class size
(``ClassRule.min_size``: no record in a class smaller than k) or a bound on the class sizes
(``SampleCriterion``: sample uniqueness, average risk ...). The check fails when a column the key-variable
vocabulary recognises pushes one of these bounds from met to broken; other plausible columns that do are
listed as warnings (the check still passes on them). A column the policy declares ``other`` with a
``reason`` (why an intruder cannot know it) is not measured, and its reason is listed.

value = the number of vocabulary-recognised columns that break a bound the declared quasi-identifiers meet;
pass iff value = 0.
"""

from __future__ import annotations

import itertools
import re
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import Field

from privaudit.assessors.refining_columns import codes_of, release_frame, unread
from privaudit.common.numbers import fmt
from privaudit.plugin.assessor import Assessor, Details, Measurement, Params
from privaudit.plugin.hookspecs import hookimpl

if TYPE_CHECKING:  # pragma: no cover - types only
    import numpy as np
    import pandas as pd


DECLARED = ("quasi_identifier", "sensitive", "identifier", "record_id", "household_id", "weight")
WORST_PAIRED = 3  # pairs are measured among this many worst columns
FEW = 10  # a column of at most this many values is a coded domain whatever its values (income brackets)
_DATE = re.compile(r"\d{4}-\d{1,2}(-\d{1,2})?|\d{1,2}[./]\d{1,2}[./]\d{2,4}|\d{4}/\d{1,2}(/\d{1,2})?")


NAME = "undeclared_key_variables"


class UndeclaredKeyVariablesParams(Params):
    better: ClassVar[str] = "lower"  # which way the value improves (privaudit diff)
    max_values: int = Field(
        default=30,
        ge=2,
        description="A column the vocabulary does not name is measured when it holds at most this many distinct "
        "values (a binary dummy, a coded domain); more (and not dates): a continuous measurement or free text.",
    )


class AddedKey(Details):
    """Records unique (and below k) on the declared quasi-identifiers plus these columns."""

    columns: list[str]
    known_by: str
    vocabulary: bool
    values: int
    unique_records: int
    unique_share: float
    below_k_records: int | None = None
    below_k_share: float | None = None
    breaks: list[str]


class RespectedColumn(Details):
    """A column the policy declares unknowable to an intruder, with its reason."""

    column: str
    reason: str


class UndeclaredKeyVariablesDetails(Details):
    """What the undeclared_key_variables check's details hold."""

    quasi_identifiers: list[str]
    records: int
    k: int | None = None
    bounds: list[str]
    unique_records: int
    unique_share: float
    below_k_records: int | None = None
    below_k_share: float | None = None
    columns: list[AddedKey]
    pairs: list[AddedKey]
    together: AddedKey | None = None
    failing: list[str]
    warnings: list[str]
    respected: list[RespectedColumn]
    not_measured: list[str]
    rows: int
    sampled: bool
    scanned: bool


def knowable(name: str, values: pd.Series, max_values: int) -> str | None:
    """How an intruder could know a column (its header, or a content of few values or dates), or None. Read
    from the column's distinct values (its categories as loaded), not its rows."""
    import numpy as np
    import pandas as pd

    from privaudit.discovery.key_variables import key_variable

    found = key_variable(name)
    if found is not None:
        return f"header: {found.label}"
    nominal = isinstance(values.dtype, pd.CategoricalDtype) and not values.dtype.ordered
    if nominal:  # a loaded nominal column's categories are its present values (an ordinal's are its order)
        distinct = pd.Series(values.cat.categories)
        if len(distinct) > max_values:  # categories of a loaded column are its present values
            distinct = distinct.head(200)
    else:
        distinct = pd.Series(values.dropna().unique())
    count = len(values.cat.categories) if nominal else len(distinct)
    if count == 0:
        return None
    from privaudit.common.numeric import to_numeric

    numeric = to_numeric(distinct.astype(str), errors="coerce")
    whole = bool(numeric.notna().all() and np.all(np.mod(numeric, 1) == 0))
    if count == 2:
        return "content: two values"
    if count <= max_values and (whole or numeric.isna().all() or count <= FEW):
        return f"content: {count} coded values"
    if numeric.isna().all():
        head = distinct.astype(str).head(200)
        if head.map(lambda v: bool(_DATE.fullmatch(v.strip()))).mean() >= 0.9:
            return "content: dates"
    return None


def policy_bounds(ctx, n_records: int) -> tuple[list[tuple[str, Any]], int | None]:
    """The policy's bounds on class sizes over every quasi-identifier (``(label, fulfilled(sizes))``) and its k."""
    from privaudit.risk.undeclared import below

    policy = ctx.policy
    bounds: list[tuple[str, Any]] = []
    ks = []
    for check in policy.checks:
        if check.severity != "error" or check.quasi_identifiers:
            continue
        a = check.assessor
        rule = a.rule(check.params, policy) if a.class_rule is not None else None
        if rule is not None and rule.min_size:
            k = int(rule.min_size)
            ks.append(k)
            bounds.append((f"{check.id}: no record in a class smaller than {k}", lambda s, k=k: below(s, k) == 0))
        criterion = a.sample_criterion(check.params, n_records) if a.sample_criterion is not None else None
        if criterion is not None:
            bounds.append((f"{check.id}: {criterion.model}", criterion.fulfilled))
    return bounds, (max(ks) if ks else None)


def base_partition(ctx, frame: pd.DataFrame) -> tuple[np.ndarray, int]:
    """Each record's class on the declared quasi-identifiers: the shared summary's in process, else (an
    out-of-memory engine keeps no record's class) those of the rows read."""
    import numpy as np

    from privaudit.core.summary import pack_keys

    qis = [q for q in ctx.policy.quasi_identifiers if q in frame]
    if frame is ctx.table and qis:
        s = ctx.summary
        return s.class_of, s.n_classes
    if not qis:
        return np.zeros(len(frame), dtype=np.int64), 1
    key = pack_keys([codes_of(frame[q]) for q in qis], len(frame))
    _, ids = np.unique(key, return_inverse=True)
    return ids.astype(np.int64), int(ids.max()) + 1 if len(ids) else 1


def _entry(columns, how, vocabulary, values, sizes, n, k, bounds, met) -> dict:
    from privaudit.risk.undeclared import below

    unique = below(sizes, 2)
    breaks = [label for (label, fulfilled), was in zip(bounds, met, strict=True) if was and not fulfilled(sizes)]
    entry = {
        "columns": list(columns),
        "known_by": how,
        "vocabulary": vocabulary,
        "values": int(values),
        "unique_records": unique,
        "unique_share": unique / n if n else 0.0,
        "breaks": breaks,
    }
    if k is not None:
        low = below(sizes, k)
        entry.update(below_k_records=low, below_k_share=low / n if n else 0.0)
    return entry


def candidates(ctx, frame: pd.DataFrame, max_values: int) -> tuple[dict[str, str], list[dict], list[str]]:
    """Knowable columns (name -> how), the columns the policy declares unknowable (with reasons), the rest."""
    knowable_columns, respected, rest = {}, [], []
    for column in frame.columns:
        spec = ctx.policy.columns.get(column)
        if spec is not None and spec.role in DECLARED:
            continue
        if spec is not None and spec.reason:
            respected.append({"column": column, "reason": spec.reason})
            continue
        how = knowable(column, frame[column], max_values)
        if how is None:
            rest.append(column)
        else:
            knowable_columns[column] = how
    return knowable_columns, respected, rest


def by_breaks(entries: list[dict], column: str) -> bool:
    return any(e["breaks"] for e in entries if e["columns"] == [column])


def measure(ctx, params: UndeclaredKeyVariablesParams) -> dict:
    import numpy as np

    from privaudit.risk.undeclared import Splitter, below

    frame, sampled = release_frame(ctx)
    assert frame is not None
    n = len(frame)
    splitter = Splitter(*base_partition(ctx, frame))
    sizes0 = splitter.sizes([])
    bounds, k = policy_bounds(ctx, n)
    met = [bool(fulfilled(sizes0)) for _, fulfilled in bounds]
    found, respected, rest = candidates(ctx, frame, params.max_values)
    codes = {c: codes_of(frame[c]) for c in found}
    singles = []
    for column, how in found.items():
        sizes = splitter.sizes([codes[column]])
        vocabulary = how.startswith("header")
        singles.append(_entry([column], how, vocabulary, codes[column][1], sizes, n, k, bounds, met))
    singles.sort(key=lambda e: (-e["unique_records"], e["columns"][0]))
    pairs = []
    for a, b in itertools.combinations([e["columns"][0] for e in singles[:WORST_PAIRED]], 2):
        sizes = splitter.sizes([codes[a], codes[b]])
        pairs.append(_entry([a, b], "the two together", False, codes[a][1] * codes[b][1], sizes, n, k, bounds, met))
    named = [e["columns"][0] for e in singles if e["vocabulary"]]
    together = None
    if len(named) > 1:
        sizes = splitter.sizes([codes[c] for c in named])
        values = int(np.prod([float(codes[c][1]) for c in named]))
        together = _entry(named, "the header vocabulary, all together", True, values, sizes, n, k, bounds, met)
    failing = [c for c in named if by_breaks(singles, c)]
    if together is not None and together["breaks"]:
        failing = named
    unique0 = below(sizes0, 2)
    out = {
        "quasi_identifiers": list(ctx.policy.quasi_identifiers),
        "records": n,
        "k": k,
        "bounds": [label for label, _ in bounds],
        "unique_records": unique0,
        "unique_share": unique0 / n if n else 0.0,
        "columns": singles,
        "pairs": pairs,
        "together": together,
        "failing": failing,
        "warnings": [e["columns"][0] for e in singles if not e["vocabulary"] and e["breaks"]],
        "respected": respected,
        "not_measured": rest,
        "rows": n,
        "sampled": sampled,
        "scanned": True,
    }
    if k is not None:
        low = below(sizes0, k)
        out.update(below_k_records=low, below_k_share=low / n if n else 0.0)
    return out


def run(ctx, params: UndeclaredKeyVariablesParams) -> Measurement:
    frame, sampled = release_frame(ctx)
    if frame is None:
        empty = {
            "quasi_identifiers": list(ctx.policy.quasi_identifiers),
            "records": 0,
            "bounds": [],
            "unique_records": 0,
            "unique_share": 0.0,
            "columns": [],
            "pairs": [],
            "failing": [],
            "warnings": [],
            "respected": [],
            "not_measured": [],
            "rows": 0,
            "sampled": True,
            "scanned": False,
        }
        return Measurement(0, 0, True, unread(ctx), empty)
    d = measure(ctx, params)
    return Measurement(len(d["failing"]), 0, not d["failing"], message(d), d)


def _pct(x: float) -> str:
    return f"{100 * x:.1f} %"


def _listed(items: list[str], limit: int = 3) -> str:
    shown = ", ".join(items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")


def _columns(d: dict) -> str:
    n = len(d["columns"])
    return f"{n} plausible column{'s' * (n != 1)}"


def _figures(e: dict, d: dict) -> str:
    """``9.4 % unique, was 0.3 %`` (and the share below k when the policy has one)."""
    text = f"{_pct(e['unique_share'])} unique, was {_pct(d['unique_share'])}"
    if d.get("k"):
        text += f"; {_pct(e['below_k_share'])} below k={d['k']}, was {_pct(d['below_k_share'])}"
    return text


def message(d: dict) -> str:
    by_name = {e["columns"][0]: e for e in d["columns"]}
    where = (
        f" (on the first {fmt(d['rows'])} rows: this engine does not load undeclared columns)" if d["sampled"] else ""
    )

    def said(names):
        return _listed([f"{c!r} ({by_name[c]['known_by']}: {_figures(by_name[c], d)})" for c in names])

    parts = []
    together = d.get("together")
    if d["failing"]:
        alone = [c for c in d["failing"] if by_name[c]["breaks"]]
        broken = sorted({b for c in alone for b in by_name[c]["breaks"]} | set(together["breaks"] if together else []))
        text = f"if an intruder also knew {said(alone)}" if alone else ""
        if together and together["breaks"]:
            text += (" and " if text else "") + (
                f"if an intruder knew {_listed([repr(c) for c in together['columns']], 6)} together "
                f"({_figures(together, d)})"
            )
        parts.append(
            f"{text}, the policy's {'; '.join(broken)} would break: declare "
            + ("them quasi-identifiers" if len(d["failing"]) > 1 else "it a quasi-identifier")
            + ", or role other with a reason why an intruder cannot know it"
        )
    elif not d["bounds"]:
        parts.append(f"the policy bounds no class size over every quasi-identifier; {_columns(d)} measured")
    else:
        parts.append(f"no undeclared key variable breaks the policy's bounds ({_columns(d)} measured)")
    if d["warnings"]:
        parts.append(f"warning: a bound would break too if an intruder also knew {said(d['warnings'])}")
    return "; ".join(parts) + where


SHOWN_ROWS = 12  # rows of columns that break nothing a report section shows


ASSESSOR = Assessor(
    name=NAME,
    params=UndeclaredKeyVariablesParams,
    details=UndeclaredKeyVariablesDetails,
    run=run,
    title="Key variables the policy left out",
    protects="identity",
    measures="how many records would be unique, or below the policy's k, if an intruder also knew a column the "
    "policy leaves out that a header, value labels or content shows to be knowable",
    formula="for each knowable undeclared column C: records in classes of size 1 (and < k) of QIs + C; value = "
    "vocabulary-named columns that break a bound the QIs meet; pass iff 0",
    reference="Hundepool et al., Statistical Disclosure Control (Wiley, 2012), section 3.3; Benschop, "
    "Machingauta and Welch, SDC Practice Guide (IHSN), 'Classifying variables'",
    always="last",  # after the policy's checks: what the policy left out
    concurrent=True,
)


@hookimpl
def privaudit_assessors():
    return [ASSESSOR]
