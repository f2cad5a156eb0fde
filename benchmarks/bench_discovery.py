"""What the identifier scan adds to an audit: the direct_identifiers check on the 10^7-row benchmark table
(``bench_audit.py``'s issue shape from Parquet) with and without an undeclared e-mail column, beside the
rest of the audit, in one process.

    python benchmarks/bench_discovery.py [--rows 10000000]
    python benchmarks/bench_discovery.py --scan-only [--repeat 5]

``--scan-only`` times the identifier scan itself (``scan_frame``) on 10,000 rows of columns of every kind it
recognises -- telephone numbers in four national formats, national identification numbers with check
digits (NIR, DNI, BSN, Steuer-ID, codice fiscale, SSN, NINO), IBANs, payment cards, e-mail addresses --
and of ordinary survey columns it must pass over; the best of ``--repeat`` runs.

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
from privaudit.pipeline.audit import run_audit  # noqa: E402


def identifier_frame(rows: int = 10_000):
    """Columns of identifiers (valid check digits) and survey codes, headers saying nothing."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(7)
    digits = lambda k: ["".join(map(str, r)) for r in rng.integers(0, 10, (rows, k))]  # noqa: E731

    def bsn(body: str) -> str:
        total = sum((9 - i) * int(c) for i, c in enumerate(body[:8]))
        return body[:8] + str(total % 11) if total % 11 < 10 else "111222333"

    def dni(body: str) -> str:
        return body + "TRWAGMYFPDXBNJZSQVHLCKE"[int(body) % 23]

    def luhn(body: str) -> str:
        total = 0
        for i, c in enumerate(reversed(body)):
            d = int(c) * (2 if i % 2 == 0 else 1)
            total += d - 9 if d > 9 else d
        return body + str((10 - total % 10) % 10)

    def nir(body: str) -> str:
        return body + f"{97 - int(body) % 97:02d}"

    # Berlin (international form), Paris, New York, London: valid numbers of each numbering plan
    phones = [
        f"+49 30 {a[:4]} {a[4:8]}"
        if i % 4 == 0
        else f"01 4{a[0]} {a[1:3]} {a[3:5]} {a[5:7]}"
        if i % 4 == 1
        else f"(212) {2 + int(a[0]) % 8}{a[1:3]}-{a[3:7]}"
        if i % 4 == 2
        else f"020 7{a[:3]} {a[3:7]}"
        for i, a in enumerate(digits(9))
    ]
    return pd.DataFrame(
        {
            "c1": phones,
            "c2": [bsn(d) for d in digits(9)],
            "c3": [dni(d) for d in digits(8)],
            "c4": [luhn("4" + d) for d in digits(14)],
            "c5": [nir("1" + d[:2] + "05" + d[2:]) for d in digits(10)],
            "c6": [f"p{i}@example.org" for i in range(rows)],
            "c7": rng.integers(1, 6, rows).astype(str),
            "c8": rng.integers(18, 90, rows).astype(str),
            "c9": [f"{x:.2f}" for x in rng.uniform(0, 1e5, rows)],
        }
    )


def scan_only(repeat: int) -> None:
    """The scan's CPU time (``time.process_time``: other processes on a shared machine do not count), the
    whole frame and column by column, best of ``repeat``."""
    from privaudit.discovery.scan import scan_column, scan_frame

    frame = identifier_frame()

    def best(run) -> float:
        times = []
        for _ in range(repeat):
            started = time.process_time()
            run()
            times.append(time.process_time() - started)
        return min(times)

    findings = scan_frame(frame)
    total = best(lambda: scan_frame(frame))
    found = ", ".join(f"{f.column}={f.kind}" for f in findings)
    print(f"scan_frame {len(frame):,} rows x {frame.shape[1]} columns: {total:.3f} s CPU (best of {repeat}); {found}")
    print("  per column: " + ", ".join(f"{c} {best(lambda c=c: scan_column(c, frame[c])):.3f}" for c in frame.columns))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--scan-only", action="store_true", help="time the identifier scan alone")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    if args.scan_only:
        scan_only(args.repeat)
        return
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        frame = synthetic(args.rows, zip_skew=ZIP_SKEW["issue"])
        pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), tmp / "plain.parquet")
        frame["contact_email"] = (
            [f"p{i}@m{i % 97}.org" for i in range(args.rows)]
            if args.rows <= 2_000_000
            else pa.array([f"p{i}@m{i % 97}.org" for i in range(1000)] * (args.rows // 1000)).to_pandas()
        )
        pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), tmp / "email.parquet")
        del frame
        (tmp / "policy.yaml").write_text(SYNTH_POLICY)
        for name in ("plain", "email"):
            started = time.perf_counter()
            result = run_audit(tmp / f"{name}.parquet", tmp / "policy.yaml")
            total = time.perf_counter() - started
            check = next(c for c in result.checks if c.assessor == "direct_identifiers")
            print(
                f"{name:6} rows={args.rows:,}  audit {total:6.2f} s  direct_identifiers {check.seconds:5.3f} s  "
                f"({check.status}: {check.message[:90]})",
                flush=True,
            )


if __name__ == "__main__":
    main()
