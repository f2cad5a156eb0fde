"""The plugin host: one list of built-in plugin modules, plus third-party entry points.

Built-ins are registered through the same hooks a third party uses (see :mod:`privaudit.core.hookspecs`);
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
from privaudit.core import hookspecs
from privaudit.core.errors import PrivauditError

#: Built-in plugins, registered in this order. Each module holds ``@hookimpl`` functions.
DEFAULT_PLUGINS = (
    "privaudit.assessors.direct_identifiers",
    "privaudit.assessors.k_anonymity",
    "privaudit.assessors.p_sensitive_k_anonymity",
    "privaudit.assessors.l_diversity",
    "privaudit.assessors.t_closeness",
    "privaudit.assessors.uniqueness",
    "privaudit.assessors.interval_disclosure",
    "privaudit.assessors.rr_attribute_disclosure",
    "privaudit.assessors.record_linkage",
    "privaudit.assessors.distance_to_closest_record",
    "privaudit.assessors.suda2",
    "privaudit.assessors.synthetic_attacks",
    "privaudit.assessors.cap",
    "privaudit.assessors.reidentification_risk",
    "privaudit.assessors.k_map",
    "privaudit.assessors.delta_presence",
    "privaudit.assessors.risk_drivers",
    "privaudit.assessors.model_risk",
    "privaudit.remediation.methods.suppress",
    "privaudit.remediation.methods.randomize",
    "privaudit.remediation.methods.microaggregate",
    "privaudit.remediation.methods.generalize",
)


@dataclass
class PluginInfo:
    """Where a plugin came from: its distribution's name and version."""

    name: str
    package: str
    version: str


@dataclass
class Registry:
    """Everything the installed plugins provide, keyed by name."""

    manager: pluggy.PluginManager
    assessors: dict[str, Any] = field(default_factory=dict)
    remediators: dict[str, Any] = field(default_factory=dict)
    origin: dict[str, PluginInfo] = field(default_factory=dict)  # "assessor:NAME" / "remediator:NAME" -> origin


def make_manager(load_entry_points: bool = True, extra_plugins: tuple[Any, ...] = ()) -> pluggy.PluginManager:
    """A plugin manager with the built-ins, the installed ``privaudit`` entry points and ``extra_plugins`` (one
    already registered as an installed entry point counts once: a plugin's own tests pass before and after
    ``pip install`` of the plugin)."""
    pm = pluggy.PluginManager("privaudit")
    pm.add_hookspecs(hookspecs)
    for module_name in DEFAULT_PLUGINS:
        pm.register(importlib.import_module(module_name), name=module_name)
    if load_entry_points:
        try:
            pm.load_setuptools_entrypoints("privaudit")
        except Exception as exc:  # a broken third-party plugin must not take the tool down silently
            raise PrivauditError(_broken_entry_point(exc)) from None
    for plugin in extra_plugins:
        if not pm.is_registered(plugin):
            pm.register(plugin)
    return pm


def _broken_entry_point(exc: Exception) -> str:
    """On the error path only: name the entry point and distribution that failed to load, so the user knows
    which package to fix or uninstall (pluggy's own error names neither)."""
    import importlib.metadata

    first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    for dist in importlib.metadata.distributions():
        for ep in dist.entry_points:
            if ep.group != "privaudit":
                continue
            try:
                ep.load()
            except Exception as failed:
                why = str(failed).splitlines()[0] if str(failed) else type(failed).__name__
                return (f"plugin {ep.name!r} ({ep.value}) of the installed package {dist.metadata['name']} "
                        f"{dist.version} failed to load: {why} (fix or uninstall that package)")
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
    """Ask every plugin for its assessors and remediators; refuse duplicate names."""
    registry = Registry(manager=pm)
    for kind, hook, table in (
        ("assessor", pm.hook.privaudit_assessors, registry.assessors),
        ("remediator", pm.hook.privaudit_remediators, registry.remediators),
    ):
        for impl in hook.get_hookimpls():
            items = impl.function() or []
            origin = _origin_of(pm, impl.plugin)
            for item in items:
                key = f"{kind}:{item.name}"
                if item.name in table:
                    first = registry.origin[key]
                    raise PrivauditError(
                        f"{kind} {item.name!r} is provided twice: by {first.package} ({first.name}) "
                        f"and by {origin.package} ({origin.name})"
                    )
                table[item.name] = item
                registry.origin[key] = origin
    return registry


@lru_cache(maxsize=1)
def get_registry() -> Registry:
    """The process-wide registry (built-ins and installed entry points), built on first use."""
    return build_registry(make_manager())
