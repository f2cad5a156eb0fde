"""release: synthetic: a policy that says its release is synthetic gets the synthetic-release
checks with their default thresholds when it lists none of them, and the gate asks for what they need."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from privaudit.testing import run_cli


def _tables(tmp_path):
    rng = np.random.default_rng(4)

    def draw(n):
        return pd.DataFrame(
            {
                "age": rng.integers(20, 70, n),
                "sex": rng.choice(["m", "f"], n),
                "zip": rng.choice(list("abcdef"), n),
                "disease": rng.choice(["x", "y", "z"], n),
            }
        )

    for name in ("train", "holdout", "synthetic"):
        draw(300).to_csv(tmp_path / f"{name}.csv", index=False)
    policy = {
        "version": 1,
        "name": "synthetic",
        "release": "synthetic",
        "columns": {
            "age": {"role": "quasi_identifier", "type": "numeric"},
            "sex": {"role": "quasi_identifier"},
            "zip": {"role": "quasi_identifier"},
            "disease": {"role": "sensitive"},
        },
    }
    (tmp_path / "p.yaml").write_text(json.dumps(policy))


def test_the_synthetic_chapter_runs_by_default(tmp_path):
    _tables(tmp_path)
    out = tmp_path / "r.json"
    result = run_cli(
        "audit",
        tmp_path / "synthetic.csv",
        "--policy",
        tmp_path / "p.yaml",
        "--original",
        tmp_path / "train.csv",
        "--control",
        tmp_path / "holdout.csv",
        "--json",
        out,
        "--html",
        tmp_path / "r.html",
        "--quiet",
    )
    checks = {c["assessor"]: c for c in json.loads(out.read_text())["checks"]}
    html = (tmp_path / "r.html").read_text()  # the chapter: the three risks with their intervals
    assert '<section id="synthetic" class="chapter">' in html and "Privacy risks of the synthetic release" in html
    assert html.count("singling out (singling_out)") >= 2
    assert set(checks) == {
        "direct_identifiers",
        "refining_columns",  # always run; not measured on a synthetic release
        "undeclared_key_variables",
        "distance_to_closest_record",
        "singling_out",
        "linkability",
        "inference",
        "cap",
    }
    assert checks["singling_out"]["threshold"] == 0.1 and checks["cap"]["threshold"] == 0.5
    assert result.code in (0, 1)
    assert checks["distance_to_closest_record"]["status"] == "pass"  # an independent draw is no copy


def test_without_a_holdout_the_gate_says_so(tmp_path):
    _tables(tmp_path)
    result = run_cli(
        "audit", tmp_path / "synthetic.csv", "--policy", tmp_path / "p.yaml", "--original", tmp_path / "train.csv"
    )
    assert result.code == 2 and result.stderr.count("\n") == 1 and "--control FILE" in result.stderr


def test_listing_one_synthetic_check_turns_the_defaults_off(tmp_path):
    _tables(tmp_path)
    policy = json.loads((tmp_path / "p.yaml").read_text())
    policy["checks"] = [{"assessor": "cap", "min_protection": 0.2}]
    (tmp_path / "p.yaml").write_text(json.dumps(policy))
    out = tmp_path / "r.json"
    run_cli(
        "audit",
        tmp_path / "synthetic.csv",
        "--policy",
        tmp_path / "p.yaml",
        "--original",
        tmp_path / "train.csv",
        "--json",
        out,
        "--quiet",
    )
    assert [c["assessor"] for c in json.loads(out.read_text())["checks"]] == [
        "direct_identifiers",
        "cap",
        "refining_columns",
        "undeclared_key_variables",
    ]


def test_a_control_table_too_large_for_memory_is_refused_before_loading(tmp_path, monkeypatch):
    _tables(tmp_path)
    args = (
        "audit",
        tmp_path / "synthetic.csv",
        "--policy",
        tmp_path / "p.yaml",
        "--original",
        tmp_path / "train.csv",
        "--control",
        tmp_path / "holdout.csv",
        "--json",
        tmp_path / "r.json",
        "--quiet",
    )
    monkeypatch.setenv("PRIVAUDIT_MEMORY_LIMIT", "2K")  # the 300-row holdout needs about 6 x its file size
    result = run_cli(*args)
    assert result.code == 2 and result.stderr.count("\n") == 1, result.stderr
    assert "holdout.csv" in result.stderr and "no chunked path for --control" in result.stderr
    assert not (tmp_path / "r.json").exists()
    from privaudit.runtime.memory import refuse_oversized

    monkeypatch.setenv("PRIVAUDIT_MEMORY_LIMIT", "1G")
    refuse_oversized(tmp_path / "holdout.csv")  # fits: nothing said
    monkeypatch.setenv("PRIVAUDIT_MEMORY_LIMIT", "lots")
    result = run_cli(*args)
    assert result.code == 2 and "PRIVAUDIT_MEMORY_LIMIT" in result.stderr and result.stderr.count("\n") == 1
