"""The built-in engines, registered through the ``privaudit_engines`` hook as a third party's are.

Each record names its module's ``summarize`` as ``"module:function"``: listing the engines (``--engine``'s
choices and help, ``privaudit plugins``) imports none of pyarrow, DuckDB or PySpark.
"""

from __future__ import annotations

from privaudit.plugin.engine import Engine
from privaudit.plugin.hookspecs import hookimpl


@hookimpl
def privaudit_engines() -> list[Engine]:
    return [
        Engine(
            "in-process",
            "the whole table in memory (default)",
            "privaudit.engines.inprocess:summarize",
            in_memory=True,
        ),
        Engine(
            "chunked",
            "row groups / CSV blocks one at a time, partial summaries merged",
            "privaudit.engines.chunked:summarize",
        ),
        Engine(
            "duckdb",
            "DuckDB SQL over the file, spilling to disk",
            "privaudit.engines.duckdb_engine:summarize",
            requires="duckdb",
            extra="duckdb",
        ),
        Engine(
            "spark",
            "PySpark DataFrame/SQL (local mode by default)",
            "privaudit.engines.spark_engine:summarize",
            requires="pyspark",
            extra="spark",
        ),
    ]
