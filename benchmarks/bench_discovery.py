"""What the identifier scan adds to an audit: the direct_identifiers check on the 10^7-row benchmark table
(``bench_audit.py``'s issue shape from Parquet) with and without an undeclared e-mail column, beside the
rest of the audit, in one process.

    python benchmarks/bench_discovery.py [--rows 10000000]

The scan reads the first 10,000 rows of each column whatever the table's size, so its time should not grow
with the rows; the figure printed is the direct_identifiers check's own time (its ``seconds`` in the report)
and the whole audit's.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from benchmarks.bench_audit import SYNTH_POLICY, ZIP_SKEW, synthetic  # noqa: E402
from privaudit.core.audit import run_audit  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=10_000_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        frame = synthetic(args.rows, zip_skew=ZIP_SKEW["issue"])
        pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), tmp / "plain.parquet")
        frame["contact_email"] = [f"p{i}@m{i % 97}.org" for i in range(args.rows)] if args.rows <= 2_000_000 else \
            pa.array([f"p{i}@m{i % 97}.org" for i in range(1000)] * (args.rows // 1000)).to_pandas()
        pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), tmp / "email.parquet")
        del frame
        (tmp / "policy.yaml").write_text(SYNTH_POLICY)
        for name in ("plain", "email"):
            started = time.perf_counter()
            result = run_audit(tmp / f"{name}.parquet", tmp / "policy.yaml")
            total = time.perf_counter() - started
            check = next(c for c in result.checks if c.assessor == "direct_identifiers")
            print(f"{name:6} rows={args.rows:,}  audit {total:6.2f} s  direct_identifiers {check.seconds:5.3f} s  "
                  f"({check.status}: {check.message[:90]})", flush=True)


if __name__ == "__main__":
    main()
