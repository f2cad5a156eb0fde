"""A column of hashed identifiers never kills the process.

pandas 2.x's C number parser overflows on an exponent too long for a C ``int`` and the process dies with
SIGSEGV (pandas issue 63650): ``67e871001915644c...``, the SHA-256 hex digest of ``person-2835``, is read as
67 x 10^871001915644. Such digests come up every few thousand rows, so a release with a pseudonym column of
digests is audited (on every engine), drafted by ``init`` and remediated here, each in a process of its own
so that a crash shows as exit 139 (-11), never as a test that hangs or passes. Every parse of text into
numbers goes through :func:`privaudit.common.numeric.to_numeric`; a property test holds it to pandas'
value on every other text.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import re
import subprocess
import sys

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from conftest import ROOT
from hypothesis import given, settings
from hypothesis import strategies as st

from privaudit.common.numeric import to_numbers, to_numeric

ROWS = 8_000  # holds a digest that crashed pandas 2.3.3 in every column (found by trying each in a process)
CRASHING = {"sha256": 2835, "md5": 2862, "sha1": 626, "sha512": 7667}
DIGESTS = {
    "sha256": lambda b: hashlib.sha256(b).hexdigest(),
    "md5": lambda b: hashlib.md5(b).hexdigest(),
    "sha1": lambda b: hashlib.sha1(b).hexdigest(),
    "sha512": lambda b: hashlib.sha512(b).hexdigest(),
    "short": lambda b: hashlib.sha256(b).hexdigest()[:16],  # a truncated digest keeps the crashing prefix
}
ENGINES = ["in-process", "chunked", "duckdb"]


def _release(folder) -> tuple:
    rng = np.random.default_rng(5)
    people = [f"person-{i}".encode() for i in range(ROWS)]
    frame = pd.DataFrame(
        {
            "age": rng.integers(18, 90, ROWS),
            "sex": rng.choice(["F", "M"], ROWS),
            "region": rng.choice(["N", "S", "E", "W"], ROWS),
            **{f"pseudonym_{name}": [digest(p) for p in people] for name, digest in DIGESTS.items()},
            "income": rng.integers(1_000, 90_000, ROWS),
        }
    )
    for name, i in CRASHING.items():  # the digests this test is about are there
        assert re.match(r"[0-9]+e[0-9]{9,}", frame.loc[i, f"pseudonym_{name}"]), name
    data = folder / "release.csv"
    frame.to_csv(data, index=False)
    policy = folder / "policy.yaml"
    policy.write_text(
        "version: 1\nname: hashed pseudonyms\ncolumns:\n"
        "  age: {role: quasi_identifier, type: numeric}\n  sex: {role: quasi_identifier}\n"
        "  region: {role: quasi_identifier}\n  income: {role: sensitive, type: numeric}\n"
        "  pseudonym_sha256: {role: identifier}\n"
        "checks:\n  - {assessor: k_anonymity, k: 2}\n  - {assessor: uniqueness, max_share: 1.0}\n"
    )
    return data, policy


@pytest.fixture(scope="module")
def release(tmp_path_factory):
    return _release(tmp_path_factory.mktemp("hashed"))


def _run(*args, timeout: float = 600) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    return subprocess.run(
        [sys.executable, "-m", "privaudit", *map(str, args)], capture_output=True, text=True, env=env, timeout=timeout
    )


def _no_crash(done: subprocess.CompletedProcess, codes=(0, 1)) -> None:
    assert done.returncode in codes, (done.returncode, done.stderr[-2000:])
    assert "Traceback" not in done.stderr


@pytest.mark.slow
@pytest.mark.parametrize("engine", ENGINES)
def test_a_release_of_hashed_pseudonyms_is_audited_on_every_engine(release, tmp_path, engine):
    data, policy = release
    out = tmp_path / "r.json"
    done = _run("audit", data, "--policy", policy, "--json", out, "--quiet", "--engine", engine)
    _no_crash(done, (1,))  # the declared identifier column still holds values: a failed audit, reported
    checks = {c["id"]: c for c in json.loads(out.read_text())["checks"]}
    found = {f["column"] for f in checks["direct_identifiers"]["details"]["undeclared_findings"]}
    assert {"pseudonym_md5", "pseudonym_sha1", "pseudonym_short"} <= found  # codes of up to 40 characters


@pytest.mark.slow
@pytest.mark.spark
def test_a_release_of_hashed_pseudonyms_is_audited_by_spark(release, tmp_path):
    if importlib.util.find_spec("pyspark") is None:
        pytest.skip("pyspark is not installed")
    data, policy = release
    out = tmp_path / "r.json"
    done = _run(
        "audit", data, "--policy", policy, "--json", out, "--quiet", "--engine", "spark",
        "--engine-option", "master=local[1]",
    )  # fmt: skip
    _no_crash(done, (1,))
    assert json.loads(out.read_text())["checks"]


@pytest.mark.slow
@pytest.mark.parametrize("engine", ENGINES)
def test_a_digest_in_a_numeric_column_is_one_line_on_every_engine(release, tmp_path, engine):
    data, _ = release
    policy = tmp_path / "numeric.yaml"
    policy.write_text(
        "version: 1\nname: digests declared numbers\ncolumns:\n  sex: {role: quasi_identifier}\n"
        "  pseudonym_sha1: {role: sensitive, type: numeric}\nchecks:\n  - {assessor: k_anonymity, k: 2}\n"
    )
    done = _run("audit", data, "--policy", policy, "--quiet", "--engine", engine)
    _no_crash(done, (2,))
    assert done.stderr.count("\n") == 1 and "column 'pseudonym_sha1', line 2: " in done.stderr, done.stderr
    assert "is not a number" in done.stderr


@pytest.mark.slow
def test_init_drafts_a_policy_for_a_release_of_hashed_pseudonyms(release, tmp_path):
    data, _ = release
    out = tmp_path / "drafted.yaml"
    done = _run("init", data, "--out", out)
    _no_crash(done, (0,))
    drafted = out.read_text()
    for name in DIGESTS:
        assert f"pseudonym_{name}" in drafted


@pytest.mark.slow
@pytest.mark.parametrize("method", ["suppress", "generalize"])
def test_a_release_of_hashed_pseudonyms_is_remediated(release, tmp_path, method):
    data, policy = release
    lenient = tmp_path / "policy.yaml"
    lenient.write_text(policy.read_text().replace("  pseudonym_sha256: {role: identifier}\n", ""))
    out = tmp_path / "fixed.csv"
    done = _run("remediate", data, "--policy", lenient, "--method", method, "--out", out, "--quiet")
    _no_crash(done)
    assert out.exists() == (done.returncode == 0)


# ------------------------------------------------------------------------------------------ the helper
def _pandas(texts: list[str]) -> np.ndarray:
    return pd.to_numeric(pd.Series(texts, dtype=object), errors="coerce").to_numpy(dtype=float)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet="0123456789eE+-. ,x", max_size=12), max_size=20))
def test_short_texts_parse_as_pandas_parses_them(texts):
    np.testing.assert_array_equal(to_numbers(texts), _pandas(texts))


@settings(max_examples=200, deadline=None)
@given(
    st.from_regex(r"\A[+-]?[0-9]{1,3}(\.[0-9]{0,3})?\Z"),
    st.sampled_from(["e", "E", "e+", "e-", "E-", "e00"]),
    st.integers(100_000, 10**30),
    st.sampled_from(["", " ", "f3d8", "x"]),
)
def test_a_long_exponent_gets_the_value_of_a_short_one(mantissa, sign, exponent, tail):
    """Any value of a long exponent is what pandas gives the same number with an exponent it can hold."""
    text = f"{mantissa}{sign}{exponent}{tail}"
    short = f"{mantissa}{sign}{400}{tail}"
    np.testing.assert_array_equal(to_numbers([text]), _pandas([short]))


def test_every_kind_of_argument_is_guarded():
    bad = "67e871001915644c3d372f3c"
    for arg in (
        [bad, "12"],
        np.array([bad, "12"]),
        pd.Series([bad, "12"]),
        pd.Series([bad, "12"], dtype="string"),
        pd.Series([bad, "12"], dtype="string[pyarrow]"),
        pd.Series([bad, "12"], dtype=pd.ArrowDtype(pa.string())),
        pd.Series([bad, "12"]).astype("category"),
        pd.Index([bad, "12"]),
    ):
        out = np.asarray(to_numeric(arg), dtype=float)
        assert np.isnan(out[0]) and out[1] == 12.0, type(arg)
    assert np.isnan(to_numeric(bad))
    series = pd.Series([bad, "1e99999999"], dtype=object)
    to_numeric(series)
    assert series.tolist() == [bad, "1e99999999"]  # the input is never rewritten
    with pytest.raises(ValueError, match=re.escape(repr(bad))):
        to_numeric(pd.Series(["1", bad]), errors="raise")
    assert to_numbers(["1,5", "1.5", "2"], decimal=",").tolist()[::2] == [1.5, 2.0]
    assert np.isnan(to_numbers(["1.5"], decimal=",")[0])


def test_nothing_else_hands_text_to_pandas_number_parser():
    """pandas' parser is called in one place (the guarded helper); CSV is read by Arrow as text."""
    allowed = {ROOT / "privaudit/common/numeric.py"}
    offenders = []
    for path in sorted((ROOT / "privaudit").rglob("*.py")):
        if path in allowed:
            continue
        text = path.read_text()
        for pattern in (r"\bpd\.to_numeric\b", r"\bpandas\.to_numeric\(", r"\bpd\.read_csv\((?![^)]*dtype=str)"):
            for m in re.finditer(pattern, text):
                offenders.append(f"{path.relative_to(ROOT)}:{text[: m.start()].count(chr(10)) + 1}")
    assert not offenders, offenders
