"""The ``spark`` engine: the class summary through PySpark DataFrame/SQL.

The same two SQL passes as the DuckDB engine (:mod:`privaudit.engines._sql`), run by Spark SQL, so a
table on a cluster is summarised where it lives; only distinct values, mapping tables and the counts
of each (class, sensitive values) group travel to the driver (as Arrow). Pure SQL: no Python or pandas
UDFs run on the executors. What Spark is asked differs from DuckDB where Spark is slow: the dictionary
pass groups ``stack``-ed (column, value) rows rather than grouping sets; text columns of at most
``inline_limit`` values are coded by a ``CASE`` rather than a hash join; the one aggregation skips the
map-side partial aggregation when there are more possible keys than rows (:meth:`SparkDialect.aggregate`).

Without a ``spark`` session option, a local one is started (``local[*]``, UI off, several seconds to start; twice as many
shuffle partitions as the master's threads unless ``shuffle_partitions`` is given; for a local master,
ParallelGC and higher C2 thresholds, :data:`JIT`). One Parquet file of simple types is read with its
schema given (:func:`_parquet_schema`), which spares Spark its schema-inference job. CSV files
are read with every column as a string, the policy's or the sniffed delimiter, ``"`` as quote and
escape, ``FAILFAST``; a row with too few or too many fields is found by a text scan of the lines (Spark
pads or truncates such rows silently), invalid UTF-8 (which Spark replaces with U+FFFD) by looking for
the replacement character. Messages are then phrased by :mod:`privaudit.io.data`, as for in-memory loads.

Options: ``spark`` (a SparkSession), ``master`` (default ``local[*]``), ``shuffle_partitions``,
``driver_memory`` and ``jvm_log`` (only when a new session is started: the file that keeps the JVM's own
output, for a failure to investigate; without it that output goes to a temporary file deleted at exit),
``table`` (a table of the session's catalog). The
Python API also takes a ``pyspark.sql.DataFrame`` as the released table. Directories, globs and Hive
partitions are read by Spark's own readers (``basePath`` set, so partition folders become columns).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import re
import shutil
import tempfile
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path

import pyarrow as pa

from privaudit.core.errors import DataError, PrivauditError
from privaudit.core.policy import Policy
from privaudit.engines._sql import SPACE_CLASS, summarize_sql
from privaudit.io.data import check_tail
from privaudit.io.dataset import DatasetSource, catalog_source, open_input
from privaudit.io.source import Source

NAME = "spark"
VIEW = "privaudit_released"
BYPASS = "spark.sql.execution.bypassPartialAggregation"  # Spark >= 4.1; an unknown key is ignored before


# A short-lived local JVM spends more CPU compiling than working: C2 (the optimising JIT) compiled
# every method past 5,000 calls, most of Spark's planner and setup code run a few times. Ten times the
# thresholds leave C2 the hot loops of the generated code: its threads' CPU falls by more than half, the
# tasks' own CPU unchanged (C1 only, -XX:TieredStopAtLevel=1, doubled the tasks' CPU).
JIT = (
    "-XX:Tier4InvocationThreshold=50000 -XX:Tier4MinInvocationThreshold=5000 -XX:Tier4CompileThreshold=100000 "
    "-XX:Tier4BackEdgeThreshold=400000"
)

LOG4J = (
    "rootLogger.level = error\nrootLogger.appenderRef.stderr.ref = console\nappender.console.type = Console\n"
    "appender.console.name = console\nappender.console.target = SYSTEM_ERR\n"
    "appender.console.layout.type = PatternLayout\nappender.console.layout.pattern = %m%n\n"
)


@contextlib.contextmanager
def quiet() -> Iterator[None]:
    """pyspark warns on import that pandas 3 is not fully supported; no pandas code of it runs here."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        warnings.simplefilter("ignore", UserWarning)
        yield


def local_session(
    master: str = "local[*]",
    shuffle_partitions: int | None = None,
    driver_memory: str | None = None,
    jvm_log: str | None = None,
):
    """A Spark session for this process (started once; later calls get the same one). Spark logs errors
    only, and the JVM's own output goes to a file (:func:`_gateway`): ``jvm_log``, kept, or a temporary
    one; so a command's stderr keeps to privaudit's one-line messages."""
    log = _log_file(jvm_log)
    with quiet():
        from pyspark.sql import SparkSession

        folder = tempfile.mkdtemp(prefix="privaudit-spark-")
        atexit.register(shutil.rmtree, folder, True)
        config = Path(folder) / "log4j2.properties"
        config.write_text(LOG4J)
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
        java = f"-Dlog4j2.configurationFile=file:{config}"
        local = master.strip().startswith("local")
        if local:  # this JVM is the executor too: the throughput collector (10^7 rows: 25% less CPU than G1)
            java += " -XX:+UseParallelGC " + JIT
        from pyspark import SparkConf, SparkContext

        conf = (
            SparkConf()
            .setMaster(master)
            .setAppName("privaudit")
            .set("spark.ui.enabled", "false")
            .set("spark.ui.showConsoleProgress", "false")
            .set("spark.driver.extraJavaOptions", java)
            .set("spark.sql.shuffle.partitions", str(shuffle_partitions or _partitions(master)))
        )
        if local:  # shuffle files stay on this machine: compressing them only costs CPU
            conf = conf.set("spark.shuffle.compress", "false").set("spark.shuffle.spill.compress", "false")
        if driver_memory:
            conf = conf.set("spark.driver.memory", driver_memory)
        if SparkContext._gateway is None and "PYSPARK_GATEWAY_PORT" not in os.environ:  # this process starts the JVM
            SparkContext(conf=conf, gateway=_gateway(conf, log or Path(folder) / "jvm.log"))
        session = SparkSession.builder.config(conf=conf).getOrCreate()
        session.sparkContext.setLogLevel("ERROR")
    return session


def _log_file(jvm_log: str | None) -> Path | None:
    """``jvm_log`` as a path the JVM may write to (a file, written in place; a symbolic link's file, a FIFO
    or a device written through), refused in one line before any JVM starts when it cannot be."""
    if jvm_log is None:
        return None
    if str(jvm_log).strip() in ("", "-"):
        raise DataError(
            f"--engine-option jvm_log={jvm_log}: give a file (standard output and error are privaudit's own)"
        )
    path = Path(str(jvm_log))
    if path.is_dir():
        raise DataError(f"--engine-option jvm_log={jvm_log}: is a directory")
    if not path.parent.is_dir():
        raise DataError(f"--engine-option jvm_log={jvm_log}: the folder {str(path.parent)!r} does not exist")
    return path


def _gateway(conf, log: Path):
    """Start the JVM (pyspark's ``launch_gateway``) with its standard output and error going to ``log``:
    the JVM and Spark's launcher print notices there (``WARNING: Using incubator modules``, ``Setting
    default log level``) that would break a command's one-line messages and a report written to ``-``.
    A JVM that does not start is one line naming the first thing it printed."""
    from pyspark.errors import PySparkRuntimeError
    from pyspark.java_gateway import launch_gateway

    try:
        sink = log.open("wb")
    except OSError as exc:
        raise DataError(f"--engine-option jvm_log={log}: cannot be written ({exc.strerror})") from None
    with sink:
        try:
            return launch_gateway(conf, popen_kwargs={"stdout": sink, "stderr": sink})
        except PySparkRuntimeError as exc:
            if getattr(exc, "getErrorClass", lambda: None)() != "JAVA_GATEWAY_EXITED":
                raise
    said = [line.strip() for line in log.read_text(errors="replace").splitlines()] if log.is_file() else []
    said = [line for line in said if line and not line.startswith("WARNING: Using incubator modules")]
    raise PrivauditError("the Spark engine's JVM did not start: " + (said[0] if said else "it printed nothing"))


def _partitions(master: str) -> int:
    """Shuffle partitions for a new session: twice the threads of a ``local[N]`` master (``local[*]`` and
    other masters: twice the machine's cores), at least 4 (Spark's default of 200 is for clusters: each
    partition is a task with its own small hash table and file)."""
    match = re.fullmatch(r"local\[(\d+)(?:,\s*\d+)?\]", master.strip())
    threads = int(match.group(1)) if match else (1 if master.strip() == "local" else os.cpu_count() or 1)
    return max(2 * threads, 4)


class SparkDialect:
    name = NAME
    relation = VIEW
    stacked = True  # the dictionary pass on (column, value) rows (see _sql._stacked_groups)
    inline_limit = 64  # a text column of at most this many values is coded by a CASE, not a join (see _sql._inline)

    def __init__(self, spark, source: Source):
        self.spark = spark
        self.source = source

    @staticmethod
    def ident(name: str) -> str:
        return "`" + name.replace("`", "``") + "`"

    @staticmethod
    def text_literal(text: str) -> str:
        return f"CAST(X'{text.encode('utf-8').hex()}' AS STRING)"

    @staticmethod
    def strip_spaces(expr: str) -> str:
        pattern = SPACE_CLASS.replace("\\", "\\\\")  # Spark SQL string literals unescape backslashes
        return f"regexp_replace({expr}, '{pattern}', '')"

    def register(self, name: str, table: pa.Table) -> None:
        try:
            frame = self.spark.createDataFrame(table)  # pyspark >= 4 takes Arrow tables
        except (TypeError, ValueError):
            from pyspark.sql.pandas.types import from_arrow_schema

            rows = list(zip(*[column.to_pylist() for column in table.columns], strict=False))
            frame = self.spark.createDataFrame(rows, schema=from_arrow_schema(table.schema))
        frame.createOrReplaceTempView(name)

    def aggregate(self, sql: str, space: int, rows: int) -> pa.Table:
        """The one GROUP BY of the coded rows. When there are more possible keys than rows, the groups are
        likely nearly as many as the rows: the map-side partial aggregation would then hash every row
        once more for little reduction, so it is skipped; the session's own setting is restored afterwards."""
        if space <= rows:
            return self.query(sql)
        conf = self.spark.conf
        before = conf.get(BYPASS, None)
        conf.set(BYPASS, "true")
        try:
            return self.query(sql)
        finally:
            if before is None:
                conf.unset(BYPASS)
            else:
                conf.set(BYPASS, before)

    def query(self, sql: str) -> pa.Table:
        frame = self.spark.sql(sql)
        try:
            if hasattr(frame, "toArrow"):  # pyspark >= 4
                return frame.toArrow()
            batches = frame._collect_as_arrow()
            schema = batches[0].schema if batches else None
            return pa.Table.from_batches(batches, schema=schema) if batches else _empty(frame)
        except Exception as exc:  # a parse failure surfaces as a JVM exception
            if self.source.file_format == "csv" and _is_read_error(exc):
                self.source.raise_parse_error(str(exc))
            raise


def _empty(frame) -> pa.Table:
    from pyspark.sql.pandas.types import to_arrow_schema

    return to_arrow_schema(frame.schema).empty_table()


def _is_read_error(exc: Exception) -> bool:
    text = str(exc)
    return any(s in text for s in ("Malformed", "FAILFAST", "MALFORMED", "CSV", "Input/output"))


def _paths(source: Source) -> list[str]:
    """What Spark's readers read: the file, or every file of a dataset (object stores as ``s3a://``)."""
    if not isinstance(source, DatasetSource):
        return [str(source.path)]
    location = source.location
    if not location.remote:
        return [f.path for f in location.files]
    scheme = location.text.split("://", 1)[0]
    prefix = "s3a" if scheme == "s3" else scheme
    return [f"{prefix}://{f.path}" for f in location.files]


def _file_columns(source: Source) -> list[str]:
    """The columns the files hold (a dataset's Hive partition keys come from the folders)."""
    if not isinstance(source, DatasetSource):
        return list(source.columns)
    keys = source.location.partitions(source.location.files[0])
    return [c for c in source.columns if c not in keys]


def _load(spark, source: Source, types: dict[str, pa.DataType] | None = None):
    """Register the released file(s) as a temporary view; CSV: check field counts and UTF-8 first."""
    paths = _paths(source)
    reader = spark.read
    if isinstance(source, DatasetSource) and source.location.root and not source.location.remote:
        reader = reader.option("basePath", source.location.root)  # Hive partition folders become columns
        spark.conf.set("spark.sql.sources.partitionColumnTypeInference.enabled", "false")  # text, as in process
    if source.file_format == "parquet":
        schema = _parquet_schema(types) if not isinstance(source, DatasetSource) else None
        if schema is not None:
            reader = reader.schema(schema)
        reader.parquet(*paths).createOrReplaceTempView(VIEW)
        return
    from pyspark.sql.types import StringType, StructField, StructType

    schema = StructType([StructField(c, StringType(), True) for c in _file_columns(source)])
    frame = reader.csv(
        paths,
        schema=schema,
        sep=source.delimiter,
        quote='"',
        escape='"',
        header=True,
        mode="FAILFAST",
        multiLine=False,
        encoding="UTF-8",
        ignoreLeadingWhiteSpace=False,
        ignoreTrailingWhiteSpace=False,
        maxCharsPerColumn=-1,
        enforceSchema=True,
    )
    _check_lines(spark, source)
    frame.createOrReplaceTempView(VIEW)


def _parquet_schema(types: dict[str, pa.DataType] | None):
    """The Spark schema of one Parquet file whose columns are all text, signed integers, floats or
    booleans (as Spark would infer it), else None. Given, it spares Spark its schema inference, a job
    of its own that reads the footer (10^7 rows, local[2]: about 2 of the 6 JVM CPU-s of the first
    query); other types are left to Spark's inference, whose mapping they keep."""
    from pyspark.sql.types import (
        BooleanType,
        ByteType,
        DoubleType,
        FloatType,
        IntegerType,
        LongType,
        ShortType,
        StringType,
        StructField,
        StructType,
    )

    simple = {
        pa.int8(): ByteType(),
        pa.int16(): ShortType(),
        pa.int32(): IntegerType(),
        pa.int64(): LongType(),
        pa.float32(): FloatType(),
        pa.float64(): DoubleType(),
        pa.bool_(): BooleanType(),
        pa.string(): StringType(),
        pa.large_string(): StringType(),
    }
    fields = []
    for name, kind in (types or {}).items():
        if pa.types.is_dictionary(kind):
            kind = kind.value_type
        if kind not in simple:
            return None
        fields.append(StructField(name, simple[kind], True))
    return StructType(fields) if fields else None


def _check_lines(spark, source: Source) -> None:
    """Spark reads a row of the wrong length as padded or cut, and bad UTF-8 as U+FFFD: find either
    with one pass over the lines (quoted fields removed before counting delimiters)."""
    import re

    from pyspark.sql import functions as F

    lines = spark.read.text(_paths(source)).withColumnRenamed("value", "line")
    delim = re.escape(source.delimiter)
    unquoted = F.regexp_replace(F.col("line"), '"[^"]*"', "")
    fields = F.size(F.split(unquoted, delim)) if delim else F.lit(1)
    expected = len(_file_columns(source))
    blank = F.trim(F.col("line")) == ""
    # Spark keeps invalid UTF-8 bytes; its regex engine sees them (decoded) as U+FFFD
    bad = lines.where(((fields != expected) & ~blank) | F.col("line").rlike("\ufffd"))
    # the header line is line 1: it may hold the replacement character or quotes legitimately only once
    headers = len(_paths(source))  # every file's first line is a header
    if bad.limit(headers + 1).count() > (headers if _header_is_odd(source) else 0):
        source.raise_parse_error("malformed line")
    if isinstance(source, DatasetSource):
        if not source.location.remote:
            for info in source.location.files:
                check_tail(Path(info.path))
    else:
        check_tail(source.path)


def _header_is_odd(source: Source) -> bool:
    """Whether the header line alone would be flagged by the line check (so it is not counted)."""
    import re

    if isinstance(source, DatasetSource):  # the first file's header (every file's is checked alike)
        with source.location.filesystem.open_input_stream(source.location.files[0].path) as handle:
            line = handle.read(1 << 16).split(b"\n", 1)[0]
    else:
        with source.path.open("rb") as handle:
            line = handle.readline()
    first = line.decode("utf-8-sig", errors="replace").rstrip("\r\n")
    unquoted = re.sub('"[^"]*"', "", first)
    return len(unquoted.split(source.delimiter)) != len(_file_columns(source)) or "\ufffd" in first


def summarize(
    path,
    policy: Policy,
    *,
    spark=None,
    master: str = "local[*]",
    shuffle_partitions: int | None = None,
    driver_memory: str | None = None,
    jvm_log: str | None = None,
    table: str | None = None,
    progress: Callable[[str, int, int], None] | None = None,
    what: str = "released table",
):
    """Summarise ``path`` with Spark; returns an :class:`~privaudit.plugin.engine.EngineResult`.

    ``path`` is a file, a directory, a glob or a URI (read by Spark's own readers: ``s3://`` is read as
    ``s3a://``, which needs the cluster's hadoop-aws), or a ``pyspark.sql.DataFrame`` of ``spark``'s
    session; ``table`` names a table of the session's catalog instead."""
    if table is not None or _is_dataframe(path):
        frame = path if table is None else None
        spark = spark or (
            frame.sparkSession
            if frame is not None
            else local_session(master, shuffle_partitions, driver_memory, jvm_log)
        )
        with quiet():
            source = _catalog(spark, frame, table, policy)
            try:
                return summarize_sql(source, policy, SparkDialect(spark, source), source.types)
            finally:
                _drop_views(spark)
    if policy.data.encoding != "utf-8":
        raise DataError(
            f"data.encoding {policy.data.encoding!r}: the spark engine reads CSV in UTF-8; use --engine "
            "in-process or chunked for this file, or convert it"
        )
    source = open_input(path, policy, what)
    spark = spark or local_session(master, shuffle_partitions, driver_memory, jvm_log)
    types = {}
    if isinstance(source, DatasetSource):
        types = {f.name: f.type for f in source.dataset.schema} if source.file_format == "parquet" else {}
    elif source.file_format == "parquet":
        import pyarrow.parquet as pq

        schema = pq.ParquetFile(source.path).schema_arrow
        types = {name: schema.field(name).type for name in schema.names}
    with quiet():
        _load(spark, source, types)
        try:
            return summarize_sql(source, policy, SparkDialect(spark, source), types)
        finally:
            _drop_views(spark)


def _drop_views(spark) -> None:
    for name in [VIEW] + [t.name for t in spark.catalog.listTables() if t.name.startswith("privaudit_map_")]:
        spark.catalog.dropTempView(name)


def _is_dataframe(obj) -> bool:
    try:
        from pyspark.sql import DataFrame
    except ImportError:  # pragma: no cover - the engine needs pyspark anyway
        return False
    return isinstance(obj, DataFrame)


def _catalog(spark, frame, table: str | None, policy: Policy):
    """A Spark table or DataFrame as the view the SQL passes read (nothing is collected)."""
    from pyspark.sql.pandas.types import to_arrow_schema

    if frame is None:
        if not spark.catalog.tableExists(table):
            raise DataError(f"table {table!r}: not found in the Spark session's catalog")
        frame = spark.table(table)
    frame.createOrReplaceTempView(VIEW)
    schema = to_arrow_schema(frame.schema)

    def batches(columns, batch_rows):
        selected = spark.table(VIEW).select(*columns)
        arrow = (
            selected.toArrow() if hasattr(selected, "toArrow") else pa.Table.from_batches(selected._collect_as_arrow())
        )
        yield from arrow.to_batches(batch_rows)

    label = f"spark table {table}" if table is not None else "spark DataFrame"
    return catalog_source(label, schema, batches, "spark table" if table is not None else "spark DataFrame", policy)
