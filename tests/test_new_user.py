"""What a new user runs into, each a test that failed before its fix: a misspelt name gets a "did you mean"
(assessor, method, engine option, scenario column, sensitive column), hostile values stay cheap (the
street-address recognizer on long values, ``init`` on a postcode column of 100,000-digit values, an
``--engine-option`` that is a YAML alias bomb)."""

from __future__ import annotations

import re
import subprocess
import sys
import time

import numpy as np
import pandas as pd
import pytest
from conftest import ROOT
from hypothesis import given, settings
from hypothesis import strategies as st

from privaudit.core.errors import did_you_mean
from privaudit.discovery.recognizers import RECOGNIZERS
from privaudit.discovery.scan import scan_column
from privaudit.testing import run_cli

HEAD = "version: 1\nname: t\ndata: {delimiter: ';'}\ncolumns:\n"
COLUMNS = "  sex: {role: quasi_identifier}\n  age: {role: quasi_identifier}\n  occupation: {role: sensitive}\n"


@pytest.fixture
def release(tmp_path):
    data = tmp_path / "release.csv"
    data.write_text("\n".join((ROOT / "examples/adult/release.csv").read_text().splitlines()[:301]) + "\n")
    return data


def _policy(tmp_path, checks: str, columns: str = COLUMNS):
    path = tmp_path / "policy.yaml"
    path.write_text(HEAD + columns + "checks:\n" + checks)
    return path


def _one_line(result, *phrases):
    lines = result.stderr.strip().splitlines()
    assert result.code == 2 and len(lines) == 1, result.stderr
    for phrase in phrases:
        assert phrase in lines[0], lines[0]


def test_a_misspelt_assessor_gets_a_suggestion(tmp_path, release):
    policy = _policy(tmp_path, "  - {assessor: k_anonimity, k: 5}\n")
    _one_line(
        run_cli("audit", release, "--policy", policy), "unknown assessor 'k_anonimity' (did you mean 'k_anonymity'?)"
    )


def test_a_misspelt_method_gets_a_suggestion(tmp_path, release):
    policy = _policy(tmp_path, "  - {assessor: k_anonymity, k: 5}\n")
    result = run_cli("remediate", release, "--policy", policy, "--method", "generalise", "--out", tmp_path / "o.csv")
    _one_line(result, "unknown remediation method 'generalise' (did you mean 'generalize'?)")
    assert not (tmp_path / "o.csv").exists()


def test_a_misspelt_scenario_column_names_the_column(tmp_path, release):
    policy = _policy(tmp_path, "  - {assessor: k_anonymity, k: 5, quasi_identifiers: [sex, agee]}\n")
    _one_line(
        run_cli("audit", release, "--policy", policy),
        "checks[0].quasi_identifiers: 'agee' is not a quasi-identifier, nor any column of the policy (did you mean 'age'?)",
    )
    policy = _policy(tmp_path, "  - {assessor: k_anonymity, k: 5, quasi_identifiers: [sex, occupation]}\n")
    _one_line(
        run_cli("audit", release, "--policy", policy), "'occupation' is not a quasi-identifier (its role is 'sensitive'"
    )


def test_a_misspelt_sensitive_column_and_engine_option_get_suggestions(tmp_path, release):
    policy = _policy(tmp_path, "  - {assessor: l_diversity, sensitive: ocupation, l: 2}\n")
    _one_line(run_cli("audit", release, "--policy", policy), "'ocupation' is not a column of the policy (did you mean")
    policy = _policy(tmp_path, "  - {assessor: k_anonymity, k: 2}\n")
    result = run_cli("audit", release, "--policy", policy, "--engine", "duckdb", "--engine-option", "thread=2")
    _one_line(result, "--engine-option thread: the duckdb engine takes", "(did you mean 'threads'?)")


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="abcdefghijklmnopqrstuvwxyz_", min_size=3, max_size=20), st.data())
def test_every_one_letter_slip_of_a_name_is_suggested(name, data):
    """A name with one letter dropped, doubled or swapped is suggested among others far from it."""
    i = data.draw(st.integers(0, len(name) - 1))
    slip = data.draw(st.sampled_from([name[:i] + name[i + 1 :], name[:i] + name[i] + name[i:], name.upper()]))
    others = ["membership_inference", "record_linkage", "t_closeness", "1"]
    hint = did_you_mean(slip, [*others, name])
    assert slip == name or hint == f" (did you mean {name!r}?)" or did_you_mean(slip, [name]) == hint


# ------------------------------------------------------------------------------------------ hostile values
def _adversarial(unit: str, length: int) -> str:
    return (unit * (length // len(unit) + 1))[:length]


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(RECOGNIZERS),
    st.text(alphabet="a1 .-@/+(xé", min_size=1, max_size=4),
    st.sampled_from(["", "1 ", "calle ", "00", "+1 ", "rue "]),
)
def test_no_recognizer_backtracks_on_a_long_value(recognizer, unit, prefix):
    """Every recognizer's full match of a 256-character value (the longest the scan matches) is quick."""
    value = (prefix + _adversarial(unit, 256))[:256]
    pattern = re.compile(recognizer.pattern, re.IGNORECASE)
    start = time.process_time()
    pattern.fullmatch(value)
    assert time.process_time() - start < 0.05, (recognizer.kind, value[:40])


def test_a_column_of_long_street_like_values_is_scanned_in_a_second():
    """100 kB of 250-letter values: each split cubically by the old street pattern (0.5 s a value)."""
    rng = np.random.default_rng(0)
    values = ["".join(rng.choice(list("abcdefgh"), 250)) for _ in range(400)]
    start = time.process_time()
    scan_column("note", pd.Series(values, dtype=object))
    assert time.process_time() - start < 1.0


def test_init_on_a_postcode_column_of_huge_numbers_stays_small(tmp_path):
    rng = np.random.default_rng(0)
    data = tmp_path / "pc.csv"
    rows = ["sex,postcode"] + [f"{'FM'[i % 2]},{''.join(map(str, rng.integers(0, 10, 100_000)))}" for i in range(20)]
    data.write_text("\n".join(rows) + "\n")
    script = (
        "import resource, sys\n"
        "resource.setrlimit(resource.RLIMIT_AS, (1 << 31, 1 << 31))\n"  # 2 GiB: the masking hierarchy took 20+
        "from privaudit.cli import main\n"
        f"sys.exit(main(['init', {str(data)!r}, '--out', {str(tmp_path / 'p.yaml')!r}]))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-1000:]
    assert "postcode: {role: quasi_identifier, type: nominal" in (tmp_path / "p.yaml").read_text()
    # the 2 GiB address-space limit above is the bound (RUSAGE_CHILDREN would count other tests' children too)


def test_an_engine_option_alias_bomb_is_refused_at_once(tmp_path, release):
    policy = _policy(tmp_path, "  - {assessor: k_anonymity, k: 2}\n")
    levels = ["&a [x,x,x,x,x,x,x,x,x]"] + [
        f"&{c} [{', '.join([f'*{p}'] * 9)}]" for p, c in zip("abcdef", "bcdefg", strict=True)
    ]
    bomb = "[" + ", ".join(levels) + "]"
    start = time.monotonic()
    result = run_cli("audit", release, "--policy", policy, "--engine", "duckdb", "--engine-option", f"threads={bomb}")
    assert time.monotonic() - start < 5
    _one_line(result, "--engine-option threads: YAML expands to over 200,000 values (alias bomb?)")
    long = run_cli(
        "audit", release, "--policy", policy, "--engine", "duckdb", "--engine-option", "threads=" + "9" * 20_000
    )
    _one_line(long, "--engine-option threads: a value of 20,000 characters")
    assert len(long.stderr) < 200


# ------------------------------------------------------------------------------------------ standard error
def _with_an_empty_column(tmp_path):
    rng = np.random.default_rng(1)
    n = 300
    frame = pd.DataFrame(
        {
            "age": rng.integers(18, 90, n),
            "sex": rng.choice(["F", "M"], n),
            "income": rng.integers(1000, 9000, n).astype(float),
            "empty": [""] * n,
        }
    )
    data = tmp_path / "w.csv"
    frame.to_csv(data, index=False)
    return data


def test_a_successful_run_prints_no_python_warning(tmp_path):
    """init on an all-empty column (pandas' FutureWarning) and a remediation with an all-missing numeric
    column (numpy's "Mean of empty slice"): standard error carries privaudit's lines only."""
    data = _with_an_empty_column(tmp_path)
    drafted = run_cli("init", data, "--out", tmp_path / "w.yaml")
    assert drafted.code == 0 and drafted.stderr == "", drafted.stderr
    policy = tmp_path / "p.yaml"
    policy.write_text(
        "version: 1\nname: t\ncolumns:\n  age: {role: quasi_identifier, type: numeric}\n"
        "  sex: {role: quasi_identifier}\n  empty: {role: quasi_identifier, type: numeric}\n"
        "  income: {role: sensitive, type: numeric}\nchecks:\n  - {assessor: k_anonymity, k: 5}\n"
    )
    fixed = run_cli(
        "remediate", data, "--policy", policy, "--method", "generalize", "--out", tmp_path / "f.csv", "--quiet"
    )
    assert fixed.code == 0 and fixed.stderr == "", fixed.stderr
    debug = run_cli(
        "--debug",
        "remediate",
        data,
        "--policy",
        policy,
        "--method",
        "generalize",
        "--out",
        tmp_path / "g.csv",
        "--quiet",
    )
    assert "privaudit: debug: " in debug.stderr and "RuntimeWarning" in debug.stderr  # what is hidden, on demand


def test_k_beyond_the_number_of_records_is_said_up_front(tmp_path, release):
    policy = _policy(tmp_path, "  - {assessor: k_anonymity, k: 100000}\n  - {assessor: uniqueness, max_share: 1.0}\n")
    audited = run_cli("audit", release, "--policy", policy, "--quiet")
    assert audited.code == 1
    line = "check 'k_anonymity': k=100,000 exceeds the number of records (300 in "
    assert audited.stderr.startswith("privaudit: warning: ") and line in audited.stderr
    assert len(audited.stderr.splitlines()) == 1
    fixed = run_cli("remediate", release, "--policy", policy, "--method", "suppress", "--out", tmp_path / "f.csv")
    _one_line(fixed, line, "no remediation can reach it")
    assert fixed.stdout == "" and not (tmp_path / "f.csv").exists()
    import privaudit
    from privaudit.core.errors import PrivauditWarning

    with pytest.warns(PrivauditWarning, match="k=100,000 exceeds the number of records"):
        assert not privaudit.audit(release, policy).passed
    warned = _policy(tmp_path, "  - {assessor: k_anonymity, k: 100000, severity: warning}\n")
    ok = run_cli(
        "remediate", release, "--policy", warned, "--method", "suppress", "--out", tmp_path / "g.csv", "--quiet"
    )
    assert ok.code == 0 and "privaudit: warning: " in ok.stderr  # a warning check does not stop a remediation
