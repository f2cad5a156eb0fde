"""Writing a remediated table back in the statistical package's own format: SPSS (``.sav``, ``.zsav``,
``.por``), Stata (``.dta``) and SAS transport (``.xpt``), with what the input file stated of its columns.

The writers are pyreadstat's (ReadStat's, as the readers of :mod:`privaudit.io.office`); ReadStat writes no
SAS data set (``.sas7bdat``: its writer is listed as unsupported in ReadStat's README, "Format support"), so
``--out x.sas7bdat`` is one line naming ``.xpt`` instead.

What travels (each where the output format holds it):

* variable labels (every format), value labels (SPSS, Stata), SPSS user-missing codes (values and ranges),
  and, when the output is the input's own format family, each column's display format (``F8.2``,
  ``%9.0g``), SPSS measure level and display width, and the file label, all read again from the input
  file's own metadata (``pyreadstat.read_*(metadataonly=True)``);
* a labelled numeric column keeps its numbers as long as every value a remediation left in it is a number
  (a suppressed cell is a missing value: SPSS's system-missing, or, in a column whose policy names
  ``missing_codes.suppressed``, the first of them, declared missing, for every missing cell, as µ-ARGUS
  writes its first missing code for a suppressed value: µ-ARGUS 4.2 manual, section 6.1);
* a column a remediation filled with text (bands such as ``[20, 29]``, a hierarchy's groups) becomes a
  string variable. The decision, rather than new numeric codes labelled with the bands: the written file
  must audit again with the policy it was re-audited with, whose hierarchy holds the bands as text, and a
  reader of new codes would get codes the hierarchy does not hold. The value labels of the codes still
  present are kept, keyed by the code's text (SPSS labels string values; IBM SPSS Statistics, VALUE LABELS);
  SPSS's discrete user-missing codes are kept as strings (up to three), a missing *range* cannot be declared
  on a string variable (IBM SPSS Statistics, MISSING VALUES) and is said in a note; a measure of ``scale``
  becomes ``ordinal`` (bands are ordered). Stata attaches value labels to numeric variables only (Stata
  manual, [D] label), so a Stata column turned to text loses them, and a note says so. Stata's extended
  missing values (``.a`` .. ``.z``) are read as missing and written as ``.``.

The bytes are written through a temporary file (ReadStat writes to a path), then returned.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path, PurePath
from typing import Any

import numpy as np
import pandas as pd

from privaudit.common.numeric import to_numeric
from privaudit.core.errors import PrivauditError, first_line
from privaudit.io.labels import ColumnLabels, code_of, code_text

#: output suffix -> (pyreadstat writer, format family)
WRITERS = {
    ".sav": ("write_sav", "spss"),
    ".zsav": ("write_sav", "spss"),
    ".por": ("write_por", "spss-portable"),
    ".dta": ("write_dta", "stata"),
    ".xpt": ("write_xport", "sas"),
}
#: reader name (:mod:`privaudit.pipeline.readers`) -> (metadata reader, format family)
SOURCES = {
    "spss": ("read_sav", "spss"),
    "spss-portable": ("read_por", "spss-portable"),
    "stata": ("read_dta", "stata"),
    "sas7bdat": ("read_sas7bdat", "sas"),
    "sas-xport": ("read_xport", "sas"),
}
UNWRITABLE = {
    ".sas7bdat": "pyreadstat (ReadStat) cannot write SAS data sets; write a SAS transport file (.xpt), which "
    "SAS reads with LIBNAME XPORT",
}
MAX_STRING_MISSING = 3  # SPSS: at most three discrete missing values on a string variable ...
MAX_STRING_MISSING_WIDTH = 8  # ... of at most 8 bytes (IBM SPSS Statistics, MISSING VALUES: "short string")


def is_office(path: str | PurePath) -> bool:
    """Whether ``path`` names a file this module writes (by its suffix)."""
    return PurePath(str(path)).suffix.lower() in WRITERS


def refuse_unwritable(path: str | PurePath, flag: str = "--out") -> None:
    """One line for an output suffix the statistical packages' writers cannot write (``.sas7bdat``)."""
    suffix = PurePath(str(path)).suffix.lower()
    if suffix in UNWRITABLE:
        raise PrivauditError(f"{flag} {path}: {UNWRITABLE[suffix]}")


@dataclass
class Source:
    """What the output carries from the input: its labels (:attr:`privaudit.io.data.Table.labels`), the input
    file and its reader's name (for formats, measures, widths and the file label) and each column's
    suppression code (the policy's first ``missing_codes.suppressed``)."""

    labels: dict[str, ColumnLabels] = field(default_factory=dict)
    path: Path | None = None
    file_format: str = ""
    suppression_codes: dict[str, str] = field(default_factory=dict)


def office_bytes(frame: pd.DataFrame, out: str | Path, source: Source) -> tuple[bytes, list[str]]:
    """``frame`` written as ``out``'s format (by suffix), carrying ``source``'s labels; the bytes and the notes
    on what the format could not hold."""
    import pyreadstat

    writer, family = WRITERS[PurePath(str(out)).suffix.lower()]
    meta = _input_metadata(source, family)
    types = dict(getattr(meta, "readstat_variable_types", None) or {})
    data: dict[Any, pd.Series] = {}
    numeric: dict[Any, bool] = {}
    notes: list[str] = []
    for name in frame.columns:
        was_number = types.get(str(name), "double") != "string" if types else _numeric_labels(source, str(name))
        data[name], numeric[name] = _column(frame[name], was_number, source, str(name))
    written = pd.DataFrame(data)
    options = _options(written, numeric, source, family, meta, notes)
    if writer == "write_sav" and PurePath(str(out)).suffix.lower() == ".zsav":
        options["compress"] = True
    with tempfile.TemporaryDirectory(prefix="privaudit-") as folder:
        target = Path(folder) / f"out{PurePath(str(out)).suffix.lower()}"
        try:
            getattr(pyreadstat, writer)(written, str(target), **options)
        except Exception as exc:  # ReadStat refuses a name, a label or a value the format cannot hold
            raise PrivauditError(f"--out {out}: cannot be written ({first_line(exc)})") from None
        return target.read_bytes(), notes


def _input_metadata(source: Source, family: str) -> Any:
    """The input file's metadata (pyreadstat, ``metadataonly``) when it is of ``family``; else None."""
    found = SOURCES.get(source.file_format)
    if source.path is None or found is None or found[1] != family or not Path(source.path).is_file():
        return None
    import pyreadstat

    options = {"user_missing": True} if found[0] in ("read_sav", "read_dta", "read_sas7bdat") else {}
    try:
        return getattr(pyreadstat, found[0])(str(source.path), metadataonly=True, **options)[1]
    except Exception:  # the input changed since it was read: write its labels alone
        return None


def _numeric_labels(source: Source, name: str) -> bool:
    """Without the input's metadata: a column whose value labels (if any) all label numbers was numeric."""
    found = source.labels.get(name)
    return found is None or all(_number(k) is not None for k in found.values)


def _number(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if np.isfinite(value) else None


def _column(series: pd.Series, was_number: bool, source: Source, name: str) -> tuple[pd.Series, bool]:
    """One column as written: numbers (float64, missing as NaN or the suppression code) when it holds only
    numbers and was numeric in the input, else text (missing as ``""``, SPSS's and Stata's blank string)."""
    series = series.reset_index(drop=True)
    if pd.api.types.is_bool_dtype(series.dtype):
        series = series.astype("float64")
    if pd.api.types.is_numeric_dtype(series.dtype):
        numbers = series.astype("float64")
    elif was_number:
        distinct = pd.Series(pd.unique(series.dropna().astype(str)), dtype=object)
        parsed = to_numeric(distinct, errors="coerce")
        numbers = None if parsed.isna().any() else to_numeric(series.astype(object), errors="coerce")
    else:
        numbers = None
    if numbers is None:
        index, distinct = pd.factorize(series.astype(object))  # each distinct value's text once; -1: missing
        texts = np.array([code_text(v) for v in distinct] + [""], dtype=object)
        return pd.Series(texts[index], dtype=object), False
    code = _number(code_of(source.suppression_codes.get(name, ""), source.labels.get(name)) or "")
    if code is not None:  # the policy's suppression code: every missing cell of the column, as µ-ARGUS writes it
        numbers = numbers.fillna(code)
    return numbers, True


def _options(
    written: pd.DataFrame, numeric: dict[Any, bool], source: Source, family: str, meta: Any, notes: list[str]
) -> dict[str, Any]:
    """The writer's keyword arguments: labels, value labels, missing codes, formats, measures, widths."""
    columns = [str(c) for c in written.columns]
    options: dict[str, Any] = {
        "column_labels": {c: found.label for c, found in source.labels.items() if found.label and c in columns}
    }
    if meta is not None and getattr(meta, "file_label", None):
        options["file_label"] = meta.file_label
    if family in ("spss", "stata"):
        options["variable_value_labels"] = _value_labels(columns, numeric, source, family, notes)
    if family == "spss":
        options["missing_ranges"] = _missing_ranges(written, numeric, source, notes)
    if meta is None:
        return options
    formats = dict(getattr(meta, "original_variable_types", None) or {})
    options["variable_format"] = {c: formats[c] for c in columns if c in formats and numeric[c]}
    if family == "spss":
        measures = dict(getattr(meta, "variable_measure", None) or {})
        options["variable_measure"] = {
            c: ("ordinal" if measures[c] == "scale" and not numeric[c] else measures[c])
            for c in columns
            if measures.get(c) in ("nominal", "ordinal", "scale")
        }
        widths = dict(getattr(meta, "variable_display_width", None) or {})
        options["variable_display_width"] = {c: int(widths[c]) for c in columns if widths.get(c)}
    return options


def _value_labels(
    columns: list[str], numeric: dict[Any, bool], source: Source, family: str, notes: list[str]
) -> dict[str, dict[Any, str]]:
    """Value labels keyed as the written column's values: numbers, or the codes' text for a column turned to
    text (SPSS); Stata labels numbers only."""
    out: dict[str, dict[Any, str]] = {}
    for c in columns:
        found = source.labels.get(c)
        if found is None or not found.values:
            continue
        if numeric[c]:
            keyed = {_number(k): v for k, v in found.values.items()}
            out[c] = {k: v for k, v in keyed.items() if k is not None}
        elif family == "spss":
            out[c] = dict(found.values)
        else:
            notes.append(
                f"column {c!r} is text after the remediation: Stata labels numbers only, its value labels are dropped"
            )
    return out


def _missing_ranges(
    written: pd.DataFrame, numeric: dict[Any, bool], source: Source, notes: list[str]
) -> dict[str, list[Any]]:
    """SPSS user-missing codes as the labels list them (``9``, ``97 thru 99``): numbers and ranges on a numeric
    column; on a string column the discrete codes only (at most three), a range said in a note."""
    out: dict[str, list[Any]] = {}
    for c in map(str, written.columns):
        found = source.labels.get(c)
        codes = [m for m in (found.missing if found else ()) if not m.startswith(".")]
        suppression = code_of(source.suppression_codes.get(c, ""), found)
        if suppression and suppression not in codes:  # the code written for a suppressed cell is declared missing
            codes.append(suppression)
        if not codes:
            continue
        if numeric[c]:
            parsed = [_range(m) for m in codes]
            out[c] = [{"lo": lo, "hi": hi} for lo, hi in parsed if lo is not None and hi is not None]
            continue
        discrete = [m for m in codes if " thru " not in m][:MAX_STRING_MISSING]
        if written_width(written[c]) > MAX_STRING_MISSING_WIDTH:  # SPSS: missing values on short strings only
            discrete = []
        if len(discrete) < len(codes):
            notes.append(
                f"column {c!r} is text after the remediation: SPSS declares at most three single missing codes on a "
                f"string variable of at most 8 bytes, no range; kept {', '.join(discrete) or 'none'} of "
                f"{', '.join(codes)}"
            )
        if discrete:
            out[c] = discrete
    return out


def written_width(column: pd.Series) -> int:
    """The widest text of a column written as text, in UTF-8 bytes (each distinct value measured once)."""
    return max((len(str(v).encode("utf-8")) for v in pd.unique(column)), default=0)


def _range(text: str) -> tuple[float | None, float | None]:
    """``9`` or ``97 thru 99`` (``-inf thru 0``: LOWEST THRU 0) as its bounds."""
    lo, _, hi = text.partition(" thru ")
    return _bound(lo.strip()), _bound((hi or lo).strip())


def _bound(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


__all__ = ["SOURCES", "UNWRITABLE", "WRITERS", "Source", "is_office", "office_bytes", "refuse_unwritable"]
