"""The hooks privaudit calls. Built-in assessors and remediators use them exactly as a third party does.

A plugin is a module or object with functions decorated by :data:`privaudit.hookimpl` whose names match
the specifications below. Third-party plugins are found through the ``privaudit`` entry-point group::

    [project.entry-points.privaudit]
    beta_likeness = "privaudit_likeness.beta_likeness"

(that is the entry point of the example plugin package in ``plugins/privaudit-likeness/``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:  # pragma: no cover - the types of the plugin boundary, without importing them at run time
    from privaudit.plugin.assessor import Assessor
    from privaudit.plugin.remediator import Remediator

hookspec = pluggy.HookspecMarker("privaudit")
hookimpl = pluggy.HookimplMarker("privaudit")


@hookspec
def privaudit_assessors() -> list[Assessor]:
    """Return the :class:`~privaudit.plugin.assessor.Assessor` objects this plugin provides.

    Called once when the plugin registry is built. Each assessor's ``name`` must be unique across all
    installed plugins; a clash is reported as an error naming both plugins.
    """
    raise NotImplementedError  # a specification: plugins implement it


@hookspec
def privaudit_remediators() -> list[Remediator]:
    """Return the :class:`~privaudit.plugin.remediator.Remediator` objects this plugin provides.

    A remediator transforms a failing release; the engine re-audits its output against the same policy
    and only offers it when every error-severity check passes. Names must be unique.
    """
    raise NotImplementedError  # a specification: plugins implement it


@hookspec
def privaudit_engines() -> list[Any]:
    """Return the :class:`~privaudit.plugin.engine.Engine` records this plugin provides: who computes the class
    summary of a table (``--engine NAME``). Names must be unique."""
    raise NotImplementedError  # a specification: plugins implement it


@hookspec
def privaudit_readers() -> list[Any]:
    """Return the :class:`~privaudit.plugin.reader.Reader` records this plugin provides: the table formats
    privaudit reads, recognised by suffix and content. Names must be unique."""
    raise NotImplementedError  # a specification: plugins implement it


@hookspec
def privaudit_utility_measures() -> list[Any]:
    """Return the :class:`~privaudit.plugin.measure.Measure` records this plugin provides: what a release
    keeps, each with its name, label and computation. Names must be unique."""
    raise NotImplementedError  # a specification: plugins implement it


@hookspec
def privaudit_report_sections() -> list[Any]:
    """Return the :class:`~privaudit.plugin.sections.Section` records this plugin provides: the report
    section drawn for the checks of one assessor (the record's ``name``). One per assessor; a third party's
    section for a built-in assessor replaces the built-in one.

    ``Section.draw(check, audit)`` receives the check as a :class:`~privaudit.plugin.sections.CheckEntry`: its
    fields (``check.id``, ``check.status``, ``check.value``, ``check.threshold``, ``check.message``,
    ``check.quasi_identifiers``), its parameters as the assessor's ``Params`` object (``check.params.k``) and
    its details as the assessor's ``Details`` object (``check.details.records_below_k``), validated once by the
    report; ``audit`` is the :class:`~privaudit.pipeline.audit.AuditResult`. A draw that raises leaves the
    generic section with a note naming the plugin; checks that ended in ``error`` are not drawn."""
    raise NotImplementedError  # a specification: plugins implement it


@hookspec
def privaudit_report_chapters() -> list[Any]:
    """Return the :class:`~privaudit.plugin.chapter.Chapter` records this plugin provides: a chapter of the
    HTML and PDF reports, drawn from the run's result. Names must be unique."""
    raise NotImplementedError  # a specification: plugins implement it


@hookspec
def privaudit_output_formats() -> list[Any]:
    """Return the :class:`~privaudit.plugin.output.OutputFormat` records this plugin provides: a file the
    audit writes from its result (``--junit``, ``--sarif`` ...). Names must be unique."""
    raise NotImplementedError  # a specification: plugins implement it
