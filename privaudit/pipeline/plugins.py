"""The plugin host: one list of built-in plugin modules, plus third-party entry points.

Built-ins are registered through the same hooks a third party uses (see :mod:`privaudit.plugin.hookspecs`);
the only difference is where they are listed: :data:`DEFAULT_PLUGINS` below, instead of the
``privaudit`` entry-point group of an installed distribution.
"""

from __future__ import annotations

import importlib
import sys
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import pluggy

from privaudit import __version__
from privaudit.core.errors import PrivauditError, first_line
from privaudit.plugin import hookspecs

#: Built-in plugins, registered in this order. Each module holds ``@hookimpl`` functions.
DEFAULT_PLUGINS = (
    "privaudit.assessors.direct_identifiers",
    "privaudit.sections.direct_identifiers",
    "privaudit.assessors.refining_columns",
    "privaudit.sections.refining_columns",
    "privaudit.assessors.undeclared_key_variables",
    "privaudit.sections.undeclared_key_variables",
    "privaudit.assessors.k_anonymity",
    "privaudit.sections.k_anonymity",
    "privaudit.assessors.p_sensitive_k_anonymity",
    "privaudit.sections.p_sensitive_k_anonymity",
    "privaudit.assessors.l_diversity",
    "privaudit.sections.l_diversity",
    "privaudit.assessors.t_closeness",
    "privaudit.sections.t_closeness",
    "privaudit.assessors.uniqueness",
    "privaudit.sections.uniqueness",
    "privaudit.assessors.risky_cells",
    "privaudit.sections.risky_cells",
    "privaudit.assessors.interval_disclosure",
    "privaudit.sections.interval_disclosure",
    "privaudit.assessors.rr_attribute_disclosure",
    "privaudit.sections.rr_attribute_disclosure",
    "privaudit.assessors.record_linkage",
    "privaudit.sections.record_linkage",
    "privaudit.assessors.distance_to_closest_record",
    "privaudit.sections.distance_to_closest_record",
    "privaudit.assessors.suda2",
    "privaudit.sections.suda2",
    "privaudit.assessors.synthetic_attacks",
    "privaudit.sections.synthetic_attacks",
    "privaudit.assessors.membership_inference",
    "privaudit.sections.membership_inference",
    "privaudit.assessors.empirical_epsilon",
    "privaudit.sections.empirical_epsilon",
    "privaudit.assessors.cap",
    "privaudit.sections.cap",
    "privaudit.assessors.synthpop_disclosure",
    "privaudit.sections.synthpop_disclosure",
    "privaudit.assessors.reidentification_risk",
    "privaudit.sections.reidentification_risk",
    "privaudit.assessors.k_map",
    "privaudit.sections.k_map",
    "privaudit.assessors.delta_presence",
    "privaudit.sections.delta_presence",
    "privaudit.assessors.risk_drivers",
    "privaudit.sections.risk_drivers",
    "privaudit.assessors.model_risk",
    "privaudit.sections.model_risk",
    "privaudit.assessors.utility",
    "privaudit.sections.utility",
    "privaudit.assessors.composition",
    "privaudit.sections.composition",
    "privaudit.assessors.m_invariance",
    "privaudit.sections.m_invariance",
    "privaudit.assessors.pseudonyms",
    "privaudit.sections.pseudonyms",
    "privaudit.assessors.safe_harbor",
    "privaudit.sections.safe_harbor",
    "privaudit.remediation.methods.suppress",
    "privaudit.remediation.methods.randomize",
    "privaudit.remediation.methods.microaggregate",
    "privaudit.remediation.methods.generalize",
    "privaudit.remediation.methods.local_suppression",
    "privaudit.remediation.methods.top_bottom_coding",
    "privaudit.remediation.methods.pram",
    "privaudit.remediation.methods.noise",
    "privaudit.remediation.methods.rank_swap",
    "privaudit.remediation.methods.record_swap",
    "privaudit.report.chapters.remediation",
    "privaudit.report.chapters.recipe",
    "privaudit.report.chapters.explore",
    "privaudit.report.chapters.synthetic",
    "privaudit.report.chapters.utility",
    "privaudit.report.chapters.series",
    "privaudit.report.formats.json",
    "privaudit.report.formats.html",
    "privaudit.report.formats.pdf",
    "privaudit.report.formats.junit",
    "privaudit.report.formats.sarif",
    "privaudit.report.formats.markdown",
    "privaudit.engines.builtin",
    "privaudit.pipeline.readers",
    "privaudit.pipeline.measures",
)


@dataclass
class PluginInfo:
    """Where a plugin came from: its distribution's name and version."""

    name: str
    package: str
    version: str


@dataclass(frozen=True)
class Kind:
    """One kind of extension: the hook that lists it and the record class each listed item must be."""

    name: str  # singular, as ``privaudit plugins`` prints it
    hook: str  # the hook specification in privaudit.plugin.hookspecs
    record: str  # "module:Class" of the record (imported when the registry is built)
    overridable: bool = False  # a third party's record may replace a built-in one of the same name

    def record_class(self) -> type:
        module, _, cls = self.record.partition(":")
        return getattr(importlib.import_module(module), cls)


#: Every kind of extension, in the order ``privaudit plugins`` lists them. A kind is one hook specification
#: (privaudit/plugin/hookspecs.py), one record class (privaudit/plugin/) and one line here.
KINDS: tuple[Kind, ...] = (
    Kind("assessor", "privaudit_assessors", "privaudit.plugin.assessor:Assessor"),
    Kind("remediator", "privaudit_remediators", "privaudit.plugin.remediator:Remediator"),
    Kind("section", "privaudit_report_sections", "privaudit.plugin.sections:Section", overridable=True),
    Kind("chapter", "privaudit_report_chapters", "privaudit.plugin.chapter:Chapter"),
    Kind("output", "privaudit_output_formats", "privaudit.plugin.output:OutputFormat"),
    Kind("engine", "privaudit_engines", "privaudit.plugin.engine:Engine"),
    Kind("reader", "privaudit_readers", "privaudit.plugin.reader:Reader"),
    Kind("measure", "privaudit_utility_measures", "privaudit.plugin.measure:Measure"),
)


@dataclass
class Registry:
    """Everything the installed plugins provide, by kind, keyed by name."""

    manager: pluggy.PluginManager
    extensions: dict[str, dict[str, Any]] = field(default_factory=lambda: {kind.name: {} for kind in KINDS})
    origin: dict[str, PluginInfo] = field(default_factory=dict)  # "KIND:NAME" -> where it came from

    @property
    def assessors(self) -> dict[str, Any]:
        return self.extensions["assessor"]

    @property
    def remediators(self) -> dict[str, Any]:
        return self.extensions["remediator"]

    def of(self, kind: str) -> dict[str, Any]:
        """The extensions of one kind (``"engine"``, ``"reader"`` ...), keyed by name, in registration order."""
        return self.extensions[kind]

    @property
    def utility_measures(self) -> list[str]:
        """The utility measures an audit computes (registered :class:`~privaudit.plugin.measure.Measure`
        records, in registration order): what a policy's ``utility`` list and a utility check may name."""
        return list(self.extensions["measure"])

    def validate_check(self, assessor: Any, params: Any, policy: Any) -> str | None:
        """What is wrong with one check of ``policy`` by its assessor's own ``validate_policy`` (None: nothing),
        run guarded: a plugin that raises or exits is one line naming it, never a pass."""
        from privaudit.runtime.guard import PluginFailure, call_plugin

        validate = getattr(assessor, "validate_policy", None)
        if validate is None:
            return None
        try:
            return call_plugin(
                lambda: validate(params, policy),
                f"assessor {assessor.name!r}'s validate_policy",
                self.origin.get(f"assessor:{assessor.name}"),
            )
        except PluginFailure as exc:
            return str(exc)


def make_manager(load_entry_points: bool = True, extra_plugins: tuple[Any, ...] = ()) -> pluggy.PluginManager:
    """A plugin manager with the built-ins, the installed ``privaudit`` entry points and ``extra_plugins`` (one
    already registered as an installed entry point counts once: a plugin's own tests pass before and after
    ``pip install`` of the plugin)."""
    pm = pluggy.PluginManager("privaudit")
    pm.add_hookspecs(hookspecs)
    for module_name in DEFAULT_PLUGINS:
        pm.register(importlib.import_module(module_name), name=module_name)
    if load_entry_points:
        from privaudit.runtime.guard import interrupted, stdout_to_stderr

        try:  # what a plugin prints while it loads goes to stderr; sys.exit() in it is a failure, not exit 0
            with stdout_to_stderr():
                pm.load_setuptools_entrypoints("privaudit")
        except BaseException as exc:  # a broken third-party plugin must not take the tool down silently
            if isinstance(exc, KeyboardInterrupt) and interrupted():
                raise
            raise PrivauditError(_broken_entry_point(exc)) from None
    for plugin in extra_plugins:
        if not pm.is_registered(plugin):
            pm.register(plugin)
    return pm


def _broken_entry_point(exc: Exception) -> str:
    """On the error path only: name the entry point and distribution that failed to load, so the user knows
    which package to fix or uninstall (pluggy's own error names neither)."""
    import importlib.metadata

    first = first_line(exc, type(exc).__name__)
    for dist in importlib.metadata.distributions():
        for ep in dist.entry_points:
            if ep.group != "privaudit":
                continue
            try:
                ep.load()
            except BaseException as failed:  # noqa: BLE001 - SystemExit at import included
                why = first_line(failed, type(failed).__name__)
                if isinstance(failed, SystemExit):
                    why = f"called sys.exit({failed.code!r}) while loading"
                return (
                    f"plugin {ep.name!r} ({ep.value}) of the installed package {dist.metadata['name']} "
                    f"{dist.version} failed to load: {why} (fix or uninstall that package)"
                )
    return f"a plugin in the 'privaudit' entry-point group failed to load: {first}"


def _origin_of(pm: pluggy.PluginManager, plugin: Any) -> PluginInfo:
    for plug, dist in pm.list_plugin_distinfo():
        if plug is plugin:
            return PluginInfo(pm.get_name(plugin) or "?", dist.metadata["name"], dist.version)
    name = pm.get_name(plugin) or repr(plugin)
    if name in DEFAULT_PLUGINS:
        return PluginInfo(name, "privaudit", __version__)
    # registered in process (privaudit.testing.registry_with), not installed: named by its module
    module = plugin.__name__ if isinstance(plugin, type(importlib)) else type(plugin).__module__
    top = sys.modules.get(module.split(".")[0])
    return PluginInfo(name, module, str(getattr(plugin, "__version__", getattr(top, "__version__", "(not installed)"))))


def build_registry(pm: pluggy.PluginManager) -> Registry:
    """Ask every plugin for its extensions of every kind; refuse duplicate names within a kind."""
    registry = Registry(manager=pm)
    for kind in KINDS:
        table = registry.extensions[kind.name]
        record = kind.record_class()
        for impl in getattr(pm.hook, kind.hook).get_hookimpls():
            origin = _origin_of(pm, impl.plugin)
            for item in _listed(impl, origin, kind, record):
                key = f"{kind.name}:{item.name}"
                if item.name in table:
                    first = registry.origin[key]
                    if kind.overridable and first.package == "privaudit" and origin.package != "privaudit":
                        pass  # a third party's record replaces the built-in one
                    elif kind.overridable and origin.package == "privaudit" and first.package != "privaudit":
                        continue  # the third party's, registered first, stays
                    else:
                        raise PrivauditError(
                            f"{kind.name} {item.name!r} is provided twice: by {first.package} ({first.name}) "
                            f"and by {origin.package} ({origin.name})"
                        )
                table[item.name] = item
                registry.origin[key] = origin
    return registry


def _listed(impl: Any, origin: PluginInfo, kind: Kind, expected: type) -> list:
    """What one plugin's hook lists, or one line naming the plugin when the hook fails or lists something
    that is not a record of the kind."""
    from privaudit.runtime.guard import PluginFailure, call_plugin, stdout_to_stderr

    what = f"the {kind.hook} hook of plugin {origin.name!r}"
    try:
        with stdout_to_stderr():
            items = call_plugin(impl.function, what, origin) or []
    except PluginFailure as exc:
        raise PrivauditError(f"{exc} (fix or uninstall that package)") from None
    try:
        items = list(items)
    except TypeError:
        items = [items]
    for item in items:
        if not isinstance(item, expected) or not isinstance(getattr(item, "name", None), str):
            article = "an" if expected.__name__[0] in "AEIOU" else "a"
            raise PrivauditError(
                f"{what} of {origin.package} {origin.version} listed {type(item).__name__}, not "
                f"{article} {expected.__name__} (fix or uninstall that package)"
            )
    return items


@lru_cache(maxsize=1)
def get_registry() -> Registry:
    """The process-wide registry (built-ins and installed entry points), built on first use."""
    return build_registry(make_manager())
