"""The library and notebook API: ``privaudit.audit(...)``, ``privaudit.remediate(...)`` and
``privaudit.explore(...)`` (the risk-utility map of candidate remediations).

    import privaudit
    report = privaudit.audit(frame, {"columns": {...}, "checks": [...]})
    report.passed, report.exit_code, report.checks[0].value
    report.to_dict(); report.to_html(); report.to_pdf("audit.pdf"); report.records()
    report            # in a notebook: the verdict and the checks, drawn by _repr_html_

``data`` is a path (file, directory, glob or URI), a pandas DataFrame or a pyarrow Table (no temporary
file is written), a DuckDB connection with ``table="NAME"`` (the duckdb engine) or a Spark DataFrame (the
spark engine); ``policy`` a path, a dict in the YAML file's shape, or a loaded Policy. Bad input raises
:class:`privaudit.core.errors.PrivauditError` with the one-line message the command line prints.

    privaudit.audit(duckdb_connection, policy, table="lake.release")   # engine="duckdb" implied
    privaudit.audit(spark_frame, policy)                                # engine="spark" implied
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from privaudit.plugin.result import Report, ReportCheck

if TYPE_CHECKING:  # pragma: no cover - types only: the library imports its heavy parts on first use
    import pandas as pd

    from privaudit.pipeline.audit import AuditResult


#: one check's result, as the JSON report states it: the report's own typed check
CheckView = ReportCheck


class AuditReport:
    """The result of :func:`audit`: the verdict, the checks and every report format."""

    def __init__(self, result: AuditResult) -> None:
        self.result = result

    @property
    def passed(self) -> bool:
        return bool(self.result.passed)

    @property
    def exit_code(self) -> int:
        return int(self.result.exit_code)

    @property
    def checks(self) -> list[ReportCheck]:
        """The checks as the JSON report states them (:class:`~privaudit.plugin.result.ReportCheck`)."""
        return list(self.report.checks)

    @property
    def report(self) -> Report:
        """The typed report of the audit (:class:`~privaudit.plugin.result.Report`), built once and read by
        every format below."""
        from privaudit.report.json_report import report_of

        return report_of(self.result)

    @property
    def utility(self) -> list[dict[str, Any]]:
        """What the release keeps: the JSON report's ``utility`` entries ``{measure, column, value, raw,
        details}`` (:mod:`privaudit.utility`)."""
        return [u.to_dict() for u in self.report.utility or []]

    def to_dict(self) -> dict[str, Any]:
        """The JSON report as a dict."""
        return self.report.to_dict()

    def to_json(self) -> str:
        from privaudit.report.json_report import render_json

        return render_json(self.report)

    def to_html(self) -> str:
        """The self-contained HTML report."""
        from privaudit.report.html import render_html

        return render_html(self.result)

    def to_pdf(self, path: str | Path) -> None:
        """Write the PDF report to ``path`` (a file, ``-`` or a device, as the command line writes)."""
        from privaudit.report.pdf import render_audit_pdf
        from privaudit.runtime.atomic import write_output

        write_output(path, render_audit_pdf(self.result))

    def records(self) -> pd.DataFrame:
        """Per-record risk as a DataFrame (:mod:`privaudit.report.records`)."""
        from privaudit.report.records import records_frame

        return records_frame(self.result)

    def _repr_html_(self) -> str:
        """What a notebook shows: the verdict, one row per check and each check's chart (escaped)."""
        from privaudit.report.notebook import render_notebook

        return render_notebook(self.result)

    def __repr__(self) -> str:
        return f"<AuditReport {'PASS' if self.passed else 'FAIL'}: {len(self.result.checks)} checks>"


def _engine_for(data: Any, engine: str | None, options: dict[str, Any]) -> tuple[Any, str]:
    """The engine ``data`` needs when ``engine`` is None: a DuckDB connection (moved to ``connection=``)
    or ``connection=`` -> duckdb, a Spark DataFrame or ``spark=`` -> spark, anything else in-process (the
    call forms of README.md and docs/locations.md; the engines' ``summarize`` take these as options)."""
    from privaudit.core.errors import DataError

    module = type(data).__module__ or ""
    if module.split(".")[0] in ("duckdb", "_duckdb") and type(data).__name__ == "DuckDBPyConnection":
        if options.get("connection") is not None:
            raise DataError("a DuckDB connection as data and connection= as well: pass one of them")
        if options.get("table") is None:
            raise DataError(
                'a DuckDB connection needs the table to audit: table="NAME" (a table, view or '
                "schema-qualified name of the connection)"
            )
        options["connection"], data = data, None
    if engine is not None:
        return data, engine
    if options.get("connection") is not None:
        return data, "duckdb"
    if options.get("spark") is not None or (module.startswith("pyspark.") and type(data).__name__ == "DataFrame"):
        return data, "spark"
    return data, "in-process"


def audit(
    data: Any,
    policy: Any,
    original: Any = None,
    control: Any = None,
    engine: str | None = None,
    progress: Any = None,
    previous: Any = None,
    check_timeout: float | None = None,
    today: Any = None,
    **engine_options: Any,
) -> AuditReport:
    """Audit ``data`` against ``policy`` (see the module's docstring). ``check_timeout``: seconds a check may
    run (default: the policy's ``check_timeout``, else no limit); one that runs longer is an error, as is
    any check whose plugin raises or returns what the API does not allow (``docs/faults.md``). ``engine``: ``None`` (default) is
    ``in-process``, or ``duckdb`` for a DuckDB connection (as ``data`` or ``connection=``) and ``spark`` for a
    Spark DataFrame (or ``spark=``); ``engine_options`` are the engine's (``docs/locations.md``).
    ``progress``: ``None`` draws tqdm bars in a notebook (``privaudit[notebook]``), nothing elsewhere;
    ``True``/``False`` force them on or off; a callable ``f(label, done, total)`` receives the progress
    instead. ``previous``: earlier releases of the same population (a list of paths or frames), for the
    checks that compose releases (linked as :mod:`privaudit.pipeline.series` says). ``today``: the day the
    policy's exceptions are judged on (a date or ``"YYYY-MM-DD"``; default ``SOURCE_DATE_EPOCH``'s day, else
    today; :mod:`privaudit.pipeline.exceptions`)."""
    from privaudit.pipeline.arguments import CHECK_TIMEOUT, ENGINE, POLICY, PROGRESS, TODAY, optional
    from privaudit.pipeline.audit import run_audit
    from privaudit.runtime.progress import api_progress

    POLICY.value(policy)  # every argument the command line validates, validated alike before any work
    check_timeout, engine = optional(CHECK_TIMEOUT, check_timeout), optional(ENGINE, engine)
    today = optional(TODAY, today)
    data, engine = _engine_for(data, engine, engine_options)
    bar = api_progress(PROGRESS.value(progress))
    try:
        if previous is not None and not isinstance(previous, (list, tuple)):
            previous = [previous]
        return AuditReport(
            run_audit(
                data,
                policy,
                original=original,
                control=control,
                engine=engine,
                progress=bar,
                previous=previous or None,
                check_timeout=check_timeout,
                today=today,
                **engine_options,
            )
        )
    finally:
        if bar is not None and hasattr(bar, "close"):
            bar.close()


def diff(
    base: Any,
    new: Any,
    tolerance: str | float | None = None,
    allow_changed_policy: bool = False,
    fail_on: str = "error",
) -> dict[str, Any]:
    """Compare two audits as ``privaudit diff`` does (:mod:`privaudit.report.diff`): ``base`` and ``new`` are
    JSON report files, report dicts or :class:`AuditReport` objects; ``tolerance`` absolute (0.01) or a
    percentage (``"5%"``); ``fail_on="warning"``: warning checks can regress too. Returns the comparison
    (``regressions``, ``exit_code``, ``checks`` ...); reports of different policies raise
    :class:`~privaudit.core.errors.PrivauditError` unless ``allow_changed_policy``."""
    import os

    from privaudit.core.errors import PrivauditError
    from privaudit.pipeline.arguments import ALLOW_CHANGED_POLICY, FAIL_ON, TOLERANCE
    from privaudit.report.diff import NO_TOLERANCE, compare
    from privaudit.report.diff_input import checked_report, read_report

    parsed = NO_TOLERANCE if tolerance is None else TOLERANCE.value(tolerance)
    allowed, judged = ALLOW_CHANGED_POLICY.value(allow_changed_policy), FAIL_ON.value(fail_on)

    def report_of(item: Any, label: str) -> tuple[dict[str, Any], str]:
        if isinstance(item, AuditReport):
            return item.to_dict(), f"{label} audit"
        if isinstance(item, dict):
            return checked_report(item, f"<{label} report>"), f"<{label} report>"
        if isinstance(item, (str, os.PathLike)):
            return read_report(item, label), str(item)
        raise PrivauditError(
            f"{label}: a JSON report's path, a report dict or an AuditReport, got {type(item).__name__}"
        )

    (b, bname), (n, nname) = report_of(base, "base"), report_of(new, "new")
    return compare(b, n, parsed, allowed, (bname, nname), judged)


def determination(
    released: Any = None,
    policy: Any = None,
    original: Any = None,
    report: str | Path | None = None,
    signer: str | None = None,
    role: str | None = None,
    conditions: Any = None,
    review_date: Any = None,
    date: Any = None,
    **audit_options: Any,
) -> Any:
    """The de-identification determination of ``released`` against ``original``, as ``privaudit determination``
    writes it (:mod:`privaudit.pipeline.determination`): from an audit run here (``released``, ``policy`` and
    :func:`audit`'s keywords, ``previous``, ``today`` ...) or from the JSON report ``report``. The signature
    block's ``signer``, ``role``, ``conditions`` and ``review_date`` default to the policy's ``context``.
    Returns a :class:`~privaudit.pipeline.determination.Determination`: ``.figures``, ``.very_small``,
    ``.to_html()``, ``.to_pdf()``, ``.to_docx()``."""
    from privaudit.pipeline.determination import determine, signer_options

    options = signer_options(signer, role, conditions, review_date, date)
    return determine(released, policy, original, report, options, **audit_options)


@dataclass
class RemediationReport:
    """The result of :func:`remediate`: the audits before and after, and the remediated table."""

    before: AuditReport
    after: AuditReport
    table: Any  # pandas DataFrame of the remediated records
    offered: bool  # True when the re-audit passed (the command line writes the table only then)
    #: what each variable lost (``remediation.lost`` of the JSON report: kept, recoded, deleted, cells changed)
    lost: dict[str, Any] | None = None
    #: the input already passes: it was not transformed (``table`` is the input, ``after`` its own audit)
    no_change_needed: bool = False
    #: with ``recipe=``: the input, then each step's re-audit (``remediation.recipe.steps`` of the JSON report)
    steps: list[dict[str, Any]] | None = None

    def _repr_html_(self) -> str:
        if self.no_change_needed:
            return "<p>no change needed: the table already passes the policy</p>" + self.after._repr_html_()
        return (
            f"<p>remediation {'offered' if self.offered else 'not offered: its re-audit fails'}</p>"
            + self.after._repr_html_()
        )


def remediate(
    data: Any,
    policy: Any,
    method: str | None = None,
    progress: Any = None,
    even_if_passing: bool = False,
    recipe: Any = None,
    original: Any = None,
    **options: Any,
) -> RemediationReport:
    """Transform ``data`` with ``method`` (or the policy's) and re-audit it; nothing is written. ``options``
    are the method's (``privaudit remediate --list``); ``progress`` as for :func:`audit`. ``data`` that already
    passes is left as it is (``no_change_needed``, not offered), unless ``even_if_passing``. ``recipe`` (a
    recipe file's path, or its steps as a list of ``{"method": ..., "options": {...}}``) runs several methods
    in sequence, each step re-audited against ``original`` (default ``data``): ``steps`` holds their figures."""
    from privaudit.core.errors import PrivauditError
    from privaudit.pipeline.arguments import POLICY, PROGRESS
    from privaudit.pipeline.remediate import remediate as run
    from privaudit.runtime.progress import api_progress

    POLICY.value(policy)
    if recipe is not None and (method is not None or options):
        raise PrivauditError("recipe= names its methods and their options in its steps: give no method= or options")
    if recipe is None and original is not None:
        raise PrivauditError("original= is an argument of recipe=")
    bar = api_progress(PROGRESS.value(progress))
    try:
        if recipe is not None:
            from privaudit.pipeline.recipe import run_recipe

            outcome = run_recipe(
                data,
                policy,
                "remediated.csv",
                recipe,
                original=original,
                progress=bar,
                side_dir=False,
                even_if_passing=bool(even_if_passing),
            )
        else:
            outcome = run(
                data,
                policy,
                "remediated.csv",
                method=method,
                options=options,
                progress=bar,
                side_dir=False,
                even_if_passing=bool(even_if_passing),
            )
    finally:
        if bar is not None and hasattr(bar, "close"):
            bar.close()
    after = AuditReport(outcome.after)
    remediation = after.report.remediation
    lost = None if remediation is None or remediation.lost is None else remediation.lost.to_dict()
    steps = None
    if remediation is not None and remediation.recipe is not None:
        steps = [s.to_dict() for s in remediation.recipe.steps]
    return RemediationReport(
        AuditReport(outcome.before),
        after,
        outcome.remediation.table,
        outcome.offered,
        lost,
        outcome.no_change_needed,
        steps,
    )


@dataclass
class ExploreReport:
    """The result of :func:`explore`: the candidates of the risk-utility map and the recommended release.

    ``candidates`` are the JSON report's ``explore.candidates`` (method, options, risk, utility,
    checks_failed, passes, frontier ...); ``recommended`` the index of the recommended one (None: no candidate
    passes); ``table`` its records (None without a recommendation); ``report`` the report of the recommended
    candidate's audit (of the input when none is recommended), with the map in ``to_html()``."""

    candidates: list[dict[str, Any]]
    recommended: int | None
    risk_measure: str
    utility_measure: str
    table: Any
    report: AuditReport
    #: what the recommended candidate lost, variable by variable (``explore.lost`` of the JSON report)
    lost: dict[str, Any] | None = None
    #: the input already passes: no change needed (``table`` is then the input itself)
    no_change_needed: bool = False

    def _repr_html_(self) -> str:
        return self.report.to_html()


def explore(
    data: Any,
    policy: Any,
    methods: Any = None,
    max_candidates: int | None = None,
    utility: str | None = None,
    progress: Any = None,
    options: dict[str, Any] | None = None,
    check_timeout: float | None = None,
) -> ExploreReport:
    """Evaluate a family of candidate releases of ``data`` (generalization lattice nodes, suppression budgets,
    microaggregation at several k, randomized response where the policy has an RR bound; ``methods``
    narrows them, ``max_candidates`` caps them) and place each on the risk-utility map
    (:mod:`privaudit.pipeline.explore`); nothing is written. ``utility``: the utility axis (default
    ``granularity``, ARX's Loss). ``options``: per option name (or ``"METHOD.NAME"``), a value or a list of
    values to explore, as ``--option NAME=V1,V2``. Every remediator registered, built-in or installed, offers
    its candidates; each runs guarded, ``check_timeout`` seconds at most (default the policy's
    ``check_timeout``), and one that fails is a candidate of its own saying so (``failure``), never
    recommended."""
    from privaudit.pipeline.arguments import MAX_CANDIDATES, METHODS, POLICY, PROGRESS, UTILITY, optional
    from privaudit.pipeline.explore import DEFAULT_MAX_CANDIDATES, explore_release
    from privaudit.runtime.progress import api_progress

    POLICY.value(policy)  # as the command line, before any work
    methods, utility = optional(METHODS, methods), optional(UTILITY, utility)
    cap = DEFAULT_MAX_CANDIDATES if max_candidates is None else MAX_CANDIDATES.value(max_candidates)
    bar = api_progress(PROGRESS.value(progress))
    try:
        found = explore_release(
            data,
            policy,
            "explored.csv",
            methods,
            cap,
            utility,
            progress=bar,
            side_dir=False,  # nothing is written: no file to name
            options=options,
            check_timeout=check_timeout,
        )
    finally:
        if bar is not None and hasattr(bar, "close"):
            bar.close()
    ex = found.exploration
    table = None if ex.recommended is None else ex.candidates[ex.recommended].table
    report = AuditReport(found.report)
    explored = report.report.explore
    assert explored is not None  # exploring always writes the map
    return ExploreReport(
        [c.to_dict() for c in explored.candidates],
        ex.recommended,
        explored.risk_measure,
        ex.utility_measure,
        table,
        report,
        None if explored.lost is None else explored.lost.to_dict(),
        bool(explored.no_change_needed),
    )
