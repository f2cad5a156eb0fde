"""pseudonyms: a column of digests or tokens is tested for what an intruder can undo.

EDPB Guidelines 01/2025 on pseudonymisation (section 3.2, annex examples) expect a keyed function; a plain
hash of a value from an enumerable space is reversed by hashing every candidate (ENISA, *Pseudonymisation
techniques and best practices*, 2019, section 5.2). For each tested column the check says what it looks like
(:func:`privaudit.risk.pseudonyms.kind_of`: a hex digest of which unkeyed hashes, a UUID, a base64 token,
sequential or other whole numbers) and, for hex digests, runs a dictionary attack within a CPU-time budget
over dates of the last ``years`` years (six spellings), whole numbers in ``ranges`` (also as nine digits and
US SSNs where they have nine digits), and the values of every other column of the release and of
``--original`` when given.

value = the largest share of a column's records whose pseudonym was reversed; pass iff no record's was
(threshold 0). A sequential id is reported (it keeps the order in which people were registered), not failed.
The reversed values themselves are never reported: only how many, and from which space.

Columns tested: ``columns`` when given, else every column not declared a quasi-identifier, sensitive
attribute or weight whose values look like digests, UUIDs or base64 tokens.
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field, field_validator

from privaudit.plugin.assessor import Assessor, Details, Measurement, Params
from privaudit.plugin.hookspecs import hookimpl

NAME = "pseudonyms"
#: the column values the form of a column is judged on
FORM_SAMPLE = 10_000


class PseudonymsParams(Params):
    better: ClassVar[str] = "lower"
    columns: list[str] | None = Field(
        default=None, description="columns to test (default: undeclared or other columns that look like tokens)"
    )
    years: int = Field(default=120, ge=1, le=200, description="dates of birth tried: the last this many years")
    ranges: list[tuple[int, int]] = Field(
        default=[(0, 999_999)], description="inclusive ranges of whole numbers tried (record numbers, national numbers)"
    )
    budget_seconds: float = Field(default=5.0, gt=0, le=600, description="CPU seconds of hashing per column")

    @field_validator("ranges")
    @classmethod
    def _ordered(cls, ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
        for low, high in ranges:
            if low > high or low < 0:
                raise ValueError(f"a range goes from a whole number >= 0 up: [{low}, {high}] does not")
        return ranges


class PseudonymReuse(Details):
    """Pseudonyms of a tested column that a ``--previous`` release holds too: the releases link through them."""

    release: str
    shared: int
    shared_share: float
    same_person: int | None = None  # with a record id in both: records whose person kept the same pseudonym
    linked_persons: int | None = None  # with a record id in both: persons in both releases


class PseudonymColumn(Details):
    """One tested column: its form and what the dictionary attack reversed."""

    column: str
    kind: str
    form: str
    algorithms: list[str]
    algorithm: str | None
    distinct: int
    reversed_values: int
    reversed_records: int
    reversed_share: float
    spaces: list[str]
    candidates_tried: int
    budget_exhausted: bool
    reused: list[PseudonymReuse] = []


class PseudonymsDetails(Details):
    """What the pseudonyms check's details hold."""

    columns: list[PseudonymColumn]
    records: int


def _tested(ctx, params: PseudonymsParams) -> list[str]:
    from privaudit.risk.pseudonyms import kind_of

    if params.columns is not None:
        return list(params.columns)
    frame, declared = ctx.table, ctx.policy.columns
    names = []
    for name in map(str, frame.columns):
        spec = declared.get(name)
        if spec is not None and spec.role in ("quasi_identifier", "sensitive", "weight"):
            continue
        values = frame[name].dropna().astype(str).unique()[:FORM_SAMPLE]
        if kind_of(list(values)).kind in ("hex digest", "uuid", "base64 token"):
            names.append(name)
    return names


def _column(ctx, name: str, params: PseudonymsParams) -> PseudonymColumn:
    import time

    import numpy as np

    from privaudit.risk.pseudonyms import date_space, kind_of, number_space, reverse, value_space

    series = ctx.table[name].dropna().astype(str).str.strip()
    distinct = series.unique()
    kind = kind_of(list(distinct[:FORM_SAMPLE]))
    spaces_tried, reversal = [], None
    if kind.kind == "hex digest":
        others = {c: ctx.table[c].dropna().astype(str).unique() for c in map(str, ctx.table.columns) if c != name}
        if ctx.original is not None:
            others.update(
                {
                    f"{c} (original)": ctx.original[c].dropna().astype(str).unique()
                    for c in map(str, ctx.original.columns)
                }
            )

        def spaces():
            yield from value_space(others)
            yield from date_space(params.years)
            yield from number_space(params.ranges)

        reversal = reverse(
            {d.lower() for d in distinct}, kind.algorithms, spaces, params.budget_seconds, clock=time.thread_time
        )
        spaces_tried = reversal.spaces
    reused = _reuse(ctx, name, distinct)
    hits = set(reversal.reversed) if reversal else set()
    records = int(np.isin(series.str.lower().to_numpy(), list(hits)).sum()) if hits else 0
    total = len(ctx.table)
    return PseudonymColumn(
        column=name,
        kind=kind.kind,
        form=kind.detail,
        algorithms=list(kind.algorithms),
        algorithm=reversal.algorithm if reversal else None,
        distinct=len(distinct),
        reversed_values=len(hits),
        reversed_records=records,
        reversed_share=records / total if total else 0.0,
        spaces=spaces_tried,
        candidates_tried=reversal.tried if reversal else 0,
        budget_exhausted=not reversal.exhausted if reversal else False,
        reused=reused,
    )


def _reuse(ctx, name: str, distinct) -> list[PseudonymReuse]:
    """Per ``--previous`` release holding column ``name``: how many of this release's pseudonyms it holds
    too and, where both have the policy's record id, how many persons kept the same one. A pseudonym kept
    from release to release lets anyone link the releases person by person (EDPB Guidelines 01/2025,
    section 3.2: a pseudonym per purpose or recipient prevents it)."""
    import pandas as pd

    inputs = getattr(ctx, "series_inputs", None)
    if inputs is None or not distinct.size:
        return []
    ids = ctx.policy.columns_with("record_id")
    record_id = ids[0] if ids else None
    apart = inputs.previous_ids or [None] * len(inputs.previous)
    found = []
    for table, ids in zip(inputs.previous, apart, strict=False):
        frame = table.frame
        if frame is None or name not in frame.columns:
            continue
        theirs = frame[name].dropna().astype(str).str.strip()
        shared = int(pd.Index(distinct).isin(theirs.unique()).sum())
        same = linked = None
        their_ids = _record_ids(frame, record_id, ids)
        if their_ids is not None and record_id in ctx.table.columns:
            mine = pd.DataFrame({"id": ctx.table[record_id].astype(str), "p": ctx.table[name].astype(str)})
            other = pd.DataFrame({"id": their_ids, "q": frame[name].astype(str)})
            both = mine.drop_duplicates("id").merge(other.drop_duplicates("id"), on="id")
            linked, same = len(both), int((both["p"].str.strip() == both["q"].str.strip()).sum())
        label = getattr(table.path, "name", None) or str(table.path)
        found.append(
            PseudonymReuse(
                release=label,
                shared=shared,
                shared_share=shared / len(distinct),
                same_person=same,
                linked_persons=linked,
            )
        )
    return found


def run(ctx, params: PseudonymsParams) -> Measurement:
    from privaudit.plugin.text import share

    names = _tested(ctx, params)
    missing = [n for n in names if n not in ctx.table.columns]
    if missing:
        raise ValueError(f"columns: the release has no column {missing[0]!r}")
    found = [_column(ctx, n, params) for n in names]
    value = max((f.reversed_share for f in found), default=0.0)
    parts = []
    for f in found:
        if f.reversed_values:
            parts.append(
                f"{f.column!r}: {f.reversed_values:,} of {f.distinct:,} {f.algorithm} digests reversed "
                f"({share(f.reversed_share)} of records) from {'; '.join(f.spaces)}: a plain hash, not a keyed one"
            )
        elif f.kind == "hex digest":
            parts.append(
                f"{f.column!r}: no digest reversed in {f.candidates_tried:,} candidates"
                + (" (the budget ran out)" if f.budget_exhausted else "")
            )
        elif f.kind == "sequential integers":
            parts.append(f"{f.column!r}: sequential numbers ({f.form}): they keep the order people were registered in")
        else:
            parts.append(f"{f.column!r}: {f.kind} ({f.form}), not tested by a dictionary attack")
    parts += [_reuse_text(f) for f in found if any(r.shared for r in f.reused)]
    message = "; ".join(parts) if parts else "no column looks like pseudonyms"
    details = {"columns": [f.model_dump() for f in found], "records": len(ctx.table)}
    return Measurement(value, 0, value == 0, message, details)


def _record_ids(frame, record_id: str | None, apart):
    """A previous release's record ids as texts, one per row: its column, or the ids its loader read apart
    (``(codes, distinct texts)``, :func:`privaudit.pipeline.series.load_release`); None without a record id."""
    import numpy as np

    if record_id is None:
        return None
    if record_id in frame.columns:
        return frame[record_id].astype(str).to_numpy()
    if apart is None:
        return None
    codes, texts = apart
    return np.asarray(texts, dtype=object)[np.asarray(codes)]


def _reuse_text(f: PseudonymColumn) -> str:
    """One sentence on the releases a column's pseudonyms link this one to."""
    said = []
    for r in f.reused:
        if not r.shared:
            continue
        same = (
            f"; {r.same_person:,} of {r.linked_persons:,} persons in both kept the same one"
            if r.same_person is not None
            else ""
        )
        said.append(f"{r.shared:,} of {f.distinct:,} also in {r.release}{same}")
    return (
        f"{f.column!r}: pseudonyms reused across releases ({'; '.join(said)}): the releases link person by person "
        "through them (a pseudonym per release would not)"
    )


def validate(params: PseudonymsParams, policy) -> str | None:
    for name in params.columns or []:
        spec = policy.columns.get(name)
        if spec is not None and spec.role in ("quasi_identifier", "sensitive"):
            return f"columns: {name!r} is a {spec.role.replace('_', '-')}, not a pseudonym column"
    return None


ASSESSOR = Assessor(
    name=NAME,
    params=PseudonymsParams,
    details=PseudonymsDetails,
    run=run,
    title="Pseudonyms",
    protects="identity",
    measures="whether a column of digests or tokens can be undone: a plain hash of a date of birth, a number "
    "in a known range or another column's value is reversed by hashing every candidate",
    formula="value = max over tested columns of (records whose digest equals hash(candidate) for a candidate of "
    "the tried spaces) / records; pass iff value = 0",
    reference="EDPB Guidelines 01/2025 on pseudonymisation, section 3.2; ENISA, Pseudonymisation techniques and "
    "best practices (2019), section 5.2",
    needs=frozenset({"table"}),
    uses=frozenset({"previous"}),
    validate_policy=validate,
)


@hookimpl
def privaudit_assessors():
    return [ASSESSOR]
