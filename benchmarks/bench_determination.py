"""What a determination adds to its audit, on the largest table ``bench_audit.py`` uses.

    python benchmarks/bench_determination.py [--rows 10000000] [--repeat 3]

The original is ``bench_audit.synthetic(rows)`` (the ``wide`` shape, 7 million classes on six quasi-identifiers);
the release generalizes it (age to 5-year bands, zip3 to its first two digits' group of ten). In one fresh
process per run: the audit with ``--original`` (``run_audit``, the policy of ``bench_audit.py``), then what
``privaudit determination`` adds to it (the original's classes, the variables' changes, the document as HTML,
PDF/A and DOCX). Prints both times side by side and their ratio (median run); the target is at most 10 %.
Also the ratio to the audit with its own PDF report (``audit --pdf``), rendered after the determination's, so
without WeasyPrint's import (about a second): that denominator is counted low.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_audit import SYNTH_POLICY, ZIP_SKEW, synthetic  # noqa: E402

CHILD = textwrap.dedent("""
    import json, sys, time
    from privaudit.pipeline.audit import run_audit
    from privaudit.pipeline.determination import Determination, figures_of_audit
    from privaudit.report.determination.build import build_document
    from privaudit.report.json_report import render_json, report_of
    t0 = time.perf_counter()
    result = run_audit(sys.argv[1], sys.argv[2], original=sys.argv[3])
    t1 = time.perf_counter()
    figures = figures_of_audit(result)
    t2 = time.perf_counter()
    document = build_document(figures, result.registry, {})
    d = Determination(document, render_json(report_of(result)).encode(), result.policy.source, result.generated_at)
    sizes = [len(d.to_html()), len(d.to_pdf()), len(d.to_docx())]
    t3 = time.perf_counter()
    from privaudit.report.pdf import render_audit_pdf
    render_audit_pdf(result)  # the audit's own PDF report (WeasyPrint already imported: counted low)
    t4 = time.perf_counter()
    print(json.dumps({"audit": t1 - t0, "figures": t2 - t1, "render": t3 - t2, "sizes": sizes, "report": t4 - t3,
                      "classes": int(result.context.summary.n_classes), "figures_": document.figures}))
""")


def release_of(original: pd.DataFrame) -> pd.DataFrame:
    """Age in 5-year bands, zip3 in groups of ten codes: vectorised on the columns."""
    release = original.copy()
    low = (original["age"].to_numpy() // 5) * 5
    release["age"] = pd.Categorical.from_codes((low - 15) // 5, [f"[{a}-{a + 5}[" for a in range(15, 95, 5)])
    zips = original["zip3"].cat.codes.to_numpy() // 10
    release["zip3"] = pd.Categorical.from_codes(zips, [f"z{i}x" for i in range(zips.max() + 1)])
    return release


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        original = synthetic(args.rows, zip_skew=ZIP_SKEW["wide"])
        original.to_parquet(tmp / "original.parquet", index=False)
        release_of(original).to_parquet(tmp / "release.parquet", index=False)
        del original
        policy = SYNTH_POLICY.replace("age: {role: quasi_identifier, type: numeric}", "age: {role: quasi_identifier}")
        (tmp / "policy.yaml").write_text(policy)
        runs = []
        for _ in range(args.repeat):
            out = subprocess.run(
                [
                    sys.executable,
                    "-c",
                    CHILD,
                    str(tmp / "release.parquet"),
                    str(tmp / "policy.yaml"),
                    str(tmp / "original.parquet"),
                ],
                capture_output=True,
                text=True,
            )
            if out.returncode:
                raise SystemExit(out.stderr)
            runs.append(json.loads(out.stdout))
    for r in runs:
        r["added"] = r["figures"] + r["render"]
    runs.sort(key=lambda r: r["added"] / r["audit"])
    med = runs[len(runs) // 2]
    print(
        f"{args.rows:,} rows, {med['classes']:,} classes in the release; runs: "
        + " / ".join(f"{r['audit']:.1f}+{r['added']:.2f}" for r in runs)
        + " s"
    )
    print(f"audit with --original   {med['audit']:8.2f} s")
    print(
        f"determination adds      {med['added']:8.2f} s  (figures {med['figures']:.2f} s, documents {med['render']:.2f} s)"
    )
    print(f"ratio                   {med['added'] / med['audit']:8.1%}  (target <= 10 %)")
    with_report = med["audit"] + med["report"]
    print(
        f"audit + its PDF report  {with_report:8.2f} s  ratio {med['added'] / with_report:.1%} "
        "(the audit as an officer runs it, --json --pdf; its PDF rendered after WeasyPrint was imported)"
    )
    print(f"headline: {med['figures_']}")


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
