"""Engines, table readers and utility measures are registered extensions: a third party's, registered in
process as an installed plugin would be (the ``privaudit_engines``, ``privaudit_readers`` and
``privaudit_utility_measures`` hooks, privaudit/plugin/hookspecs.py), is chosen by ``--engine``, reads its
suffix through ``privaudit audit``, and appears in the JSON report's ``utility`` and in ``privaudit plugins
--json``; one that raises is one line naming it, exit 2 (pluggy's hook calling conventions: a plugin is a
module or object with ``@hookimpl`` functions, https://pluggy.readthedocs.io/en/stable/#implementations)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from privaudit.core.errors import PrivauditError
from privaudit.io.data import load_input
from privaudit.pipeline import plugins
from privaudit.pipeline.audit import run_audit
from privaudit.plugin.engine import Engine, EngineResult
from privaudit.plugin.hookspecs import hookimpl
from privaudit.plugin.measure import Measure
from privaudit.plugin.reader import Reader
from privaudit.testing import registry_with, run_cli
from privaudit.utility.entries import entry

CSV = "age,sex\n30,m\n30,m\n40,f\n40,f\n"
POLICY = (
    "version: 1\nname: kinds\ncolumns:\n  age: {role: quasi_identifier, type: numeric}\n"
    "  sex: {role: quasi_identifier}\nchecks:\n  - {id: k2, assessor: k_anonymity, k: 2}\n"
)
CALLS: list[str] = []


def toy_summarize(source, policy, *, progress=None, what="released table", label: str = "toy") -> EngineResult:
    """A toy engine: the in-process load, noting that it ran."""
    CALLS.append(label)
    return EngineResult(None, load_input(source, policy, what), None)


def read_pipes(path: Path, policy) -> pd.DataFrame:
    """A toy format: a ``PIPES`` line, a ``key|value`` header then rows, every value text (as a CSV is read)."""
    lines = path.read_text().splitlines()[1:]
    header = lines[0].split("|")
    return pd.DataFrame([ln.split("|") for ln in lines[1:]], columns=header, dtype=str)


def rows_kept(inputs) -> list[dict]:
    """A toy measure: the share of records released (all of them: nothing suppressed here)."""
    return [entry("rows_kept", None, 1.0, float(inputs.summary.n_records))]


def boom(*args, **kwargs):
    raise RuntimeError("toy failure")


class Toys:
    @hookimpl
    def privaudit_engines(self):
        return [Engine("toy", "the toy engine", toy_summarize, in_memory=True), Engine("toy-broken", "raises", boom)]

    @hookimpl
    def privaudit_readers(self):
        return [
            Reader("pipes", (".pipes",), read_pipes, sniff=lambda head: head.startswith(b"PIPES\n")),
            Reader("broken", (".broken",), boom),
        ]

    @hookimpl
    def privaudit_utility_measures(self):
        return [Measure("rows_kept", "records kept (toy)", rows_kept)]


@pytest.fixture
def installed(monkeypatch):
    """The toys in the process-wide registry, as an installed plugin's entry point would put them (the
    installed entry points left out: these tests see the built-ins and the toys only)."""
    real = plugins.make_manager
    monkeypatch.setattr(
        plugins,
        "make_manager",
        lambda load_entry_points=True, extra_plugins=(): real(False, (*extra_plugins, Toys())),
    )
    plugins.get_registry.cache_clear()
    yield
    plugins.get_registry.cache_clear()  # rebuilt without the toys on next use (monkeypatch undoes first)


@pytest.fixture
def files(tmp_path_factory):
    """A folder of its own, not ``tmp_path``: the suite's check of the reports left in ``tmp_path`` runs
    after the toys are uninstalled; ``run_cli`` checks every report written here, with the toys."""
    folder = tmp_path_factory.mktemp("kinds")
    (folder / "data.csv").write_text(CSV)
    (folder / "policy.yaml").write_text(POLICY)
    return folder


@pytest.mark.slow
def test_a_toy_engine_is_chosen_by_engine(installed, files):
    CALLS.clear()
    out = files / "r.json"
    result = run_cli("audit", files / "data.csv", "--policy", files / "policy.yaml", "--json", out, "--engine", "toy")
    assert result.code == 0, result.stderr
    assert CALLS == ["toy"] and json.loads(out.read_text())["engine"] == "toy"
    with_option = run_cli(
        "audit", files / "data.csv", "--policy", files / "policy.yaml", "--engine", "toy", "--engine-option", "label=x"
    )
    assert with_option.code == 0 and CALLS == ["toy", "x"]  # its keyword-only parameters are its options
    with pytest.raises(
        PrivauditError, match=r"unknown engine 'toyy' \(did you mean 'toy'\?\) \(available: .*toy-broken"
    ):
        run_audit(files / "data.csv", files / "policy.yaml", engine="toyy")


def test_a_toy_engine_that_raises_is_one_line(installed, files):
    result = run_cli("audit", files / "data.csv", "--policy", files / "policy.yaml", "--engine", "toy-broken")
    assert result.code == 2 and result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert "engine 'toy-broken'" in result.stderr and "toy failure" in result.stderr


@pytest.mark.slow
def test_a_toy_reader_reads_its_suffix_and_its_content(installed, files):
    pipes = "PIPES\n" + CSV.replace(",", "|")
    for name in ("data.pipes", "data.unknown"):  # by suffix; by content (its sniff, before CSV's)
        (files / name).write_text(pipes)
        out = files / f"{name}.json"
        result = run_cli("audit", files / name, "--policy", files / "policy.yaml", "--json", out)
        assert result.code == 0, result.stderr
        assert json.loads(out.read_text())["input"]["rows"] == 4
    streamed = run_cli("audit", files / "data.pipes", "--policy", files / "policy.yaml", "--engine", "chunked")
    assert streamed.code == 2 and streamed.stderr.count("\n") == 1
    assert "pipes files are read whole, in memory, by their reader: use --engine in-process" in streamed.stderr


def test_an_unknown_format_names_the_file_and_the_formats(installed, files):
    (files / "data.bin").write_bytes(b"\x00\x01binary")
    result = run_cli("audit", files / "data.bin", "--policy", files / "policy.yaml")
    assert result.code == 2 and result.stderr.count("\n") == 1
    assert "data.bin: not a table format privaudit reads (.bin); formats: csv (.csv," in result.stderr
    assert "parquet (.parquet, .pq); spss (.sav, .zsav);" in result.stderr  # the built-ins, then the toy's
    assert "xlsx (.xlsx, .xlsm); ods (.ods); muargus (.asc); pipes (.pipes)" in result.stderr


def test_a_reader_that_raises_is_one_line(installed, files):
    (files / "data.broken").write_text(CSV)
    result = run_cli("audit", files / "data.broken", "--policy", files / "policy.yaml")
    assert result.code == 2 and result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert "data.broken: the broken reader failed: RuntimeError: toy failure" in result.stderr


def test_a_toy_measure_is_in_the_report_and_the_plugins_list(installed, files):
    (files / "policy.yaml").write_text(POLICY + "utility: [granularity, rows_kept]\n")
    out = files / "r.json"
    result = run_cli("audit", files / "data.csv", "--policy", files / "policy.yaml", "--json", out)
    assert result.code == 0, result.stderr  # the report is valid under the schema of the registered measures
    utility = json.loads(out.read_text())["utility"]
    assert [e["measure"] for e in utility if e["column"] is None] == ["granularity", "rows_kept"]
    assert next(e for e in utility if e["measure"] == "rows_kept")["raw"] == 4.0
    listed = json.loads(run_cli("plugins", "--json").stdout)["extensions"]
    mine = {(e["kind"], e["name"]) for e in listed if e["package"] != "privaudit"}
    assert {("engine", "toy"), ("reader", "pipes"), ("measure", "rows_kept")} <= mine
    builtin = {(e["kind"], e["name"]) for e in listed if e["package"] == "privaudit"}
    assert {("engine", "duckdb"), ("reader", "parquet"), ("measure", "quality_score")} <= builtin


def test_the_chapter_labels_a_measure_by_its_record(installed):
    from privaudit.report.chapters.utility import labels, utility_view

    assert labels()["rows_kept"] == "records kept (toy)"
    view = utility_view({"utility": [entry("rows_kept", None, 1.0, 4.0)]})
    assert view is not None and view.overall.rows[0][0] == "records kept (toy)"


@pytest.mark.parametrize("hook", ["privaudit_engines", "privaudit_readers", "privaudit_utility_measures"])
def test_a_hook_that_raises_is_one_line_naming_it(hook):
    broken = type("Broken", (), {hook: hookimpl(lambda self: boom())})()
    with pytest.raises(Exception) as caught:
        registry_with(broken, entry_points=False)
    text = str(caught.value)
    assert "\n" not in text and f"the {hook} hook of plugin" in text and "toy failure" in text


def test_a_hook_listing_the_wrong_record_is_one_line():
    wrong = type("Wrong", (), {"privaudit_readers": hookimpl(lambda self: [Measure("m", "m", rows_kept)])})()
    with pytest.raises(Exception, match=r"listed Measure, not a Reader"):
        registry_with(wrong, entry_points=False)


@pytest.mark.slow
def test_listing_the_extensions_imports_no_engine_or_format_library():
    """``--help`` and ``policy check`` list the extensions: the built-in engines, readers and measures name
    their functions as "module:function", so their plugin modules import none of the heavy packages (the
    design rule for modules in DEFAULT_PLUGINS)."""
    import subprocess
    import sys

    code = (
        "import sys; import privaudit.engines.builtin as e, privaudit.pipeline.readers as r,"
        " privaudit.pipeline.measures as m;"
        "assert e.privaudit_engines() and r.privaudit_readers() and m.privaudit_utility_measures();"
        "print(sorted(x for x in ('pyarrow', 'duckdb', 'pyspark', 'pandas', 'numpy') if x in sys.modules))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert proc.stdout.strip() == "[]", proc.stdout
