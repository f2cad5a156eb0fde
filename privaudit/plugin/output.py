"""Output formats: a file a report-writing command (``privaudit audit``, ``privaudit remediate``) writes from its
result, one command-line flag each (``--json OUT``, ``--junit OUT`` ...).

An :class:`OutputFormat` is registered through the ``privaudit_output_formats`` hook (see
:mod:`privaudit.plugin.hookspecs`), the built-in ones (``privaudit/report/formats/``) exactly as a third party
registers its own. The command line builds its flags from the registry: a format named ``toml`` adds
``--toml OUT`` to ``privaudit audit --help``. The command refuses an output path that is empty, one of its
inputs, or given for two outputs, before any work (:mod:`privaudit.cli.outputs`); renders every output before
writing any; and writes each one atomically (:mod:`privaudit.runtime.atomic`): a format only renders.

``render(result, request)`` receives the run's :class:`~privaudit.pipeline.audit.AuditResult` and an
:class:`OutputRequest` and returns the file's text (written as UTF-8) or bytes. The module that registers a
format is imported whenever the registry is built (``privaudit --help`` included): import heavy libraries inside
``render``, not at module level.

Example::

    from privaudit import hookimpl
    from privaudit.plugin.output import OutputFormat

    def _toml(result, request):
        report = request.report()  # the run's typed report, built once for every format of the run
        return f'verdict = "{"pass" if report.summary.passed else "fail"}"\\n'

    @hookimpl
    def privaudit_output_formats():
        return [OutputFormat("toml", "write the verdict as TOML here", _toml, suffix=".toml")]
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from privaudit.plugin.result import Report

_NAME = re.compile(r"[a-z][a-z0-9]*(-[a-z0-9]+)*")


@dataclass
class OutputRequest:
    """One output asked for on the command line: ``path`` where it goes (``-``: standard output), ``fail_on``
    which failing checks fail the run (``"error"`` or ``"warning"``: a CI format marks failures by it),
    ``result`` the run's result, ``reporter`` what computes its JSON report's data. What the formats of one run
    share (the JSON report's data, the HTML page a PDF is made from) is computed once, in ``cache``, which the
    outputs of one run share: :meth:`shared`, :meth:`report`."""

    path: str
    fail_on: str = "error"
    result: Any = field(default=None, repr=False)
    cache: dict[str, Any] = field(default_factory=dict, repr=False)
    reporter: Callable[[Any], Any] | None = field(default=None, repr=False)

    def shared(self, key: str, make: Callable[[], Any]) -> Any:
        """``make()``, computed once per run for every format that asks for ``key``."""
        if key not in self.cache:
            self.cache[key] = make()
        return self.cache[key]

    def report(self) -> Report:
        """The run's typed report (:class:`~privaudit.plugin.result.Report`, :func:`privaudit.report.json_report.
        report_of`), built once for every format of the run (the command hands ``reporter``: this contract does
        not import the report layer)."""
        if self.reporter is None:
            raise RuntimeError("OutputRequest.report(): no reporter was given to compute the report's data")
        reporter = self.reporter
        report: Report = self.shared("report", lambda: reporter(self.result))
        return report


@dataclass(frozen=True)
class OutputFormat:
    """A file format a report-writing command writes, registered through ``privaudit_output_formats``.

    Attributes:
        name: unique across plugins, lower case (``junit``); the flag is ``--NAME`` and its value ``args.NAME_out``.
        help: the flag's help text in ``--help``.
        render: ``render(result, request) -> str | bytes``: the file's content.
        suffix: the file name's usual suffix (``.xml``), for documentation and suggestions.
        stdout: whether ``-`` (standard output) may be given as the path.
    """

    name: str
    help: str
    render: Callable[[Any, OutputRequest], str | bytes]
    suffix: str = ""
    stdout: bool = True

    def __post_init__(self) -> None:
        if not _NAME.fullmatch(self.name):
            raise ValueError(f"OutputFormat {self.name!r}: a name is lower-case letters, digits and '-'")

    @property
    def flag(self) -> str:
        """The command-line flag: ``--junit``."""
        return f"--{self.name}"

    @property
    def dest(self) -> str:
        """The attribute of the parsed arguments holding its path: ``junit_out``."""
        return f"{self.name.replace('-', '_')}_out"
