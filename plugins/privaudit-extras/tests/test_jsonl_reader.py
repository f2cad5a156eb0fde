"""The ``jsonl`` reader: a JSON Lines release audits as the same table written as CSV does (its columns read
as text, typed by the policy), by suffix and by content; bad JSON is one line naming the file and the line
(JSON Lines: https://jsonlines.org/)."""

from __future__ import annotations

import json

import pyarrow as pa
from conftest import small_frame
from privaudit_extras.jsonl import read_jsonl, sniff

from privaudit.testing import run_cli


def write_jsonl(path, frame) -> None:
    with path.open("w") as handle:
        for record in frame.to_dict("records"):
            handle.write(json.dumps({k: (int(v) if k == "age" else v) for k, v in record.items()}) + "\n")


def audit(data, policy, *options):
    out = data.parent / f"{data.name}.json"
    done = run_cli("audit", data, "--policy", policy, "--json", out, *options)
    assert done.code in (0, 1), done.stderr
    got = json.loads(out.read_text())
    for key in ("generated_at", "input"):
        got.pop(key)
    return got


def test_a_jsonl_release_audits_as_its_csv(release):
    frame = small_frame()
    write_jsonl(release / "data.jsonl", frame)
    (release / "data.ndjson").write_bytes((release / "data.jsonl").read_bytes())
    (release / "data.log").write_bytes((release / "data.jsonl").read_bytes())  # a suffix no reader claims: sniffed
    reference = audit(release / "data.csv", release / "policy.yaml")
    for name in ("data.jsonl", "data.ndjson", "data.log"):
        assert audit(release / name, release / "policy.yaml") == reference, name
    facts = json.loads((release / "data.log.json").read_text())["input"]
    assert facts["rows"] == len(frame) and facts["columns"] == ["age", "zip", "disease"]


def test_values_come_back_as_text(tmp_path):
    (tmp_path / "a.jsonl").write_text(
        '{"a": 30, "b": "x", "c": true}\n\n{"a": 2.5, "b": null}\n  {"a": 1e20, "d": "late key"}\n'
    )
    table = read_jsonl(tmp_path / "a.jsonl")
    assert table.schema.types == [pa.string()] * 4
    assert table.to_pydict() == {
        "a": ["30", "2.5", "1e+20"],
        "b": ["x", None, None],
        "c": ["true", None, None],
        "d": [None, None, "late key"],
    }
    # a key whose type changes from line to line (pyarrow wants one): read by the standard library instead
    (tmp_path / "mixed.jsonl").write_text('{"a": 1, "b": false}\n{"a": "x"}\n{"a": 2.0}\n')
    assert read_jsonl(tmp_path / "mixed.jsonl").to_pydict() == {"a": ["1", "x", "2"], "b": ["false", None, None]}
    (tmp_path / "bom.jsonl").write_bytes(b'\xef\xbb\xbf{"a": 1}\n{"a": "x"}\n')  # a byte-order mark, then mixed
    assert read_jsonl(tmp_path / "bom.jsonl").to_pydict() == {"a": ["1", "x"]}


def test_sniff_reads_the_first_non_blank_byte():
    assert sniff(b'{"a": 1}\n') and sniff(b'\xef\xbb\xbf \n\t{"a": 1}') and sniff(b"   {")
    assert not sniff(b"a,b\n1,2\n") and not sniff(b"[1, 2]\n") and not sniff(b"") and not sniff(b"PAR1")


def test_bad_json_is_one_line_naming_the_file_and_line(release):
    lines = [json.dumps({"age": 30, "zip": "z1", "disease": "flu"})] * 5
    lines[3] = '{"age": 31, "zip": "z2", "disease": "cold",}'
    (release / "bad.jsonl").write_text("\n".join(lines) + "\n")
    done = run_cli("audit", release / "bad.jsonl", "--policy", release / "policy.yaml")
    assert done.code == 2 and done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert f"{release / 'bad.jsonl'}: line 4: not valid JSON" in done.stderr
    (release / "array.jsonl").write_text('{"age": 30, "zip": "z1", "disease": "flu"}\n[30, "z1", "flu"]\n')
    done = run_cli("audit", release / "array.jsonl", "--policy", release / "policy.yaml")
    assert done.code == 2 and "array.jsonl: line 2: not a JSON object" in done.stderr
    (release / "nested.jsonl").write_text('{"age": 30, "zip": {"code": "z1"}, "disease": "flu"}\n')
    done = run_cli("audit", release / "nested.jsonl", "--policy", release / "policy.yaml")
    assert done.code == 2 and "column 'zip' holds JSON objects or arrays" in done.stderr


def test_a_bad_value_is_named_by_its_row(release):
    frame = small_frame(20)
    frame["age"] = frame["age"].astype(object)
    frame.loc[6, "age"] = "old"
    with (release / "data.jsonl").open("w") as handle:
        handle.writelines(json.dumps(r) + "\n" for r in frame.to_dict("records"))
    done = run_cli("audit", release / "data.jsonl", "--policy", release / "policy.yaml")
    assert done.code == 2 and done.stderr.count("\n") == 1 and "column 'age'" in done.stderr and "'old'" in done.stderr


def test_out_of_memory_engines_refuse_it(release):
    write_jsonl(release / "data.jsonl", small_frame(30))
    done = run_cli("audit", release / "data.jsonl", "--policy", release / "policy.yaml", "--engine", "chunked")
    assert done.code == 2 and "jsonl files are read whole, in memory, by their reader" in done.stderr
