"""The library and notebook API and per-record risk (item 4 in part):
``privaudit.audit``/``privaudit.remediate`` on DataFrames, Arrow tables and dict policies, the report
object's formats, ``_repr_html_`` in a notebook executed by nbclient, and ``--records``."""

from __future__ import annotations

import importlib
import json

import pandas as pd
import pyarrow as pa
import pytest
from conftest import ROOT

import privaudit
from privaudit.api import _engine_for
from privaudit.core.errors import PrivauditError
from privaudit.testing import registry_with, run_assessor, run_cli

RELEASE = ROOT / "examples" / "adult" / "release.csv"
POLICY = ROOT / "policies" / "adult.yaml"


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    return pd.read_csv(RELEASE, sep=";", dtype=str, keep_default_na=False)


@pytest.mark.slow
def test_audit_a_dataframe_like_the_file(frame, tmp_path):
    report = privaudit.audit(frame, POLICY)
    run_cli("audit", RELEASE, "--policy", POLICY, "--json", tmp_path / "r.json", "--quiet")
    from_file = json.loads((tmp_path / "r.json").read_text())
    assert report.passed and report.exit_code == 0
    assert [(c.id, c.status, c.value) for c in report.checks] == [
        (c["id"], c["status"], c["value"]) for c in from_file["checks"]
    ]
    assert report.to_dict()["input"]["path"] == "<pandas DataFrame>"
    arrow = privaudit.audit(pa.Table.from_pandas(frame), POLICY)
    assert [c.value for c in arrow.checks] == [c.value for c in report.checks]
    assert report.to_html().startswith("<!DOCTYPE html>")
    report.to_pdf(tmp_path / "r.pdf")
    assert (tmp_path / "r.pdf").read_bytes().startswith(b"%PDF")


def test_a_dict_policy_and_bad_input(frame):
    policy = {
        "columns": {"sex": {"role": "quasi_identifier"}, "occupation": {"role": "sensitive"}},
        "checks": [{"assessor": "k_anonymity", "k": 2}],
    }
    report = privaudit.audit(frame, policy)
    assert report.passed and report.to_dict()["policy"]["name"] == "policy given as a dict"
    with pytest.raises(PrivauditError, match="checks\\[0\\]: k: a number is expected, not true"):
        privaudit.audit(frame, {**policy, "checks": [{"assessor": "k_anonymity", "k": True}]})
    with pytest.raises(PrivauditError, match="this engine reads files"):
        privaudit.audit(frame, policy, engine="chunked")


@pytest.mark.slow
def test_records_from_the_api_and_the_cli(frame, tmp_path):
    records = privaudit.audit(frame, POLICY).records()
    assert list(records.columns[:4]) == ["row", "class_id", "class_size", "risk"]
    assert records["row"].tolist() == list(range(len(frame)))
    assert (records["risk"] == 1.0 / records["class_size"]).all()
    assert "violates:k_anonymity" in records.columns and records["violates:k_anonymity"].dtype == bool
    out = tmp_path / "records.csv"
    result = run_cli("audit", RELEASE, "--policy", POLICY, "--records", out, "--quiet")
    assert result.code == 0, result.stderr
    from_cli = pd.read_csv(out)
    pd.testing.assert_frame_equal(from_cli, records, check_dtype=False)
    refused = run_cli("audit", RELEASE, "--policy", POLICY, "--records", tmp_path / "x.csv", "--engine", "duckdb")
    assert refused.code == 2 and "--records needs the in-process engine" in refused.stderr
    assert not (tmp_path / "x.csv").exists()


def test_remediate_from_the_api(frame):
    outcome = privaudit.remediate(frame.head(400), POLICY, method="suppress", max_suppression=1.0)
    assert isinstance(outcome.table, pd.DataFrame) and len(outcome.table) == 400
    assert outcome.before.exit_code == 1
    assert "remediation" in outcome._repr_html_()


@pytest.mark.slow
def test_a_notebook_shows_the_report_inline(tmp_path):
    import nbclient
    import nbformat

    notebook = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_code_cell(
                "import pandas as pd\nimport privaudit\n"
                f"frame = pd.read_csv({str(RELEASE)!r}, sep=';', dtype=str, keep_default_na=False)"
            ),
            nbformat.v4.new_code_cell(f"privaudit.audit(frame, {str(POLICY)!r})"),
            nbformat.v4.new_code_cell(
                "from privaudit.runtime.progress import api_progress, in_notebook\n"
                "print(in_notebook(), type(api_progress(None)).__name__)"
            ),
        ]
    )
    nbclient.NotebookClient(
        notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    ).execute()
    outputs = notebook.cells[1].outputs
    html = next(o["data"]["text/html"] for o in outputs if o.get("output_type") == "execute_result")
    assert (
        '<span class="badge PASS">PASS</span> <strong>Adult census extract' in html and "<td>k_anonymity</td>" in html
    )
    assert "<svg" in html  # the charts, inline
    assert notebook.cells[2].outputs[0]["text"].strip() == "True TqdmProgress"  # tqdm bars in a notebook


def test_progress_outside_a_notebook(frame):
    import io

    from privaudit.runtime.progress import TqdmProgress, api_progress

    assert api_progress(None) is None and api_progress(False) is None  # a script or a test: silent
    assert isinstance(api_progress(True), TqdmProgress)
    seen = []
    privaudit.audit(frame.head(200), POLICY, progress=lambda *a: seen.append(a))
    buffer = io.StringIO()
    bar = TqdmProgress(file=buffer, mininterval=0)
    bar("class summary", 5, 10)
    bar("class summary", 10, 10)
    bar.close()
    assert "class summary" in buffer.getvalue() and "10/10" in buffer.getvalue()


def test_records_bad_input_is_one_line(tmp_path):
    result = run_cli("audit", RELEASE, "--policy", POLICY, "--records", tmp_path / "r.xlsx", "--quiet")
    assert result.code == 2 and result.stderr.count("\n") == 1 and "unknown format '.xlsx'" in result.stderr
    assert not (tmp_path / "r.xlsx").exists()
    result = run_cli("audit", RELEASE, "--policy", POLICY, "--records", tmp_path / "no" / "r.csv", "--quiet")
    assert result.code == 2 and "does not exist" in result.stderr and result.stderr.count("\n") == 1
    out = tmp_path / "r.parquet"
    assert run_cli("audit", RELEASE, "--policy", POLICY, "--records", out, "--quiet").code == 0
    assert pd.read_parquet(out).columns[:4].tolist() == ["row", "class_id", "class_size", "risk"]


def test_usage_errors_are_one_line(capsys):
    from privaudit.cli import main

    with pytest.raises(SystemExit) as exc:
        main(["audit", str(RELEASE), "--policy", str(POLICY), "--annotations", "gitlab"])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and err.count("\n") == 1 and "invalid choice: 'gitlab'" in err


# ---- the engine follows from the data (README: "also takes a DuckDB connection with table=") and
# registry_with of a plugin module that is also installed (a plugin's tests after `pip install`)

SMALL = pd.DataFrame({"zip": list("aaabbc"), "age": list("xxyyyz"), "disease": list("pqpqrr")})
SMALL_POLICY = {
    "version": 1,
    "name": "qa",
    "columns": {
        "zip": {"role": "quasi_identifier"},
        "age": {"role": "quasi_identifier"},
        "disease": {"role": "sensitive"},
    },
    "checks": [
        {"assessor": "k_anonymity", "k": 2},
        {"assessor": "l_diversity", "sensitive": "disease", "variant": "distinct", "l": 2},
    ],
}


def _figures(report):
    return [(c.id, c.status, c.value) for c in report.checks]


@pytest.fixture()
def connection():
    duckdb = pytest.importorskip("duckdb")
    con = duckdb.connect()
    con.register("frame_view", SMALL)
    con.execute("CREATE TABLE released AS SELECT * FROM frame_view")
    yield con
    con.close()


def test_duckdb_connection_as_data_as_readme_writes_it(connection):
    report = privaudit.audit(connection, SMALL_POLICY, table="released")
    assert report.result.engine == "duckdb"
    assert _figures(report) == _figures(privaudit.audit(SMALL, SMALL_POLICY))


def test_connection_keyword_implies_the_duckdb_engine(connection):
    report = privaudit.audit(None, SMALL_POLICY, connection=connection, table="released")
    assert report.result.engine == "duckdb"
    explicit = privaudit.audit(None, SMALL_POLICY, engine="duckdb", connection=connection, table="released")
    assert _figures(report) == _figures(explicit)


def test_duckdb_connection_without_table_is_one_line(connection):
    with pytest.raises(PrivauditError, match=r'needs the table to audit: table="NAME"') as info:
        privaudit.audit(connection, SMALL_POLICY)
    assert "\n" not in str(info.value)
    with pytest.raises(PrivauditError, match="pass one of them"):
        privaudit.audit(connection, SMALL_POLICY, connection=connection, table="released")


def test_the_engine_follows_from_the_data():
    assert _engine_for(SMALL, None, {})[1] == "in-process"
    assert _engine_for("release.csv", "chunked", {})[1] == "chunked"  # an explicit engine is kept
    assert _engine_for(None, None, {"spark": object(), "table": "t"})[1] == "spark"


def test_default_audit_is_in_process():
    assert privaudit.audit(SMALL, SMALL_POLICY).result.engine == "in-process"


def test_registry_with_an_already_registered_module():
    module = importlib.import_module("privaudit.assessors.k_anonymity")  # registered as a built-in
    registry = registry_with(module)
    assert "k_anonymity" in registry.assessors
    twice = registry_with(module, module, entry_points=False)
    check = {"assessor": "k_anonymity", "k": 2}
    assert run_assessor(SMALL, SMALL_POLICY, check, registry=twice).value == 1
