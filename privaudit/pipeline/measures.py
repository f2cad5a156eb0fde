"""The built-in utility measures, registered through the ``privaudit_utility_measures`` hook as a third
party's are, in the order the reports list them. Their mathematics is in :mod:`privaudit.utility`, one
module per measure (named here as ``"module:function"``, so listing them imports none of it); the labels
are the report's names, with the definition each follows: ARX 3.9 (``org.deidentifier.arx.aggregates
.quality``), sdcMicro (``dUtility``, ``summary.micro``) and SDMetrics' quality report."""

from __future__ import annotations

from privaudit.plugin.hookspecs import hookimpl
from privaudit.plugin.measure import Measure

_U = "privaudit.utility."
ORIGINAL = frozenset({"original"})
NUMERIC = frozenset({"original", "numeric"})
#: a target is never among the inputs present: the benchmark runs when the policy names it with one
TARGET = frozenset({"original", "target"})
TRAINING = frozenset({"training"})
SYNTHETIC = frozenset({"synthetic"})


@hookimpl
def privaudit_utility_measures() -> list[Measure]:
    # AECS and discernibility are normalised by the original's classes (their raw figure is not)
    return [
        Measure("granularity", "granularity (ARX “Loss”)", _U + "granularity:measure"),
        Measure(
            "generalization_intensity",
            "generalization intensity (ARX “Precision”)",
            _U + "generalization_intensity:measure",
        ),
        Measure("discernibility", "discernibility (ARX)", _U + "discernibility:measure", value_needs=ORIGINAL),
        Measure("aecs", "average class size (ARX AECS)", _U + "aecs:measure", value_needs=ORIGINAL),
        Measure("ambiguity", "ambiguity (ARX)", _U + "ambiguity:measure"),
        Measure("suppressed_cells", "cells kept, not suppressed", _U + "suppressed_cells:measure"),
        Measure("non_uniform_entropy", "non-uniform entropy (ARX)", _U + "non_uniform_entropy:measure", ORIGINAL),
        Measure("sse_sst", "squared error, 1 − SSE/SST (ARX)", _U + "squared_error:measure", ORIGINAL),
        Measure("il1s", "IL1s, standardised deviation (sdcMicro)", _U + "il1s:measure", NUMERIC),
        Measure("eigen", "eigenvalues (sdcMicro dUtility)", _U + "eigen:measure", NUMERIC),
        Measure("mean_deviation", "means (sdcMicro summary.micro)", _U + "deviations:measure", NUMERIC),
        Measure("variance_deviation", "variances (sdcMicro summary.micro)", _U + "deviations:measure", NUMERIC),
        Measure("correlation_deviation", "correlations (sdcMicro summary.micro)", _U + "deviations:measure", NUMERIC),
        Measure("classification_accuracy", "classification accuracy (ARX)", _U + "classification:measure", TARGET),
        Measure("ks_complement", "KS complement (SDMetrics)", _U + "synthetic_quality:measure", TRAINING, SYNTHETIC),
        Measure("tv_complement", "TV complement (SDMetrics)", _U + "synthetic_quality:measure", TRAINING, SYNTHETIC),
        Measure(
            "correlation_similarity",
            "correlation similarity (SDMetrics)",
            _U + "synthetic_quality:measure",
            TRAINING,
            SYNTHETIC,
        ),
        Measure(
            "contingency_similarity",
            "contingency similarity (SDMetrics)",
            _U + "synthetic_quality:measure",
            TRAINING,
            SYNTHETIC,
        ),
        Measure("quality_score", "quality score (SDMetrics)", _U + "synthetic_quality:measure", TRAINING, SYNTHETIC),
    ]
