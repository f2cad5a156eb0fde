"""Regenerate the README's report thumbnails: docs/images/report-page-1.png and report-page-2.png.

Renders the bundled example's PDF report through the CLI (examples/adult/release.csv audited against
policies/adult.yaml) with a fixed SOURCE_DATE_EPOCH, so the date printed on the pages does not change
between runs, then rasterises its first two pages with poppler's pdftoppm at 50 dpi.

    python scripts/render_thumbnails.py [--dpi 50]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RELEASE = ROOT / "examples" / "adult" / "release.csv"
POLICY = ROOT / "policies" / "adult.yaml"
OUT = ROOT / "docs" / "images"
EPOCH = "1735689600"  # 2025-01-01 00:00:00 UTC: the date the thumbnails show


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dpi", type=int, default=50)
    args = parser.parse_args()
    if shutil.which("pdftoppm") is None:
        print("render_thumbnails: pdftoppm (poppler-utils) is not installed", file=sys.stderr)
        return 2
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        pdf = Path(tmp) / "report.pdf"
        env = {**os.environ, "SOURCE_DATE_EPOCH": EPOCH}
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "privaudit",
                "audit",
                str(RELEASE),
                "--policy",
                str(POLICY),
                "--pdf",
                str(pdf),
                "--quiet",
            ],
            env=env,
            cwd=ROOT,
        )
        if done.returncode not in (0, 1) or not pdf.exists():  # 1 = the example fails its policy: still a report
            print(f"render_thumbnails: the audit ended with exit code {done.returncode}", file=sys.stderr)
            return 2
        for page in (1, 2):
            stem = Path(tmp) / f"page-{page}"
            subprocess.run(
                [
                    "pdftoppm",
                    "-png",
                    "-r",
                    str(args.dpi),
                    "-f",
                    str(page),
                    "-l",
                    str(page),
                    "-singlefile",
                    str(pdf),
                    str(stem),
                ],
                check=True,
            )
            target = OUT / f"report-page-{page}.png"
            shutil.move(str(stem.with_suffix(".png")), target)
            print(f"wrote {target.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
