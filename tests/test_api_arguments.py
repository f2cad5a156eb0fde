"""The Python API keeps the command line's promises: every argument the command line validates is validated by
``privaudit.audit/remediate/explore/diff`` the same way, by one function (:mod:`privaudit.pipeline.arguments`),
refused with the command line's line naming the argument (the keyword for the API, the flag for the command
line); whatever an API argument is given, the call returns or raises ``PrivauditError``, never a TypeError."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import privaudit
from privaudit.core.errors import PrivauditError
from privaudit.pipeline.arguments import ARGUMENTS
from privaudit.testing import run_cli

POLICY = {
    "version": 1,
    "name": "api",
    "columns": {"age": {"role": "quasi_identifier"}, "zip": {"role": "quasi_identifier"}, "d": {"role": "sensitive"}},
    "checks": [{"assessor": "k_anonymity", "k": 2}],
}
FRAME = pd.DataFrame({"age": [30, 30, 40, 40, 50, 50], "zip": [1, 1, 2, 2, 3, 3], "d": list("ababab")})

GARBAGE = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 60),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=5),
    st.lists(st.integers(0, 3), max_size=2),
    st.dictionaries(st.text(max_size=2), st.integers(), max_size=1),
    st.sampled_from(["5%", "-1%", "nan", "inf", "error", "warning", "generalize", "suppress,generalize", "3", "0.5"]),
)


# ------------------------------------------------------------------------------------------ the issue's cases
@pytest.mark.parametrize("policy", [123, None, [], ""])
@pytest.mark.parametrize("call", ["audit", "remediate", "explore"])
def test_a_policy_that_is_no_policy_is_one_line(call, policy):
    with pytest.raises(PrivauditError, match=r"^policy: expected a policy YAML file's path"):
        getattr(privaudit, call)(FRAME, policy)


def test_the_issues_arguments(tmp_path):
    report = privaudit.audit(FRAME, POLICY)
    with pytest.raises(PrivauditError, match=r"^new: a JSON report's path, a report dict or an AuditReport, got int"):
        privaudit.diff(report, 123)
    for bad in (2.5, 0, -1, True):
        with pytest.raises(PrivauditError, match=r"^max_candidates: give a number of at least 1"):
            privaudit.explore(FRAME, POLICY, max_candidates=bad)
    for bad in ("x", math.nan, -1, 0, math.inf, 1e7, True):
        with pytest.raises(PrivauditError, match=r"^check_timeout: expected a number of seconds between 0 and 1e6"):
            privaudit.audit(FRAME, POLICY, check_timeout=bad)
    with pytest.raises(PrivauditError, match=r"^progress: expected None, True, False or a callable"):
        privaudit.audit(FRAME, POLICY, progress=3)
    with pytest.raises(PrivauditError, match=r"^allow_changed_policy: expected True or False"):
        privaudit.diff(report, report, allow_changed_policy="no")
    with pytest.raises(PrivauditError, match=r"^fail_on: expected one of error, warning"):
        privaudit.diff(report, report, fail_on="warnings")
    with pytest.raises(PrivauditError, match=r"^methods: expected method names"):
        privaudit.explore(FRAME, POLICY, methods=3)
    # and what is valid still runs: a cap of 2 is two candidates, not the default 40
    assert len(privaudit.explore(FRAME, POLICY, methods="suppress", max_candidates=2).candidates) <= 2


# ------------------------------------------------------------------------------------------ one validation
#: argument -> (API call with the value, command line with the text); each fails fast after the argument is
#: accepted (a table that does not exist), so that only the argument's validation is compared
def _api_and_cli(name: str, tmp_path):
    absent = tmp_path / "absent.csv"
    policy = tmp_path / "policy.yaml"
    report = tmp_path / "report.json"
    if not report.exists():
        import yaml

        policy.write_text(yaml.safe_dump(POLICY))
        FRAME.to_csv(tmp_path / "t.csv", index=False)
        assert run_cli("audit", tmp_path / "t.csv", "--policy", policy, "--json", report).code == 0
    table = {
        "check_timeout": (
            lambda v: privaudit.audit(absent, POLICY, check_timeout=v),
            ["audit", absent, "--policy", policy, "--check-timeout"],
        ),
        "max_candidates": (
            lambda v: privaudit.explore(absent, POLICY, max_candidates=v),
            ["remediate", absent, "--policy", policy, "--explore", "--max-candidates"],
        ),
        "methods": (
            lambda v: privaudit.explore(absent, POLICY, methods=v),
            ["remediate", absent, "--policy", policy, "--explore", "--methods"],
        ),
        "utility": (
            lambda v: privaudit.explore(absent, POLICY, utility=v),
            ["remediate", absent, "--policy", policy, "--explore", "--utility"],
        ),
        "tolerance": (
            lambda v: privaudit.diff(report, tmp_path / "absent.json", tolerance=v),
            ["diff", report, tmp_path / "absent.json", "--tolerance"],
        ),
        "fail_on": (
            lambda v: privaudit.diff(report, tmp_path / "absent.json", fail_on=v),
            ["diff", report, tmp_path / "absent.json", "--fail-on"],
        ),
        "allow_changed_policy": (
            lambda v: privaudit.diff(report, tmp_path / "absent.json", allow_changed_policy=v),
            None,
        ),
        "progress": (lambda v: privaudit.audit(absent, POLICY, progress=v), None),
        "policy": (lambda v: privaudit.audit(absent, v), ["audit", absent, "--policy"]),
        "engine": (
            lambda v: privaudit.audit(absent, POLICY, engine=v),
            ["audit", absent, "--policy", policy, "--engine"],
        ),
        "today": (
            lambda v: privaudit.audit(absent, POLICY, today=v),
            ["audit", absent, "--policy", policy, "--today"],
        ),
    }
    return table[name]


def _refusal(call, value) -> str | None:
    """The API's message when it refuses ``value``, None when it accepts it (and fails later, on the table)."""
    try:
        call(value)
    except PrivauditError as exc:
        return str(exc)
    raise AssertionError("the call was meant to fail on the absent table")


def _cli_refusal(argv, text: str, keyword: str, flag: str) -> str | None:
    """The command line's message when it refuses ``text`` (as a usage error or an error line), None otherwise."""
    try:
        r = run_cli(*argv[:-1], f"{argv[-1]}={text}")  # --flag=TEXT: a text like -1% is a value, not an option
    except SystemExit as exc:  # argparse's usage error: one line on stderr (captured by pytest's capsys)
        assert exc.code == 2
        return "usage"
    assert r.code == 2 and r.stderr.count("\n") == 1, r.stderr
    line = r.stderr.removeprefix("privaudit: error: ").strip()
    return line if line.startswith(f"{flag}: ") else None


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(ARGUMENTS))
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=GARBAGE)
def test_every_argument_is_validated_once_for_both(name, value, tmp_path, capsys):
    argument = ARGUMENTS[name]
    api, argv = _api_and_cli(name, tmp_path)
    message = _refusal(api, value)
    refused = message is not None and message.startswith(f"{argument.keyword}: ")
    assert message is not None  # the absent table at least
    if refused:  # the shared validation's own line, naming the keyword
        with pytest.raises(PrivauditError) as exc:
            argument.value(value)
        assert str(exc.value) == message
    if argv is None or not isinstance(value, str) or "\x00" in value:
        return
    cli = _cli_refusal(argv, value, argument.keyword, argument.flag)
    capsys.readouterr()
    if cli == "usage":  # argparse names the flag itself: the same reason
        with pytest.raises(PrivauditError) as exc:
            argument.value(value, api=False)
        assert refused and str(exc.value).removeprefix(f"{argument.flag}: ") == message.removeprefix(
            f"{argument.keyword}: "
        )
    elif cli is not None:
        assert refused and cli.removeprefix(f"{argument.flag}: ") == message.removeprefix(f"{argument.keyword}: ")
    else:
        assert not refused, (value, message)


@pytest.mark.slow
@pytest.mark.parametrize(
    "call, keyword",
    [
        ("audit", "data"),
        ("audit", "policy"),
        ("audit", "original"),
        ("audit", "control"),
        ("audit", "engine"),
        ("audit", "previous"),
        ("remediate", "data"),
        ("remediate", "method"),
        ("remediate", "max_suppression"),
        ("explore", "data"),
        ("diff", "base"),
        ("diff", "new"),
    ],
)
@settings(max_examples=15, deadline=None)
@given(value=GARBAGE)
def test_no_api_argument_raises_anything_but_a_one_line_error(call, keyword, value):
    kwargs = {"data": FRAME, "policy": POLICY}
    if call == "remediate":
        kwargs["method"] = "suppress"
    if call == "diff":
        report = privaudit.audit(FRAME, POLICY)
        kwargs = {"base": report, "new": report}
    kwargs[keyword] = value
    try:
        getattr(privaudit, call)(**kwargs)
    except PrivauditError as exc:
        assert "\n" not in str(exc)
