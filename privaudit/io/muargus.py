"""µ-ARGUS's metadata and data: the record description (``.rda``), code lists (``.cdl``), global recodings
(``.grc``) and the fixed-width or delimited data (``.asc``) an ``.rda`` describes.

The formats are those of the µ-ARGUS 5.1 user's manual (Statistics Netherlands, ``resources/MUmanual5.1.3.pdf``
of github.com/sdcTools/muargus): section 6.1 (the ``.rda``: a variable's line ``NAME [START] LENGTH
[MISSING1 [MISSING2]]`` -- the starting position only for fixed format --, then keyword lines ``<IDLEVEL> 1``
...; a free-format file begins ``<SEPARATOR> ","``), 6.2 (``.cdl``: ``code,label`` per line) and 6.3 / 4.2.1
(``.grc``: ``new: old, old, low-high, -high, low-`` per line, then ``<MISSING> m1 m2`` and ``<CODELIST> file``).
The parsing follows µ-ARGUS's own reader, ``src/muargus/io/MetaReader.java`` (``readMetadata``,
``readCodelist``, ``readGrc``): unknown keywords are skipped there; here they are listed as not mapped.

The data reader (:func:`read_asc`, registered for ``.asc`` files in :mod:`privaudit.pipeline.readers`) finds
the ``.rda`` of the same name beside the data (``Demodata.asc`` and ``Demodata.rda``, as µ-ARGUS's
demonstration files are paired), cuts each record at the variables' starting positions and lengths
(``<SEPARATOR>``: splits it), strips the padding, and turns each variable's own missing codes into missing
values, column by column (a global list of missing tokens would also blank ``9``, a valid code of a two-digit
variable). Each column carries its ``.cdl`` code list as value labels and its missing codes as user-missing
codes (:mod:`privaudit.io.labels`), as an SPSS file's would.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from privaudit.core.errors import DataError

#: the keywords of a variable (manual section 6.1; MetaReader.readMetadata); the rest are listed as not mapped
KEYWORDS = {
    "<RECODABLE>",
    "<RECODEABLE>",
    "<CODELIST>",
    "<IDLEVEL>",
    "<TRUNCABLE>",
    "<NUMERIC>",
    "<DECIMALS>",
    "<WEIGHT>",
    "<HOUSE_ID>",
    "<HOUSEHOLD>",
    "<SUPPRESSPRIORITY>",
    "<SUPPRESSWEIGHT>",
    "<RELATED>",
}
#: µ-ARGUS holds identification levels 0 to 5 (SelectCombinationsView: one list per level, 0-5)
MAX_IDLEVEL = 5


@dataclass
class RdaVariable:
    """One variable of an ``.rda`` as µ-ARGUS's ``VariableMu`` holds it."""

    name: str
    start: int | None  # 1-based starting position (fixed format only)
    length: int
    missing: tuple[str, ...] = ()
    recodable: bool = False
    numeric: bool = False
    codelist: str | None = None
    idlevel: int = 0
    priority: int | None = None  # <SUPPRESSPRIORITY> / <SUPPRESSWEIGHT> (default 50 in µ-ARGUS)
    truncable: bool = False
    decimals: int | None = None
    weight: bool = False
    house_id: bool = False
    household: bool = False
    related: str | None = None
    unknown: list[str] = field(default_factory=list)  # keywords µ-ARGUS's reader skips


@dataclass
class Rda:
    """A record description: the file layout and the variables in their order."""

    path: Path
    variables: list[RdaVariable]
    separator: str | None = None  # <SEPARATOR>: a free-format file
    names_in_front: bool = False  # <NAMESINFRONT>: the data's first line names the columns
    spss: bool = False  # <SPSS>: the data are an SPSS file

    @property
    def fixed(self) -> bool:
        return self.separator is None and not self.spss

    def variable(self, name: str) -> RdaVariable | None:
        return next((v for v in self.variables if v.name == name), None)


def _text(path: Path, what: str) -> str:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise DataError(f"{path}: {what} not found") from None
    except OSError as exc:
        raise DataError(f"{path}: {what} cannot be read ({exc.strerror})") from None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:  # µ-ARGUS writes the platform's single-byte encoding
        return raw.decode("cp1252", errors="replace")


def _tokens(line: str, path: Path, number: int) -> list[str]:
    try:
        return shlex.split(line.replace("\u201c", '"').replace("\u201d", '"'), posix=True)
    except ValueError:
        raise DataError(f"{path}: line {number}: an unclosed quote") from None


def _int(token: str | None, path: Path, number: int, what: str) -> int:
    try:
        return int(str(token))
    except ValueError:
        raise DataError(f"{path}: line {number}: {what} is not a whole number (got {token!r})") from None


def read_rda(path: Path) -> Rda:
    """The ``.rda`` at ``path``; a DataError of one line naming the file and line for what µ-ARGUS refuses too
    (a starting position, length, level or priority that is not a number), or a file without variables."""
    rda = Rda(path, [])
    current: RdaVariable | None = None
    for number, raw in enumerate(_text(path, "µ-ARGUS metadata").splitlines(), start=1):
        if not raw.strip():
            continue
        tokens = _tokens(raw, path, number)
        head = tokens[0].upper() if tokens[0].startswith("<") else tokens[0]
        if not head.startswith("<"):
            current = _variable(tokens, rda, path, number)
            rda.variables.append(current)
        elif current is None:
            if head == "<SEPARATOR>":
                rda.separator = tokens[1] if len(tokens) > 1 else ","
            elif head == "<SPSS>":
                rda.spss = True
            elif head == "<NAMESINFRONT>":
                rda.names_in_front = True
            else:
                raise DataError(f"{path}: line {number}: {tokens[0]} before the first variable")
        else:
            _keyword(current, head, tokens[1:], path, number)
    if not rda.variables:
        raise DataError(f"{path}: not µ-ARGUS metadata: no variable line (NAME START LENGTH MISSING ...)")
    names = [v.name for v in rda.variables]
    twice = next((n for n in names if names.count(n) > 1), None)
    if twice is not None:
        raise DataError(f"{path}: the variable {twice!r} is described twice")
    return rda


def _variable(tokens: list[str], rda: Rda, path: Path, number: int) -> RdaVariable:
    name, rest = tokens[0], tokens[1:]
    start = None
    if rda.spss and rest:  # MetaReader: a starting position is read, and may be absent, for SPSS files
        token = rest.pop(0)
        start = int(token) if token.isdigit() else None
    elif rda.fixed:
        if not rest:
            raise DataError(f"{path}: line {number}: {name}: no starting position (fixed format: NAME START LENGTH)")
        start = _int(rest.pop(0), path, number, f"the starting position of {name}")
        if start < 1:
            raise DataError(f"{path}: line {number}: the starting position of {name} is {start}; positions start at 1")
    length = _int(rest.pop(0), path, number, f"the length of {name}") if rest else 0
    if rda.fixed and length < 1:
        raise DataError(f"{path}: line {number}: {name}: no field length (fixed format: NAME START LENGTH)")
    return RdaVariable(name, start, length, tuple(m.strip() for m in rest[:2] if m.strip()))


def _keyword(v: RdaVariable, key: str, args: list[str], path: Path, number: int) -> None:
    arg = args[0] if args else None
    flags = {
        "<RECODABLE>": "recodable",
        "<RECODEABLE>": "recodable",
        "<TRUNCABLE>": "truncable",
        "<NUMERIC>": "numeric",
        "<WEIGHT>": "weight",
        "<HOUSE_ID>": "house_id",
        "<HOUSEHOLD>": "household",
    }
    if key in flags:
        setattr(v, flags[key], True)
    elif key == "<CODELIST>":
        v.codelist = arg
    elif key == "<IDLEVEL>":
        v.idlevel = _int(arg, path, number, f"the identification level of {v.name}")
        if not 0 <= v.idlevel <= MAX_IDLEVEL:
            raise DataError(
                f"{path}: line {number}: the identification level of {v.name} is {v.idlevel}; µ-ARGUS holds 0 to 5"
            )
    elif key in ("<SUPPRESSPRIORITY>", "<SUPPRESSWEIGHT>"):
        v.priority = _int(arg, path, number, f"the suppression priority of {v.name}")
    elif key == "<DECIMALS>":
        v.decimals = _int(arg, path, number, f"the decimals of {v.name}")
    elif key == "<RELATED>":
        v.related = arg
    else:
        v.unknown.append(key)


def read_cdl(path: Path) -> dict[str, str]:
    """A code list: ``code,label`` per line, the label unquoted (MetaReader.readCodelist: the text up to the
    second comma; here the rest of the line, so that a label may hold a comma). A code given twice keeps its
    first label."""
    labels: dict[str, str] = {}
    for line in _text(path, "µ-ARGUS code list").splitlines():
        code, sep, label = line.partition(",")
        if sep and code.strip():
            label = label.strip()
            if len(label) >= 2 and label[0] == label[-1] == '"':
                label = label[1:-1]
            labels.setdefault(code.strip(), label)
    return labels


@dataclass
class Recode:
    """A global recoding (``.grc``): each new code with the old codes' sets it collects, the new missing codes
    and the new code list."""

    path: Path
    groups: dict[str, list[tuple[str | None, str | None]]]  # new code -> [(low, high)]; a single code is (c, c)
    missing: tuple[str, ...] = ()
    codelist: str | None = None

    def new_code(self, code: str) -> str | None:
        """The new code of an old ``code``, or None when no line collects it (µ-ARGUS then keeps it)."""
        for new, sets in self.groups.items():
            if any(_within(code, low, high) for low, high in sets):
                return new
        return None


def _within(code: str, low: str | None, high: str | None) -> bool:
    """Whether ``code`` lies in [low, high] (an open end when None): as numbers when all are whole numbers,
    else as text (µ-ARGUS treats codes as text, manual 6.3; its demonstration recodes are numeric ranges)."""
    ends = [e for e in (low, high) if e is not None]
    if code.lstrip("-").isdigit() and all(e.lstrip("-").isdigit() for e in ends):
        value = int(code)
        return (low is None or value >= int(low)) and (high is None or value <= int(high))
    return (low is None or code >= low) and (high is None or code <= high)


_RANGE = re.compile(r"^\s*([^-\s][^-]*?)?\s*-\s*([^-\s][^-]*?)?\s*$")


def read_grc(path: Path) -> Recode:
    """A ``.grc`` file (manual 4.2.1 and 6.3; MetaReader.readGrc): ``new: a, b, c-d, -e, f-`` lines, a new
    code on several lines collecting all their sets; ``<MISSING>``, ``<CODELIST>`` after them. A line without a
    colon, or another keyword, is refused in one line (µ-ARGUS: "invalid token")."""
    groups: dict[str, list[tuple[str | None, str | None]]] = {}
    recode, codelist_next = Recode(path, groups), False
    for number, line in enumerate(_text(path, "µ-ARGUS global recoding").splitlines(), start=1):
        if not line.strip():
            continue
        if codelist_next:  # the manual's layout: <CODELIST> on one line, the file on the next
            recode.codelist, codelist_next = line.strip(), False
            continue
        if line.strip().startswith("<"):
            tokens = _tokens(line.replace(",", " "), path, number)
            if tokens[0].upper() == "<MISSING>":
                recode.missing = tuple(tokens[1:3])
            elif tokens[0].upper() == "<CODELIST>":
                recode.codelist, codelist_next = (tokens[1], False) if len(tokens) > 1 else (None, True)
            else:
                raise DataError(f"{path}: line {number}: {tokens[0]} is not a keyword of a global recoding")
            continue
        new, colon, sets = line.partition(":")
        if not colon or not new.strip():
            raise DataError(f"{path}: line {number}: not 'new code: old codes' ({line.strip()!r})")
        for part in sets.split(","):
            if not part.strip():
                continue
            found = _RANGE.match(part)
            pair = (found.group(1), found.group(2)) if found and "-" in part else (part.strip(), part.strip())
            groups.setdefault(new.strip(), []).append(pair)
    if not groups:
        raise DataError(f"{path}: no recoding line (new code: old codes)")
    return recode


def sibling_rda(data: Path) -> Path:
    """The ``.rda`` beside ``data`` with the same name (any case of the suffix), or a DataError saying so."""
    wanted = (data.stem + ".rda").lower()
    for candidate in sorted(data.parent.iterdir()):
        if candidate.name.lower() == wanted and candidate.is_file():
            return candidate
    raise DataError(
        f"{data}: µ-ARGUS data are read through their record description, and there is no {data.stem}.rda "
        "beside it (put it there, or convert the data to CSV: privaudit init DATA --from-muargus FILE.rda writes one)"
    )


def read_asc(path: Path, policy: Any = None) -> Any:
    """The registered reader of ``.asc`` files: :func:`read_table` through the ``.rda`` beside the data."""
    return read_table(path, read_rda(sibling_rda(path)))


def read_table(path: Path, rda: Rda) -> Any:
    """The data an ``.rda`` describes as a pyarrow Table of text columns: fixed-width fields cut at their
    positions (vectorised over the records: one byte matrix, sliced per variable) or split at the separator;
    padding stripped; each variable's missing codes made missing; the ``.cdl`` labels and the missing codes
    on the fields (:mod:`privaudit.io.labels`)."""
    import numpy as np
    import pyarrow as pa

    if rda.spss:
        raise DataError(f"{rda.path}: describes an SPSS file (<SPSS>): audit the .sav itself")
    lines = np.array(_text(path, "µ-ARGUS data").splitlines(), dtype=str)
    lines = lines[np.char.str_len(np.char.strip(lines)) > 0]
    if rda.names_in_front and len(lines):
        lines = lines[1:]
    if not len(lines):
        raise DataError(f"{path}: no records")
    columns: dict[str, Any] = {}
    if rda.fixed:
        width = max(v.start + v.length - 1 for v in rda.variables if v.start is not None)
        matrix = lines.astype(f"U{width}")  # cut at the last field; a short record is padded with NULs
        chars = matrix.view("U1").reshape(len(lines), width)
        for v in rda.variables:
            assert v.start is not None
            cut = np.ascontiguousarray(chars[:, v.start - 1 : v.start - 1 + v.length]).view(f"U{v.length}").ravel()
            columns[v.name] = np.char.strip(cut)
    else:
        sep = rda.separator or ","
        table = pa.array(lines).to_pandas().str.split(re.escape(sep), expand=True, regex=True)
        if table.shape[1] != len(rda.variables):
            raise DataError(
                f"{path}: {table.shape[1]} fields per record, but {rda.path.name} describes {len(rda.variables)}"
            )
        for i, v in enumerate(rda.variables):
            columns[v.name] = table[i].fillna("").str.strip().to_numpy(dtype=str)
    return pa.table([_field_array(columns[v.name], v) for v in rda.variables], schema=_schema(rda))


def _field_array(values: Any, v: RdaVariable) -> Any:
    import numpy as np
    import pyarrow as pa

    missing = np.isin(values, [*v.missing, ""])
    return pa.array(values, type=pa.string(), mask=missing)


def _schema(rda: Rda) -> Any:
    import pyarrow as pa

    from privaudit.io.labels import ColumnLabels

    fields = []
    for v in rda.variables:
        values = code_list(rda, v) or {}
        meta = ColumnLabels(None, values, v.missing).metadata()
        fields.append(pa.field(v.name, pa.string(), metadata=meta or None))
    return pa.schema(fields)


def code_list(rda: Rda, v: RdaVariable) -> dict[str, str] | None:
    """The ``.cdl`` labels of ``v`` (its ``<CODELIST>``, beside the ``.rda``; the name's case as written, else
    any case, as Windows finds ``regio.cdl`` for ``Regio.cdl``), or None when it names none or the file is
    absent."""
    path = find_beside(rda.path, v.codelist) if v.codelist else None
    return read_cdl(path) if path is not None else None


def find_beside(anchor: Path, name: str) -> Path | None:
    """``name`` relative to ``anchor``'s folder (any case), or None."""
    candidate = Path(name) if Path(name).is_absolute() else anchor.parent / name
    if candidate.is_file():
        return candidate
    folder = candidate.parent
    if folder.is_dir():
        for other in folder.iterdir():
            if other.name.lower() == candidate.name.lower() and other.is_file():
                return other
    return None


__all__ = [
    "Rda",
    "RdaVariable",
    "Recode",
    "code_list",
    "find_beside",
    "read_asc",
    "read_cdl",
    "read_grc",
    "read_rda",
    "read_table",
    "sibling_rda",
]
