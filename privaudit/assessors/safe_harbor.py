"""safe_harbor: HIPAA's Safe Harbor de-identification method, 45 CFR 164.514(b)(2).

A release meets Safe Harbor when (i) none of the 18 identifiers of (b)(2)(i)(A)-(R) remains -- with the method's
rules on three-digit ZIP codes, dates and ages over 89 (:mod:`privaudit.discovery.safe_harbor`) -- and (ii) the
covered entity "does not have actual knowledge that the information could be used alone or in combination with
other information to identify an individual", which no program can know: the policy records it
(``actual_knowledge_attested: true`` and who attests, ``attested_by``).

value = the number of identifiers (of 18) the table holds; pass iff value = 0 and the attestation is recorded. A
declared ``record_id`` is listed for the attestation of 164.514(c) (a re-identification code not derived from the
person's information, its key not disclosed) and does not fail the check.
"""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import Field

from privaudit.plugin.assessor import Assessor, Details, Measurement, Params
from privaudit.plugin.hookspecs import hookimpl

NAME = "safe_harbor"


class SafeHarborParams(Params):
    better: ClassVar[str] = "lower"
    actual_knowledge_attested: bool = Field(
        default=False,
        description="the covered entity attests it has no actual knowledge that the release could identify a person "
        "(164.514(b)(2)(ii))",
    )
    attested_by: str | None = Field(default=None, description="who attests (name and role)")
    reference_year: int | None = Field(
        default=None, ge=1900, le=2200, description="the year ages are reckoned at (default: this year)"
    )
    restricted_zip3_file: str | None = Field(
        default=None,
        description="a newer table of restricted three-digit ZIP codes (header zip3, one code per line); default: "
        "HHS's list of 2012 (2000 Census)",
    )


class SafeHarborItem(Details):
    """One of the 18 identifiers of 164.514(b)(2)(i)."""

    letter: str
    identifier: str
    status: Literal["absent", "present", "attest"]
    columns: list[str]
    evidence: list[str]


class SafeHarborDetails(Details):
    """What the safe_harbor check's details hold: the 18-row checklist and the attestation."""

    items: list[SafeHarborItem]
    present: int
    actual_knowledge_attested: bool
    attested_by: str | None
    reference_year: int
    restricted_zip3: str


def run(ctx, params: SafeHarborParams) -> Measurement:
    import datetime

    from privaudit.discovery.safe_harbor import assess, restricted_zip3
    from privaudit.discovery.scan import SAMPLE_ROWS, scan_frame

    year = params.reference_year or datetime.date.today().year
    restricted = restricted_zip3(_resolved(ctx.policy, params.restricted_zip3_file))
    sample = ctx.sample(SAMPLE_ROWS)
    findings = scan_frame(sample) if sample is not None else []
    roles = {name: spec.role for name, spec in ctx.policy.columns.items()}
    items = assess(ctx.table, roles, findings, restricted, year)
    present = [i for i in items if i.status == "present"]
    attest = [i for i in items if i.status == "attest"]
    parts = [
        f"{len(present)} of 18 identifiers remain: "
        + "; ".join(f"({i.letter}) {i.identifier.lower()} in {', '.join(i.columns)}" for i in present)
        if present
        else "none of the 18 identifiers remains"
    ]
    if attest:
        parts.append(
            "to attest under 164.514(c): "
            + ", ".join(c for i in attest for c in i.columns)
            + " (re-identification codes)"
        )
    if not params.actual_knowledge_attested:
        parts.append(
            "the actual-knowledge attestation (164.514(b)(2)(ii)) is not recorded: set actual_knowledge_attested"
        )
    details = {
        "items": [vars(i) for i in items],
        "present": len(present),
        "actual_knowledge_attested": params.actual_knowledge_attested,
        "attested_by": params.attested_by,
        "reference_year": year,
        "restricted_zip3": params.restricted_zip3_file or "HHS 2012 guidance, section 3.3 (2000 Census)",
    }
    passed = not present and params.actual_knowledge_attested
    return Measurement(len(present), 0, passed, "; ".join(parts), details)


def _resolved(policy, path: str | None) -> str | None:
    """The restricted-ZIP table's path as the policy resolves every path it names (relative to its folder,
    refused outside it unless ``--allow-outside-paths``)."""
    return None if path is None else str(policy.resolve_path(path, "restricted_zip3_file"))


def validate(params: SafeHarborParams, policy) -> str | None:
    from privaudit.core.errors import PolicyError
    from privaudit.discovery.safe_harbor import restricted_zip3

    if params.actual_knowledge_attested and not (params.attested_by or "").strip():
        return "attested_by: an attestation names who attests"
    try:
        restricted_zip3(_resolved(policy, params.restricted_zip3_file))
    except PolicyError as exc:  # a path outside the policy's folder, or a directory: the policy's own line
        return str(exc).removeprefix(f"{policy.path}: ")
    except ValueError as exc:
        return f"restricted_zip3_file: {exc}"
    return None


ASSESSOR = Assessor(
    name=NAME,
    params=SafeHarborParams,
    details=SafeHarborDetails,
    run=run,
    title="HIPAA Safe Harbor",
    standards=frozenset({"hipaa:safe_harbor", "wp29:singling_out"}),
    protects="identity",
    measures="whether any of the 18 identifiers HIPAA's Safe Harbor method names remains (names, geography below a "
    "state, dates finer than the year and ages over 89, contact numbers, record and account numbers ...), and "
    "whether the actual-knowledge attestation is recorded",
    formula="value = number of the 18 identifiers of 45 CFR 164.514(b)(2)(i) found by header or value; pass iff "
    "value = 0 and the attestation of (b)(2)(ii) is recorded",
    reference="45 CFR 164.514(b)(2); HHS OCR, Guidance Regarding Methods for De-identification of Protected Health "
    "Information (2012), section 3",
    needs=frozenset({"table"}),
    validate_policy=validate,
)


@hookimpl
def privaudit_assessors():
    return [ASSESSOR]
