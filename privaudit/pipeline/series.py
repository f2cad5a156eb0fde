"""A release and its previous releases (``audit NEW --previous OLD ...``): loading them, refusing what
cannot be compared, and linking every person to the group of records an intruder finds them in, in each
release. The arithmetic of the composition (intersections, signatures) is :mod:`privaudit.risk.composition`.

How records are linked:

* **record_id**: when the policy declares a ``record_id`` column and every release carries it, a person is
  a record id; their group in a release is the class of their record there.
* **quasi-identifiers**: otherwise ``--original`` gives each person's true quasi-identifiers, and the intruder
  is assumed to know them. The original is aligned with each release by ``record_id`` when both carry it
  (who is in that release), else row by row (the release holds the same people in the same order). The
  person's group in a release is found as an intruder would: every class whose published values cover the
  person's values -- the value itself, an ancestor in the column's hierarchy, or a suppressed (missing)
  value. With full-domain generalization that is one class; with local recoding or suppression it may be
  several, and the intruder's candidate values are those of all of them.

Computed once per audit (``AuditContext.series``) and shared by the checks that read it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp

from privaudit.core.errors import DataError
from privaudit.core.policy import Policy
from privaudit.core.summary import ClassSummary, pack_keys
from privaudit.io.data import Table, load_input


@dataclass
class SeriesInputs:
    """The tables of a series as loaded: the audited release, the previous ones (in the order given) and the
    original (``--original``, as loaded), when there is one."""

    released: Table
    previous: list[Table]
    original: Table | None = None
    #: per previous release, its record ids read apart from the typed table (``(codes, distinct texts)``), or
    #: None when they are a column of the table (see :func:`load_release`)
    previous_ids: list | None = None


def _label(path: Any) -> str:
    return str(path)


def load_previous(
    previous: Sequence[Any], released: Any, released_table: Table, policy: Policy
) -> tuple[list[Table], list]:
    """Load every ``--previous`` release, refusing in one line: the release itself (the same file or the same
    content), a release given twice, and a release without the policy's quasi-identifiers or sensitive
    columns (a different release design cannot be composed with this one)."""
    tables: list[Table] = []
    id_lists: list = []
    need = [*policy.columns_with("quasi_identifier"), *policy.sensitive]
    for item in previous:
        shown = _label(item) if isinstance(item, (str, Path)) else f"<{type(item).__name__}>"
        if isinstance(item, (str, Path)) and isinstance(released, (str, Path)):
            if _same_file(Path(item), Path(released)):
                raise DataError(f"--previous {shown}: is the audited release itself")
        if isinstance(item, (pd.DataFrame,)):
            absent = [c for c in need if c not in item.columns]
            if absent:
                raise DataError(_absent(shown, absent[0], policy))
        table, ids = load_release(item, policy)
        absent = [c for c in need if c not in table.frame]
        if absent:
            raise DataError(_absent(shown, absent[0], policy))
        if table.sha256 == released_table.sha256:
            raise DataError(
                f"--previous {shown}: has the same content as the audited release "
                f"({released_table.path}); a series compares different releases"
            )
        for other in tables:
            if other.sha256 == table.sha256:
                raise DataError(f"--previous {shown}: is given twice (same content as {other.path})")
        tables.append(table)
        id_lists.append(ids)
    return tables, id_lists


def load_release(item: Any, policy: Policy) -> tuple[Table, tuple[np.ndarray, np.ndarray] | None]:
    """A previous release typed by the policy, and, for a CSV or Parquet file, its record ids read apart: the
    ids only link people, so they are dictionary-coded as read (no sorted categorical of a million distinct
    texts, the larger part of loading a release with a record id). Other inputs load as the audited one."""
    from privaudit.io import data as d
    from privaudit.io.coding import dictionary_parts

    rid = (policy.columns_with("record_id") or [None])[0]
    if not isinstance(item, (str, Path)) or d.is_dataset(item):
        return load_input(item, policy, what="previous release"), None
    path = Path(item)
    size = d.check_file(path, "previous release")
    raw, file_format = d.read_file(path, policy)  # by the file's registered reader
    if raw.num_rows == 0:
        raise DataError(f"{path}: the file has a header but no data rows")
    ids = None
    if rid is not None and rid in raw.column_names:
        indices, remap, values = dictionary_parts(raw.column(rid), policy.missing_tokens)
        ids = (remap.astype(np.int64)[indices], values)
        raw = raw.drop_columns([rid])
    table = d.type_table(raw, d.Table(None, path, d.sha256_of(path), size, file_format), policy, required=[])
    return table, ids


def refuse_series(checks: list, previous: Sequence[Any] | None, in_memory: bool, engine: str) -> None:
    """Before any work, one line: a check that reads previous releases without ``--previous``, ``--previous``
    that no check reads, or under an engine that does not load the tables."""
    readers = [c for c in checks if "previous" in c.assessor.needs]
    if not previous:
        if readers:
            c = readers[0]
            raise DataError(
                f"check {c.id!r} ({c.assessor.name}) composes releases: pass --previous FILE (an "
                "earlier release of the same population)"
            )
        return
    if not readers and not any("previous" in c.assessor.capabilities.inputs.uses for c in checks):
        raise DataError(
            "--previous: no check of the policy reads previous releases (see 'privaudit plugins' for "
            "the assessors that compose releases)"
        )
    if not in_memory:
        raise DataError(
            f"--previous needs the whole tables in memory: use --engine in-process (this audit uses {engine})"
        )


def series_inputs(
    previous: Sequence[Any], released: Any, released_table: Table, original: Table | None, policy: Policy
) -> SeriesInputs:
    """The loaded series (:func:`load_previous`), for ``AuditContext.series_inputs``."""
    tables, ids = load_previous(previous, released, released_table, policy)
    return SeriesInputs(released_table, tables, original, ids)


def _absent(shown: str, column: str, policy: Policy) -> str:
    role = "quasi-identifier" if column in policy.columns_with("quasi_identifier") else "sensitive column"
    return (
        f"--previous {shown}: {role} {column!r} is absent; a previous release must publish the same "
        "quasi-identifiers and sensitive columns as the audited one (another design cannot be composed)"
    )


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve() or (a.exists() and b.exists() and a.samefile(b))
    except OSError:
        return False


@dataclass
class Release:
    """One release of the series: its table, class summary and how each person maps to its groups."""

    table: Table
    summary: ClassSummary
    group_of: np.ndarray  # per person: group id, -1 not in this release (or not found by the intruder)
    members: sp.csr_matrix | None = None  # groups x classes when a group is several classes; None: groups = classes
    present: int = 0  # people in this release
    not_found: int = 0  # people in this release the intruder finds in no class (values not covered)
    label: str = ""  # how reports name it: its path; an in-memory table by its place in the series
    person_of_row: np.ndarray | None = None  # the person of each of its records (row order), when known

    @property
    def path(self) -> str:
        return self.label or str(self.table.path)

    def sets(self, column: str, domain: np.ndarray) -> sp.csr_matrix:
        """groups x values (``domain``): which values of ``column`` each group holds."""
        sc = self.summary.sensitive[column]
        position = pd.Index(domain).get_indexer(pd.Index(sc.values))
        counts = sc.counts.tocsr()
        indices = position[counts.indices]
        classes = sp.csr_matrix(
            (np.ones(len(indices), dtype=bool), indices, counts.indptr.copy()), shape=(counts.shape[0], len(domain))
        )
        classes.sort_indices()
        if self.members is None:
            return classes
        from privaudit.risk.composition import union_sets

        return union_sets(self.members, classes)


@dataclass
class Series:
    """The releases of a series, linked person by person (see the module docstring)."""

    releases: list[Release]
    linking: str  # "record_id" | "quasi_identifiers"
    key: str | None  # the record_id column, when it links or aligns
    people: int
    person_ids: Any = None  # the record id of each person (record_id linking), for examples
    _cache: dict = field(default_factory=dict, repr=False)

    def domain(self, column: str) -> np.ndarray:
        """The values of ``column`` over every release, in the audited release's order then new ones."""
        values = [r.summary.sensitive[column].values for r in self.releases]
        return pd.unique(np.concatenate([np.asarray(v, dtype=object) for v in values]))

    def composition(self, column: str):
        """The intersection attack on ``column`` (:func:`privaudit.risk.composition.compose`), computed once."""
        if column not in self._cache:
            from privaudit.risk.composition import compose

            domain = self.domain(column)
            sets = [r.sets(column, domain) for r in self.releases]
            self._cache[column] = (compose([r.group_of for r in self.releases], sets), domain)
        return self._cache[column]

    def describe(self) -> dict:
        """What the report says of the series: the releases compared and how records were linked."""
        return {
            "linking": self.linking,
            "key": self.key,
            "people": self.people,
            "releases": [
                {
                    "path": r.path,
                    "sha256": r.table.sha256,
                    "rows": r.table.rows,
                    "classes": r.summary.n_classes,
                    "people": r.present,
                    "not_found": r.not_found,
                }
                for r in self.releases
            ],
        }


def build_series(policy: Policy, inputs: SeriesInputs, summaries: list[ClassSummary]) -> Series:
    """Link the people of every release (``summaries``: the class summary of each release, audited first)."""
    series = _linked(policy, inputs, summaries)
    for i, release in enumerate(series.releases):
        if str(release.table.path).startswith("<"):  # a DataFrame or Arrow table: named by its place
            release.label = (
                f"{release.table.path} (the audited release)"
                if i == 0
                else f"{release.table.path} (previous release {i})"
            )
    return series


def _linked(policy: Policy, inputs: SeriesInputs, summaries: list[ClassSummary]) -> Series:
    tables = [inputs.released, *inputs.previous]
    rid = (policy.columns_with("record_id") or [None])[0]
    apart = inputs.previous_ids or [None] * len(inputs.previous)
    ids = [None, *apart]
    if rid is not None and all(rid in t.frame or i is not None for t, i in zip(tables, ids, strict=False)):
        return _by_record_id(tables, summaries, rid, ids)
    if inputs.original is None:
        why = (
            f"not every release carries the record_id column {rid!r}"
            if rid
            else "the policy declares no record_id column"
        )
        raise DataError(
            f"--previous: {why}, so people are linked through their quasi-identifiers: pass --original "
            "FILE (each person's true values)"
        )
    return _by_quasi_identifiers(tables, summaries, inputs.original, policy, rid, ids)


def _ids(table: Table, rid: str, apart: tuple | None = None) -> tuple[np.ndarray, Any]:
    """The record ids of a release as (per row, index into the distinct ids; the distinct ids as texts), one
    line when an id is empty or repeats (counted on the codes: no second hashing of the texts). ``apart``:
    the ids as :func:`load_release` read them."""
    if apart is not None:
        codes, cats = apart
    elif isinstance(table.frame[rid].dtype, pd.CategoricalDtype):
        ids = table.frame[rid]
        codes, cats = ids.cat.codes.to_numpy(), ids.cat.categories
        if cats.dtype != object and not pd.api.types.is_string_dtype(cats.dtype):
            cats = cats.astype(str)
    else:
        codes, cats = pd.factorize(table.frame[rid].astype("string"), sort=False)
        cats = pd.Index(np.asarray(cats, dtype=object))
    codes = codes.astype(np.int64, copy=False)
    if (codes < 0).any():
        i = int(np.flatnonzero(codes < 0)[0])
        raise DataError(f"{table.path}: {table.row_label(i)}: the record_id column {rid!r} is empty")
    counts = np.bincount(codes, minlength=len(cats))
    if (counts > 1).any():
        twice = int(np.flatnonzero(counts > 1)[0])
        i = int(np.flatnonzero(codes == twice)[1])
        raise DataError(
            f"{table.path}: {table.row_label(i)}: record_id {str(cats[twice])!r} repeats within the "
            f"release (column {rid!r}); a record id names one record"
        )
    return codes, cats


def _by_record_id(tables: list[Table], summaries: list[ClassSummary], rid: str, apart: list) -> Series:
    """People are the record ids: the audited release's distinct ids (their hash table, built when the column
    was loaded, is reused), then the ids only earlier releases hold."""
    parts = [_ids(t, rid, a) for t, a in zip(tables, apart, strict=False)]
    base = parts[0][1] if isinstance(parts[0][1], pd.Index) else pd.Index(parts[0][1])
    people_of: list[np.ndarray] = [np.arange(len(base), dtype=np.int64)]
    positions = [base.get_indexer(cats) for _, cats in parts[1:]]
    unseen = [np.asarray(cats, dtype=object)[pos < 0] for (_, cats), pos in zip(parts[1:], positions, strict=False)]
    extra_codes, extra = pd.factorize(np.concatenate(unseen)) if unseen else (np.zeros(0, np.int64), [])
    offset = 0
    for pos, new in zip(positions, unseen, strict=False):
        person = pos.astype(np.int64)
        person[pos < 0] = len(base) + extra_codes[offset : offset + len(new)]
        offset += len(new)
        people_of.append(person)
    n_people = len(base) + len(extra)
    releases = []
    for table, summary, (codes, _), person_of_category in zip(tables, summaries, parts, people_of, strict=False):
        person = person_of_category[codes]
        group_of = np.full(n_people, -1, dtype=np.int64)
        group_of[person] = summary.class_of
        releases.append(Release(table, summary, group_of, present=len(person), person_of_row=person))
    ids = np.concatenate([np.asarray(base, dtype=object), np.asarray(extra, dtype=object)])
    series = Series(releases, "record_id", rid, n_people, person_ids=ids)
    _refuse_disjoint(series)
    return series


def _refuse_disjoint(series: Series) -> None:
    count = np.zeros(series.people, dtype=np.int64)
    for r in series.releases:
        count += r.group_of >= 0
    if not (count >= 2).any():
        names = ", ".join(r.path for r in series.releases)
        how = f"by {series.key!r}" if series.linking == "record_id" else "through the original"
        raise DataError(
            f"--previous: the releases share no person ({names}, linked {how}); there is nothing to compose"
        )


def _by_quasi_identifiers(
    tables: list[Table], summaries: list[ClassSummary], original: Table, policy: Policy, rid: str | None, apart: list
) -> Series:
    qi = policy.quasi_identifiers
    absent = [c for c in qi if c not in original.frame]
    if absent:
        raise DataError(f"{original.path}: quasi-identifier {absent[0]!r} is absent from the original")
    truth = _truth_labels(original.frame, qi, policy)
    people = len(original.frame)
    original_index = None
    if rid is not None and rid in original.frame:
        original_index = pd.Index(_codes_as_text(original, rid))
    releases = []
    for table, summary, ids in zip(tables, summaries, apart, strict=False):
        if original_index is not None and (rid in table.frame or ids is not None):
            position = original_index.get_indexer(_codes_as_text(table, rid, ids))
            if (position < 0).any():
                i = int(np.flatnonzero(position < 0)[0])
                raise DataError(
                    f"{table.path}: {table.row_label(i)}: record_id {str(table.frame[rid].iloc[i])!r} is "
                    f"not in the original ({original.path})"
                )
            inside = np.zeros(people, dtype=bool)
            inside[position] = True
            person_of_row = position.astype(np.int64)
        elif table.rows != people:
            raise DataError(
                f"{original.path}: has {people} rows but the release {table.path} has {table.rows}; "
                "linking through the original needs the same rows in the same order, or a record_id "
                "column in both"
            )
        else:
            inside = np.ones(people, dtype=bool)
            person_of_row = np.arange(people, dtype=np.int64)
        matched, members = _find_classes(truth, summary, qi, policy, table)
        group_of = np.where(inside, matched, -1)
        releases.append(
            Release(
                table,
                summary,
                group_of,
                members,
                present=int(inside.sum()),
                not_found=int((inside & (matched < 0)).sum()),
                person_of_row=person_of_row,
            )
        )
    series = Series(releases, "quasi_identifiers", rid if original_index is not None else None, people)
    _refuse_disjoint(series)
    return series


def _codes_as_text(table: Table, rid: str, apart: tuple | None = None) -> np.ndarray:
    codes, cats = _ids(table, rid, apart)
    return np.asarray(cats, dtype=object)[codes]


def _labels(values: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """A column as (codes, labels): labels are the texts an intruder reads (numbers as ``%g``), -1 missing."""
    if isinstance(values.dtype, pd.CategoricalDtype):
        return values.cat.codes.to_numpy().astype(np.int64), np.asarray(values.cat.categories.astype(str), dtype=object)
    if pd.api.types.is_float_dtype(values.dtype):
        codes, uniques = pd.factorize(values, sort=True)
        return codes.astype(np.int64), np.array([f"{v:g}" for v in uniques], dtype=object)
    codes, uniques = pd.factorize(values.astype("string"), sort=True)
    return codes.astype(np.int64), np.asarray(uniques, dtype=object)


def _truth_labels(frame: pd.DataFrame, qi: list[str], policy: Policy) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    return {q: _labels(frame[q]) for q in qi}


def _find_classes(
    truth: dict, summary: ClassSummary, qi: list[str], policy: Policy, table: Table
) -> tuple[np.ndarray, sp.csr_matrix | None]:
    """Each person's group in one release (see the module docstring) and, when some person is covered by
    several classes, the groups x classes membership matrix (None: groups are classes)."""
    n_classes = summary.n_classes
    reps = summary.representatives(np.arange(n_classes), qi)
    levels = np.zeros((n_classes, len(qi)), dtype=np.int64)
    class_labels = []
    for j, q in enumerate(qi):
        codes, labels = _labels(reps[q].reset_index(drop=True))
        class_labels.append((codes, labels))
        hierarchy = policy.hierarchies.get(q)
        if hierarchy is None:
            label_level = np.zeros(len(labels), dtype=np.int64)
        else:
            found = [hierarchy.level_of(str(v)) for v in labels]
            unknown = [str(v) for v, lv in zip(labels, found, strict=False) if lv is None]
            if unknown:
                raise DataError(
                    f"{table.path}: column {q!r}: value {unknown[0]!r} is not in hierarchy {hierarchy.source}"
                )
            label_level = np.array(found, dtype=np.int64)
        levels[:, j] = np.where(codes < 0, -1, label_level[np.maximum(codes, 0)] if len(labels) else -1)
    patterns, pattern_of = np.unique(levels, axis=0, return_inverse=True)
    pattern_of = pattern_of.ravel()
    people = len(next(iter(truth.values()))[0]) if truth else 0
    matches = np.full((people, len(patterns)), -1, dtype=np.int64)
    for p, pattern in enumerate(patterns):
        classes = np.flatnonzero(pattern_of == p)
        person_cols, class_cols = [], []
        for j, q in enumerate(qi):
            level = int(pattern[j])
            if level < 0:  # suppressed in these classes: covers any value
                continue
            t_codes, t_labels = truth[q]
            hierarchy = policy.hierarchies.get(q)
            if hierarchy is not None and level > 0:
                t_labels = pd.Series(t_labels, dtype=object).map(hierarchy.table[level]).to_numpy(dtype=object)
            c_codes, c_labels = class_labels[j]
            both, joint = pd.factorize(
                pd.Series(np.concatenate([t_labels, c_labels]), dtype=object), use_na_sentinel=True
            )
            t_map = np.append(both[: len(t_labels)], -1)
            c_map = np.append(both[len(t_labels) :], -1)
            person_cols.append((t_map[t_codes], len(joint)))
            class_cols.append((c_map[c_codes[classes]], len(joint)))
        if not person_cols:
            matches[:, p] = classes[0]
            continue
        person_key = pack_keys(person_cols, people)
        class_key = pack_keys(class_cols, len(classes))
        # a person's missing or unmappable value gets code -1 (packed as its own code): no class holds it
        unknown = np.zeros(people, dtype=bool)
        for codes, _ in person_cols:
            unknown |= codes < 0
        order = np.argsort(class_key, kind="stable")
        sorted_keys = class_key[order]
        pos = np.minimum(np.searchsorted(sorted_keys, person_key), len(sorted_keys) - 1)
        hit = (sorted_keys[pos] == person_key) & ~unknown
        matches[hit, p] = classes[order[pos[hit]]]
    if len(patterns) == 1:
        return matches[:, 0], None
    found = matches >= 0
    several = found.sum(axis=1)
    if (several <= 1).all():
        return np.where(found.any(axis=1), matches.max(axis=1), -1), None
    # groups: the distinct sets of classes people are covered by
    from privaudit.risk.composition import combinations

    groups, _people, group_of = combinations([matches[:, p] for p in range(len(patterns))])
    rows = np.repeat(np.arange(len(groups)), groups.shape[1])
    cols = groups.ravel()
    keep = cols >= 0
    members = sp.csr_matrix(
        (np.ones(int(keep.sum()), dtype=bool), (rows[keep], cols[keep])), shape=(len(groups), n_classes)
    )
    empty = np.diff(members.indptr) == 0
    group_of = np.where(empty[group_of], -1, group_of)
    return group_of, members
