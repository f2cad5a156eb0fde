"""``privaudit.plugin`` is the package plugin authors import from: every public name resolves, lazily, to the
object its defining module holds (PEP 562 module ``__getattr__``), and a kind whose module this privaudit
lacks fails only when that name is used."""

from __future__ import annotations

import importlib

import pytest

import privaudit.plugin as contract


@pytest.mark.parametrize("name", contract.__all__)
def test_each_public_name_is_its_modules_object(name):
    module = contract._LAZY[name]
    try:
        defining = importlib.import_module(module)
    except ModuleNotFoundError:
        with pytest.raises(AttributeError, match=module):
            getattr(contract, name)
        return
    assert getattr(contract, name) is getattr(defining, name)


def test_the_records_capabilities_and_builders_are_exported():
    from privaudit.plugin import Assessor, Disclosure, figures, hookimpl, text

    assert Assessor.__module__ == "privaudit.plugin.assessor" and Disclosure.__module__ == Assessor.__module__
    assert callable(hookimpl) and figures.__name__ == "privaudit.plugin.figures" and text.fmt
    assert {"Assessor", "Remediator", "Section", "Params", "Details", "Measurement", "AuditContext"} <= set(
        contract.__all__
    )


def test_an_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        contract.Nope  # noqa: B018
