"""What the plugin guards cost (issue #32): the checks of the 10^7-row class-based audit run guarded and
unguarded, side by side in one process, against the whole audit's time.

    python benchmarks/bench_guards.py [--rows 10000000] [--repeat 6]

The table is ``bench_audit.py``'s synthetic one (shape ``wide``: 7 million classes at 10^7 rows) with the
same eight checks, read from Parquet. First the whole audit runs once as the command line runs it
(guarded: load, class summary, checks). Then, on that audit's context (summary built), the checks run
``--repeat`` times each way, alternating (and alternating which goes first): *guarded* is ``pipeline.audit.run_checks`` (each check in its own
read-only view, results validated, stdout sent to stderr, interrupts watched); *unguarded* is the check
loop as it was before the guards (the assessor called directly, same concurrency). The guards' cost is
the difference of the medians (and of the fastest runs), as a share of the whole audit's time; the
guards' own work (views, guarded calls, result checks) is also timed directly, free of the checks' noise. Freezing the summary and the table
(done once per audit, when the summary is built) is timed on its own too.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_audit import SYNTH_POLICY, ZIP_SKEW, synthetic  # noqa: E402

from privaudit.core.readonly import freeze_frame, freeze_summary  # noqa: E402
from privaudit.pipeline import audit  # noqa: E402
from privaudit.pipeline.measurements import measurement_problem  # noqa: E402
from privaudit.runtime import guard  # noqa: E402
from privaudit.runtime.concurrency import ordered_map  # noqa: E402


def unguarded_check(ctx, check):
    """``pipeline.audit.run_check`` as it was before the guards."""
    params = check.params.model_dump(mode="json")
    started = time.perf_counter()
    try:
        m = check.assessor.run(ctx.for_scenario(check.quasi_identifiers), check.params)
    except Exception as exc:  # noqa: BLE001
        return audit.CheckResult(
            check.id,
            check.assessor.name,
            "error",
            check.severity,
            None,
            None,
            params,
            str(exc),
            {},
            time.perf_counter() - started,
        )
    return audit.CheckResult(
        check.id,
        check.assessor.name,
        "pass" if m.passed else "fail",
        check.severity,
        audit._jsonable(m.value),
        audit._jsonable(m.threshold),
        params,
        m.message,
        audit._jsonable(m.details),
        time.perf_counter() - started,
        per_record=dict(m.per_record),
    )


def unguarded_checks(ctx, checks):
    """``pipeline.audit.run_checks`` as it was before the guards (concurrent checks two at a time)."""
    results = [None] * len(checks)
    side = [i for i, c in enumerate(checks) if c.assessor.concurrent]
    if audit.CHECK_WORKERS > 1 and len(side) > 1:
        for i, r in zip(
            side,
            ordered_map(
                lambda i: unguarded_check(ctx, checks[i]), side, workers=audit.CHECK_WORKERS, ahead=audit.CHECK_WORKERS
            ),
            strict=False,
        ):
            results[i] = r
    for i, check in enumerate(checks):
        if results[i] is None:
            results[i] = unguarded_check(ctx, check)
    return results


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--repeat", type=int, default=6)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        data, policy = Path(tmp) / "data.parquet", Path(tmp) / "policy.yaml"
        synthetic(args.rows, zip_skew=ZIP_SKEW["wide"]).to_parquet(data, index=False)
        policy.write_text(SYNTH_POLICY)
        started = time.perf_counter()
        result = audit.run_audit(data, policy)
        whole = time.perf_counter() - started
        ctx = result.context
        checks = audit.checks_to_run(result.policy, audit.get_registry())
        ctx.summary  # noqa: B018 - built (and frozen) already: the checks read it
        started = time.perf_counter()
        for _ in range(10):
            freeze_summary(ctx.summary)
            freeze_frame(ctx.table)
        freeze = (time.perf_counter() - started) / 10
        guarded, unguarded = [], []
        cpu: dict[int, list[float]] = {0: [], 1: []}  # CPU seconds of this process: less swayed by other jobs
        for rep in range(args.repeat):  # alternating which goes first: the first of a pair ran slower
            for which in (0, 1) if rep % 2 == 0 else (1, 0):
                started, started_cpu = time.perf_counter(), time.process_time()
                if which == 0:
                    a = audit.run_checks(ctx, checks)
                    guarded.append(time.perf_counter() - started)
                else:
                    b = unguarded_checks(ctx, checks)
                    unguarded.append(time.perf_counter() - started)
                cpu[which].append(time.process_time() - started_cpu)
        assert [(r.status, r.value) for r in a] == [(r.status, r.value) for r in b]  # the same figures
        # the guards' own work, timed directly (free of the checks' run-to-run noise): per check a view,
        # the guarded call and the result's validation; per audit the stdout and interrupt guards
        measured = [c.assessor.run(ctx.for_scenario(c.quasi_identifiers), c.params) for c in checks]
        origins = audit.get_registry().origin
        started = time.perf_counter()
        for _ in range(20):
            with guard.watch_interrupts(), guard.stdout_to_stderr():
                for c, m in zip(checks, measured, strict=False):
                    guard.check_view(ctx)
                    got = guard.call_plugin(
                        lambda m=m: m, f"assessor {c.assessor.name!r}", origins.get(f"assessor:{c.assessor.name}")
                    )
                    assert measurement_problem(got, c.assessor) is None
        direct = (time.perf_counter() - started) / 20
    g, u = statistics.median(guarded), statistics.median(unguarded)
    print(f"rows {args.rows:,}, {result.context.summary.n_classes:,} classes, {len(checks)} checks")
    print(f"whole audit (guarded, load + summary + checks): {whole:8.2f} s")
    print(f"checks guarded   (median of {args.repeat}): {g:8.3f} s  runs: " + " / ".join(f"{t:.3f}" for t in guarded))
    print(f"checks unguarded (median of {args.repeat}): {u:8.3f} s  runs: " + " / ".join(f"{t:.3f}" for t in unguarded))
    gc_, uc = statistics.median(cpu[0]), statistics.median(cpu[1])
    print(
        f"checks' CPU time, medians: guarded {gc_:.3f} s, unguarded {uc:.3f} s: {gc_ - uc:+.3f} s = "
        f"{(gc_ - uc) / uc:+.2%} of the checks' CPU time"
    )
    print(f"freezing the summary and the table: {freeze * 1e3:.3f} ms")
    print(
        f"guards' cost, checks' medians compared: {g - u:+.3f} s = {(g - u) / whole:+.2%} of the whole audit; "
        f"fastest runs compared: {min(guarded) - min(unguarded):+.3f} s = "
        f"{(min(guarded) - min(unguarded)) / whole:+.2%} (a shared machine: see the runs)"
    )
    print(
        f"guards' own work per audit, timed directly: {direct * 1e3:.2f} ms = {direct / whole:.4%} of the whole "
        f"audit; freezing {freeze * 1e3:.3f} ms = {freeze / whole:.5%}"
    )


if __name__ == "__main__":
    main()
