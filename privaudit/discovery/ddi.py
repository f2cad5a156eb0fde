"""A DDI Codebook as a privaudit policy's decisions (``privaudit init DATA --from-ddi CODEBOOK.xml``).

DDI Codebook 2.5 (DDI Alliance, https://ddialliance.org/Specification/DDI-Codebook/2.5/; namespace
``ddi:codebook:2_5``; the earlier 1.2.2/2.x codebooks have the same ``codeBook/dataDscr/var`` elements) describes
each variable in a ``<var name=...>`` of ``<dataDscr>``. What maps:

* ``<labl>`` of the variable (``level="variable"``, or its first) -- the variable label, evidence of what the
  column holds as its header is (:mod:`privaudit.discovery.draft`);
* ``<catgry><catValu>``/``<labl>`` -- value labels (said in the draft; the policy has no field for them);
* ``<catgry missing="Y">`` and ``<invalrng>`` (``<item VALUE>``, and ``<range min max>`` of whole numbers up
  to :data:`MAX_RANGE` codes) -- the column's missing codes;
* roles the codebook states: ``wgt="wgt"`` (the variable is a weight) -- ``weight``; ``geog="Y"`` (a
  geographic identifier) -- a quasi-identifier (geography is a key variable: Hundepool et al. 2012, section
  3.3). The rest is drafted from the labels and values as usual.

Not mapped, said in the draft: an open or non-integer ``<range>``, ``wgt-var`` (which weight a variable's
statistics used), variables the data lack. The XML is parsed with defusedxml, which refuses entity
declarations and external references (the ``ddi`` extra); without it, the standard library's parser is used
on a file that declares no DTD.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from privaudit.core.errors import DataError
from privaudit.discovery.decided import Decided

#: a ``<range min max>`` of missing codes is expanded when it spans at most this many whole numbers
MAX_RANGE = 1000


def _parse(path: Path) -> Any:
    """The codebook's root element: defusedxml where installed (entities and external references refused);
    else the standard library's parser, only on a file without a DTD (no entity can be declared)."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise DataError(f"{path}: cannot be read ({exc.strerror})") from None
    try:
        from defusedxml import DefusedXmlException
        from defusedxml.ElementTree import ParseError, fromstring
    except ImportError:
        import xml.etree.ElementTree as ET

        if b"<!DOCTYPE" in raw or b"<!ENTITY" in raw:
            raise DataError(f"{path}: declares a DTD; install defusedxml (privaudit[ddi]) to read it safely") from None
        try:
            return ET.fromstring(raw)
        except ET.ParseError as exc:
            raise DataError(f"{path}: not a DDI codebook: not well-formed XML ({exc})") from None
    try:
        return fromstring(raw, forbid_dtd=False, forbid_entities=True, forbid_external=True)
    except DefusedXmlException as exc:
        raise DataError(f"{path}: refused: the XML declares entities or external references ({exc})") from None
    except ParseError as exc:
        raise DataError(f"{path}: not a DDI codebook: not well-formed XML ({exc})") from None


def _local(tag: Any) -> str:
    return str(tag).rpartition("}")[2]


def _children(element: Any, name: str) -> list[Any]:
    return [c for c in element if _local(c.tag) == name]


def _text(element: Any) -> str:
    return " ".join("".join(element.itertext()).split())


def read_codebook(path: Path) -> list[Any]:
    """The ``<var>`` elements of a DDI codebook; one line when the file is not one."""
    root = _parse(path)
    if _local(root.tag) != "codeBook":
        raise DataError(f"{path}: not a DDI codebook (its root element is <{_local(root.tag)}>, not <codeBook>)")
    variables = [v for d in _children(root, "dataDscr") for v in _children(d, "var")]
    if not variables:
        raise DataError(f"{path}: a DDI codebook without variables (no <dataDscr><var>)")
    return variables


def _missing(var: Any, name: str, decided: Decided) -> list[str]:
    codes = [
        _text(_children(c, "catValu")[0])
        for c in _children(var, "catgry")
        if c.get("missing") == "Y" and _children(c, "catValu")
    ]
    for rng in _children(var, "invalrng"):
        codes += [str(i.get("VALUE")).strip() for i in _children(rng, "item") if i.get("VALUE") is not None]
        for r in _children(rng, "range"):
            low, high = r.get("min"), r.get("max")
            try:
                span = range(int(str(low)), int(str(high)) + 1)
            except ValueError:
                decided.unmapped.append(f"{name}: <invalrng><range min={low!r} max={high!r}> (not whole numbers)")
                continue
            if len(span) > MAX_RANGE:
                decided.unmapped.append(f"{name}: <invalrng><range> of {len(span):,} codes (over {MAX_RANGE})")
                continue
            codes += [str(c) for c in span]
    return list(dict.fromkeys(c for c in codes if c))


def _label(var: Any) -> str | None:
    labels = _children(var, "labl")
    chosen = next((lab for lab in labels if lab.get("level") == "variable"), labels[0] if labels else None)
    return _text(chosen) or None if chosen is not None else None


def _variable(var: Any, name: str, decided: Decided) -> None:
    label = _label(var)
    if label:
        decided.labels[name] = label
    values = {}
    for cat in _children(var, "catgry"):
        code = _children(cat, "catValu")
        labl = _children(cat, "labl")
        if code and labl:
            values[_text(code[0])] = _text(labl[0])
    if values:
        decided.value_labels[name] = values
        decided.note(name, f"DDI: {len(values)} value labels")
    missing = _missing(var, name, decided)
    if missing:
        decided.column_missing[name] = missing
        decided.note(name, f"DDI missing codes: {', '.join(missing[:5])}" + (" ..." if len(missing) > 5 else ""))
    if var.get("wgt") == "wgt":
        decided.roles[name] = "weight"
        decided.note(name, 'DDI wgt="wgt": a weight')
    elif var.get("geog") == "Y":
        decided.roles[name] = "quasi_identifier"
        decided.note(name, 'DDI geog="Y": a geographic identifier, known from elsewhere')
    if var.get("wgt-var"):
        decided.unmapped.append(f"{name}: wgt-var={var.get('wgt-var')} (the weight its statistics used)")


def decided_from_ddi(path: Path, columns: list[str]) -> Decided:
    """The decisions of the codebook at ``path`` for a table of ``columns`` (module docstring); the
    codebook's variables the table lacks are said, and none in the table is refused in one line."""
    decided = Decided(f"the DDI codebook {path.name}")
    absent, matched = [], 0
    for var in read_codebook(path):
        name = var.get("name")
        if not name:
            continue
        if name not in columns:
            absent.append(name)
            continue
        matched += 1
        _variable(var, name, decided)
    if not matched:
        raise DataError(
            f"{path}: none of its {len(absent)} variables is a column of the table ({', '.join(absent[:5])})"
        )
    if absent:
        decided.unmapped.append(f"{len(absent)} codebook variables the data lack: {', '.join(absent[:10])}")
    if decided.value_labels:
        decided.comments.append(
            "Value labels (DDI catgry): "
            + ", ".join(f"{c} ({len(v)})" for c, v in decided.value_labels.items())
            + "; the policy holds none."
        )
    return decided


__all__ = ["MAX_RANGE", "decided_from_ddi", "read_codebook"]
