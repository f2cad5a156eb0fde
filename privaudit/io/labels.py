"""What a statistical package's file says of its columns beyond their values: variable labels, value labels and
user-missing codes, carried from a reader to the loaded table.

A reader (:mod:`privaudit.plugin.reader`) hands them over as Arrow field metadata on the table it returns,
one field per column, under the keys below (UTF-8 text; the value labels and missing codes as JSON):

* ``privaudit:label``        the variable label ("Female");
* ``privaudit:value_labels`` ``{"code": "label"}``, each code written as the loader reads the value as text
  (``1``, not ``1.0``: :func:`code_text`);
* ``privaudit:user_missing`` ``["9", "97-99", ".a"]``: the codes the file declares missing (SPSS's user-missing
  values and ranges, Stata's and SAS's extended missing values).

The values themselves stay as the codes the file stores (SPSS, Stata and SAS save value labels beside the
values, the data being the codes: IBM SPSS Statistics "Variable properties"; Stata manual [D] label), so a
table read from a ``.sav`` file types, checks and reports exactly as its CSV export does. The loaded table
keeps the labels (:attr:`privaudit.io.data.Table.labels`) for what uses them: ``privaudit init`` reads the
variable labels as evidence beside the headers (:mod:`privaudit.discovery.draft`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

LABEL = b"privaudit:label"
VALUE_LABELS = b"privaudit:value_labels"
USER_MISSING = b"privaudit:user_missing"


@dataclass(frozen=True)
class ColumnLabels:
    """One column's variable label, value labels (code text -> label) and user-missing codes."""

    label: str | None = None
    values: dict[str, str] = field(default_factory=dict)
    missing: tuple[str, ...] = ()

    def metadata(self) -> dict[bytes, bytes]:
        """These labels as Arrow field metadata (the keys of the module's docstring); empty when there are none."""
        out: dict[bytes, bytes] = {}
        if self.label:
            out[LABEL] = self.label.encode("utf-8")
        if self.values:
            out[VALUE_LABELS] = json.dumps(self.values, ensure_ascii=False).encode("utf-8")
        if self.missing:
            out[USER_MISSING] = json.dumps(list(self.missing), ensure_ascii=False).encode("utf-8")
        return out

    def shown(self, value: object) -> str:
        """``value`` with its value label beside it, ``2 (Female)``, or as it is when it has none."""
        text = str(value)
        label = self.values.get(text)
        return f"{text} ({label})" if label else text


def code_text(code: Any) -> str:
    """A code as the loader reads its value as text: an integral number without a decimal part (``1``, as
    Arrow casts an integer column to text), any other value as Python writes it."""
    if isinstance(code, float) and code.is_integer() and abs(code) < 2**53:
        return str(int(code))
    return str(code)


def code_of(name: str, found: ColumnLabels | None) -> str | None:
    """The code a policy names by ``name``: a code of the column's value labels, or a number, is itself; a value
    label names its code (``Refused`` -> ``9``, when one code carries it); anything else is None (a typo of a
    label: the caller says so). A column without value labels takes ``name`` as its code."""
    if found is None or not found.values or name in found.values:
        return name
    codes = [code for code, label in found.values.items() if label == name]
    if len(codes) == 1:
        return codes[0]
    try:
        float(name)
    except ValueError:
        return None
    return name


def labels_of(schema: Any) -> dict[str, ColumnLabels]:
    """The labels a reader put on ``schema``'s fields (a pyarrow Schema), by column; columns without any are
    left out. Metadata that is not valid JSON is ignored (it is a reader's description, not the data)."""
    out: dict[str, ColumnLabels] = {}
    for f in schema:
        meta = f.metadata or {}
        if not any(k in meta for k in (LABEL, VALUE_LABELS, USER_MISSING)):
            continue
        label = meta[LABEL].decode("utf-8", errors="replace") if LABEL in meta else None
        values = _json(meta.get(VALUE_LABELS), dict)
        missing = _json(meta.get(USER_MISSING), list)
        out[f.name] = ColumnLabels(
            label or None, {str(k): str(v) for k, v in values.items()}, tuple(str(m) for m in missing)
        )
    return out


def _json(raw: bytes | None, kind: type) -> Any:
    if not raw:
        return kind()
    try:
        value = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return kind()
    return value if isinstance(value, kind) else kind()


__all__ = ["LABEL", "USER_MISSING", "VALUE_LABELS", "ColumnLabels", "code_of", "code_text", "labels_of"]
