"""Summary engines (chunked, DuckDB, Spark) give the figures of the in-process path.

The contract is tested on whole JSON reports (every check, every worst-class listing), ignoring only
``engine`` and ``generated_at``, on tables that exercise what could differ: missing tokens and padding,
``"30"`` and ``"30.0"`` as one number, ordinal and nominal codes, a nominal sensitive column with a
hierarchy, numeric and ordinal sensitive columns, weights (some missing), an identifier column, high-
cardinality quasi-identifiers whose packed key needs more than 62 bits, CSV and Parquet (native types,
dictionary columns, small row groups). Bad input gives the in-process one-line error, exit code 2,
through every engine (the whole malformed-input corpus, and cases whose message depends on row order).

DuckDB and Spark tests are skipped when the package is not installed (``pip install '.[duckdb]'``,
``'.[spark]'``); Spark tests start one local session and keep to small tables.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import DATA, ROOT, write_policy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from privaudit.cli import main
from privaudit.core.errors import DataError, PrivauditError
from privaudit.core.summary import build_summary
from privaudit.engines import engines, summarize
from privaudit.io.data import load_table
from privaudit.pipeline.audit import run_audit
from privaudit.plugin.engine import Engine
from privaudit.report.json_report import report_of
from privaudit.testing import load_policy

HAS_DUCKDB = importlib.util.find_spec("duckdb") is not None
HAS_SPARK = importlib.util.find_spec("pyspark") is not None
needs_duckdb = pytest.mark.skipif(not HAS_DUCKDB, reason="duckdb is not installed (pip install '.[duckdb]')")
needs_spark = pytest.mark.skipif(not HAS_SPARK, reason="pyspark is not installed (pip install '.[spark]')")

# small batches and partitions, no dense counting: a few thousand rows go through spilled key-range
# partitions (the default chunked settings count such small key spaces in dense arrays)
CHUNKED_SMALL = {"batch_rows": 300, "partition_rows": 400, "sample_stride": 5, "block_bytes": 8_000, "dense_cells": 0}
ENGINE_OPTIONS = [
    pytest.param("chunked", CHUNKED_SMALL, id="chunked-small-batches"),
    pytest.param("chunked", {}, id="chunked"),
    pytest.param("duckdb", {}, id="duckdb", marks=needs_duckdb),
]

DISEASES = (
    "disease;group;*\nflu;resp;*\ncold;resp;*\nasthma;resp;*\nulcer;digest;*\ngastritis;digest;*\ncolitis;digest;*\n"
)
AGE_BANDS = "".join(f"{a};{a // 10 * 10}-{a // 10 * 10 + 9};*\n" for a in range(0, 100))

POLICY = """version: 1
name: engines
data: {missing: ["NA", "-"]%(data)s}
columns:
  id: {role: identifier}
  age: {role: quasi_identifier, type: numeric, hierarchy: age.csv}
  sex: {role: quasi_identifier}
  edu: {role: quasi_identifier, type: ordinal, order: [none, primary, secondary, tertiary]}
  zip: {role: quasi_identifier}
  disease: {role: sensitive, hierarchy: disease.csv}
  income: {role: sensitive, type: numeric}
  grade: {role: sensitive, type: ordinal, order: [low, mid, high]}
  w: {role: weight, type: numeric}
  note: {role: other, type: numeric}
checks:
  - {assessor: k_anonymity, k: %(k)d}
  - {assessor: p_sensitive_k_anonymity, p: 2, k: 2}
  - {id: ld, assessor: l_diversity, sensitive: disease, variant: distinct, l: 2}
  - {id: le, assessor: l_diversity, sensitive: disease, variant: entropy, l: 2}
  - {id: lr, assessor: l_diversity, sensitive: grade, variant: recursive, l: 2, c: 2}
  - {id: to, assessor: t_closeness, sensitive: income, t: 0.2}
  - {id: tg, assessor: t_closeness, sensitive: grade, t: 0.2}
  - {id: te, assessor: t_closeness, sensitive: disease, t: 0.3, distance: equal}
  - {id: th, assessor: t_closeness, sensitive: disease, t: 0.3, distance: hierarchical}
  - {assessor: uniqueness, sampling_fraction: 0.1}
report: {max_classes: 40, show_sensitive_values: %(show)s}
"""


def messy_table(n: int, seed: int, coarse: bool = False) -> pd.DataFrame:
    """Text as a release file holds it: missing tokens, padding, equal numbers written differently."""
    rng = np.random.default_rng(seed)

    def pick(values, p_missing=0.05):
        out = rng.choice(np.array(values, dtype=object), n)
        gaps = rng.random(n) < p_missing
        out[gaps] = rng.choice(np.array(["", "*", "NA", "  ", "-"], dtype=object), gaps.sum())
        return out

    age = np.array([str(a) for a in rng.integers(17, 22 if coarse else 60, n)], dtype=object)
    age[rng.random(n) < 0.1] = "19.0"
    age[rng.random(n) < 0.05] = " 20 "
    age[rng.random(n) < 0.03] = ""
    return pd.DataFrame(
        {
            "id": pick([f"p{i}" for i in range(50)] + [""] * 50, 0.3),
            "age": age,
            "sex": pick(["M", "F", "x y"]),
            "edu": pick(["none", "primary", "secondary", "tertiary"]),
            "zip": pick(["z1", "Z1", "z10"] if coarse else ["z1", "Z1", "z10", "z2", "é3", "a b", " z2"]),
            "disease": pick(["flu", "cold", "asthma", "ulcer", "gastritis", "colitis"]),
            "income": pick(["1000", "2000", "2500.5", "3000", "1e3", "4000"]),
            "grade": pick(["low", "mid", "high"]),
            "w": pick(["1", "2", "0.5", "4.25", "10"]),  # dyadic: weight sums are exact in any order
            "note": pick(["1", "2.5", "-3"]),
            "extra": pick(["a", "b", "=1+1"]),
        }
    )


def make_release(
    folder: Path, n: int = 1500, seed: int = 0, coarse: bool = False, show: bool = False, data_options: str = ""
) -> Path:
    """``data.csv``, ``data.parquet`` (native and dictionary types, 400-row groups) and the policy."""
    folder.mkdir(parents=True, exist_ok=True)
    frame = messy_table(n, seed, coarse)
    (folder / "disease.csv").write_text(DISEASES)
    (folder / "age.csv").write_text(AGE_BANDS)
    write_policy(folder, POLICY % {"data": data_options, "show": str(show).lower(), "k": 3})
    frame.to_csv(folder / "data.csv", index=False)
    native = frame.copy()
    native["sex"] = native["sex"].astype("category")
    native["grade"] = native["grade"].astype("category")
    native["zip"] = native["zip"].where(native["zip"] != "", None)
    pq.write_table(pa.Table.from_pandas(native, preserve_index=False), folder / "data.parquet", row_group_size=400)
    return folder


def report(data: Path, policy: Path, engine: str = "in-process", **options) -> dict:
    if engine == "in-process":
        result = run_audit(data, policy)
    else:
        result = run_audit(data, policy, engine=engine, **options)
    assert result.engine == engine
    out = report_of(result).to_dict()
    assert out["engine"] == engine
    out.pop("engine")
    out.pop("generated_at")
    return out


@pytest.fixture(scope="module")
def releases(tmp_path_factory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("releases")
    return {
        "fine": make_release(base / "fine", seed=1),
        "coarse-shown": make_release(base / "coarse", n=2500, seed=2, coarse=True, show=True),
    }


def _assert_same(reference: dict, got: dict) -> None:
    assert got["input"] == reference["input"]
    for ref_check, check in zip(reference["checks"], got["checks"], strict=False):
        assert check == ref_check, check["id"]
    assert got == reference


# ---------------------------------------------------------------------------------------- same figures
@pytest.mark.parametrize("engine,options", ENGINE_OPTIONS)
@pytest.mark.parametrize("fmt", ["csv", pytest.param("parquet", marks=pytest.mark.slow)])
@pytest.mark.parametrize("which", ["fine", "coarse-shown"])
def test_engine_report_equals_in_process(releases, which, fmt, engine, options):
    folder = releases[which]
    data, policy = folder / f"data.{fmt}", folder / "policy.yaml"
    reference = report(data, policy)
    listed = [c for c in reference["checks"] if c["details"].get("worst_classes")]
    assert len(listed) >= 8  # the comparison covers worst-class listings ...
    if which == "coarse-shown":  # ... with their sensitive values
        assert any("sensitive_values" in row for c in listed for row in c["details"]["worst_classes"])
    assert reference["checks"][0]["assessor"] == "direct_identifiers" and reference["checks"][0]["value"] == 1
    _assert_same(reference, report(data, policy, engine, **options))


SCENARIO_CHECKS = """  - {id: k-age-sex, assessor: k_anonymity, k: 3, quasi_identifiers: [age, sex]}
  - {id: k-zip, assessor: k_anonymity, k: 3, quasi_identifiers: [zip]}
  - {id: ld-edu-zip, assessor: l_diversity, sensitive: disease, l: 2, quasi_identifiers: [zip, edu]}
  - {id: th-sex, assessor: t_closeness, sensitive: disease, t: 0.3, distance: hierarchical, quasi_identifiers: [sex]}
  - {id: tg-age-edu, assessor: t_closeness, sensitive: grade, t: 0.2, quasi_identifiers: [age, edu]}
  - {id: u-age-zip, assessor: uniqueness, sampling_fraction: 0.1, quasi_identifiers: [zip, age]}
"""


@pytest.mark.parametrize("engine,options", ENGINE_OPTIONS)
@pytest.mark.parametrize("fmt", ["csv", pytest.param("parquet", marks=pytest.mark.slow)])
def test_attacker_scenarios_equal_in_process(releases, tmp_path, fmt, engine, options):
    """Checks with their own quasi-identifiers (attacker scenarios, as ``privaudit init`` drafts them) run on
    the out-of-memory engines too: each scenario's classes are unions of the engine's classes, and the
    report is the in-process one figure for figure (worst classes and sensitive values included)."""
    folder = releases["coarse-shown"]
    for name in ("age.csv", "disease.csv"):
        shutil.copy(folder / name, tmp_path / name)
    text = (folder / "policy.yaml").read_text().replace("report:", SCENARIO_CHECKS + "report:")
    policy = write_policy(tmp_path, text)
    data = folder / f"data.{fmt}"
    reference = report(data, policy)
    scenario = [c for c in reference["checks"] if c.get("quasi_identifiers")]
    assert len(scenario) == 6 and all(c["status"] != "error" for c in scenario)
    assert any(c["details"].get("worst_classes") for c in scenario)
    _assert_same(reference, report(data, policy, engine, **options))


@pytest.mark.parametrize("engine,options", ENGINE_OPTIONS)
def test_adult_release_with_hierarchies(tmp_path, engine, options):
    """The Adult extract (30,162 rows, 7 quasi-identifiers) with ARX's occupation hierarchy."""
    adult = ROOT / "examples" / "adult" / "adult.csv"
    hierarchy = DATA / "engines" / "adult_hierarchy_occupation.csv"
    shutil.copy(hierarchy, tmp_path / hierarchy.name)
    policy = write_policy(
        tmp_path,
        """version: 1
name: adult
data: {delimiter: ";"}
columns:
  sex: {role: quasi_identifier}
  age: {role: quasi_identifier, type: numeric}
  race: {role: quasi_identifier}
  marital-status: {role: quasi_identifier}
  education: {role: quasi_identifier}
  native-country: {role: quasi_identifier}
  workclass: {role: quasi_identifier}
  occupation: {role: sensitive, hierarchy: adult_hierarchy_occupation.csv}
  salary-class: {role: sensitive, type: ordinal, order: ["<=50K", ">50K"]}
checks:
  - {assessor: k_anonymity, k: 5}
  - {id: le, assessor: l_diversity, sensitive: occupation, variant: entropy, l: 2}
  - {id: to, assessor: t_closeness, sensitive: salary-class, t: 0.2}
  - {id: th, assessor: t_closeness, sensitive: occupation, t: 0.3, distance: hierarchical}
  - {assessor: uniqueness}
""",
    )
    if options:
        options = {**options, "block_bytes": 200_000}
    reference = report(adult, policy)
    assert reference["input"]["rows"] == 30162
    _assert_same(reference, report(adult, policy, engine, **options))


@pytest.mark.parametrize("engine,options", ENGINE_OPTIONS)
def test_packed_key_wider_than_62_bits(tmp_path, engine, options):
    """Seven quasi-identifiers of ~600 values each: the mixed-radix key needs ~65 bits, so in-process
    re-factorizes it and the SQL engines group on two key parts; the class order must not change."""
    rng = np.random.default_rng(5)
    n = 3000
    frame = pd.DataFrame({f"q{i}": rng.integers(0, 600, n).astype(str) for i in range(7)})
    frame["q3"] = frame["q3"].where(rng.random(n) > 0.05, "")
    frame["s"] = rng.choice(["a", "b", "c"], n)
    frame.to_csv(tmp_path / "data.csv", index=False)
    columns = "".join(f"  q{i}: {{role: quasi_identifier{', type: numeric' if i % 2 else ''}}}\n" for i in range(7))
    policy = write_policy(
        tmp_path,
        "version: 1\nname: wide\ncolumns:\n" + columns + "  s: {role: sensitive}\n"
        "checks:\n  - {assessor: k_anonymity, k: 2}\n  - {assessor: l_diversity, sensitive: s, l: 2}\n"
        "report: {max_classes: 200, show_sensitive_values: true}\n",
    )
    _assert_same(report(tmp_path / "data.csv", policy), report(tmp_path / "data.csv", policy, engine, **options))


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    rows=st.lists(
        st.tuples(
            st.sampled_from(["a", "b", " b", "", "*", "Ω"]),
            st.sampled_from(["1", "2", "2.0", "10", ""]),
            st.sampled_from(["lo", "hi", ""]),
            st.sampled_from(["x", "y", "z", ""]),
        ),
        min_size=1,
        max_size=60,
    ),
    batch=st.integers(1, 7),
    partition=st.integers(1, 30),
    stride=st.integers(1, 5),
    dense=st.booleans(),
)
def test_chunked_summary_equals_build_summary(tmp_path_factory, rows, batch, partition, stride, dense):
    """Any table, any batch size, any number of key-range partitions: the chunked summary has the
    in-process classes (same numbering), sizes, representatives and sensitive counts."""
    folder = tmp_path_factory.mktemp("prop")
    frame = pd.DataFrame(rows, columns=["n", "num", "ord", "s"])
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), folder / "t.parquet", row_group_size=batch)
    policy = load_policy(
        write_policy(
            folder,
            """version: 1
name: prop
columns:
  n: {role: quasi_identifier}
  num: {role: quasi_identifier, type: numeric}
  ord: {role: quasi_identifier, type: ordinal, order: [lo, hi]}
  s: {role: sensitive}
""",
        )
    )
    table = load_table(folder / "t.parquet", policy)
    expected = build_summary(table.frame, ["n", "num", "ord"], {"s": ("nominal", None)})
    got = summarize(
        folder / "t.parquet",
        policy,
        "chunked",
        batch_rows=batch,
        partition_rows=partition,
        sample_stride=stride,
        dense_cells=1 << 20 if dense else 0,
    ).summary
    assert got.class_of is None and got.n_records == len(frame)
    np.testing.assert_array_equal(got.sizes, expected.sizes)
    np.testing.assert_array_equal(got.class_fk, expected.class_fk)
    assert got.describe(range(got.n_classes)) == expected.describe(range(expected.n_classes))
    a, b = got.sensitive["s"], expected.sensitive["s"]
    assert list(a.values) == list(b.values) and a.missing == b.missing
    np.testing.assert_array_equal(a.total, b.total)
    assert (a.counts != b.counts).nnz == 0
    np.testing.assert_array_equal(a.counts.indices, b.counts.indices)


@pytest.mark.parametrize("engine", [pytest.param("chunked"), pytest.param("duckdb", marks=needs_duckdb)])
def test_engine_result_facts(releases, engine):
    """The file's facts, counts of non-missing values, and the summary's shape (no per-record array,
    one representative row per class, weight sums)."""
    folder = releases["fine"]
    policy = load_policy(folder / "policy.yaml")
    for fmt in ("csv", "parquet"):
        ref = summarize(folder / f"data.{fmt}", policy)
        got = summarize(folder / f"data.{fmt}", policy, engine)
        assert got.table.frame is None and got.table.rows == ref.table.rows == 1500
        assert got.table.columns == ref.table.columns
        assert (got.table.sha256, got.table.size, got.table.file_format) == (ref.table.sha256, ref.table.size, fmt)
        assert {c: got.column_counts[c] for c in policy.columns} == {c: ref.column_counts[c] for c in policy.columns}
        s = got.summary
        assert s.class_of is None and len(s.frame) == s.n_classes
        np.testing.assert_array_equal(s.first_row, np.arange(s.n_classes))
        w = ref.table.frame["w"].to_numpy(dtype=float)
        expected = np.bincount(ref.summary.class_of, weights=np.nan_to_num(w, nan=1.0))
        np.testing.assert_array_equal(s.weight_sums, expected)


@pytest.mark.parametrize("engine,options", ENGINE_OPTIONS)
def test_parquet_with_native_types(tmp_path, engine, options):
    """Integer, float and null Parquet values become the texts data.py makes of them (a numeric missing
    token, -9, included), whichever engine reads them."""
    rng = np.random.default_rng(8)
    n = 800
    income = rng.choice([1000.0, 2500.5, 3000.0, np.nan], n)
    table = pa.table(
        {
            "id": pa.array(np.where(rng.random(n) < 0.5, -9, rng.integers(1, 50, n)), pa.int64()),
            "age": pa.array(rng.integers(17, 30, n), pa.int16()),
            "sex": pa.array(rng.choice(["M", "F"], n)).dictionary_encode(),
            "income": pa.array(income, pa.float64(), mask=np.isnan(income)),
            "w": pa.array(rng.choice([1.0, 2.0, 0.25], n), pa.float64()),
            "flag": pa.array(rng.random(n) < 0.5),
        }
    )
    pq.write_table(table, tmp_path / "t.parquet", row_group_size=150)
    policy = write_policy(
        tmp_path,
        """version: 1
name: native
data: {missing: ["-9"]}
columns:
  id: {role: identifier}
  flag: {role: other}
  age: {role: quasi_identifier, type: numeric}
  sex: {role: quasi_identifier}
  income: {role: sensitive, type: numeric}
  w: {role: weight, type: numeric}
checks:
  - {assessor: k_anonymity, k: 2}
  - {assessor: t_closeness, sensitive: income, t: 0.3}
  - {assessor: uniqueness}
report: {show_sensitive_values: true}
""",
    )
    _assert_same(report(tmp_path / "t.parquet", policy), report(tmp_path / "t.parquet", policy, engine, **options))
    loaded = load_policy(policy)
    ref, got = summarize(tmp_path / "t.parquet", loaded), summarize(tmp_path / "t.parquet", loaded, engine, **options)
    assert got.column_counts["id"] == ref.column_counts["id"] < n
    assert got.column_counts["flag"] == ref.column_counts["flag"] == n


@pytest.mark.slow
@pytest.mark.parametrize("engine,options", ENGINE_OPTIONS)
def test_uniqueness_against_a_population_file(releases, tmp_path, engine, options):
    """P(PU | SU) matches the sample-unique classes' representatives against a population table."""
    folder = releases["fine"]
    for name in ("data.csv", "data.parquet", "disease.csv", "age.csv"):
        shutil.copy(folder / name, tmp_path / name)
    population = pd.concat([messy_table(1500, 1), messy_table(3000, 9)])
    population.to_csv(tmp_path / "population.csv", index=False)
    policy = write_policy(
        tmp_path,
        (folder / "policy.yaml")
        .read_text()
        .replace(
            "{assessor: uniqueness, sampling_fraction: 0.1}", "{assessor: uniqueness, population: population.csv}"
        ),
    )
    for fmt in ("csv", "parquet"):
        reference = report(tmp_path / f"data.{fmt}", policy)
        assert 0 < reference["checks"][-3]["details"]["pu_given_su"] < 1
        _assert_same(reference, report(tmp_path / f"data.{fmt}", policy, engine, **options))


def test_missing_weights_count_as_one(tmp_path):
    (tmp_path / "data.csv").write_text("q,w\na,2\na,\nb,NA\nb,0.5\n")
    policy = load_policy(
        write_policy(
            tmp_path,
            "version: 1\nname: w\ndata: {missing: [NA]}\ncolumns:\n"
            "  q: {role: quasi_identifier}\n  w: {role: weight, type: numeric}\n",
        )
    )
    np.testing.assert_array_equal(summarize(tmp_path / "data.csv", policy, "chunked").summary.weight_sums, [3.0, 1.5])


# ---------------------------------------------------------------------------------------- bad input
def _cli(*args) -> tuple[int, str]:
    err, out = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
        code = main([str(a) for a in args])
    return code, err.getvalue().strip()


CORPUS = DATA / "bad"


@pytest.mark.slow
@pytest.mark.parametrize("engine", [pytest.param("chunked"), pytest.param("duckdb", marks=needs_duckdb)])
def test_malformed_corpus_gives_the_in_process_errors(engine):
    """Every case of tests/data/bad: the same one-line message and exit code 2 through the engine."""
    cases = sorted(p for p in CORPUS.iterdir() if p.is_dir())
    assert len(cases) >= 30
    for case in cases:
        data = next(p for p in case.iterdir() if p.name.startswith("data."))
        reference = _cli("audit", data, "--policy", case / "policy.yaml", "--quiet")
        assert reference[0] == 2
        assert _cli("audit", data, "--policy", case / "policy.yaml", "--quiet", "--engine", engine) == reference, (
            case.name
        )


ORDER_CASES = {
    # the first column (file order) with a bad value is named, even when a later column fails earlier
    "first-column-wins": ("q,age,w\n" + "a,30,1\n" * 5 + "b,30,x\n" + "a,old,1\n", "age"),
    # a weight that is not a number outranks an earlier non-positive weight in the same column
    "number-before-positive": ("q,age,w\n" + "a,30,1\n" * 3 + "a,30,-1\n" + "a,30,1\n" * 4 + "b,31,heavy\n", "heavy"),
    "weight-not-positive": ("q,age,w\n" + "a,30,1\n" * 3 + "a,30,0\n", "weights must be positive"),
    "ordinal-unlisted": ("q,age,w\na,30,1\nb,31,1\n", "is not in the policy's 'order'"),
    # numeric values outside a hierarchy: the one met first in the file is named
    "numeric-hierarchy": ("q,age,w\na,30,1\nc,130,1\na,125,1\n", "'130' is not in hierarchy"),
    "header-only-absent-column": ("q,age\n", "header but no data rows"),
}


@pytest.mark.parametrize("engine", [pytest.param("chunked"), pytest.param("duckdb", marks=needs_duckdb)])
@pytest.mark.parametrize("case", sorted(ORDER_CASES))
def test_errors_that_depend_on_row_order(tmp_path, engine, case):
    text, phrase = ORDER_CASES[case]
    (tmp_path / "data.csv").write_text(text)
    (tmp_path / "age.csv").write_text(AGE_BANDS)
    order = "[a, c]" if case == "ordinal-unlisted" else "[a, b, c]"
    policy = write_policy(
        tmp_path,
        f"""version: 1
name: order
columns:
  q: {{role: quasi_identifier, type: ordinal, order: {order}}}
  age: {{role: quasi_identifier, type: numeric, hierarchy: age.csv}}
  w: {{role: weight, type: numeric}}
checks:
  - {{assessor: k_anonymity, k: 1}}
""",
    )
    reference = _cli("audit", tmp_path / "data.csv", "--policy", policy, "--quiet")
    assert reference[0] == 2 and phrase in reference[1]
    got = _cli("audit", tmp_path / "data.csv", "--policy", policy, "--quiet", "--engine", engine)
    assert got == reference
    if case == "first-column-wins":
        assert "column 'age', line 8" in got[1]


@pytest.mark.parametrize("engine", [pytest.param("chunked"), pytest.param("duckdb", marks=needs_duckdb)])
def test_bad_value_in_a_late_batch_names_its_line(tmp_path, engine):
    lines = ["q,age"] + [f"{'ab'[i % 2]},{20 + i % 50}" for i in range(5000)]
    lines[4321] = "a,forty"
    (tmp_path / "data.csv").write_text("\n".join(lines) + "\n")
    policy = write_policy(
        tmp_path,
        "version: 1\nname: late\ncolumns:\n  q: {role: quasi_identifier}\n"
        "  age: {role: quasi_identifier, type: numeric}\n",
    )
    options = {"batch_rows": 500, "block_bytes": 2_000} if engine == "chunked" else {}
    with pytest.raises(DataError, match="column 'age', line 4322: 'forty' is not a number"):
        summarize(tmp_path / "data.csv", load_policy(policy), engine, **options)


@pytest.mark.parametrize("engine", [pytest.param("chunked"), pytest.param("duckdb", marks=needs_duckdb)])
def test_wildcard_refused_only_when_a_qi_value_is_missing(releases, tmp_path, engine):
    folder = make_release(tmp_path / "wild", n=300, seed=3, data_options=", missing_qi: wildcard")
    code, err = _cli("audit", folder / "data.csv", "--policy", folder / "policy.yaml", "--quiet", "--engine", engine)
    assert code == 2 and "'wildcard'" in err and "--engine in-process" in err and len(err.splitlines()) == 1
    (tmp_path / "full.csv").write_text("a,b,s\nx,1,u\nx,1,v\ny,2,u\n")
    policy = write_policy(
        tmp_path,
        "version: 1\nname: w\ndata: {missing_qi: wildcard}\ncolumns:\n"
        "  a: {role: quasi_identifier}\n  b: {role: quasi_identifier}\n  s: {role: sensitive}\n"
        "checks:\n  - {assessor: k_anonymity, k: 2}\n  - {assessor: l_diversity, sensitive: s, l: 2}\n",
    )
    _assert_same(report(tmp_path / "full.csv", policy), report(tmp_path / "full.csv", policy, engine))


def test_checks_needing_the_whole_table_are_refused_before_any_work(tmp_path):
    (tmp_path / "data.csv").write_text("q,s\na,x\n")
    policy = write_policy(
        tmp_path,
        "version: 1\nname: rr\ncolumns:\n  q: {role: quasi_identifier}\n"
        "  s: {role: sensitive}\nchecks:\n  - {assessor: rr_attribute_disclosure, sensitive: s, "
        "max_risk: 0.5, randomized: {s: {keep_probability: 0.8}}}\n",
    )
    code, err = _cli("audit", tmp_path / "missing.csv", "--policy", policy, "--engine", "chunked")
    assert code == 2 and "needs the whole table in memory: use --engine in-process (this audit uses chunked)" in err


def test_original_and_unknown_engines_are_refused(tmp_path):
    (tmp_path / "data.csv").write_text("q\na\n")
    policy = write_policy(tmp_path, "version: 1\nname: o\ncolumns:\n  q: {role: quasi_identifier}\n")
    with pytest.raises(DataError, match="--original needs the whole tables in memory"):
        run_audit(tmp_path / "data.csv", policy, engine="chunked", original=tmp_path / "data.csv")
    with pytest.raises(PrivauditError, match="unknown engine 'gpu'"):
        run_audit(tmp_path / "data.csv", policy, engine="gpu")
    with pytest.raises(PrivauditError, match=r"pip install 'privaudit\[nosuchpkg\]'"):
        Engine("x", "test", "privaudit.engines.chunked:summarize", requires="nosuchpkg", extra="nosuchpkg").load()
    from privaudit.pipeline.plugins import get_registry

    origin = get_registry().origin  # an installed plugin's engines (plugins/privaudit-extras: sqlite) come beside them
    assert {n for n in engines() if origin[f"engine:{n}"].package == "privaudit"} == {
        "in-process",
        "chunked",
        "duckdb",
        "spark",
    }


@pytest.mark.slow
def test_cli_engine_option_writes_the_engine_into_the_report(releases, audit_json):
    folder = releases["coarse-shown"]
    code_ref, ref = audit_json(folder / "data.parquet", folder / "policy.yaml")
    code, got = audit_json(folder / "data.parquet", folder / "policy.yaml", "--engine", "chunked")
    assert (ref["engine"], got["engine"]) == ("in-process", "chunked")
    assert code == code_ref == 1 and got["checks"] == ref["checks"]


# ---------------------------------------------------------------------------------------- Spark
@pytest.fixture(scope="module")
def spark():
    from privaudit.engines.spark_engine import local_session

    session = local_session("local[2]", shuffle_partitions=2)
    yield session


@pytest.mark.slow
@needs_spark
def test_spark_report_equals_in_process(spark, tmp_path):
    """A 600-row release, CSV and Parquet, one Spark session (Spark is slow to start; tables stay small),
    with the policy's checks and then with attacker scenarios added."""
    folder = make_release(tmp_path / "r", n=600, seed=4, coarse=True, show=True)
    scenarios = folder / "scenarios.yaml"
    scenarios.write_text((folder / "policy.yaml").read_text().replace("report:", SCENARIO_CHECKS + "report:"))
    for fmt in ("csv", "parquet"):
        for policy in (folder / "policy.yaml", scenarios):
            data = folder / f"data.{fmt}"
            _assert_same(report(data, policy), report(data, policy, "spark", spark=spark))


def test_spark_shuffle_partitions_follow_the_local_threads():
    from privaudit.engines.spark_engine import _partitions

    assert [_partitions(m) for m in ("local[2]", "local[8]", "local[3, 2]", "local")] == [4, 16, 6, 4]


@needs_spark
def test_spark_parquet_schema_given_only_for_simple_types():
    """One Parquet file of text, signed integer, float and boolean columns is read with the schema Spark
    would infer (no inference job); any other type leaves the inference to Spark."""
    from pyspark.sql.types import ShortType, StringType

    from privaudit.engines.spark_engine import _parquet_schema

    schema = _parquet_schema({"a": pa.int16(), "s": pa.dictionary(pa.int32(), pa.string()), "f": pa.float64()})
    assert [(f.name, f.dataType) for f in schema.fields][:2] == [("a", ShortType()), ("s", StringType())]
    assert all(f.nullable for f in schema.fields)
    for other in (pa.timestamp("us"), pa.uint32(), pa.decimal128(10, 2), pa.date32()):
        assert _parquet_schema({"a": pa.int16(), "b": other}) is None
    assert _parquet_schema({}) is None


@pytest.mark.slow
@needs_spark
def test_spark_fine_release_and_wide_key(spark, tmp_path, releases):
    """The one Spark aggregation on many classes: weights (some missing), an identifier, three sensitive
    columns packed beside the classes' keys, and quasi-identifiers whose key needs two BIGINT parts;
    texts with quotes and backslashes coded inline."""
    folder = releases["fine"]
    _assert_same(
        report(folder / "data.parquet", folder / "policy.yaml"),
        report(folder / "data.parquet", folder / "policy.yaml", "spark", spark=spark),
    )
    rng = np.random.default_rng(5)
    n = 3000
    frame = pd.DataFrame({f"q{i}": rng.integers(0, 600, n).astype(str) for i in range(7)})
    frame["q3"] = frame["q3"].where(rng.random(n) > 0.05, "")
    frame["s"] = rng.choice(["a", "b", "it's", "back\\slash", "é ∑", ""], n)  # coded by a CASE on the text
    frame["t"] = rng.choice(["1", "2", "3.5"], n)
    frame.to_csv(tmp_path / "data.csv", index=False)
    columns = "".join(f"  q{i}: {{role: quasi_identifier{', type: numeric' if i % 2 else ''}}}\n" for i in range(7))
    policy = write_policy(
        tmp_path,
        "version: 1\nname: wide\ncolumns:\n" + columns + "  s: {role: sensitive}\n"
        "  t: {role: sensitive, type: numeric}\n"
        "checks:\n  - {assessor: k_anonymity, k: 2}\n  - {assessor: l_diversity, sensitive: s, l: 2}\n"
        "  - {assessor: t_closeness, sensitive: t, t: 0.2}\n"
        "report: {max_classes: 200, show_sensitive_values: true}\n",
    )
    _assert_same(report(tmp_path / "data.csv", policy), report(tmp_path / "data.csv", policy, "spark", spark=spark))


@pytest.mark.slow
@needs_spark
@pytest.mark.parametrize(
    "name", ["ragged-too-few", "latin1-in-utf8", "truncated-quote", "text-in-numeric", "value-not-in-hierarchy"]
)
def test_spark_bad_input_gives_the_in_process_errors(spark, name):
    case = CORPUS / name
    data = next(p for p in case.iterdir() if p.name.startswith("data."))
    policy = load_policy(case / "policy.yaml")
    with pytest.raises(PrivauditError) as expected:
        load_table(data, policy)
    with pytest.raises(PrivauditError) as got:
        summarize(data, policy, "spark", spark=spark)
    assert str(got.value) == str(expected.value)
