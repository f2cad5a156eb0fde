"""Releases that live in directories, globs, Hive-partitioned datasets and object stores.

Object-store tests run against a real S3-compatible server (moto's server mode) that the test starts on
127.0.0.1; privaudit reaches it through pyarrow's S3 filesystem with the standard environment variables.
"""

from __future__ import annotations

import json

import pandas as pd
import pytest
from conftest import ROOT

import privaudit
from privaudit.pipeline.audit import run_audit

RELEASE = ROOT / "examples" / "adult" / "release.csv"
POLICY = ROOT / "policies" / "adult.yaml"


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    return pd.read_csv(RELEASE, sep=";", dtype=str, keep_default_na=False)


def figures(result) -> dict:
    return {c.id: (c.status, c.value) for c in result.checks}


@pytest.fixture(scope="module")
def reference():
    return figures(run_audit(RELEASE, POLICY))


def test_hive_partitioned_parquet_directory_audits_like_the_file(tmp_path, frame, reference, run_cli):
    half = len(frame) // 2
    for year, part in (("2025", frame.iloc[:half]), ("2026", frame.iloc[half:])):
        (tmp_path / f"year={year}").mkdir()
        part.to_parquet(tmp_path / f"year={year}" / "part-0.parquet", index=False)
    (tmp_path / "_SUCCESS").write_text("")  # Spark's marker files are skipped
    result = run_audit(tmp_path, POLICY)
    assert figures(result) == reference
    assert "year" in result.table.columns  # the partition key is a column of the release
    assert result.table.fingerprint == "sha256 of files" and result.table.rows == len(frame)
    out = tmp_path.parent / f"{tmp_path.name}.json"
    code, _, err = run_cli("audit", tmp_path, "--policy", POLICY, "--json", out, "--quiet")
    report = json.loads(out.read_text())
    assert code == 0, err
    assert report["input"]["path"] == str(tmp_path) and report["input"]["fingerprint"] == "sha256 of files"


def test_glob_of_csv_files(tmp_path, frame, reference):
    for i, part in enumerate((frame.iloc[:10000], frame.iloc[10000:20000], frame.iloc[20000:])):
        part.to_csv(tmp_path / f"release-{i}.csv", sep=";", index=False)
    (tmp_path / "notes.md").write_text("not matched by the glob")
    assert figures(run_audit(str(tmp_path / "release-*.csv"), POLICY)) == reference


def test_the_fingerprint_follows_the_content(tmp_path, frame):
    frame.iloc[:100].to_csv(tmp_path / "a.csv", sep=";", index=False)
    frame.iloc[100:200].to_csv(tmp_path / "b.csv", sep=";", index=False)
    first = run_audit(tmp_path, POLICY).table.sha256
    frame.iloc[100:201].to_csv(tmp_path / "b.csv", sep=";", index=False)
    assert run_audit(tmp_path, POLICY).table.sha256 != first


@pytest.mark.parametrize(
    "make, expected",
    [
        (lambda d: None, "no CSV or Parquet file is in this released table location"),
        (
            lambda d: ((d / "a.csv").write_text("sex;age\nMale;30-39\n"), (d / "b.parquet").write_bytes(b"PAR1")),
            "mixes CSV and Parquet files",
        ),
        (
            lambda d: (
                (d / "a.csv").write_text("sex;age\nMale;30-39\n"),
                (d / "b.csv").write_text("sex;race\nMale;White\n"),
            ),
            "b.csv: partitions with different schemas",
        ),
        (
            lambda d: (
                (d / "a.csv").write_text("sex;age\nMale;30-39\n"),
                (d / "b.csv").write_text("sex;age\nMale;30-39;x\n"),
            ),
            "b.csv: line 2: expected 2 fields, found 3",
        ),
    ],
)
def test_bad_locations_are_one_line(tmp_path, run_cli, make, expected):
    folder = tmp_path / "release"
    folder.mkdir()
    make(folder)
    code, out, err = run_cli("audit", folder, "--policy", POLICY, "--json", tmp_path / "r.json")
    assert code == 2 and expected in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "r.json").exists()


def test_a_glob_that_matches_nothing(tmp_path, run_cli):
    code, _, err = run_cli("audit", str(tmp_path / "nothing-*.parquet"), "--policy", POLICY)
    assert code == 2 and "no CSV or Parquet file matches" in err


# ------------------------------------------------------------------------------------- object store
@pytest.fixture(scope="module")
def s3(tmp_path_factory):
    """A moto S3 server on 127.0.0.1 with the environment a user would set, and a boto3 client."""
    moto_server = pytest.importorskip("moto.server")
    import boto3

    server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    env = {
        "AWS_ENDPOINT_URL": f"http://{host}:{port}",
        "AWS_ACCESS_KEY_ID": "privaudit-test",
        "AWS_SECRET_ACCESS_KEY": "privaudit-test",
        "AWS_REGION": "us-east-1",
        "AWS_EC2_METADATA_DISABLED": "true",
    }
    with pytest.MonkeyPatch.context() as mp:
        for key, value in env.items():
            mp.setenv(key, value)
        client = boto3.client(
            "s3",
            endpoint_url=env["AWS_ENDPOINT_URL"],
            region_name="us-east-1",
            aws_access_key_id="privaudit-test",
            aws_secret_access_key="privaudit-test",
        )
        client.create_bucket(Bucket="releases")
        yield client
    server.stop()


@pytest.mark.slow
def test_parquet_prefix_and_csv_key_on_s3(s3, tmp_path, frame, reference, run_cli):
    half = len(frame) // 2
    for i, part in enumerate((frame.iloc[:half], frame.iloc[half:])):
        local = tmp_path / f"part-{i}.parquet"
        part.to_parquet(local, index=False)
        s3.upload_file(str(local), "releases", f"adult/2026/part-{i}.parquet")
    s3.put_object(Bucket="releases", Key="adult/2026/_SUCCESS", Body=b"")
    s3.upload_file(str(RELEASE), "releases", "adult/release.csv")

    result = run_audit("s3://releases/adult/2026/", POLICY)
    assert figures(result) == reference
    assert result.table.fingerprint == "manifest sha256" and result.table.path == "s3://releases/adult/2026/"
    assert figures(run_audit("s3://releases/adult/release.csv", POLICY)) == reference

    out = tmp_path / "report.json"
    code, _, err = run_cli("audit", "s3://releases/adult/2026/", "--policy", POLICY, "--json", out, "--quiet")
    assert code == 0, err
    assert json.loads(out.read_text())["input"]["path"] == "s3://releases/adult/2026/"  # not s3:/releases


def test_object_store_errors_are_one_line(s3, run_cli):
    code, _, err = run_cli("audit", "s3://releases/no-such-prefix/", "--policy", POLICY)
    assert code == 2 and err.startswith("privaudit: error: s3://releases/no-such-prefix/") and "not found" in err
    code, _, err = run_cli("audit", "s3://no-such-bucket/x.csv", "--policy", POLICY)
    assert code == 2 and "s3://no-such-bucket/x.csv" in err and len(err.strip().splitlines()) == 1


@pytest.mark.slow
def test_chunked_and_duckdb_read_an_object_store_prefix(s3, tmp_path, frame, reference):
    """pyarrow reads the store for both engines (DuckDB scans the registered Arrow dataset: no extension)."""
    local = tmp_path / "part.parquet"
    frame.to_parquet(local, index=False)
    s3.upload_file(str(local), "releases", "engines/part-0.parquet")
    for engine in ("chunked", "duckdb"):
        result = run_audit("s3://releases/engines/", POLICY, engine=engine)
        assert figures(result) == reference and result.table.fingerprint == "manifest sha256", engine


# ------------------------------------------------------------------------------- other engines
SMALL_POLICY = ROOT / "policies" / "adult.yaml"


@pytest.fixture(scope="module")
def small(frame) -> pd.DataFrame:
    return frame.iloc[:3000].reset_index(drop=True)


@pytest.fixture(scope="module")
def datasets(tmp_path_factory, small):
    """The same 3,000 rows as one CSV file, a Hive-partitioned Parquet folder and a partitioned CSV folder."""
    root = tmp_path_factory.mktemp("datasets")
    small.to_csv(root / "one.csv", sep=";", index=False)
    for name, write in (
        ("parquet", lambda d, f: f.to_parquet(d / "part.parquet", index=False)),
        ("csv", lambda d, f: f.to_csv(d / "part.csv", sep=";", index=False)),
    ):
        for region, part in (("north", small.iloc[:1000]), ("south", small.iloc[1000:])):
            folder = root / name / f"region={region}"
            folder.mkdir(parents=True)
            write(folder, part)
    return root


@pytest.mark.slow
@pytest.mark.parametrize("engine", ["chunked", "duckdb"])
@pytest.mark.parametrize("kind", ["parquet", "csv"])
def test_engines_read_partitioned_datasets(datasets, engine, kind):
    expected = figures(run_audit(datasets / kind, POLICY))
    assert expected == figures(run_audit(datasets / "one.csv", POLICY))  # the partition column changes nothing
    got = run_audit(datasets / kind, POLICY, engine=engine)
    assert figures(got) == expected and got.table.columns[-1] == "region"


@pytest.mark.slow
def test_duckdb_connection_and_table(datasets, small, tmp_path, run_cli):
    duckdb = pytest.importorskip("duckdb")
    expected = figures(run_audit(datasets / "one.csv", POLICY))
    con = duckdb.connect()
    con.execute("CREATE TABLE released AS SELECT * FROM small")
    got = run_audit(None, POLICY, engine="duckdb", connection=con, table="released")
    assert figures(got) == expected
    assert got.table.path == "duckdb table released" and got.table.fingerprint.startswith("not hashed")

    database = tmp_path / "warehouse.duckdb"
    with duckdb.connect(str(database)) as file_con:
        file_con.execute("CREATE SCHEMA lake; CREATE TABLE lake.adult AS SELECT * FROM small")
    out = tmp_path / "r.json"
    code, _, err = run_cli(
        "audit",
        "--table",
        "lake.adult",
        "--engine",
        "duckdb",
        "--engine-option",
        f"database={database}",
        "--engine-option",
        "threads=1",
        "--policy",
        POLICY,
        "--json",
        out,
        "--quiet",
    )
    assert code == run_audit(datasets / "one.csv", POLICY).exit_code, err
    assert {c["id"]: (c["status"], c["value"]) for c in json.loads(out.read_text())["checks"]} == expected


@pytest.mark.parametrize(
    "args, expected",
    [
        (["--table", "t"], "--engine-option table: the in-process engine takes no options"),
        (["--engine", "duckdb", "--table", "t"], "--table t: the duckdb engine needs the database holding it"),
        (
            ["--engine", "duckdb", "--table", "t", "--engine-option", "database=missing.duckdb"],
            "missing.duckdb: DuckDB database not found",
        ),
        (
            ["--engine", "chunked", "--engine-option", "threads=2", "REL"],
            "--engine-option threads: the chunked engine takes",
        ),
        (["--engine", "duckdb", "--engine-option", "threads"], "--engine-option 'threads': expected NAME=VALUE"),
        (["REL", "--table", "t"], "give either RELEASED"),
        ([], "audit needs RELEASED"),
    ],
)
def test_engine_options_and_tables_bad_input(run_cli, args, expected):
    args = [str(RELEASE) if a == "REL" else a for a in args]
    code, _, err = run_cli("audit", *args, "--policy", POLICY)
    assert code == 2 and expected in err and len(err.strip().splitlines()) == 1, err


@pytest.fixture(scope="module")
def spark():
    pytest.importorskip("pyspark")
    from privaudit.engines.spark_engine import local_session

    return local_session("local[2]", shuffle_partitions=2)


@pytest.mark.slow
def test_spark_reads_datasets_dataframes_and_tables(spark, datasets, small):
    expected = figures(run_audit(datasets / "one.csv", POLICY))
    for kind in ("parquet", "csv"):
        got = run_audit(datasets / kind, POLICY, engine="spark", spark=spark)
        assert figures(got) == expected and "region" in got.table.columns, kind
    frame = spark.read.parquet(str(datasets / "parquet"))
    assert figures(run_audit(frame, POLICY, engine="spark")) == expected
    implied = privaudit.audit(frame, POLICY)  # the library API: a Spark DataFrame means the spark engine
    assert implied.result.engine == "spark" and figures(implied.result) == expected
    frame.createOrReplaceTempView("adult_release")
    got = run_audit(None, POLICY, engine="spark", spark=spark, table="adult_release")
    assert figures(got) == expected and got.table.path == "spark table adult_release"
    with pytest.raises(Exception, match="table 'nope': not found in the Spark session's catalog"):
        run_audit(None, POLICY, engine="spark", spark=spark, table="nope")
