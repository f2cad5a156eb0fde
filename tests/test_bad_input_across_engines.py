"""Bad input and output paths: the same one line and exit 2 on every engine, inputs unchanged, and
outputs (symbolic links, existing files) left as they were when a later output cannot be written."""

from __future__ import annotations

import datetime
import hashlib
import os

import pytest
from conftest import write_policy

from privaudit.testing import run_cli

POLICY = """version: 1
name: qa bad input
columns:
  sex: {role: quasi_identifier, type: nominal}
  age: {role: quasi_identifier, type: numeric}
  disease: {role: sensitive}
checks:
  - {assessor: k_anonymity, k: 1}
"""
ENGINES = ["in-process", "chunked", "duckdb"]


def _sha(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _audit(data, policy, engine, *extra):
    return run_cli("audit", data, "--policy", policy, "--engine", engine, "--quiet", *extra)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_crlf_file_whose_whole_text_is_in_the_sniffed_head_loads(tmp_path, engine):
    """Before: every engine refused a small CRLF file ('line 3: a carriage return without a line feed'):
    the last byte was dropped before the lone-CR search, leaving the final \\r without its \\n."""
    data = tmp_path / "data.csv"
    data.write_bytes(b"sex,age,disease\r\nM,30,flu\r\nF,40,cold\r\n")
    result = _audit(data, write_policy(tmp_path, POLICY), engine)
    assert result.code == 0, result.stderr


def test_a_lone_carriage_return_is_still_refused(tmp_path):
    data = tmp_path / "data.csv"
    data.write_bytes(b"sex,age,disease\nM,30,flu\rF,40,cold\n")
    result = _audit(data, write_policy(tmp_path, POLICY), "in-process")
    assert result.code == 2 and "line 2: a carriage return without a line feed" in result.stderr


def _pq(path, **columns):
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table(columns), path)


DATASETS = {
    # before: chunked and duckdb read b.csv by the first file's column order ('flu' is not a number)
    "csv columns reordered": (
        lambda d: (
            (d / "a.csv").write_text("sex,age,disease\nM,30,flu\n"),
            (d / "b.csv").write_text("sex,disease,age\nM,flu,30\n"),
        ),
        "b.csv: partitions with different schemas: this file has columns",
    ),
    # before: chunked and duckdb audited it (the missing column read as null), exit 0
    "parquet column missing": (
        lambda d: (
            _pq(d / "a.parquet", sex=["M"], age=[30], disease=["flu"]),
            _pq(d / "b.parquet", sex=["F"], disease=["cold"]),
        ),
        "b.parquet: partitions with different schemas: this file has columns",
    ),
    # before: duckdb gave an internal error (InvalidInputException)
    "parquet types clash": (
        lambda d: (
            _pq(d / "a.parquet", sex=["M"], age=[30], disease=["flu"]),
            _pq(d / "b.parquet", sex=["F"], age=["x"], disease=["cold"]),
        ),
        "partitions with different schemas (Unable to merge: Field age has incompatible types: int64 vs string)",
    ),
}


@pytest.mark.parametrize("case", list(DATASETS))
def test_a_directory_of_files_that_differ_is_one_line_on_every_engine(tmp_path, case):
    make, expected = DATASETS[case]
    folder = tmp_path / "release"
    folder.mkdir()
    make(folder)
    policy = write_policy(tmp_path, POLICY)
    before = {p.name: _sha(p) for p in folder.iterdir()}
    lines = set()
    for engine in ENGINES:
        result = _audit(folder, policy, engine)
        assert result.code == 2 and expected in result.stderr, (engine, result.stderr)
        assert len(result.stderr.strip().splitlines()) == 1
        lines.add(result.stderr)
    assert len(lines) == 1
    assert {p.name: _sha(p) for p in folder.iterdir()} == before


def test_parquet_files_of_float32_and_float64_read_as_the_in_process_load_promotes_them(tmp_path):
    import pyarrow as pa

    folder = tmp_path / "release"
    folder.mkdir()
    _pq(folder / "a.parquet", sex=["M", "F"], age=pa.array([30.1, 40.2], pa.float32()), disease=["flu", "cold"])
    _pq(folder / "b.parquet", sex=["M", "F"], age=pa.array([30.1, 40.7], pa.float64()), disease=["flu", "cold"])
    policy = write_policy(tmp_path, POLICY.replace("type: numeric", "type: nominal").replace("k: 1", "k: 2"))
    reports = []
    for engine in ENGINES:
        out = tmp_path / f"{engine}.json"
        assert _audit(folder, policy, engine, "--json", out).code == 1
        import json

        report = json.loads(out.read_text())
        report.pop("generated_at", None)
        report.pop("engine", None)
        reports.append(report)
    assert reports[0] == reports[1] == reports[2]


@pytest.mark.parametrize("engine", ENGINES)
def test_timestamps_with_a_time_zone_read_in_the_file_s_zone_on_every_engine(tmp_path, engine, monkeypatch):
    """Before: DuckDB gave the instants in the session's (local) time zone, so the texts differed."""
    import pyarrow as pa

    monkeypatch.setenv("TZ", "Asia/Tokyo")
    data = tmp_path / "data.parquet"
    stamp = pa.array([datetime.datetime(2020, 1, 1, 12)] * 2, pa.timestamp("us", tz="America/New_York"))
    _pq(data, sex=["M", "F"], age=stamp, disease=["flu", "cold"])
    result = _audit(data, write_policy(tmp_path, POLICY), engine)
    assert result.code == 2
    assert "column 'age', row 1: '2020-01-01 07:00:00.000000-0500' is not a number" in result.stderr


@pytest.fixture
def workspace(tmp_path):
    data = tmp_path / "data.csv"
    data.write_text("sex,age,disease\nM,30,flu\nF,40,cold\n")
    return data, write_policy(tmp_path, POLICY)


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_a_failed_later_output_leaves_a_symlink_and_an_existing_file_as_they_were(tmp_path, workspace):
    """Before: the JSON report had already replaced the link's target and the existing Markdown file when
    /dev/full failed; the rollback then deleted the link itself and the existing file."""
    data, policy = workspace
    target = tmp_path / "target.json"
    target.write_text("old report")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    existing = tmp_path / "summary.md"
    existing.write_text("old summary")
    result = run_cli(
        "audit", data, "--policy", policy, "--quiet", "--json", link, "--markdown", existing, "--sarif", "/dev/full"
    )
    assert result.code == 2 and "/dev/full: cannot be written" in result.stderr
    assert link.is_symlink() and link.resolve() == target.resolve()
    assert target.read_text() == "old report" and existing.read_text() == "old summary"
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "data.csv",
        "link.json",
        "policy.yaml",
        "summary.md",
        "target.json",
    ]


def test_outputs_are_written_through_a_symlink_once_all_are_written(tmp_path, workspace):
    data, policy = workspace
    target = tmp_path / "target.json"
    target.write_text("old report")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    result = run_cli("audit", data, "--policy", policy, "--quiet", "--json", link, "--markdown", tmp_path / "s.md")
    assert result.code == 0, result.stderr
    assert link.is_symlink() and '"schema_version"' in target.read_text()
    assert (tmp_path / "s.md").read_text().startswith("## privaudit")


@pytest.mark.slow
@pytest.mark.parametrize("engine", ENGINES)
def test_a_row_longer_than_a_block_loads_on_every_engine(tmp_path, engine, monkeypatch):
    """Before: a row over 16 MiB got 'straddling object straddles two block boundaries' in process, 'CSV Error on
    Line: 2' from duckdb, and was read by chunked and spark: a row longer than a block is now read with a
    block that holds it (the block sizes are made small here, so that the row can be)."""
    from privaudit.engines import duckdb_engine
    from privaudit.io import data as data_module

    monkeypatch.setattr(data_module, "CSV_BLOCK_BYTES", 1 << 16)
    monkeypatch.setattr(duckdb_engine, "MAX_LINE_BYTES", 1 << 16)
    data = tmp_path / "data.csv"
    data.write_bytes(b"sex,age,disease\n" + b"M,30,flu\n" * 1000 + b"F,40," + b"y" * 300_000 + b"\nM,30,flu\n")
    policy = write_policy(tmp_path, POLICY.replace("k: 1", "k: 2"))
    out = tmp_path / "report.json"
    extra = ("--engine-option", f"block_bytes={1 << 16}") if engine == "chunked" else ()
    result = _audit(data, policy, engine, "--json", out, *extra)
    assert result.code == 1, result.stderr
    import json

    assert json.loads(out.read_text())["input"]["rows"] == 1002


def test_longest_line_counts_across_blocks(tmp_path):
    from privaudit.io.data import longest_line

    path = tmp_path / "lines.txt"
    path.write_bytes(b"ab\n" + b"x" * ((1 << 24) + 5) + b"\nabc\nlast")
    assert longest_line(path) == ((1 << 24) + 5, 2)


@pytest.mark.parametrize(
    "engine, option, expected",
    [
        ("chunked", "batch_rows=abc", "--engine-option batch_rows=abc: expected a whole number of at least 1"),
        ("chunked", "block_bytes=-5", "--engine-option block_bytes=-5: expected a whole number of at least 1"),
        ("duckdb", "threads=x", "--engine-option threads=x: expected a whole number of at least 0"),
        ("duckdb", "memory_limit=lots", "--engine-option memory_limit=lots: DuckDB refuses it"),
        ("duckdb", "temp_directory=/nonexistent-privaudit", "temp_directory=/nonexistent-privaudit: folder not found"),
    ],
)
def test_a_bad_engine_option_value_is_one_line_not_an_internal_error(workspace, engine, option, expected):
    """Before: TypeError / ValueError / ParserException / FileNotFoundError reported as internal errors (or,
    for block_bytes=-5, a line blaming the data file)."""
    data, policy = workspace
    result = _audit(data, policy, engine, "--engine-option", option)
    assert result.code == 2 and expected in result.stderr and "internal error" not in result.stderr, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_remediate_refuses_an_output_format_it_cannot_write(workspace, tmp_path):
    """Before: --out fixed.xlsx was written as CSV text under the .xlsx name."""
    data, policy = workspace
    result = run_cli("remediate", data, "--policy", policy, "--method", "suppress", "--out", tmp_path / "fixed.xlsx")
    assert result.code == 2 and "unknown format '.xlsx'" in result.stderr
    assert not (tmp_path / "fixed.xlsx").exists()


def test_init_never_writes_over_the_table_it_drafts_from(tmp_path, workspace):
    """Before: `privaudit init data.csv --out data.csv --force` replaced the data with the drafted policy."""
    data, _ = workspace
    before = _sha(data)
    result = run_cli("init", data, "--out", data, "--force")
    assert result.code == 2 and "an output would overwrite an input file" in result.stderr
    assert _sha(data) == before


def test_an_empty_output_path_is_refused(workspace):
    """Before: `--json ""` (an unset variable) exited 0 having written no report."""
    data, policy = workspace
    result = run_cli("audit", data, "--policy", policy, "--quiet", "--json", "")
    assert result.code == 2 and "--json: the output path is empty" in result.stderr


def test_a_remote_csv_whose_sniffed_head_ends_inside_a_character_reads():
    """Before: an object-store CSV whose 64 KiB head cut a two-byte character was 'not valid UTF-8'."""
    from privaudit.io.locations import _csv_from_bytes

    header = b"sex,age,disease\n"
    data = header + b"M,30," + b"x" * (65535 - len(header) - 5) + "\u00e9\nF,40,cold\n".encode()
    assert data[65535] == 0xC3  # the head ends after the first byte of the character
    assert _csv_from_bytes(data, "s3://bucket/release.csv", None).num_rows == 2
    with pytest.raises(Exception, match="not valid UTF-8"):
        _csv_from_bytes(header + b"M,30,\xff\n", "s3://bucket/bad.csv", None)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("kind", ["csv", "parquet"])
def test_infinity_in_a_numeric_column_is_refused_like_nan(tmp_path, engine, kind):
    """Before: 'nan' was refused and 'inf' audited (an age of infinity in a class of its own; distances NaN).
    Now both are one line on every engine, naming the row."""
    data = tmp_path / f"data.{kind}"
    if kind == "csv":
        data.write_text("sex,age,disease\nM,30,flu\nF,inf,cold\n")
    else:
        _pq(data, sex=["M", "F"], age=[30.0, float("-inf")], disease=["flu", "cold"])
    result = _audit(data, write_policy(tmp_path, POLICY), engine)
    where = "line 3: 'inf'" if kind == "csv" else "row 2: '-inf'"
    assert result.code == 2 and result.stderr.strip().endswith(f"column 'age', {where} is not a finite number"), (
        result.stderr
    )
