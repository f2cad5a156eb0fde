"""``privaudit init DATA [--out POLICY.yaml] [--profile NAME] [--role COLUMN=ROLE ...] [--labels FILE] [--force]``:
draft a complete, commented policy from a table (:mod:`privaudit.discovery.draft`), with generated hierarchies
beside it; the summary gives the share of sample uniques under each attacker scenario the draft writes.
``--labels`` gives the columns' variable labels (CSV: column, label), evidence as the headers are; an SPSS, Stata
or SAS file's own variable labels are read as such (``--labels`` overrides them column by column)."""

from __future__ import annotations

from pathlib import Path

from privaudit.core.errors import PrivauditError, did_you_mean

PROFILES = Path(__file__).resolve().parents[2] / "policies"  # a checkout's ready policies


def add_parser(sub) -> None:
    init = sub.add_parser("init", help="draft a policy from a table (roles, types, hierarchies, starter checks)")
    init.add_argument(
        "data", help="the table (CSV, Parquet, SPSS .sav/.por, Stata .dta, SAS .sas7bdat/.xpt, Excel .xlsx or .ods)"
    )
    init.add_argument("--out", help="where to write the policy (default: DATA's name with .policy.yaml)")
    init.add_argument("--sheet", metavar="NAME", help="the sheet of an .xlsx or .ods file to read (default: the first)")
    init.add_argument(
        "--profile",
        help="start from a ready policy's checks: a name in policies/ "
        "(hipaa-expert-determination, public-use-file, scientific-use-file) or a policy file",
    )
    init.add_argument(
        "--role",
        action="append",
        default=[],
        metavar="COLUMN=ROLE",
        help="fix a column's role (repeatable; roles: identifier, quasi_identifier, sensitive, other, "
        "weight, record_id, household_id); the rest is drafted around it",
    )
    init.add_argument(
        "--encoding",
        help="the CSV file's encoding when it is not UTF-8 (latin-1, cp1252 ...); the policy's data.encoding",
    )
    init.add_argument(
        "--labels",
        metavar="FILE",
        help="the columns' variable labels, a CSV of column,label (a codebook's; a header line column,label is "
        "allowed): evidence of what each column holds, as its header is",
    )
    imported = init.add_mutually_exclusive_group()
    imported.add_argument(
        "--from-muargus",
        metavar="FILE.rda",
        help="import what a µ-ARGUS record description decided: identification levels (quasi-identifiers and "
        "scenarios), weight, household id, suppression priority (importance), missing codes, .grc/<TRUNCABLE> "
        "hierarchies; DATA may be the .asc it describes",
    )
    imported.add_argument(
        "--from-ddi",
        metavar="CODEBOOK.xml",
        help="import a DDI Codebook 2.5 file: variable labels, value labels, missing codes, roles it states",
    )
    imported.add_argument(
        "--from-sdcmicro",
        metavar="FILE.rds",
        help="import an sdcMicro setup saved with saveRDS (exported as a list: see docs/import.md)",
    )
    init.add_argument(
        "--recode",
        action="append",
        default=[],
        metavar="COLUMN=FILE.grc",
        help="with --from-muargus: a µ-ARGUS global recoding of COLUMN, a level of its hierarchy (repeatable; "
        "COLUMN.grc beside the .rda is used without it)",
    )
    init.add_argument("--force", action="store_true", help="overwrite existing files")


def _encoding(name: str | None) -> str:
    """``--encoding`` as the policy's ``data.encoding`` validates it (one line for one privaudit cannot read)."""
    from privaudit.core.policy import csv_encoding

    try:
        return csv_encoding(name or "utf-8")
    except ValueError as exc:
        raise PrivauditError(f"--encoding: {exc}") from None


def _roles(items: list[str]) -> dict[str, str]:
    """``--role COLUMN=ROLE`` options as a mapping; a column given twice is refused."""
    roles: dict[str, str] = {}
    for item in items:
        column, sep, role = item.rpartition("=")
        if not sep or not column or not role:
            raise PrivauditError(f"--role {item}: expected COLUMN=ROLE (for example --role age=quasi_identifier)")
        if column in roles:
            raise PrivauditError(
                f"--role {item}: the column {column!r} is given twice (already --role {column}={roles[column]})"
            )
        roles[column] = role
    return roles


def _profile(name: str | None) -> tuple[dict | None, str | None]:
    if name is None:
        return None, None

    candidates = [Path(name), PROFILES / f"{name}.yaml"]
    path = next((p for p in candidates if p.is_file()), None)
    if path is None:
        known = sorted(p.stem for p in PROFILES.glob("*.yaml")) if PROFILES.is_dir() else []
        raise PrivauditError(
            f"--profile {name}: no such profile" + (f" (available: {', '.join(known)})" if known else "")
        )
    from privaudit.core.policy import read_policy_document

    doc = read_policy_document(path)[0]
    if not isinstance(doc.get("checks"), list):
        raise PrivauditError(f"{path}: a profile needs a 'checks' list")
    return doc, path.stem if path.parent == PROFILES else str(path)


def read_labels(path: Path, columns: list[str], data: Path) -> dict[str, str]:
    """The variable labels of ``--labels FILE``: one ``column,label`` per line (CSV quoting; a first line
    ``column,label`` is a header). A file that cannot be read, is empty, names a column the table lacks or
    one twice is refused in one line."""
    import csv

    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise PrivauditError(f"--labels {path}: cannot be read ({exc.__class__.__name__})") from None
    rows = [r for r in csv.reader(text.splitlines()) if any(cell.strip() for cell in r)]
    if rows and [c.strip().lower() for c in rows[0]] == ["column", "label"]:
        rows = rows[1:]
    if not rows:
        raise PrivauditError(f"--labels {path}: no labels (expected lines of column,label)")
    labels: dict[str, str] = {}
    for number, row in enumerate(rows, start=1):
        if len(row) != 2 or not row[0].strip():
            raise PrivauditError(f"--labels {path}: label {number} is not column,label ({len(row)} fields)")
        column, label = row[0].strip(), row[1].strip()
        if column not in columns:
            raise PrivauditError(f"--labels {path}: {data} has no column {column!r}{did_you_mean(column, columns)}")
        if column in labels:
            raise PrivauditError(f"--labels {path}: the column {column!r} is labelled twice")
        labels[column] = label
    return labels


def _read(path: Path, encoding: str = "utf-8"):
    """The table as text columns (missing values as empty strings), through the loader's readers (its one-line
    errors for empty, header-only, ragged or unreadable files), the CSV delimiter, and the variable labels the
    file states (an SPSS, Stata or SAS file's: :mod:`privaudit.io.labels`)."""
    import pyarrow as pa

    from privaudit.io.data import check_file, read_csv
    from privaudit.io.labels import labels_of
    from privaudit.io.readers import read_with, reader_for

    check_file(path, "table")
    reader = reader_for(path)  # the registered reader of the file (privaudit.plugin.reader)
    if reader.stream == "csv":  # its delimiter is sniffed here and drafted into the policy
        raw, delimiter = read_csv(path, None, encoding)
    else:  # no policy yet: the reader is given None
        raw, delimiter = read_with(reader, path, None), None
    labels = {name: found.label for name, found in labels_of(raw.schema).items() if found.label}
    raw = pa.table({n: raw.column(n).cast(pa.string()) for n in raw.column_names})
    if raw.num_rows == 0:
        raise PrivauditError(f"{path}: the file has a header but no data rows")
    return raw.to_pandas().fillna(""), delimiter, labels


def _recodes(items: list[str]) -> dict[str, list[Path]]:
    """``--recode COLUMN=FILE.grc`` options by column (a column may take several recodings: its levels)."""
    out: dict[str, list[Path]] = {}
    for item in items:
        column, sep, file = item.partition("=")
        if not sep or not column or not file:
            raise PrivauditError(f"--recode {item}: expected COLUMN=FILE.grc (for example --recode AGE=Age.grc)")
        out.setdefault(column, []).append(Path(file))
    return out


def _read_asc(data: Path, rda_path: Path):
    """µ-ARGUS data read through the ``.rda`` given (:mod:`privaudit.io.muargus`), as :func:`_read` returns
    a table."""
    from privaudit.io.data import check_file
    from privaudit.io.muargus import read_rda, read_table

    check_file(data, "table")
    raw = read_table(data, read_rda(rda_path))
    return raw.to_pandas().fillna(""), None, {}


def _metadata(args) -> tuple[str, Path] | None:
    for kind in ("muargus", "ddi", "sdcmicro"):
        given = getattr(args, f"from_{kind}", None)
        if given:
            return kind, Path(given)
    if args.recode:
        raise PrivauditError("--recode: a µ-ARGUS recoding goes with --from-muargus FILE.rda")
    return None


def _decided(kind: str, path: Path, frame, data: Path, recode: list[str]):
    """The decisions the metadata file states (:mod:`privaudit.discovery.decided`); a file that cannot be
    read as such, or that names a column the table lacks: one line naming it."""
    from privaudit.discovery.decided import check_columns
    from privaudit.io.data import check_file

    check_file(path, {"muargus": "µ-ARGUS metadata", "ddi": "DDI codebook", "sdcmicro": "sdcMicro file"}[kind])
    if kind == "muargus":
        from privaudit.discovery.muargus import decided_from_rda, read_rda

        decided = decided_from_rda(read_rda(path), frame, _recodes(recode))
    elif kind == "ddi":
        from privaudit.discovery.ddi import decided_from_ddi

        decided = decided_from_ddi(path, [str(c) for c in frame.columns])
    else:
        from privaudit.discovery.sdcmicro import decided_from_sdcmicro

        decided = decided_from_sdcmicro(path)
    check_columns(decided, [str(c) for c in frame.columns], str(data), str(path))
    return decided


def _write(files: dict[Path, str], inputs: list[Path], force: bool) -> None:
    """Write the drafted policy and hierarchies, all staged before any is in place; never over an input, nor
    over an existing file without ``force``."""
    from privaudit.cli.outputs import same_file, write_all

    for path in files:  # not even --force writes a policy or a hierarchy over the table or labels it was drafted from
        for source in inputs:
            if same_file(path, source):
                raise PrivauditError(f"{path}: an output would overwrite an input file ({source})")
    existing = [p for p in files if p.exists()]
    if existing and not force:
        raise PrivauditError(f"{existing[0]}: exists; --force overwrites it")
    for path in files:
        path.parent.mkdir(parents=True, exist_ok=True)
    write_all([(str(path), text) for path, text in files.items()])  # all staged before any is in place


def _asc_note(data: Path, rda: Path) -> None:
    """Say how ``audit`` will read the ``.asc``: through the ``.rda`` of its name beside it."""
    from privaudit.cli.outputs import same_file
    from privaudit.cli.terminal import printable
    from privaudit.core.errors import DataError
    from privaudit.io.muargus import sibling_rda

    try:
        beside = sibling_rda(data)
    except DataError:
        beside = None
    if beside is None or not same_file(beside, rda):
        print(
            f"  note: audit reads {printable(data.name)} through {printable(data.stem)}.rda beside it; "
            f"copy {printable(str(rda))} there"
        )


def _summary(result, out: Path) -> None:
    """Print what :func:`run` drafted: the columns by role, the sample uniques of each scenario, the limits
    applied, a missing quasi-identifier and the special categories."""
    from privaudit.cli.terminal import printable
    from privaudit.discovery.special_categories import LABELS
    from privaudit.discovery.uniques import share_text

    by_role: dict[str, list[str]] = {}
    for c in result.columns:
        by_role.setdefault(c.role, []).append(c.name)
    print(
        f"wrote {printable(str(out))} ({len(result.columns)} columns, {len(result.checks)} checks"
        + (f", {len(result.hierarchies)} hierarchies" if result.hierarchies else "")
        + ")"
    )
    for role in ("identifier", "quasi_identifier", "sensitive", "weight", "household_id", "other"):
        if role in by_role:
            print(f"  {role}: {', '.join(printable(n) for n in by_role[role])}")
    if result.scenarios:
        print("  sample uniques (records no other record shares under the scenario's key variables):")
        for name, columns in result.scenarios.items():
            print(f"    {name}: {result.unique_text(name)} under {', '.join(printable(c) for c in columns)}")
        name, worst = max(result.uniques.items(), key=lambda item: item[1])
        limits = [m for m in result.unique_limits if isinstance(m, (int, float))]
        if worst > 0 and any(m < worst for m in limits):
            print(
                f"  so the drafted uniqueness check fails ({result.unique_text(name)} unique under {name}; at most "
                f"{share_text(min(limits))} allowed): generalize or suppress before release"
            )
    for note in result.limits_applied:
        print(f"  note: {printable(note)}")
    if "quasi_identifier" not in by_role:
        print(
            "  no quasi-identifier drafted: no header or label names a key variable and no coded column makes "
            "records unique"
            + (" (within the limits noted above)" if result.limits_applied else "")
            + "; mark what an intruder can know (--role COLUMN=quasi_identifier) before trusting a PASS"
        )
    specials = [c for c in result.columns if c.special_category]
    if specials:
        print(
            "  special categories: "
            + "; ".join(f"{printable(c.name)}: {LABELS[str(c.special_category)]}" for c in specials)
        )


def run(args) -> int:
    from functools import partial

    from privaudit.assessors.starter import starter_checks, unique_share_limits
    from privaudit.cli.terminal import printable
    from privaudit.discovery.draft import Starter, draft
    from privaudit.pipeline.plugins import get_registry

    data = Path(args.data)
    out = Path(args.out) if args.out else data.with_name(data.stem + ".policy.yaml")
    if not out.parent.is_dir():
        raise PrivauditError(f"{out}: the output folder {str(out.parent)!r} does not exist")
    roles = _roles(args.role)
    profile, profile_name = _profile(args.profile)
    encoding = _encoding(args.encoding)
    metadata = _metadata(args)
    if metadata is not None and metadata[0] == "muargus" and data.suffix.lower() == ".asc":
        frame, delimiter, labels = _read_asc(data, metadata[1])
    else:
        frame, delimiter, labels = _read(data, encoding)  # the file's own variable labels; --labels overrides them
    if args.labels:
        labels.update(read_labels(Path(args.labels), [str(c) for c in frame.columns], data))
    starter = Starter(partial(starter_checks, assessors=get_registry().assessors), unique_share_limits)
    if metadata is None:
        result = draft(frame, str(data), profile, roles, starter, labels)
    else:
        from privaudit.discovery.decided import draft_decided

        decided = _decided(metadata[0], metadata[1], frame, data, args.recode)
        decided.labels.update(labels)
        result = draft_decided(frame, str(data), decided, profile, roles, starter)
    result.delimiter = delimiter if delimiter not in (None, ",") else None
    result.encoding = args.encoding if encoding != "utf-8" else None
    result.sheet = args.sheet  # the policy reads the same sheet again
    files = {out: result.yaml_text(data.name, profile_name)}
    files.update({out.parent / rel: text for rel, text in result.hierarchies.items()})
    inputs = [data] + ([Path(args.labels)] if args.labels else []) + ([metadata[1]] if metadata else [])
    _write(files, inputs, args.force)
    _summary(result, out)
    if metadata is not None and metadata[0] == "muargus" and data.suffix.lower() == ".asc":
        _asc_note(data, metadata[1])
    print(f"next: privaudit policy check {printable(str(out))} --data {printable(str(data))}")
    return 0
