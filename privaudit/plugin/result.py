"""The typed report of a run: what the JSON report (``--json``, schema_version 1) holds, as pydantic models.

A run's result is turned into one :class:`Report` (:func:`privaudit.report.json_report.build_report`, once per
run) and every renderer reads it: the JSON writer (``report.to_dict()`` is the report's JSON values, written
as they are), the CI formats, the diff of two reports, the notebook view, the HTML/PDF report (its checks'
:class:`~privaudit.plugin.sections.CheckEntry`) and the library's report objects. ``privaudit report schema``
is this model's JSON Schema (:mod:`privaudit.report.schema`).

Every model is closed (``extra="forbid"``: a key the report does not have is refused) and writes its fields in
the order the report always has. A field with a default is a key that is written only when the run set it (a
check's ``better`` when its assessor says which way the value improves, ``input.fingerprint`` for a table
that is not one file ...), so a report read back from JSON writes the same keys it was read with. Figures
are JSON's: infinity is the string ``"inf"`` (``"-inf"``), a NaN ``null``; integers stay integers.

A check's ``params`` and ``details`` are its assessor's models written as JSON (an assessor is a plugin:
this model cannot name its classes); the typed parameters object the run used travels with the check
(:attr:`ReportCheck.typed_params`), so a report section reads the policy's own object, not a copy parsed
back from JSON. Nothing here names the driver (``privaudit.pipeline``), even for type checking.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    SerializerFunctionWrapHandler,
    StrictFloat,
    StrictInt,
    WithJsonSchema,
    model_serializer,
    model_validator,
)

from privaudit.common.params import Params

__all__ = [
    "Candidate",
    "ColumnLabelFacts",
    "Explore",
    "ReportApprover",
    "ReportException",
    "InputFacts",
    "Lost",
    "LostVariable",
    "OriginalFacts",
    "PolicyFacts",
    "ReleaseContextFacts",
    "Remediation",
    "Report",
    "ReportCheck",
    "ReportColumn",
    "ReportSummary",
    "Scope",
    "Series",
    "SeriesRelease",
    "SpecialCategory",
    "Tool",
    "UtilityFigure",
    "Verdict",
    "VerdictCheck",
    "WorstCheck",
]

SCHEMA_VERSION: Literal[1] = 1


def _unit(value: int | float) -> int | float:
    if not 0 <= value <= 1:
        raise ValueError(f"{value} is not within [0, 1]")
    return value


#: a finite number, kept an integer when it is one (``float`` would write ``3`` as ``3.0``)
Number = Annotated[StrictInt | StrictFloat, WithJsonSchema({"type": "number"})]
#: a figure as the report writes it: a number, ``"inf"``/``"-inf"`` (JSON has no infinity) or null (a NaN)
Figure = Annotated[
    StrictInt | StrictFloat | Literal["inf", "-inf"] | None,
    WithJsonSchema({"anyOf": [{"type": "number"}, {"enum": ["inf", "-inf"]}, {"type": "null"}]}),
]
#: a share within [0, 1], or null
Unit = Annotated[
    Annotated[StrictInt | StrictFloat, AfterValidator(_unit)] | None,
    WithJsonSchema({"type": ["number", "null"], "minimum": 0, "maximum": 1}),
]
Count = Annotated[int, Field(ge=0)]
Sha256 = Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]
Names = list[str]
Status = Literal["pass", "fail", "error"]


def _no_null(schema: dict[str, Any]) -> None:
    """The JSON Schema of a key that is absent or holds a value, never null (see :func:`omitted`)."""
    branches = [b for b in schema.pop("anyOf", []) if b != {"type": "null"}]
    if len(branches) == 1:
        schema.update(branches[0])
    elif branches:
        schema["anyOf"] = branches


def omitted(description: str | None = None) -> Any:
    """A field the report writes only when the run set it, and then never as null (a check's ``better``,
    ``input.fingerprint`` ...): its default None means "absent"."""
    return Field(None, description=description, json_schema_extra=_no_null)


class _Entry(BaseModel):
    """A closed part of the report whose defaulted fields are written only when set (see the module)."""

    model_config = ConfigDict(extra="forbid")

    @model_validator(mode="after")
    def _absent_not_null(self) -> Any:
        for name in self.model_fields_set:
            info = type(self).model_fields[name]
            if info.json_schema_extra is _no_null and getattr(self, name) is None:
                raise ValueError(f"{name}: null; the key is absent or holds a value")
        return self

    @model_serializer(mode="wrap")
    def _set_keys(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data = handler(self)
        kept = self.model_fields_set
        return {k: v for k, v in data.items() if k in kept or type(self).model_fields[k].is_required()}

    def to_dict(self) -> dict[str, Any]:
        """The JSON values of this part of the report (what ``json.dumps`` writes)."""
        return self.model_dump(mode="json")


class Tool(_Entry):
    name: Literal["privaudit"]
    version: str


class InputFacts(_Entry):
    """The released table: its path, SHA-256 (``fingerprint`` says what it is of when not the file's bytes;
    empty only for a table in an engine's catalog), size in bytes, rows and columns."""

    path: str
    sha256: Annotated[
        str,
        Field(
            pattern=r"^([0-9a-f]{64})?$",
            description="empty only for a table in an engine's catalog (fingerprint says so)",
        ),
    ]
    fingerprint: str | None = omitted("what sha256 is of, when not the file's bytes")
    size: Count | None
    rows: Count
    columns: Names
    labels: dict[str, ColumnLabelFacts] | None = omitted(
        "by column, the labels the file states (SPSS, Stata, SAS): variable label, value labels, user-missing codes"
    )


class ColumnLabelFacts(_Entry):
    """What an SPSS, Stata or SAS file states of one column beside its values (:mod:`privaudit.io.labels`): its
    variable label, its value labels (code as the report writes the value -> label: a value ``2`` shown in
    the report reads ``2 (Female)``) and its user-missing codes (``9``, ``97 thru 99``, ``.a``)."""

    label: str | None = omitted("the variable label")
    values: dict[str, str] | None = omitted("value labels: the code as the report writes it -> its label")
    user_missing: list[str] | None = omitted("the codes the file declares missing")


class OriginalFacts(_Entry):
    """A table beside the release (``--original``, a remediation's input): path, SHA-256 and rows."""

    path: str
    sha256: Sha256
    rows: Count


class PolicyFacts(_Entry):
    path: str
    sha256: Sha256
    name: str


class SpecialCategory(_Entry):
    """A column holding a special category of personal data (GDPR Art. 9, Art. 10)."""

    column: str
    category: str
    label: str
    article: str
    by: Literal["policy", "header"]


class ReportColumn(_Entry):
    """A column of the policy: its role, type and (an ordinal column) its order."""

    role: str
    type: str
    order: Names | None = omitted()


class Scope(_Entry):
    """What the policy audits: its columns by role, how missing values count, the hierarchies' digests."""

    quasi_identifiers: Names
    sensitive: Names
    identifiers: Names
    missing_qi: Literal["value", "wildcard"]
    missing_tokens: Names
    special_categories: list[SpecialCategory] | None = omitted(
        "columns holding special categories of personal data (GDPR Art. 9, Art. 10): declared by "
        "the policy's special_category, or named by the column's header",
    )
    hierarchies: dict[str, Sha256] | None = omitted("column -> SHA-256 of its generalization tree")
    columns: dict[str, ReportColumn] | None = omitted(
        "the policy's columns: role, type and an ordinal column's order (what privaudit diff "
        "compares as the audit's design)",
    )
    delimiter: str | None = Field(None, description="the policy's data.delimiter (null: sniffed)")
    unknowable: dict[str, str] | None = omitted(
        "column -> the policy's reason why an intruder cannot know it (role other with a reason); "
        "present only when the policy gives one",
    )


class ReportSummary(_Entry):
    passed: bool
    checks_total: Count
    checks_failed: Count = Field(description="failing error checks that no exception in force accepts")
    checks_warned: Count = Field(description="failing warning checks that no exception in force accepts")
    checks_errored: Count
    checks_excepted: Count | None = omitted(
        "failing checks an exception of the policy accepts (they fail neither the verdict nor --fail-on warning)"
    )


class ReportApprover(_Entry):
    name: str
    role: str


class ReportException(_Entry):
    """One of the policy's exceptions (``exceptions:``), as judged on the audit's day: the check it accepts, why,
    who approved it, from when until when, up to which value, whether it was in force and whether it applied."""

    check: str
    justification: str
    approver: ReportApprover
    date: Annotated[str, Field(pattern=r"^\d{4}-\d\d-\d\d$", description="when it was accepted")]
    expires: Annotated[str, Field(pattern=r"^\d{4}-\d\d-\d\d$", description="the last day it is in force")]
    max_value: Number | None = omitted("it covers the check only while the value stays within this, in its direction")
    in_force: bool = Field(description="the audit's day lies between date and expires")
    applied: bool = Field(description="it accepted the failing check (in force, and the value within max_value)")
    note: str = Field(description="what became of it, in words: 'in force until DATE', 'exception expired on DATE' ...")


class ReportCheck(_Entry):
    """One check's result: its figure, the policy's bound, its parameters and what its assessor found.

    ``details`` follows the assessor's ``Details`` model (the schema's ``$defs`` under the assessor's name)
    unless the check ended in error; worst-class values of columns found holding direct identifiers are
    masked (:func:`privaudit.report.json_report.masked_details`)."""

    id: Annotated[str, Field(min_length=1)]
    assessor: Annotated[str, Field(min_length=1)]
    status: Status = Field(description="error: the check could not be completed")
    severity: Literal["error", "warning"]
    value: Figure = Field(description="the measured figure (a number, 'inf', or null when the check ended in error)")
    threshold: Any = Field(description="the policy's bound, as the assessor states it (a number or an object)")
    params: dict[str, Any] = Field(description="the check's parameters after validation and defaults")
    message: str
    details: dict[str, Any] = Field(
        description="the assessor's figures: $defs[assessor] (empty when the check ended in error)"
    )
    quasi_identifiers: Annotated[Names, Field(min_length=1)] | None = omitted(
        "the check's attacker scenario: the quasi-identifiers the intruder knows"
    )
    better: Literal["higher", "lower"] | None = omitted("which way the value improves (privaudit diff)")
    excepted: ReportException | None = omitted(
        "the policy's exception in force that accepts this failing check (its status stays fail)"
    )
    _typed_params: Params | None = PrivateAttr(None)

    @property
    def typed_params(self) -> Params | None:
        """The parameters object the run checked with (the assessor's ``Params``); None for a check read back
        from a JSON report (its ``params`` are then all there is)."""
        return self._typed_params

    def with_params(self, params: Params | None) -> ReportCheck:
        """This check carrying ``params``, the typed object its ``params`` were written from."""
        self._typed_params = params
        return self


class UtilityFigure(_Entry):
    """One utility figure (:mod:`privaudit.utility`): what the release keeps of a measure."""

    measure: str = Field(description="the utility measure (privaudit.utility.MEASURES)")
    column: str | None = Field(description="the column the figure is of; null: over all columns")
    value: Number | None = Field(
        description="on ARX's quality scale: 1 = nothing lost, 0 = everything lost (ARX's own normalisation "
        "where ARX has the measure); within [0, 1] for every measure but classification_accuracy, ARX's "
        "unclipped relative accuracy (above 1: the release trains a better model than the original; below 0: "
        "worse than always guessing the majority class); null when it cannot be normalised (details.reason)"
    )
    raw: Number | None = Field(description="the measure before that normalisation")
    details: dict[str, Any] = Field(description="the measure's figures (minimum, maximum, reason ...)")


class SeriesRelease(_Entry):
    path: str
    sha256: str
    rows: Count
    classes: Count
    people: Count
    not_found: Count


class Series(_Entry):
    """The releases an audit with ``--previous`` composed, and how their people were linked."""

    linking: Literal["record_id", "quasi_identifiers"]
    key: str | None
    people: Count
    releases: list[SeriesRelease]


class VerdictCheck(_Entry):
    status: Status
    value: Any


class Verdict(_Entry):
    """An audit's verdict in brief (a remediation's before and after)."""

    passed: bool
    checks_failed: Count
    checks_errored: Count
    checks: dict[str, VerdictCheck]


class LostVariable(_Entry):
    """What one variable lost (:func:`privaudit.utility.variable_loss.column_changes`)."""

    column: str
    distinct_before: Count | None = omitted()
    distinct_after: Count | None = omitted()
    cells_changed: Count
    cells_suppressed: Count | None = omitted()
    share_changed: Unit = None
    status: Literal["kept", "suppressed", "recoded", "deleted"]
    description: str = Field(description="before -> after, in words")


class Lost(_Entry):
    """What each variable lost: the quasi-identifiers, then any other column changed."""

    variables: list[LostVariable]
    cells_changed: Count
    cells: Count
    records_suppressed: Count
    records: Count
    deleted: Names


class RecipeStep(_Entry):
    """One row of a recipe's table (:mod:`privaudit.pipeline.recipe`): the input (method ``input``) or a step's
    output as re-audited, with what it lost since the input."""

    method: str
    title: str
    options: dict[str, Any]
    passed: bool
    checks_failed: Count
    checks_errored: Count
    checks: dict[str, VerdictCheck] = Field(description="the error checks' status and value")
    risk: float = Field(description="the prosecutor's average re-identification risk (--explore's risk axis)")
    granularity: float | None = Field(description="granularity, --explore's utility axis (None: no figure)")
    records: Count
    cells_changed: Count | None = Field(description="cells changed since the input (None: records were removed)")
    cells_changed_by_step: Count | None = Field(description="cells this step changed in its input")
    records_suppressed: Count | None = Field(description="records with every quasi-identifier suppressed")
    records_removed: Count


class Recipe(_Entry):
    """``remediate --recipe``: the input and every step's re-audit, in order."""

    source: str = Field(description="the recipe file as given (``recipe`` for one given as a list)")
    description: str | None = omitted()
    steps: list[RecipeStep] = Field(description="the input first, then each step")
    failing_step: Count | None = Field(description="the step whose re-audit fails (the last), None when offered")


class Remediation(_Entry):
    """After ``privaudit remediate``: the method, its options, the verdicts before and after, what changed."""

    method: str
    title: str
    options: dict[str, Any]
    offered: bool
    input: OriginalFacts
    before: Verdict
    after: Verdict
    changes: dict[str, Any]
    loss: dict[str, Any]
    notes: Names
    check_overrides: dict[str, Any]
    built_hierarchies: dict[str, Any] | None = omitted(
        "column -> the hierarchy built for a quasi-identifier the policy gave none (builder, "
        "height, leaves, file: the file written beside the table, null when none was)",
    )
    policy_file: str | None = omitted(
        "the policy written beside the table, which it audits again with as it was re-audited "
        "(columns retyped with built hierarchies, published parameters)",
    )
    lost: Lost | None = Field(
        None, description="what each variable lost: the quasi-identifiers, then any other column changed"
    )
    files_written: Names | None = omitted("the remediated table and the files written beside it (when offered)")
    no_change_needed: bool | None = omitted("the input already passes: the method was not applied, nothing written")
    recipe: Recipe | None = omitted("remediate --recipe: every step's re-audit beside the input's")


class WorstCheck(_Entry):
    id: str
    value: Number | None
    threshold: Number | None
    status: Literal["fail", "error"]


class Candidate(_Entry):
    """One candidate release of ``remediate --explore``: its place on the risk-utility map."""

    method: str = Field(description="the remediation method that made the candidate")
    options: dict[str, Any] = Field(description="its options (generalize: the lattice node's levels)")
    risk: Unit = Field(description="the risk axis: average prosecutor re-identification risk")
    utility: Unit = Field(description="the utility axis (utility_measure on ARX's quality scale)")
    checks_failed: Count
    passes: bool
    frontier: bool = Field(
        description="no other candidate has lower-or-equal risk and higher-or-equal utility, one of them strictly"
    )
    worst_check: WorstCheck | None = Field(
        None, description="the first failing error check and its figure (null: none fails)"
    )
    utilities: dict[str, Unit] | None = omitted("every utility measure of the candidates' table")
    records_removed: Count | None = omitted()
    cells_changed: Count | None = omitted("quasi-identifier cells the candidate changed")
    records_suppressed: Count | None = omitted("records whose every quasi-identifier it suppressed")
    deleted: Names | None = omitted("quasi-identifiers left with no value below the top of their hierarchy")
    failure: str | None = omitted("the method failed to make this candidate: 'failed: <what went wrong> (package P V)'")


class ExploreMethod(_Entry):
    """What a remediator's record says of a method ``--explore`` tried."""

    title: str
    description: str
    package: str | None = Field(description="the package that registered it")


class Explore(_Entry):
    """``remediate --explore``: the candidates of the risk-utility map (:mod:`privaudit.pipeline.explore`)."""

    no_change_needed: bool | None = omitted("the input already passes: nothing written")
    lost: Lost | None = Field(None, description="what the recommended candidate lost, variable by variable")
    candidates: list[Candidate]
    recommended: Count | None = Field(
        description="index of the recommended passing candidate (keeps the key variables, then highest utility)"
    )
    risk_measure: str
    utility_measure: str
    risk_bound: Number | None = Field(None, description="the policy's bound on the risk axis")
    risk_bound_source: str | None = Field(None, description="which check gives it")
    notes: Names | None = omitted()
    built_hierarchies: dict[str, Any] | None = omitted("column -> the hierarchy built for it")
    files_written: Names | None = omitted("the recommended table and the files written beside it")
    methods: dict[str, ExploreMethod] | None = omitted("method -> what its remediator's record says of it")


class ReleaseContextFacts(_Entry):
    """The policy's ``context:`` block, the threshold privaudit derived from it and whether the context supports
    each bound check's threshold (:mod:`privaudit.core.release_context`)."""

    spec: dict[str, Any] = Field(description="the context as the policy states it")
    threshold: Annotated[StrictInt | StrictFloat, Field(gt=0, le=1)] = Field(description="the derived threshold")
    measure: Literal["maximum", "average"] = Field(description="the risk the threshold bounds (ISO/IEC 27559 6.4)")
    steps: Names = Field(description="how the threshold was derived, step by step")
    source: str = Field(description="the table's sources")
    findings: list[dict[str, Any]] = Field(
        description="per bound check (or context.threshold): its value, whether the context derived it, supports it"
    )


class Report(_Entry):
    """The report of a run (``privaudit audit`` and ``privaudit remediate``, ``--json OUT``)."""

    model_config = ConfigDict(
        extra="forbid",
        title="privaudit audit report",
        json_schema_extra={
            "description": "The JSON report of `privaudit audit` and `privaudit remediate` (--json OUT)."
        },
    )

    schema_version: Literal[1]
    tool: Tool
    generated_at: Annotated[
        str,
        Field(
            pattern=r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$",
            description="UTC time of the audit (SOURCE_DATE_EPOCH when set)",
        ),
    ]
    engine: str
    input: InputFacts
    original: OriginalFacts | None
    policy: PolicyFacts
    scope: Scope
    summary: ReportSummary
    remediation: Remediation | None = omitted()
    series: Series | None = omitted()
    explore: Explore | None = omitted("remediate --explore: the candidates of the risk-utility map")
    checks: list[ReportCheck]
    exceptions: list[ReportException] | None = omitted(
        "the policy's exceptions, each judged on the audit's day (in force or not), listed beside the sign-off"
    )
    context: ReleaseContextFacts | None = omitted(
        "the policy's context block and the re-identification risk threshold derived from it"
    )
    utility: list[UtilityFigure] | None = omitted(
        "what the release keeps: one entry per figure (privaudit.utility); written by every audit, "
        "absent from reports of older versions",
    )

    def check(self, check_id: str) -> ReportCheck:
        """The check ``check_id``; KeyError when the report has none of that id."""
        for c in self.checks:
            if c.id == check_id:
                return c
        raise KeyError(check_id)
