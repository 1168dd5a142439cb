"""Libraries that run SQL through a synchronous driver for you: pandas' SQL readers and writer, and ``dataset``.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`; the
drivers and ORMs themselves are in ``databases.py`` and ``sqldrivers.py``). Each call sends its query over the
connection or SQLAlchemy engine it is given and waits for the rows in the calling thread; pandas takes no async
engine, and ``dataset`` is built on SQLAlchemy's sync engine. Each entry names the documentation of the call.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Family, Vocabulary

D = "blocking_db"
PANDAS = "https://pandas.pydata.org/docs/reference/io.html#sql (read_sql, read_sql_query, read_sql_table, "
PANDAS += "DataFrame.to_sql: each runs the statement over the given SQLAlchemy connectable or DBAPI connection)"
DATASET = ("https://dataset.readthedocs.io/en/latest/api.html (dataset.connect builds a SQLAlchemy engine, which connects lazily; every Table "
           "method -- insert, upsert, update, find, delete, count... -- and Database.query run SQL on it; "
           "https://dataset.readthedocs.io/en/latest/quickstart.html: db['user'] gives a table)")

_READERS = ("read_sql", "read_sql_query", "read_sql_table")
_DATABASES = ("dataset.Database", "dataset.database.Database")
_TABLES = ("dataset.Table", "dataset.table.Table")
_TABLE_METHODS = ("insert", "insert_ignore", "insert_many", "update", "update_many", "upsert", "upsert_many", "delete",
                  "find", "find_one", "count", "distinct", "all", "drop", "create_column", "create_column_by_example",
                  "create_index", "drop_column", "has_index")
_DATABASE_METHODS = ("query", "load_table", "begin", "commit", "rollback")

SQL_WRAPPERS = Vocabulary(
    calls={
        **{f"pandas.{r}": (D, PANDAS) for r in _READERS},
        **{f"pandas.io.sql.{r}": (D, PANDAS) for r in _READERS},
        "pandas.DataFrame.to_sql": (D, PANDAS),
    },
    families=(
        Family(_DATABASES, {m: D for m in (*_DATABASE_METHODS, *_TABLE_METHODS)}, DATASET, resources=True),
        Family(_TABLES, {m: D for m in _TABLE_METHODS}, DATASET),
    ),
    returns={
        **{f"pandas.{r}": "pandas.DataFrame" for r in _READERS},
        "dataset.connect": "dataset.Database",
        **{f"{d}.{m}": "dataset.Table" for d in _DATABASES for m in ("get_table", "create_table", "load_table")},
    },
)
