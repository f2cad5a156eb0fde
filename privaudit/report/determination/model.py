"""The determination document as renderer-neutral blocks: sections of paragraphs and small tables, drawn as
HTML/PDF (:mod:`.html`) and DOCX (:mod:`.docx`) from the same blocks.

What a determination holds, after the frameworks it answers to:

* the context and the threshold derived from it (:mod:`privaudit.core.release_context`; ISO/IEC 27559:2022
  6.3-6.4: public release judged on the maximum risk, controlled release on the average);
* the identifiers and quasi-identifiers with the technique applied to each, labelled with its ISO/IEC
  20889:2018 class (clause 8: suppression, generalization, randomization, pseudonymization, synthetic data);
* the initial (original) and residual (release) risk side by side, every headline figure written
  "release (original)";
* the Article 29 Working Party's three criteria (Opinion 05/2014 on Anonymisation Techniques, section 3 and
  table 6: singling out, linkability, inference) mapped to the checks that ran, with their verdicts;
* the motivated-intruder record (UK ICO, *Anonymisation: managing data protection risk code of practice*,
  2012, ch. 3 "the motivated intruder test"): which attacks were simulated and what they found;
* the elements of a HIPAA Expert Determination (45 CFR 164.514(b)(1); HHS OCR *Guidance Regarding Methods for
  De-identification of PHI*, 2012, section 2: the expert, the methods, the results, the conclusion that the
  risk is very small, the conditions, an expiry), the Safe Harbor check where one ran, the exceptions on
  record, and a signature block.

No raw value of the data is printed: only the figures, the columns' names and what became of each column.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from privaudit.common.numbers import fmt

#: ISO/IEC 20889:2018 clause 8's classes of de-identification techniques, by what became of a column
ISO_20889 = {
    "removed": "Suppression technique (masking)",
    "suppressed": "Suppression technique (local suppression)",
    "generalized": "Generalization technique",
    "perturbed": "Randomization technique",
    "synthetic": "Synthetic data",
    "none": "none",
}
#: the WP29 Opinion 05/2014 criteria, by the framework tag an assessor declares (``Assessor.standards``)
WP29 = {
    "wp29:singling_out": "Singling out",
    "wp29:linkability": "Linkability",
    "wp29:inference": "Inference",
}
#: the motivated-intruder attacks (UK ICO), by their framework tag
ATTACKS = {
    "ico:linkage": "Linkage with the original or another table",
    "ico:singling_out": "Singling out (unique combinations of key variables)",
    "ico:membership": "Membership (was a person's record used)",
    "ico:composition": "Composition across releases",
    "ico:inference": "Attribute inference",
}


@dataclass
class Table:
    header: list[str]
    rows: list[list[str]]


@dataclass
class Section:
    title: str
    paragraphs: list[str] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)
    after: list[str] = field(default_factory=list)  # paragraphs after the tables


@dataclass
class Document:
    title: str
    subtitle: str
    sections: list[Section]
    figures: dict[str, Any]  # the headline figures, for tests and the API


def tags(assessor: Any) -> frozenset[str]:
    """An assessor's framework tags (:attr:`privaudit.plugin.assessor.Assessor.standards`), or the ones its
    ``protects`` and ``needs`` imply: identity and the original -> linkage; the training table -> membership;
    earlier releases -> composition; identity otherwise -> singling out; attribute -> inference."""
    declared = frozenset(getattr(assessor, "standards", frozenset()) or ())
    if declared or assessor is None:
        return declared
    needs = set(getattr(assessor, "needs", ()) or ())
    if "previous" in needs:
        return frozenset({"wp29:linkability", "ico:composition"})
    if getattr(assessor, "protects", "") == "attribute":
        return frozenset({"wp29:inference", "ico:inference"})
    if "original" in needs:
        return frozenset({"wp29:linkability", "ico:linkage"})
    if "training" in needs:
        return frozenset({"wp29:inference", "ico:membership"})
    return frozenset({"wp29:singling_out", "ico:singling_out"})


def verdict(check: dict) -> str:
    """A check's verdict in words, with the exception that accepts it."""
    status = check.get("status")
    if status == "fail" and check.get("excepted"):
        return "fail, excepted"
    if status == "fail":
        return "fail" if check.get("severity") == "error" else "fail (warning)"
    return str(status)


def pair(release: float | None, original: float | None) -> str:
    """A headline figure as the document writes each: "release (original)"."""
    return f"{fmt(release)} ({fmt(original)})"


def technique(column: str, role: str, change: dict | None, release_columns: set[str], method: str | None) -> str:
    """What was done to one column, in the words of :data:`ISO_20889`'s keys."""
    if role == "identifier":
        return "removed" if column not in release_columns else "none"
    if change is None:
        return "none"
    status = change.get("status")
    if status == "deleted":
        return "removed"
    if status == "suppressed":
        return "suppressed"
    if status == "recoded":
        before, after = change.get("distinct_before"), change.get("distinct_after")
        if method and any(w in method for w in ("noise", "pram", "randomiz", "swap", "microaggregat", "rank")):
            return "perturbed"
        return "generalized" if before is not None and after is not None and after < before else "perturbed"
    return "none"
