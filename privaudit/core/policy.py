"""The audit policy: a YAML file validated with pydantic.

A policy names the released table's columns with their role and type, the generalization hierarchies,
and the checks to run. Each check's own parameters are validated by its assessor's pydantic model (see
:mod:`privaudit.plugin.assessor`), so the set of valid checks grows with the installed plugins: the caller
passes the plugin registry in (:func:`load_policy`, :func:`policy_from_dict`).
"""

from __future__ import annotations

import copy
import datetime
import difflib
import hashlib
import json
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

import yaml
from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    field_validator,
    model_validator,
)

from privaudit.core.combinations import Combination, CombinationRules
from privaudit.core.combinations import resolve as resolve_combinations
from privaudit.core.errors import PolicyError, did_you_mean
from privaudit.core.hierarchy import Hierarchy
from privaudit.core.release_context import (
    DerivedThreshold,
    ReleaseContextSpec,
    derive_threshold,
    fill_params,
    judge,
    judge_threshold,
)

if TYPE_CHECKING:  # the policy is a leaf: it is handed the registry, typed by what it reads of it
    from privaudit.common.params import Params
    from privaudit.core.registry import AssessorView
    from privaudit.core.registry import RegistryView as Registry

Role = Literal["identifier", "quasi_identifier", "sensitive", "other", "weight", "record_id", "household_id"]
ColumnType = Literal["numeric", "ordinal", "nominal"]
#: special categories of personal data: GDPR Art. 9(1), and Art. 10 (criminal convictions and offences)
SpecialCategory = Literal[
    "health", "sex_life", "religion", "political", "trade_union", "ethnicity", "genetic", "biometric", "criminal"
]

#: Tokens that always mean "missing or suppressed", besides the policy's ``data.missing``.
ALWAYS_MISSING = ("", "*")


class StrictModel(BaseModel):
    model_config = ConfigDict(extra="forbid")


class MissingCodes(StrictModel):
    """A column's user-defined missing codes and what each means, as µ-ARGUS's two missing codes of a variable
    (µ-ARGUS 4.2 manual, section 6.1: the first marks a value the protection suppressed, the second a
    respondent's own non-answer). Each code is written as the file's value (``9``) or by its value label
    (``Refused``)."""

    suppressed: list[str] = Field(
        default_factory=list,
        description="Codes that mark a suppressed value: read as missing (as '*'); a remediation's new "
        "suppressions in this column are written back as the first.",
    )
    refused: list[str] = Field(
        default_factory=list,
        description="Codes that mean refused, don't know or not applicable: an answer the release shows, kept "
        "as a value of its own (the default for the codes the file declares missing).",
    )

    @field_validator("suppressed", "refused", mode="before")
    @classmethod
    def _codes_as_text(cls, v: Any) -> Any:
        if isinstance(v, (str, int, float)) and not isinstance(v, bool):
            v = [v]
        if isinstance(v, list):
            return [str(int(c)) if isinstance(c, float) and c.is_integer() else str(c) for c in v]
        return v

    @model_validator(mode="after")
    def _each_code_once(self) -> MissingCodes:
        for code in [*self.suppressed, *self.refused]:
            if not code.strip():
                raise ValueError("a missing code is empty")
        both = sorted(set(self.suppressed) & set(self.refused))
        if both:
            raise ValueError(f"code {both[0]!r} is both suppressed and refused: it means one or the other")
        return self


class ColumnSpec(StrictModel):
    _decimal: str = PrivateAttr(default=".")  # the policy's data.decimal: how this column's numbers are written
    role: Role
    type: ColumnType = "nominal"
    order: list[str] | None = Field(default=None, description="Value order of an ordinal column, lowest first.")
    hierarchy: str | dict[str, Any] | None = Field(
        default=None, description="ARX-style CSV path (relative to the policy) or an inline nested mapping."
    )
    special_category: SpecialCategory | None = Field(
        default=None,
        description="A special category of personal data the column holds (GDPR Art. 9: health, "
        "sex_life, religion, political, trade_union, ethnicity, genetic, biometric; Art. 10: criminal); reports "
        "name it.",
    )

    importance: int | None = Field(
        default=None,
        ge=1,
        description="How much a quasi-identifier matters to the release's users, as sdcMicro's localSuppression "
        "'importance': 1 is the most important (suppressed last), larger numbers are suppressed first. "
        "Remediators and --explore's recommendation read it.",
    )
    keep: bool = Field(
        default=False,
        description="Never delete this quasi-identifier: no remediation may suppress all of its values, and "
        "--explore never recommends a candidate that does.",
    )
    missing_codes: MissingCodes | None = Field(
        default=None,
        description="Which of an SPSS, Stata or SAS file's user-missing codes mean a suppressed value (read as "
        "missing) and which a refusal or 'not applicable' (kept as a value); default: the file's codes are kept "
        "as values, as the released file shows them.",
    )
    reason: str | None = Field(
        default=None,
        min_length=1,
        description="Why a column left as role 'other' cannot be known to an intruder; printed in the report "
        "beside the sign-off, and the undeclared-key-variable check then respects it.",
    )

    @model_validator(mode="after")
    def _fields_fit_role(self) -> ColumnSpec:
        if (self.importance is not None or self.keep) and self.role != "quasi_identifier":
            raise ValueError("'importance' and 'keep' are only for columns of role quasi_identifier")
        if self.reason is not None and self.role != "other":
            raise ValueError("'reason' is only for columns of role other (why an intruder cannot know it)")
        return self

    @model_validator(mode="after")
    def _order_matches_type(self) -> ColumnSpec:
        if self.type == "ordinal" and not self.order:
            raise ValueError("an ordinal column needs 'order' (its values, lowest first)")
        if self.order is not None and self.type != "ordinal":
            raise ValueError("'order' is only for columns of type ordinal")
        if self.order is not None and len(set(self.order)) != len(self.order):
            raise ValueError("'order' lists a value twice")
        return self


class DataOptions(StrictModel):
    delimiter: str | None = Field(default=None, description="CSV delimiter; sniffed when absent.")
    missing: list[str] = Field(default_factory=list, description="Extra tokens meaning missing/suppressed.")
    missing_qi: Literal["value", "wildcard"] = Field(
        default="value",
        description="'value': a missing QI value is a value of its own; 'wildcard': it matches any value "
        "when counting a record's class size (sdcMicro's semantics).",
    )

    decimal: Literal[".", ","] = Field(
        default=".", description="The decimal mark of numbers written as text in CSV files: '.' (1.5) or ',' (1,5)."
    )
    encoding: str = Field(
        default="utf-8",
        description="The CSV files' character encoding: utf-8, or a single-byte encoding such as latin-1 or cp1252.",
    )
    sheet: str | None = Field(
        default=None,
        min_length=1,
        description="The sheet of an Excel (.xlsx) or OpenDocument (.ods) file to read (default: the first); "
        "--sheet NAME gives it on the command line.",
    )

    @field_validator("delimiter")
    @classmethod
    def _one_char(cls, v: str | None) -> str | None:
        if v is not None and len(v) != 1:
            raise ValueError("the delimiter must be a single character")
        return v

    @field_validator("encoding")
    @classmethod
    def _readable_encoding(cls, v: str) -> str:
        return csv_encoding(v)

    @model_validator(mode="after")
    def _decimal_not_delimiter(self) -> DataOptions:
        if self.decimal == self.delimiter:
            raise ValueError(f"decimal {self.decimal!r} is also the delimiter (files with a decimal comma use ';')")
        return self


def csv_encoding(name: str) -> str:
    """``name`` as Python's codecs name it (``latin-1`` -> ``iso8859-1``), if privaudit can read CSV in it: UTF-8,
    or an encoding of one byte per character that writes ASCII as ASCII (line breaks, quotes and delimiters
    are then the bytes every reader looks for); else a ValueError naming the choices."""
    import codecs

    try:
        codec = codecs.lookup(name).name
    except LookupError:
        raise ValueError(f"unknown encoding {name!r} (utf-8, latin-1, cp1252, iso8859-15 ...)") from None
    if codec in ("utf-8", "utf-8-sig"):
        return "utf-8"
    ascii_kept = bytes(range(128)).decode(codec, errors="replace") == "".join(map(chr, range(128)))
    high = bytes(b for b in range(128, 256) for _ in range(2))  # each byte twice: no pair makes one character
    single = len(high.decode(codec, errors="replace")) == len(high)
    if not (ascii_kept and single):
        raise ValueError(f"encoding {name!r}: privaudit reads UTF-8 or a single-byte encoding (latin-1, cp1252 ...)")
    return codec


class ReportOptions(StrictModel):
    show_sensitive_values: bool = False
    max_classes: int = Field(default=20, ge=1, le=10_000, description="How many worst classes a report lists.")


class CheckSpec(BaseModel):
    """One check: the assessor's name, id, severity; other keys are the assessor's parameters."""

    model_config = ConfigDict(extra="allow")
    assessor: str
    id: str | None = None
    severity: Literal["error", "warning"] | None = Field(
        default=None,
        description="error (fails the audit) or warning; default error, or the assessor's own "
        "default (its parameters' DEFAULT_SEVERITY: warning for utility gates).",
    )
    quasi_identifiers: list[str] | None = None  # an attacker scenario: the intruder knows only these

    @property
    def params(self) -> dict[str, Any]:
        return dict(self.model_extra or {})


def _iso_date(value: Any) -> Any:
    """A date as YAML reads it (``2026-05-01``) or as its ISO 8601 text; refuses numbers and times, which
    pydantic's lax mode would read as seconds since 1970."""
    if isinstance(value, datetime.datetime):
        raise ValueError("expected a date (YYYY-MM-DD), not a time")
    if isinstance(value, datetime.date):
        return value
    if isinstance(value, str):
        try:
            return datetime.date.fromisoformat(value.strip())
        except ValueError:
            pass
    raise ValueError(f"expected an ISO date (YYYY-MM-DD), got {value!r}")


IsoDate = Annotated[datetime.date, BeforeValidator(_iso_date)]


class Approver(StrictModel):
    """Who accepted an exception: a name and the role under which they may (ACRO's exception requests name
    the researcher and the output checker who approved)."""

    name: str = Field(min_length=1)
    role: str = Field(min_length=1)

    @field_validator("name", "role")
    @classmethod
    def _not_blank(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("must not be blank")
        return v.strip()


class ExceptionSpec(StrictModel):
    """A failing check accepted on the record: which check, why, who approved it, from when until when, and
    optionally up to which value (after ACRO's exception requests: an output that fails a rule may be released
    when a researcher's justification is accepted by an output checker; ACRO, Preen & Smith 2022; github.com/AI-SDC/ACRO add_exception)."""

    check: str = Field(
        min_length=1,
        description="The id of the check excepted (a check of the policy, or an "
        "always-run check: direct_identifiers ...).",
    )
    justification: str = Field(min_length=1, description="Why the failing check is accepted.")
    approver: Approver = Field(description="Who accepted it: {name: ..., role: ...}.")
    date: IsoDate = Field(description="When it was accepted (YYYY-MM-DD).")
    expires: IsoDate = Field(description="The last day it is in force (YYYY-MM-DD), after 'date'.")
    max_value: float | None = Field(
        default=None,
        allow_inf_nan=False,
        description="It covers the check only while the check's value stays at most (a check where lower is "
        "better) or at least (higher is better) this value.",
    )

    @field_validator("justification")
    @classmethod
    def _said(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("an exception needs a justification (empty text)")
        return v.strip()

    @model_validator(mode="after")
    def _expires_after_date(self) -> ExceptionSpec:
        if self.expires <= self.date:
            raise ValueError(f"expires {self.expires} is not after date {self.date}")
        return self


class RemediationSpec(StrictModel):
    method: str | None = None
    options: dict[str, Any] = Field(default_factory=dict)


class PolicyModel(StrictModel):
    version: Literal[1]
    name: str
    data: DataOptions = Field(default_factory=DataOptions)
    columns: dict[str, ColumnSpec]
    checks: list[CheckSpec] = Field(default_factory=list)
    report: ReportOptions = Field(default_factory=ReportOptions)
    remediation: RemediationSpec | None = None
    utility: list[str | dict[str, dict[str, Any]]] | None = Field(
        default=None,
        description="The utility measures to compute (the registered ones: privaudit plugins), each a name or "
        "{name: {option: value}} (classification_accuracy: {target: COLUMN}); absent: every measure whose inputs "
        "are present; []: none.",
    )
    check_timeout: float | None = Field(
        default=None,
        gt=0,
        le=1e6,
        allow_inf_nan=False,
        description="Seconds a check may run; one that runs longer ends as an error "
        "(--check-timeout overrides it). None: no limit.",
    )
    exceptions: list[ExceptionSpec] = Field(
        default_factory=list,
        description="Failing checks accepted on the record (check, justification, approver, date, expires, "
        "max_value): a failing warning check, or an error check when allow_error_exceptions is true, that an "
        "exception in force covers does not fail the audit; reports list every exception beside the sign-off.",
    )
    allow_error_exceptions: bool = Field(
        default=False, description="Let exceptions accept failing checks of severity error (default: warnings only)."
    )
    combinations: CombinationRules | None = Field(
        default=None,
        description="Which combinations of quasi-identifiers must be safe, as µ-ARGUS specifies them: rules "
        "(up_to, sizes, levels or columns, each with k) and max_combinations (core/combinations.py).",
    )
    context: ReleaseContextSpec | None = Field(
        default=None,
        description="The release's context (release_model, recipient, controls, invasion_of_privacy, "
        "motives_capacity; threshold, signer, role, conditions, review_date): privaudit derives the "
        "re-identification risk threshold from it (El Emam's table, docs/determination.md).",
    )
    release: Literal["microdata", "synthetic"] = Field(
        default="microdata",
        description="synthetic: a table generated from a training table; without any of "
        "the synthetic-release checks listed, they are added with their default thresholds (each such assessor's "
        "declared synthetic_default).",
    )


def _loc(loc: tuple) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def format_validation_error(exc: ValidationError, prefix: str, fields: list[str] | None = None) -> str:
    """One line naming the first offending field of a pydantic error (unknown fields first: a typo
    usually also explains the "missing" error of the field that was meant)."""
    errors = sorted(exc.errors(), key=lambda e: e["type"] != "extra_forbidden")
    err = errors[0]
    loc = _loc(tuple(p for p in err["loc"] if p not in ("function-after",)))
    if err["type"] == "extra_forbidden":
        msg = "unknown field"
        close = difflib.get_close_matches(str(err["loc"][-1]), fields or [], n=1)
        if close:
            msg += f" (did you mean {close[0]!r}?)"
        elif fields:
            msg += f" (allowed: {', '.join(fields)})"
    elif err["type"] == "missing":
        msg = "required field is missing"
    else:
        msg = err["msg"].removeprefix("Value error, ")
        if "input" in err and err["type"] not in ("model_type", "dict_type"):
            msg += f" (got {err['input']!r})"
    more = len(errors) - 1
    return f"{prefix}: {loc}: {msg}" + (f" (and {more} more problem{'s' * (more > 1)})" if more else "")


#: the most checks a policy may hold (10,000 checks of one policy ran for minutes)
MAX_CHECKS = 1_000


class Check:
    """A resolved check: its id, severity, assessor and validated parameters."""

    def __init__(
        self, id: str, assessor: AssessorView, severity: str, params: Params, quasi_identifiers: list[str] | None = None
    ):
        self.id = id
        self.assessor = assessor
        self.severity = severity
        self.params = params
        self.quasi_identifiers = quasi_identifiers  # an attacker scenario (None: every quasi-identifier)

    def __repr__(self) -> str:
        return f"Check({self.id!r}, {self.assessor.name!r})"


class Policy:
    """A loaded and validated policy with resolved hierarchies and checks."""

    def __init__(
        self,
        model: PolicyModel,
        path: Path,
        sha256: str,
        registry: Registry,
        allow_outside_paths: bool = False,
        source: bytes = b"",
    ):
        self.model = model
        self.path = path
        self.sha256 = sha256
        self.source = source  # the bytes sha256 is of: the file, or a dict policy's canonical JSON (the PDF embeds it)
        self.name = model.name
        self.columns = model.columns
        self.data = model.data
        self.report = model.report
        self.folder = path.parent.resolve()
        self.allow_outside_paths = allow_outside_paths
        self.registry = registry  # the plugins this policy was resolved against: reports draw its checks with them
        self.hierarchies: dict[str, Hierarchy] = {}
        for column, spec in model.columns.items():
            spec._decimal = model.data.decimal
            if spec.hierarchy is None:
                continue
            if isinstance(spec.hierarchy, dict):
                self.hierarchies[column] = Hierarchy.from_nested(spec.hierarchy, f"{path.name}:columns.{column}")
            else:
                self.hierarchies[column] = Hierarchy.from_csv(
                    self.resolve_path(spec.hierarchy, f"columns.{column}.hierarchy"), spec.hierarchy
                )
        self.utility, self.utility_options = self._resolve_utility(registry)
        self.combinations: list[Combination] | None = None
        if model.combinations is not None:
            found, problem = resolve_combinations(model.combinations, self.quasi_identifiers, model.columns)
            if problem:
                raise PolicyError(f"{path}: combinations.{problem}")
            self.combinations = found
        #: the threshold the ``context:`` block implies, and per bound check whether the context supports it
        self.threshold: DerivedThreshold | None = None if model.context is None else derive_threshold(model.context)
        self.context_findings: list[dict[str, Any]] = []
        if model.context is not None and model.context.threshold is not None and self.threshold is not None:
            self.context_findings.append(judge_threshold(model.context.threshold, self.threshold))
        self.checks = self._resolve_checks(registry)
        self.exceptions = self._resolve_exceptions(registry)

    def _resolve_utility(self, registry: Registry) -> tuple[list[str] | None, dict[str, dict[str, Any]]]:
        """The ``utility`` field: the measures named (None: the default set; the registry says which the audit
        computes) and their options."""
        if self.model.utility is None:
            return None, {}
        known = registry.utility_measures
        names: list[str] = []
        options: dict[str, dict[str, Any]] = {}
        for index, item in enumerate(self.model.utility):
            if isinstance(item, dict):
                if len(item) != 1:
                    raise PolicyError(
                        f"{self.path}: utility[{index}]: give one measure per item, as {{name: {{option: value}}}}"
                    )
                ((name, opts),) = item.items()
            else:
                name, opts = item, {}
            if name not in known:
                raise PolicyError(
                    f"{self.path}: utility[{index}]: unknown utility measure {name!r}{did_you_mean(name, known)} "
                    f"(available: {', '.join(known)})"
                )
            if name in names:
                raise PolicyError(f"{self.path}: utility[{index}]: {name!r} is listed twice")
            if not isinstance(opts, dict):
                raise PolicyError(f"{self.path}: utility[{index}].{name}: options are a mapping option: value")
            target = opts.get("target")
            if target is not None and target not in self.model.columns:
                raise PolicyError(
                    f"{self.path}: utility[{index}].{name}.target: {target!r} is not a column of the policy"
                    f"{did_you_mean(target, self.model.columns)}"
                )
            names.append(name)
            options[name] = dict(opts)
        return names, options

    # ---------------------------------------------------------------- columns by role
    def columns_with(self, role: str) -> list[str]:
        return [name for name, spec in self.columns.items() if spec.role == role]

    @property
    def quasi_identifiers(self) -> list[str]:
        if self.scenario is not None:
            return list(self.scenario)
        return self.columns_with("quasi_identifier")

    scenario: tuple[str, ...] | None = None  # set on the copies made by for_scenario

    def for_scenario(self, quasi_identifiers: list[str]) -> Policy:
        """This policy as an intruder who knows only ``quasi_identifiers`` sees it (a check's scenario):
        a shallow copy whose quasi-identifiers are that subset."""
        clone = copy.copy(self)
        clone.scenario = tuple(quasi_identifiers)
        return clone

    @property
    def sensitive(self) -> list[str]:
        return self.columns_with("sensitive")

    def suppression_codes(self) -> dict[str, str]:
        """Per column with ``missing_codes.suppressed``, the first: how a suppressed cell is written back."""
        return {
            c: s.missing_codes.suppressed[0]
            for c, s in self.columns.items()
            if s.missing_codes and s.missing_codes.suppressed
        }

    @property
    def missing_tokens(self) -> list[str]:
        return list(dict.fromkeys([*ALWAYS_MISSING, *self.data.missing]))

    def resolve_path(self, relative: str, field: str) -> Path:
        """Resolve a path written in the policy (relative to the policy's folder)."""
        candidate = (self.folder / relative).resolve()
        if not self.allow_outside_paths and not candidate.is_relative_to(self.folder):
            raise PolicyError(
                f"{self.path}: {field}: path {relative!r} leads outside the policy's folder "
                "(use --allow-outside-paths to permit it)"
            )
        if candidate.exists() and not candidate.is_file():
            kind = "a directory" if candidate.is_dir() else "not a regular file (a device, FIFO or socket)"
            raise PolicyError(f"{self.path}: {field}: {relative!r} is {kind}")
        return candidate

    # ---------------------------------------------------------------- checks
    def _check_specs(self, registry: Registry) -> list[CheckSpec]:
        """The policy's checks; with ``release: synthetic`` and none of the synthetic checks listed, the
        synthetic-release checks (assessors declaring a ``synthetic_default``) are appended with their default
        thresholds (those the columns allow), in registry order."""
        specs = list(self.model.checks)
        defaults = {
            name: a.synthetic_default for name, a in registry.assessors.items() if a.synthetic_default is not None
        }
        if self.model.release != "synthetic" or any(c.assessor in defaults for c in specs):
            return specs
        for name, default in defaults.items():
            if default.applies is None or default.applies(self):
                specs.append(CheckSpec.model_validate({"assessor": name, **default.params}))
        return specs

    def _resolve_checks(self, registry: Registry) -> list[Check]:
        checks: list[Check] = []
        used: set[str] = set()
        if len(self.model.checks) > MAX_CHECKS:
            raise PolicyError(
                f"{self.path}: checks: {len(self.model.checks):,} checks; a policy holds at most {MAX_CHECKS:,}"
            )
        explicit = [c.id for c in self.model.checks if c.id]
        dupes = {i for i, n in Counter(explicit).items() if n > 1}  # (list.count per id was quadratic)
        if dupes:
            raise PolicyError(f"{self.path}: checks: id {sorted(dupes)[0]!r} is used twice")
        used.update(explicit)
        for index, spec in enumerate(self._check_specs(registry)):
            assessor = registry.assessors.get(spec.assessor)
            if assessor is None:
                raise PolicyError(
                    f"{self.path}: checks[{index}].assessor: unknown assessor {spec.assessor!r}"
                    f"{did_you_mean(spec.assessor, registry.assessors)} (available: {', '.join(sorted(registry.assessors))})"
                )
            given = spec.params
            binding = getattr(assessor, "context_threshold", None) if self.threshold is not None else None
            if binding is not None and self.threshold is not None:
                given = fill_params(given, binding, self.threshold)
            try:
                params = assessor.params.model_validate(given)
            except ValidationError as exc:
                raise PolicyError(
                    format_validation_error(exc, f"{self.path}: checks[{index}]", list(assessor.params.model_fields))
                ) from None
            check_id = spec.id
            if check_id is None:
                check_id, n = spec.assessor, 2
                while check_id in used:
                    check_id, n = f"{spec.assessor}-{n}", n + 1
            used.add(check_id)
            if assessor.class_violations is not None and not self.quasi_identifiers:
                raise PolicyError(
                    f"{self.path}: checks[{index}] ({spec.assessor}): a class-based check needs at "
                    "least one column with role quasi_identifier (with none it would pass vacuously)"
                )
            scenario = spec.quasi_identifiers
            if scenario is not None:
                declared = self.columns_with("quasi_identifier")
                unknown = [c for c in scenario if c not in declared]
                if not scenario or unknown or len(set(scenario)) != len(scenario):
                    what = (
                        _not_a_qi(unknown[0], declared, self.columns)
                        if unknown
                        else "give at least one quasi-identifier"
                        if not scenario
                        else "a column is listed twice"
                    )
                    raise PolicyError(f"{self.path}: checks[{index}].quasi_identifiers: {what}")
            severity = spec.severity or getattr(assessor.params, "DEFAULT_SEVERITY", "error")
            checks.append(Check(check_id, assessor, severity, params, scenario))
            if binding is not None and self.threshold is not None:
                self.context_findings.append(judge(check_id, spec.params, params, binding, self.threshold))
            # plugin code, run guarded by the registry: raising, or sys.exit(), is one line naming the plugin
            problem = registry.validate_check(assessor, params, self)
            if problem:
                raise PolicyError(f"{self.path}: checks[{index}]: {problem}")
        return checks

    def _resolve_exceptions(self, registry: Registry) -> list[ExceptionSpec]:
        """The ``exceptions``, each naming a check the audit runs (one of the policy's, or an always-run one,
        which is of severity error), at most one per check; an error check only with ``allow_error_exceptions``;
        ``max_value`` only for a check whose parameters say which way its value improves (``better``)."""
        severity = {c.id: c.severity for c in self.checks}
        better = {c.id: getattr(c.params, "better", None) for c in self.checks}
        named = {c.assessor.name for c in self.checks}
        for name, a in registry.assessors.items():
            if getattr(a, "always", False) and name not in named and name not in severity:
                severity[name], better[name] = "error", getattr(a.params, "better", None)
        seen: set[str] = set()
        for index, spec in enumerate(self.model.exceptions):
            where = f"{self.path}: exceptions[{index}]"
            if spec.check not in severity:
                raise PolicyError(
                    f"{where}.check: {spec.check!r} is not a check of the policy{did_you_mean(spec.check, severity)} "
                    f"(checks: {', '.join(severity)})"
                )
            if spec.check in seen:
                raise PolicyError(f"{where}.check: check {spec.check!r} has two exceptions; keep one")
            seen.add(spec.check)
            if severity[spec.check] == "error" and not self.model.allow_error_exceptions:
                raise PolicyError(
                    f"{where}.check: {spec.check!r} is a check of severity error; excepting it needs "
                    "allow_error_exceptions: true in the policy"
                )
            if spec.max_value is not None and better[spec.check] not in ("higher", "lower"):
                raise PolicyError(
                    f"{where}.max_value: check {spec.check!r} does not say which way its value improves, "
                    "so no bound can be held to it"
                )
        return list(self.model.exceptions)


def _not_a_qi(name: str, declared: list[str], columns: dict[str, Any]) -> str:
    """Why a scenario's column is refused: a typo of a quasi-identifier, or a column of another role."""
    listed = f"quasi-identifiers: {', '.join(declared)}"
    if name in columns:
        return f"{name!r} is not a quasi-identifier (its role is {columns[name].role!r}; {listed})"
    return f"{name!r} is not a quasi-identifier, nor any column of the policy{did_you_mean(name, declared)} ({listed})"


def with_check_overrides(policy: Policy, overrides: dict[str, dict[str, Any]]) -> Policy:
    """A copy of ``policy`` whose named checks get updated (re-validated) parameters."""
    if not overrides:
        return policy
    clone = copy.copy(policy)
    checks = []
    for check in policy.checks:
        if check.id in overrides:
            params = check.assessor.params.model_validate({**check.params.model_dump(), **overrides[check.id]})
            check = Check(check.id, check.assessor, check.severity, params, check.quasi_identifiers)
        checks.append(check)
    clone.checks = checks
    return clone


def with_columns(policy: Policy, overrides: dict[str, dict[str, Any]]) -> Policy:
    """A copy of ``policy`` whose named columns are retyped and given a hierarchy (a built one):
    ``{column: {"type": ..., "hierarchy": Hierarchy, "file": name}}``."""
    if not overrides:
        return policy
    clone = copy.copy(policy)
    columns = dict(policy.columns)
    hierarchies = dict(policy.hierarchies)
    for column, change in overrides.items():
        columns[column] = columns[column].model_copy(
            update={"type": change["type"], "order": None, "hierarchy": change["file"]}
        )
        hierarchies[column] = change["hierarchy"]
    clone.model = policy.model.model_copy(update={"columns": columns})
    clone.columns = columns
    clone.hierarchies = hierarchies
    return clone


class _UniqueKeyLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """Safe loader that refuses duplicate mapping keys (a silent override hides policy mistakes). libyaml's
    parser where PyYAML has it: the pure-Python one is too slow on a policy of thousands of checks."""


def _construct_mapping(loader: yaml.SafeLoader, node: yaml.MappingNode, deep: bool = False) -> dict:
    seen = set()
    for key_node, _ in node.value:
        if key_node.tag == "tag:yaml.org,2002:merge":  # ``<<: *base``: merged keys may be overridden
            continue
        key = loader.construct_object(key_node, deep=deep)
        if key in seen:
            raise yaml.constructor.ConstructorError(None, None, f"duplicate key {key!r}", key_node.start_mark)
        seen.add(key)
    return loader.construct_mapping(node, deep=deep)


_UniqueKeyLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def read_policy_document(path: Path) -> tuple[dict, str, bytes]:
    """Parse the YAML file safely; return the document, the file's SHA-256 and its bytes."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise PolicyError(f"{path}: policy file not found") from None
    except IsADirectoryError:
        raise PolicyError(f"{path}: is a directory, not a policy file") from None
    except OSError as exc:
        raise PolicyError(f"{path}: cannot be read ({exc.strerror})") from None
    sha = hashlib.sha256(raw).hexdigest()
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise PolicyError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    try:
        doc = yaml.load(text, Loader=_UniqueKeyLoader)  # noqa: S506 - a SafeLoader subclass
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        raise PolicyError(f"{path}: YAML syntax error{where}: {exc.problem or exc.context}") from None
    except yaml.YAMLError as exc:
        raise PolicyError(f"{path}: YAML error: {exc}") from None
    except RecursionError:
        raise PolicyError(f"{path}: YAML nested too deeply") from None
    if not isinstance(doc, dict):
        raise PolicyError(f"{path}: a policy must be a YAML mapping (got {type(doc).__name__})")
    problem = expansion_problem(doc)
    if problem:
        raise PolicyError(f"{path}: {problem}")
    return doc, sha, raw


MAX_EXPANDED_NODES = 200_000


def expansion_problem(doc: Any) -> str | None:
    """YAML aliases let a small file stand for a huge or cyclic structure ("billion laughs"). Count the
    nodes the document expands to, sharing work between aliased objects, and refuse runaway ones."""
    sizes: dict[int, int] = {}
    on_path: set[int] = set()

    def size(obj: Any, depth: int) -> int:
        if not isinstance(obj, (dict, list)):
            return 1
        key = id(obj)
        if key in sizes:
            return sizes[key]
        if key in on_path:
            raise _Runaway("an alias refers to itself (a cyclic structure)")
        if depth > 100:
            raise _Runaway("YAML nested too deeply (over 100 levels)")
        on_path.add(key)
        items = obj.values() if isinstance(obj, dict) else obj
        total = 1
        for item in items:
            total += size(item, depth + 1)
            if total > MAX_EXPANDED_NODES:
                raise _Runaway(f"YAML expands to over {MAX_EXPANDED_NODES:,} values (alias bomb?)")
        on_path.discard(key)
        sizes[key] = total
        return total

    try:
        size(doc, 0)
    except _Runaway as exc:
        return str(exc)
    return None


class _Runaway(Exception):
    pass


def load_policy(path: str | Path, registry: Registry, allow_outside_paths: bool = False) -> Policy:
    """Read, validate and resolve a policy file against the assessors of ``registry`` (see
    :func:`privaudit.pipeline.plugins.get_registry`). Raises PolicyError/HierarchyError with one-line messages."""
    path = Path(path)
    doc, sha, raw = read_policy_document(path)
    return _validated(doc, path, sha, raw, registry, allow_outside_paths)


def policy_from_dict(
    doc: dict, registry: Registry, folder: str | Path | None = None, allow_outside_paths: bool = False
) -> Policy:
    """A policy from a dict in the YAML file's shape (``version`` and ``name`` may be left out). Paths in it
    are relative to ``folder`` (default: the working directory); its fingerprint is the SHA-256 of its
    canonical JSON form."""
    doc = {"version": 1, "name": "policy given as a dict", **doc}
    try:
        canonical = json.dumps(doc, sort_keys=True, default=str).encode()
    except (TypeError, ValueError) as exc:
        raise PolicyError(f"<dict policy>: not a plain mapping of names, numbers and lists ({exc})") from None
    path = Path(folder or Path.cwd()) / "<dict policy>"
    problem = expansion_problem(doc)
    if problem:
        raise PolicyError(f"<dict policy>: {problem}")
    return _validated(doc, path, hashlib.sha256(canonical).hexdigest(), canonical, registry, allow_outside_paths)


def _validated(doc: dict, path: Path, sha: str, source: bytes, registry: Registry, allow_outside_paths: bool) -> Policy:
    try:
        model = PolicyModel.model_validate(doc)
    except ValidationError as exc:
        raise PolicyError(format_validation_error(exc, str(path))) from None
    except RecursionError:
        raise PolicyError(f"{path}: YAML nested too deeply") from None
    return Policy(model, path, sha, registry, allow_outside_paths, source=source)
