"""Per-record risk (``--records OUT``, ``AuditReport.records()``): one row per released record, in input
order, so that a data owner can treat exactly the risky records.

Columns: ``row`` (0-based position in the release), ``class_id`` (the record's equivalence class in the
class summary), ``class_size`` (f_k: the records it matches -- its class, or every matching record under
``missing_qi: wildcard``), ``risk`` (1/f_k; with a ``weight`` column, the Benedetti-Franconi individual risk
from F_k, as the uniqueness check computes it), and one boolean ``violates:<check id>`` column per
class-based check of the policy (its ``class_violations``), then each check's own per-record figures as
``<name>:<check id>`` (:attr:`privaudit.plugin.assessor.Measurement.per_record`): with ``--original``,
``linked:<id>`` of a distance ``record_linkage`` check is the expected correctness of the intruder's link
of the record (1 linked to itself, 1/t in a tie of t, 0 linked elsewhere, empty when the record is not
in the intruder's file). It needs the per-record view of the in-process
engine (the out-of-memory engines summarise classes, not records).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from privaudit.core.errors import PrivauditError


def records_frame(result) -> pd.DataFrame:
    """The per-record table of an :class:`~privaudit.pipeline.audit.AuditResult`."""
    ctx = result.context
    if ctx.table is None:
        raise PrivauditError(
            f"per-record output needs the in-process engine (this audit used {result.engine}); "
            "the chunked, DuckDB and Spark engines summarise classes, not records"
        )
    summary = ctx.summary
    class_of = summary.class_of
    f_k = summary.class_fk
    if summary.weight_sums is not None:
        from privaudit.risk.individual_risk import individual_risk

        class_risk = individual_risk(f_k, summary.weight_sums)
    else:
        class_risk = 1.0 / f_k
    columns = {
        "row": np.arange(len(class_of)),
        "class_id": class_of,
        "class_size": f_k[class_of],
        "risk": class_risk[class_of],
    }
    for check in result.policy.checks:
        fn = check.assessor.class_violations
        if fn is not None:
            sctx = ctx.for_scenario(check.quasi_identifiers)  # a scenario's classes are its own
            columns[f"violates:{check.id}"] = np.asarray(fn(sctx, check.params), dtype=bool)[sctx.summary.class_of]
    for check in result.checks:  # assessors' own per-record figures (Measurement.per_record)
        for name, values in check.per_record.items():
            columns[f"{name}:{check.id}"] = np.asarray(values)
    return pd.DataFrame(columns)
