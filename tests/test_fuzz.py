"""Fuzz: random tables and policies never crash the audit, and its figures satisfy their invariants."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from privaudit.cli import main

VALUES = st.sampled_from(["a", "b", "c", "", "*", "?", " a ", "=x", "1", "2.5", "-3", "é", "<b>"])
CHECKS = st.one_of(
    st.builds(lambda k: {"assessor": "k_anonymity", "k": k}, st.integers(-1, 6)),
    st.builds(
        lambda p, k: {"assessor": "p_sensitive_k_anonymity", "p": p, "k": k}, st.integers(0, 4), st.integers(1, 4)
    ),
    st.builds(
        lambda v, l, c: {
            "assessor": "l_diversity",
            "sensitive": "s",
            "variant": v,
            "l": l,
            **({"c": c} if v == "recursive" else {}),
        },
        st.sampled_from(["distinct", "entropy", "recursive"]),
        st.integers(0, 4),
        st.floats(0.5, 5),
    ),
    st.builds(
        lambda t, d: {"assessor": "t_closeness", "sensitive": "s", "t": t, "distance": d},
        st.floats(-0.5, 1.5),
        st.sampled_from(["auto", "ordered", "equal"]),
    ),
    st.builds(lambda m: {"assessor": "uniqueness", "max_share": m}, st.floats(0, 1)),
)


@st.composite
def cases(draw):
    n = draw(st.integers(0, 25))
    q_type = draw(st.sampled_from(["nominal", "numeric"]))
    s_type = draw(st.sampled_from(["nominal", "numeric", "ordinal"]))
    rows = [[draw(VALUES) for _ in range(3)] for _ in range(n)]
    delimiter = draw(st.sampled_from([",", ";"]))
    text = (
        delimiter.join(["q1", "q2", "s"])
        + "\n"
        + "".join(delimiter.join(f'"{v}"' if delimiter in v or '"' in v else v for v in r) + "\n" for r in rows)
    )
    columns = {
        "q1": {"role": "quasi_identifier", "type": q_type},
        "q2": {"role": "quasi_identifier"},
        "s": {"role": "sensitive", "type": s_type},
    }
    if s_type == "ordinal":
        columns["s"]["order"] = ["a", "b", "c", "1", "2.5", "-3"]
    policy = {
        "version": 1,
        "name": "fuzz",
        "data": {"missing_qi": draw(st.sampled_from(["value", "wildcard"])), "missing": ["?"]},
        "columns": columns,
        "checks": draw(st.lists(CHECKS, max_size=4)),
    }
    return text, policy


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases())
def test_audit_never_crashes(case):
    text, policy = case
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        (tmp / "d.csv").write_text(text)
        (tmp / "p.yaml").write_text(yaml.safe_dump(policy))
        import contextlib
        import io

        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            code = main(["audit", str(tmp / "d.csv"), "--policy", str(tmp / "p.yaml"), "--json", str(tmp / "r.json")])
        message = err.getvalue()
        assert code in (0, 1, 2)
        assert "internal error" not in message and "Traceback" not in message, message
        if code == 2:
            assert message.startswith("privaudit: error: ") and message.count("\n") == 1, message
            return
        report = json.loads((tmp / "r.json").read_text())
        n = report["input"]["rows"]
        for c in report["checks"]:
            assert c["status"] in ("pass", "fail"), c
            v = c["value"]
            if c["assessor"] == "k_anonymity":
                assert 1 <= v <= n
            elif c["assessor"] == "uniqueness":
                assert 0 <= v <= 1
            elif c["assessor"] == "t_closeness":
                assert -1e-12 <= v <= 1 + 1e-12
            elif c["assessor"] == "l_diversity" and c["params"]["variant"] == "distinct":
                assert 0 <= v <= n
            elif c["assessor"] == "l_diversity" and c["params"]["variant"] == "entropy":
                assert 0 <= v <= n + 1e-9
