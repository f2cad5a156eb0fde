"""What the core reads of the plugin registry and of an assessor record, as protocols the core owns.

The policy is resolved against a registry it is handed (:func:`privaudit.core.policy.load_policy`); the
registry (:class:`privaudit.pipeline.plugins.Registry`) and the assessor record
(:class:`privaudit.plugin.assessor.Assessor`) live in layers above the core, so the core types them by the
members it reads (PEP 544 structural typing), not by importing them, even for type checking: no package
imports one above it, counting ``if TYPE_CHECKING:`` imports (``tests/test_layering.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:  # pragma: no cover
    from privaudit.common.params import Params


class SyntheticDefaultView(Protocol):
    """What the policy reads of a :class:`~privaudit.plugin.assessor.SyntheticDefault`."""

    @property
    def params(self) -> Mapping[str, Any]: ...

    @property
    def applies(self) -> Callable[[Any], bool] | None: ...


class AssessorView(Protocol):
    """What the core reads of an assessor record: its name, its parameter model, the words the policy's
    schema shows, whether it is class-based and the check a synthetic release adds by default. Upper layers
    read the rest of the record (its declared capabilities) through ``check.assessor`` as typed here: every
    other member is looked up on the record itself (:meth:`__getattr__`)."""

    @property
    def name(self) -> str: ...

    @property
    def params(self) -> type[Params]: ...

    @property
    def title(self) -> str: ...

    @property
    def measures(self) -> str: ...

    @property
    def class_violations(self) -> Callable[..., Any] | None: ...

    @property
    def synthetic_default(self) -> SyntheticDefaultView | None: ...

    def __getattr__(self, name: str) -> Any: ...


class RegistryView(Protocol):
    """What the policy reads of the plugin registry: the assessors by name, where each extension came from,
    the utility measures a policy may name, and each check validated by its assessor (guarded)."""

    @property
    def assessors(self) -> Mapping[str, Any]: ...

    @property
    def origin(self) -> Mapping[str, Any]: ...

    @property
    def utility_measures(self) -> list[str]: ...

    def validate_check(self, assessor: Any, params: Any, policy: Any) -> str | None: ...
