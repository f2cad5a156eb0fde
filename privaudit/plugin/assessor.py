"""The assessor API: what a plugin implements to add a risk check.

An :class:`Assessor` couples a name (what policies write in ``checks[].assessor``), a pydantic model of
its parameters (subclass :class:`Params`), a pydantic model of what its findings hold (subclass
:class:`Details`), and a ``run`` function that reads the shared
:class:`~privaudit.core.context.AuditContext` and returns a :class:`Measurement`. What the core and the
remediators need to know about a check they learn from the assessor's declared capabilities
(:class:`ClassRule`, :class:`SampleCriterion`, :class:`SyntheticDefault`, :class:`Disclosure`,
``in_memory_reason``, ``identifier_columns``, grouped by concern in :attr:`Assessor.capabilities`), never from
its name or its parameters' names: a third-party assessor declaring them is treated exactly like a built-in one. Plugins hand
assessors to privaudit through the ``privaudit_assessors`` hook (see :mod:`privaudit.plugin.hookspecs`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict

from privaudit.common.params import Params
from privaudit.core.release_context import ContextThreshold as ContextThreshold

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

    from privaudit.core.context import AuditContext
    from privaudit.core.policy import Policy


class Details(BaseModel):
    """Base of every assessor's details model: what its :attr:`Measurement.details` hold, field by field, as
    the JSON report writes them (infinity as ``"inf"``, which a float field reads back; NaN as null, so a
    figure that may be NaN is ``float | None``). Unknown keys are errors: the audit validates each check's
    details against its assessor's model (a mismatch makes the check an ``error``), ``privaudit report
    schema`` publishes the models, and report sections read fields, not string keys: the report validates a
    check's details against the model once and hands the section the instance (``check.details``, see
    :class:`privaudit.plugin.sections.CheckEntry`)."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


@dataclass(frozen=True)
class ClassRule:
    """What a class-based check asks of every equivalence class, declared for the remediators that steer
    classes (generalization, suppression, microaggregation). Every field is optional; a remediator uses
    the ones it understands and otherwise relies on the check's ``class_violations``.

    Attributes:
        min_size: the class size the check implies (k): a class smaller than this breaks it. None: the check
            implies no class size.
        min_distinct: sensitive column -> fewest distinct values a class must hold (distinct l-diversity's l,
            p-sensitivity's p).
        diversity: sensitive column -> the diversity a class must reach by the check's own measure (an
            l-diversity of any variant), for the remediators that balance a sensitive column.
        max_distance: sensitive column -> the largest distance allowed between a class's distribution of the
            column and the table's (t-closeness's t).
        monotone: the number of records in breaking classes can only fall as classes merge (a merged class is
            at least as large and as diverse as its largest, most diverse part), so suppression may stop early.
        exact: the check's per-class violations are exactly "size < ``min_size``, or fewer than
            ``min_distinct`` distinct values of a column", so a remediator may count them from class sizes
            and distinct counts alone (the lattice's roll-up counters).
        combinations: the check asks the cells of the policy's combination rules (``Policy.combinations``)
            to reach their k, so a remediator that makes those combinations safe steers it.
    """

    min_size: int | None = None
    min_distinct: Mapping[str, float] = field(default_factory=dict)
    diversity: Mapping[str, float] = field(default_factory=dict)
    max_distance: Mapping[str, float] = field(default_factory=dict)
    monotone: bool = False
    exact: bool = False
    combinations: bool = False


@dataclass(frozen=True)
class ResponseBound:
    """What a check bounding the reconstruction of a sensitive value under randomized response declares, for
    the remediator that randomizes columns to meet it: the sensitive column, the quasi-identifiers, the
    largest allowed probability, and ``overrides(keep_probabilities) -> parameters``, the check's parameters
    that publish chosen keep probabilities (column -> probability) so its re-audit knows them."""

    sensitive: str
    quasi_identifiers: tuple[str, ...]
    max_risk: float
    overrides: Callable[[Mapping[str, float]], dict[str, Any]]


@dataclass(frozen=True)
class SampleCriterion:
    """What a check bounding a figure of the whole release (not of each class) declares when that figure is a
    function of the sizes of the classes the release keeps: ARX's sample-based criterion
    (``SampleBasedCriterion``), which the generalizer enforces by suppressing whole classes, smallest first
    (:mod:`privaudit.remediation.generalization.risk_targets`).

    Attributes:
        model: ARX's model, as the report names it (``AverageReidentificationRisk(0.05)``).
        fulfilled: ``fulfilled(sizes) -> bool`` over the sizes of the classes the release keeps (suppressed
            records, and records generalized to the root on every quasi-identifier, left out).
        monotone: holds on every coarser node of the lattice when it holds on a node (without suppression).
        average_risk: the bound the criterion puts on the average prosecutor re-identification risk (classes
            over records), when it is that bound; None otherwise.
    """

    model: str
    fulfilled: Callable[[np.ndarray[Any, Any]], bool]
    monotone: bool = True
    average_risk: float | None = None


@dataclass(frozen=True)
class SyntheticDefault:
    """The check ``release: synthetic`` adds (with these parameters) when a policy lists none of the
    synthetic-release checks; ``applies(policy)`` says whether the policy's columns allow it (None: always).
    Assessors declaring one are the synthetic-release checks; they are added in registry order."""

    params: Mapping[str, Any] = field(default_factory=dict)
    applies: Callable[[Policy], bool] | None = None


@dataclass(frozen=True)
class Disclosure:
    """What a check declares about what a report may show of its findings, so the core masks and withholds
    values by declaration, never by reading a parameter's name.

    Attributes:
        show_values_from: optional ``f(params) -> int | None``: the class size the check guarantees (k of
            k-anonymity); the raw sensitive values of a class are listed in a report only for classes at least
            as large as the largest size any check of the policy declares (or when the policy's
            ``report.show_sensitive_values`` says so). None returned: these parameters guarantee no size.
        sensitive: optional ``f(params) -> columns``: the sensitive columns whose values the check's details
            list (``worst_classes[].sensitive_values``); a report masks those values like the column when the
            scan finds it holds direct identifiers.
    """

    show_values_from: Callable[[Any], int | None] | None = None
    sensitive: Callable[[Any], Sequence[str]] | None = None

    def class_size(self, params: Any) -> int | None:
        """The class size from which these parameters let a report show sensitive values (None: none)."""
        return None if self.show_values_from is None else self.show_values_from(params)

    def sensitive_columns(self, params: Any) -> list[str]:
        """The sensitive columns whose values a check with these parameters lists."""
        return [] if self.sensitive is None else list(self.sensitive(params))


@dataclass(frozen=True)
class Steering:
    """What the remediators read of a check (the ``remediation`` group of :class:`Capabilities`): each member
    is the :class:`Assessor` field of the same name (None when not declared)."""

    class_violations: Callable[[AuditContext, Any], Any] | None
    class_rule: Callable[[Any, Policy], ClassRule | None] | None
    sample_criterion: Callable[[Any, int], SampleCriterion | None] | None
    response_bound: Callable[[Any, Policy], ResponseBound | None] | None


@dataclass(frozen=True)
class Inputs:
    """What a check needs to run (the ``inputs`` group of :class:`Capabilities`): the :class:`Assessor`
    fields ``needs``, ``in_memory_reason``, ``always`` and ``concurrent``."""

    needs: frozenset[str]
    in_memory_reason: Callable[[Any], str | None] | None
    always: bool | Literal["last"]
    concurrent: bool
    uses: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Capabilities:
    """Everything an assessor declares for the core, the reports and the remediators, grouped by concern as
    scikit-learn groups an estimator's tags (``sklearn.utils.Tags``: ``input_tags``, ``target_tags`` ...,
    scikit-learn 1.6). Read as ``assessor.capabilities.<group>``; built from the record's fields, so a record
    declares each capability once, as a field.

    Attributes:
        disclosure: what a report may show of the check's findings (:class:`Disclosure`), and
            ``identifier_columns`` below.
        identifier_columns: the :class:`Assessor` field: the columns the check found holding identifiers.
        remediation: what the remediators steer (:class:`Steering`).
        synthetic: the check a synthetic release gets by default (:class:`SyntheticDefault`), or None.
        inputs: what the check needs to run (:class:`Inputs`).
    """

    disclosure: Disclosure
    identifier_columns: Callable[[dict[str, Any]], Mapping[str, str]] | None
    remediation: Steering
    synthetic: SyntheticDefault | None
    inputs: Inputs


@dataclass(frozen=True)
class Measurement:
    """What an assessor found.

    ``value`` is the figure the report shows, ``threshold`` the policy's bound it is compared with,
    ``passed`` the verdict. ``details`` holds JSON-serialisable figures (see each assessor's docs).
    """

    value: float | int | None
    threshold: Any
    passed: bool
    message: str
    details: dict[str, Any] = field(default_factory=dict)
    #: per-record figures, name -> array over the released records in input order; not in the JSON report,
    #: written by ``--records`` / ``AuditReport.records()`` as the column ``<name>:<check id>``
    per_record: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)


@dataclass(frozen=True)
class Assessor:
    """A risk assessor a policy can name.

    Attributes:
        name: the identifier policies use (``k_anonymity``).
        params: pydantic model (subclass of :class:`Params`) validating the check's parameters.
        run: ``run(ctx, params) -> Measurement``.
        title: human title for reports ("k-anonymity").
        protects: ``"identity"`` (re-identification) or ``"attribute"`` (learning a sensitive value).
        measures: one plain-language sentence of what is measured, for reports.
        formula: the definition, in plain text, for the methodology appendix.
        reference: literature reference.
        needs: inputs beyond the class summary: ``"original"`` (the original table, ``--original``,
            aligned to the release's rows as ``ctx.original``), ``"training"`` (the ``--original`` table as
            loaded, ``ctx.training``: the training table of a synthetic release), ``"control"`` (a holdout
            table, ``--control``, ``ctx.control``), ``"table"`` (the whole released table in memory: not
            available from out-of-memory engines). A check whose input is missing is refused before any
            work, with one line.
        uses: inputs the check reads when they are given but runs without (``"previous"``: the ``--previous``
            releases, ``ctx.series_inputs``): ``--previous`` is then accepted for it, not refused as unread.
        validate_policy: optional ``f(params, policy) -> str | None`` checking the parameters against the
            policy's columns (a returned string is a policy error).
        always: run even when no check names it (``direct_identifiers``): True before the policy's checks,
            ``"last"`` after them (checks of what the policy left out: the policy's own checks keep their places).
        class_violations: optional ``f(ctx, params) -> bool array`` over the classes of ``ctx.summary``:
            True where a class breaks the check. Class-based assessors provide it so remediators
            (generalization, suppression) can treat the check as a per-class constraint.
        concurrent: ``run`` may run beside other checks on another thread: it only reads the context
            (the shared summary, the table) and keeps no state of its own. Such checks run side by side
            once the class summary is built (numpy releases the GIL). Off by default: an assessor opts in.
        details: pydantic model (subclass of :class:`Details`) of what ``Measurement.details`` hold; the
            audit validates every check's details against it, and ``privaudit report schema`` lists it.
            None (only for assessors written before the typed contract) skips the validation.
        class_rule: optional ``f(params, policy) -> ClassRule | None``: what the check asks of every class
            (the class size it implies, distinct values, closeness; see :class:`ClassRule`), so that the
            remediators steer it. Needs ``class_violations``.
        synthetic_default: a :class:`SyntheticDefault` when the assessor is one of the checks a synthetic
            release gets by default.
        in_memory_reason: optional ``f(params) -> str | None``: why the check needs the tables in memory, or
            None when these parameters let it run under an engine that does not load them (it then reads
            ``--original`` itself from ``ctx.files``). Not declared: a check that reads ``--original`` needs
            the tables in memory.
        identifier_columns: optional ``f(details) -> {column: kind}``: the columns the check found holding
            direct identifiers (``email``, ``phone`` ...); every report masks those columns' values in its
            lists of worst classes.
        response_bound: optional ``f(params, policy) -> ResponseBound``: the check bounds the reconstruction of
            a sensitive value under randomized response (the randomizing remediator aims at it).
        sample_criterion: optional ``f(params, n_records) -> SampleCriterion | None``: the check bounds a
            figure of the class sizes of the whole release (see :class:`SampleCriterion`), so the generalizer
            can steer it as an ARX risk-based model; None returned: these parameters compare the release with
            another table (a population table, weights), which the generalizer cannot steer.
        disclosure: what a report may show of the check's findings (:class:`Disclosure`: the class size it
            guarantees, the sensitive columns whose values it lists).
        context_threshold: the check's bound is a re-identification risk threshold: the parameter holding it
            and the measures that are the maximum and average risk (:class:`ContextThreshold`), so the
            policy's ``context:`` block fills it where the check leaves it out, and says whether it supports it.
        standards: what the check stands for in the frameworks a determination cites, as tags:
            ``wp29:singling_out``, ``wp29:linkability``, ``wp29:inference`` (Article 29 WP Opinion 05/2014),
            ``ico:linkage``, ``ico:singling_out``, ``ico:membership``, ``ico:composition``, ``ico:inference``
            (the motivated-intruder attacks it simulates; UK ICO), ``hipaa:safe_harbor``. Empty: the
            determination reads ``protects`` and ``needs``.

    :attr:`capabilities` groups the declared capabilities by concern (:class:`Capabilities`).
    """

    name: str
    params: type[Params]
    run: Callable[[AuditContext, Any], Measurement]
    title: str
    protects: Literal["identity", "attribute"]
    measures: str
    formula: str = ""
    reference: str = ""
    needs: frozenset[str] = frozenset()
    validate_policy: Callable[[Any, Policy], str | None] | None = None
    always: bool | Literal["last"] = False
    class_violations: Callable[[AuditContext, Any], Any] | None = None
    concurrent: bool = False
    details: type[Details] | None = None
    class_rule: Callable[[Any, Policy], ClassRule | None] | None = None
    synthetic_default: SyntheticDefault | None = None
    in_memory_reason: Callable[[Any], str | None] | None = None
    identifier_columns: Callable[[dict[str, Any]], Mapping[str, str]] | None = None
    response_bound: Callable[[Any, Policy], ResponseBound | None] | None = None
    sample_criterion: Callable[[Any, int], SampleCriterion | None] | None = None
    disclosure: Disclosure = field(default_factory=Disclosure)
    uses: frozenset[str] = frozenset()
    context_threshold: ContextThreshold | None = None
    standards: frozenset[str] = frozenset()

    @property
    def capabilities(self) -> Capabilities:
        """The declared capabilities, grouped by concern (:class:`Capabilities`)."""
        return Capabilities(
            disclosure=self.disclosure,
            identifier_columns=self.identifier_columns,
            remediation=Steering(self.class_violations, self.class_rule, self.sample_criterion, self.response_bound),
            synthetic=self.synthetic_default,
            inputs=Inputs(self.needs, self.in_memory_reason, self.always, self.concurrent, self.uses),
        )

    def rule(self, params: Any, policy: Policy) -> ClassRule | None:
        """The :class:`ClassRule` of a check of this assessor (None when it declares none)."""
        return None if self.class_rule is None else self.class_rule(params, policy)
