"""What an assessor declares is all the core and the remediators know of it: a third-party assessor that
declares the same capabilities as a built-in one (its class rule, its synthetic-release default, that it
reads --original itself, the columns it finds holding identifiers) is treated exactly like it. And details
that break their own model make the check an error, never a pass."""

from __future__ import annotations

import dataclasses
import json
import types

import numpy as np
import pandas as pd
import pytest
from pydantic import Field

from privaudit.assessors import k_anonymity, reidentification_risk, uniqueness
from privaudit.pipeline.audit import run_audit
from privaudit.pipeline.remediate import remediate
from privaudit.plugin.assessor import Assessor, Details, Disclosure, Measurement, Params
from privaudit.plugin.hookspecs import hookimpl
from privaudit.testing import audit_frame, check_result, registry_with


def _plugin(*assessors: Assessor) -> types.SimpleNamespace:
    @hookimpl
    def privaudit_assessors():
        return list(assessors)

    return types.SimpleNamespace(privaudit_assessors=privaudit_assessors)


#: k-anonymity under another name, as a third party would ship it: the same run, details and capabilities
MY_K = dataclasses.replace(k_anonymity.ASSESSOR, name="my_k")
REGISTRY = registry_with(_plugin(MY_K), entry_points=False)

RNG = np.random.default_rng(11)
N = 300
FRAME = pd.DataFrame(
    {
        "age": RNG.integers(18, 80, N),
        "income": RNG.integers(10, 200, N) * 100,
        "zip": RNG.choice([f"z{i}" for i in range(12)], N),
        "disease": RNG.choice(list("abc"), N),
    }
)
HIERARCHY = "".join(f"z{i};{'north' if i < 6 else 'south'};*\n" for i in range(12))


def _policy(tmp_path, assessor: str, qis: dict) -> str:
    (tmp_path / "zip.csv").write_text(HIERARCHY)
    columns = {**qis, "disease": {"role": "sensitive"}}
    doc = {
        "version": 1,
        "name": "capabilities",
        "columns": columns,
        "checks": [{"id": "k", "assessor": assessor, "k": 4}],
    }
    path = tmp_path / f"{assessor}.yaml"
    path.write_text(json.dumps(doc))
    return str(path)


@pytest.mark.parametrize(
    ("method", "qis"),
    [
        ("generalize", {"zip": {"role": "quasi_identifier", "hierarchy": "zip.csv"}}),
        ("suppress", {"zip": {"role": "quasi_identifier"}, "age": {"role": "quasi_identifier", "type": "numeric"}}),
        (
            "microaggregate",
            {
                "age": {"role": "quasi_identifier", "type": "numeric"},
                "income": {"role": "quasi_identifier", "type": "numeric"},
            },
        ),
    ],
)
def test_a_third_party_class_check_is_remediated_as_the_builtin(tmp_path, method, qis):
    FRAME.to_csv(tmp_path / "data.csv", index=False)
    outcomes = {}
    for name in ("k_anonymity", "my_k"):
        outcomes[name] = remediate(
            tmp_path / "data.csv",
            _policy(tmp_path, name, qis),
            tmp_path / f"{name}.csv",
            method=method,
            registry=REGISTRY,
        )
    builtin, third = outcomes["k_anonymity"], outcomes["my_k"]
    assert builtin.output == third.output and builtin.offered == third.offered
    assert builtin.remediation.changes == third.remediation.changes
    assert builtin.remediation.changes  # the remediator did aim at the check
    assert [c.value for c in builtin.after.checks] == [c.value for c in third.after.checks]


#: the risk-based checks under other names: the same run, details and declared sample criterion
MY_RISK = dataclasses.replace(reidentification_risk.ASSESSOR, name="my_risk")
MY_UNIQUE = dataclasses.replace(uniqueness.ASSESSOR, name="my_unique")
RISK_REGISTRY = registry_with(_plugin(MY_RISK, MY_UNIQUE, MY_K), entry_points=False)
AGES = "".join(f"{a};{a // 10 * 10}-{a // 10 * 10 + 9};*\n" for a in range(18, 80))


def _risk_policy(tmp_path, check: dict, severity: str = "error") -> str:
    (tmp_path / "zip.csv").write_text(HIERARCHY)
    (tmp_path / "age.csv").write_text(AGES)
    columns = {
        "zip": {"role": "quasi_identifier", "hierarchy": "zip.csv"},
        "age": {"role": "quasi_identifier", "hierarchy": "age.csv"},
        "disease": {"role": "sensitive"},
    }
    doc = {
        "version": 1,
        "name": "capabilities",
        "columns": columns,
        "checks": [{"id": "r", "severity": severity, **check}],
    }
    path = tmp_path / f"{check['assessor']}.yaml"
    path.write_text(json.dumps(doc))
    return str(path)


@pytest.mark.parametrize(
    ("builtin", "copy", "params"),
    [
        ("reidentification_risk", "my_risk", {"max_risk": 0.2}),
        ("reidentification_risk", "my_risk", {"measure": "highest", "max_risk": 0.25}),
        ("uniqueness", "my_unique", {"max_share": 0.02}),
    ],
)
def test_a_third_party_risk_check_is_generalized_as_the_builtin(tmp_path, builtin, copy, params):
    """The generalizer steers a check by its declared sample criterion (ARX's risk-based model), not its name."""
    FRAME.to_csv(tmp_path / "data.csv", index=False)
    outcomes = {}
    for name in (builtin, copy):
        outcomes[name] = remediate(
            tmp_path / "data.csv",
            _risk_policy(tmp_path, {"assessor": name, **params}),
            tmp_path / f"{name}.csv",
            method="generalize",
            registry=RISK_REGISTRY,
        )
    first, third = outcomes[builtin], outcomes[copy]
    assert first.before.checks[-3].status == "fail"  # there was something to steer
    assert first.output == third.output and first.offered == third.offered and first.offered
    assert first.remediation.changes == third.remediation.changes
    assert set(first.remediation.changes["risk_targets"]) == {"r"}
    assert [c.value for c in first.after.checks] == [c.value for c in third.after.checks]


def test_without_a_declared_sample_criterion_a_risk_check_is_not_a_target(tmp_path):
    from privaudit.core.policy import load_policy
    from privaudit.remediation.generalization.risk_targets import risk_targets

    bare = dataclasses.replace(MY_RISK, name="bare_risk", sample_criterion=None)
    registry = registry_with(_plugin(bare, MY_RISK), entry_points=False)
    for name, expected in (("my_risk", ["r"]), ("bare_risk", [])):
        policy = load_policy(_risk_policy(tmp_path, {"assessor": name, "max_risk": 0.2}), registry)
        assert [t.check_id for t in risk_targets(policy, N)[0]] == expected


def test_the_maps_risk_bound_is_read_from_declared_capabilities(tmp_path):
    """``remediate --explore``'s risk bound: a declared average-risk bound, else 1/k of a declared class size."""
    from privaudit.core.policy import load_policy
    from privaudit.pipeline.explore import risk_bound

    def bound(check: dict, severity: str = "error"):
        return risk_bound(load_policy(_risk_policy(tmp_path, check, severity), RISK_REGISTRY), N)

    for name in ("reidentification_risk", "my_risk"):
        assert bound({"assessor": name, "max_risk": 0.2}) == (0.2, "average risk bound of check 'r'")
        assert bound({"assessor": name, "max_risk": 0.2, "model": "journalist"}) == (None, None)
        assert bound({"assessor": name, "max_risk": 0.2}, "warning") == (None, None)
    for name in ("k_anonymity", "my_k"):
        assert bound({"assessor": name, "k": 4}) == (0.25, "1/k, k = 4 (check 'r')")
    assert bound({"assessor": "my_unique", "max_share": 0.0}) == (None, None)


def test_without_declared_capabilities_a_class_check_is_not_steered(tmp_path):
    """The same check declaring no class rule: microaggregation finds nothing to aim at (it reads the rule,
    not the name)."""
    bare = dataclasses.replace(MY_K, name="bare_k", class_rule=None)
    registry = registry_with(_plugin(bare), entry_points=False)
    FRAME.to_csv(tmp_path / "data.csv", index=False)
    qis = {"age": {"role": "quasi_identifier", "type": "numeric"}}
    with pytest.raises(Exception, match="no error-severity check implying a class size"):
        remediate(
            tmp_path / "data.csv",
            _policy(tmp_path, "bare_k", qis),
            tmp_path / "out.csv",
            method="microaggregate",
            registry=registry,
        )


class WrongDetails(Details):
    figure: int


class NoParams(Params):
    pass


def _wrong(ctx, params) -> Measurement:
    return Measurement(0, 0, True, "all fine", {"figure": 1, "surprise": 2})


def test_details_that_break_their_model_are_an_error_not_a_pass():
    wrong = Assessor("wrong_details", NoParams, _wrong, "wrong", "identity", "nothing", details=WrongDetails)
    registry = registry_with(_plugin(wrong), entry_points=False)
    result = audit_frame(
        FRAME,
        {"columns": {"zip": {"role": "quasi_identifier"}}, "checks": [{"assessor": "wrong_details"}]},
        registry=registry,
    )
    entry = check_result(result, "wrong_details")
    assert entry["status"] == "error" and result.exit_code == 2
    assert (
        entry["message"]
        == ("details of wrong_details do not match its Details model: surprise: unknown field (allowed: figure)")
        or "surprise" in entry["message"]
    )


class CopyDetails(Details):
    rows: int = Field(ge=0)


def test_a_third_party_synthetic_default_is_added(tmp_path):
    from privaudit.plugin.assessor import SyntheticDefault

    copies = Assessor(
        "copies",
        NoParams,
        lambda ctx, p: Measurement(0, 0, True, "none", {"rows": 0}),
        "copies",
        "identity",
        "copies",
        details=CopyDetails,
        synthetic_default=SyntheticDefault(),
    )
    registry = registry_with(_plugin(copies), entry_points=False)
    policy = {
        "version": 1,
        "name": "s",
        "release": "synthetic",
        "columns": {
            "zip": {"role": "quasi_identifier"},
            "age": {"role": "quasi_identifier", "type": "numeric"},
            "income": {"role": "quasi_identifier", "type": "numeric"},
            "disease": {"role": "sensitive"},
        },
    }
    FRAME.to_csv(tmp_path / "data.csv", index=False)
    (tmp_path / "p.json").write_text(json.dumps(policy))
    from privaudit.core.policy import load_policy

    names = [c.assessor.name for c in load_policy(tmp_path / "p.json", registry).checks]
    assert "copies" in names and names[-1] == "copies"


def test_a_third_party_identifier_finding_is_masked(tmp_path):
    """A plugin declaring identifier_columns gets the columns it names masked in every check's worst classes."""
    found = Assessor(
        "emails",
        NoParams,
        lambda ctx, p: Measurement(1, 0, True, "found", {"rows": 1}),
        "emails",
        "identity",
        "e-mails",
        details=CopyDetails,
        identifier_columns=lambda details: {"zip": "email"},
    )
    registry = registry_with(_plugin(found), entry_points=False)
    result = audit_frame(
        FRAME,
        {
            "columns": {"zip": {"role": "quasi_identifier"}},
            "checks": [{"assessor": "emails"}, {"assessor": "k_anonymity", "k": 50}],
        },
        registry=registry,
    )
    rows = check_result(result, "k_anonymity")["details"]["worst_classes"]
    assert rows and all(r["values"]["zip"].endswith("***") for r in rows)
    assert all(not r["values"]["zip"].startswith("z1") or r["values"]["zip"] == "z***" for r in rows)


def test_registry_travels_with_the_result(tmp_path):
    FRAME.to_csv(tmp_path / "data.csv", index=False)
    result = run_audit(
        tmp_path / "data.csv", _policy(tmp_path, "my_k", {"zip": {"role": "quasi_identifier"}}), registry=REGISTRY
    )
    assert result.registry is REGISTRY and result.policy.registry is REGISTRY


# ------------------------------------------------------------------ disclosure: what a report may show
class TargetParams(Params):
    """A third party's parameters: the sensitive column under another name than ``sensitive``."""

    target: str
    size: int = 1


def _lists_target(ctx, params: TargetParams) -> Measurement:
    rows = ctx.worst_classes(np.asarray(ctx.summary.sizes, dtype=float), sensitive=params.target)
    return Measurement(1, 0, True, "listed", {"worst_classes": rows})


def _lister(name: str, disclosure: Disclosure) -> Assessor:
    return Assessor(name, TargetParams, _lists_target, name, "attribute", "lists classes", disclosure=disclosure)


def test_the_class_size_that_shows_values_is_declared_not_read_from_a_parameter_named_k():
    """``report.max_classes``' sensitive values are shown from the largest class size a check declares
    (``Disclosure.show_values_from``): a parameter named ``size`` counts when declared, k-anonymity's ``k``
    does not when its copy declares nothing."""
    declared = _lister("sized", Disclosure(show_values_from=lambda p: p.size))
    silent_k = dataclasses.replace(k_anonymity.ASSESSOR, name="silent_k", disclosure=Disclosure())
    registry = registry_with(_plugin(declared, silent_k), entry_points=False)
    columns = {"zip": {"role": "quasi_identifier"}, "disease": {"role": "sensitive"}}
    sized = audit_frame(
        FRAME,
        {"columns": columns, "checks": [{"assessor": "sized", "target": "disease", "size": 7}]},
        registry=registry,
    )
    assert sized.context.largest_k == 7
    assert sized.context.may_show_sensitive(7) and not sized.context.may_show_sensitive(6)
    silent = audit_frame(FRAME, {"columns": columns, "checks": [{"assessor": "silent_k", "k": 2}]}, registry=registry)
    assert not silent.context.may_show_sensitive(N)


def test_the_sensitive_values_a_check_lists_are_masked_by_declaration():
    """A check listing the values of a column it calls ``target`` has them masked when the scan's declared
    finding says the column holds e-mail addresses; the same check declaring no sensitive column does not."""
    found = Assessor(
        "emails",
        NoParams,
        lambda ctx, p: Measurement(1, 0, True, "found", {"rows": 1}),
        "emails",
        "identity",
        "e-mails",
        details=CopyDetails,
        identifier_columns=lambda details: {"disease": "email"},
    )
    registry = registry_with(
        _plugin(
            found, _lister("declares", Disclosure(sensitive=lambda p: [p.target])), _lister("silent", Disclosure())
        ),
        entry_points=False,
    )
    checks = [{"assessor": "emails"}] + [{"assessor": a, "target": "disease"} for a in ("declares", "silent")]
    policy = {
        "columns": {"zip": {"role": "quasi_identifier"}, "disease": {"role": "sensitive"}},
        "report": {"show_sensitive_values": True},
        "checks": checks,
    }
    result = audit_frame(FRAME, policy, registry=registry)

    def listed(name: str) -> set[str]:
        rows = check_result(result, name)["details"]["worst_classes"]
        return {value for r in rows for value in r["sensitive_values"]}

    assert listed("declares") and all(v.endswith("***") for v in listed("declares"))
    assert listed("silent") <= {"a", "b", "c"}


def test_composition_reads_the_diversity_a_check_declares():
    """The composition check's default l is the diversity a class rule declares on its column
    (``ClassRule.diversity``), whoever ships the check: here l-diversity under another name."""
    from privaudit.assessors import composition, l_diversity
    from privaudit.testing import load_policy

    my_l = dataclasses.replace(l_diversity.ASSESSOR, name="my_l")
    registry = registry_with(_plugin(my_l), entry_points=False)
    policy = load_policy(
        {
            "version": 1,
            "name": "composition",
            "columns": {"zip": {"role": "quasi_identifier"}, "disease": {"role": "sensitive"}},
            "checks": [{"assessor": "my_l", "sensitive": "disease", "l": 3}],
        },
        registry=registry,
    )
    params = composition.CompositionParams(sensitive="disease")
    assert composition.resolved_l(policy, params) == (3.0, "the policy's l-diversity check")


def test_capabilities_group_what_a_record_declares():
    """``Assessor.capabilities`` groups the declared fields by concern (as scikit-learn's ``Tags`` group an
    estimator's): every group reads the record's own field."""
    a = k_anonymity.ASSESSOR
    caps = a.capabilities
    assert caps.remediation.class_rule is a.class_rule and caps.remediation.class_violations is a.class_violations
    assert caps.inputs.needs == a.needs and caps.inputs.concurrent == a.concurrent
    assert caps.disclosure is a.disclosure and caps.synthetic is a.synthetic_default
    assert caps.disclosure.class_size(k_anonymity.KAnonymityParams(k=5)) == 5
