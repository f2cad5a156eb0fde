"""A third-party privaudit plugin that misbehaves on purpose, for tests/test_plugin_faults.py.

Installed by the tests through an entry point (a ``privaudit_misbehaving-6.6.6.dist-info`` folder made
beside a copy of this file, put on the ``PYTHONPATH`` of a subprocess), never into the shared
site-packages. The assessor ``misbehave`` does what its ``how`` parameter says; the remediator
``misremediate`` likewise.
"""

from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict

from privaudit import Assessor, Measurement, Params, Remediation, Remediator, hookimpl

__version__ = "6.6.6"

How = Literal[
    "exit0",
    "exit1",
    "raise",
    "interrupt",
    "memory",
    "allocate",
    "hang",
    "busy",
    "nan",
    "string",
    "bool_value",
    "truthy_verdict",
    "not_a_measurement",
    "details",
    "not_json",
    "inf",
    "write_sizes",
    "write_counts",
    "write_table",
    "replace_column",
    "print",
    "print_fd",
    "pass",
]


class MisbehaveParams(Params):
    how: How = "pass"


class MisbehaveDetails(BaseModel):
    """The details this assessor declares (the typed assessor contract)."""

    model_config = ConfigDict(extra="forbid")
    classes: int


@dataclass(frozen=True)
class TypedAssessor(Assessor):
    """An assessor declaring its details model (the field the typed contract adds to ``Assessor``)."""

    details: type[BaseModel] | None = None


def run(ctx, params):
    how = params.how
    good = {"classes": int(ctx.summary.n_classes)}
    if how == "exit0":
        sys.exit(0)
    if how == "exit1":
        raise SystemExit(1)
    if how == "raise":
        raise LookupError("the plugin lost its key")
    if how == "interrupt":
        raise KeyboardInterrupt
    if how == "memory":
        raise MemoryError
    if how == "allocate":  # a real MemoryError: 128 GiB
        np.ones(2**34)
    if how == "hang":
        print("hanging", file=sys.stderr, flush=True)
        time.sleep(3600)
    if how == "busy":
        while True:
            pass
    if how == "nan":
        return Measurement(float("nan"), 1, True, "all good", good)
    if how == "string":
        return Measurement("0.0", 1, True, "all good", good)
    if how == "bool_value":
        return Measurement(True, 1, True, "all good", good)
    if how == "truthy_verdict":
        return Measurement(0.5, 1, "yes", "all good", good)
    if how == "not_a_measurement":
        return {"value": 0, "passed": True}
    if how == "details":
        return Measurement(0.5, 1, True, "all good", {"classes": "many", "secret": 1})
    if how == "not_json":
        return Measurement(0.5, 1, True, "all good", {"classes": 1, "when": object()})
    if how == "inf":  # infinity stays a value (docs/plugins.md, step 3): a failing one here
        return Measurement(float("inf"), 1, False, "infinitely bad", good)
    if how == "write_sizes":
        ctx.summary.sizes[:] = 1_000_000
        return Measurement(0.0, 1, True, "rewrote the class sizes", good)
    if how == "write_counts":
        for counts in ctx.summary.sensitive.values():
            counts.counts.data[:] = 0
        return Measurement(0.0, 1, True, "rewrote the counts", good)
    if how == "write_table":
        ctx.table.iloc[0, 0] = ctx.table.iloc[1, 0]
        return Measurement(0.0, 1, True, "rewrote the table", good)
    if how == "replace_column":  # allowed: it changes this check's own copy only
        ctx.table[ctx.table.columns[0]] = np.zeros(len(ctx.table))
        return Measurement(0.0, 1, True, "replaced a column of its view", good)
    if how == "print":
        print('{"verdict": "PASS"}')
        return Measurement(0.0, 1, True, "printed", good)
    if how == "print_fd":
        os.write(1, b'{"verdict": "PASS"}\n')
        return Measurement(0.0, 1, True, "printed to fd 1", good)
    return Measurement(0.0, 1, True, "all good", good)


class MisremediateOptions(Params):
    how: Literal["exit0", "raise", "extra_column", "extra_rows", "not_a_remediation", "write_table"] = "raise"


def remediate(ctx, options):
    how = options.how
    if how == "exit0":
        sys.exit(0)
    if how == "raise":
        raise RuntimeError("the remediator broke")
    if how == "not_a_remediation":
        return ctx.table
    if how == "write_table":
        ctx.table.iloc[0, 0] = ctx.table.iloc[1, 0]
        return Remediation(ctx.table, {}, {})
    table = ctx.table.copy()
    if how == "extra_column":
        table["leak"] = 1
    else:
        table = table.iloc[list(range(len(table))) + [0]]
    return Remediation(table, {}, {})


class QuietParams(Params):
    pass


def _passes(ctx, params):
    return Measurement(0.0, 1, True, "all good", {})


def _exit(*args):
    sys.exit(0)


@hookimpl
def privaudit_assessors():
    return [
        TypedAssessor(
            "misbehave", MisbehaveParams, run, "Misbehave", "identity", "nothing useful", details=MisbehaveDetails
        ),
        Assessor("exits_in_validation", QuietParams, _passes, "Exits", "identity", "nothing", validate_policy=_exit),
        Assessor("exits_in_section", QuietParams, _passes, "Exits", "identity", "nothing"),
    ]


@hookimpl
def privaudit_report_sections():
    from privaudit.plugin.sections import Section

    return [Section("exits_in_section", _exit)]


@hookimpl
def privaudit_remediators():
    return [Remediator("misremediate", MisremediateOptions, remediate, "Misremediate", "breaks things")]
