"""DB-API 2.0 drivers beyond sqlite3, psycopg and PyMySQL: MySQL Connector/Python, mysqlclient, pymssql, pyodbc,
python-oracledb and cx_Oracle, the Snowflake, Databricks and Trino connectors, pg8000, and the ClickHouse clients.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`; sqlite3 is in
:mod:`~faultlib.detect.serving.blocking.libraries.stdlib`, psycopg/PyMySQL/SQLAlchemy in
:mod:`~faultlib.detect.serving.blocking.libraries.databases`). PEP 249 defines the shape every one of them
follows: ``connect`` opens the connection (a network round trip, a login), a connection's ``commit``/``rollback``
and a cursor's ``execute``/``fetch*``/``callproc`` wait for the server. Each entry names the driver's documentation.
``cursor()`` itself only builds the cursor and is left out. The async drivers (aiomysql, asyncmy, aioodbc,
``oracledb.connect_async``, ``clickhouse_connect.get_async_client``) are other names and stay silent.

Connection pools hand out the same connections (:data:`POOLS`): creating one opens its first connections, and the
connection it lends is the driver's (MySQL Connector/Python's ``MySQLConnectionPool.get_connection`` returns a
``PooledMySQLConnection``; psycopg2's ``SimpleConnectionPool``/``ThreadedConnectionPool.getconn`` a psycopg2
connection; psycopg 3's ``psycopg_pool.ConnectionPool.getconn``/``connection()`` a psycopg ``Connection``, held-out
wave 71: a multivector store borrowing one per query inside its coroutines).
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Family, Vocabulary

D = "blocking_db"
PEP249 = "https://peps.python.org/pep-0249/"
_DRIVERS = {  # module: (its connect's documentation, the connection type, the cursor type)
    "mysql.connector": ("https://dev.mysql.com/doc/connector-python/en/"
                        "connector-python-api-mysql-connector-connect.html",
                        "mysql.connector.connection.MySQLConnection", "mysql.connector.cursor.MySQLCursor"),
    "MySQLdb": ("https://mysqlclient.readthedocs.io/user_guide.html#mysqldb", "MySQLdb.connections.Connection",
                "MySQLdb.cursors.Cursor"),
    "pymssql": ("https://pymssql.readthedocs.io/en/stable/ref/pymssql.html#pymssql.connect", "pymssql.Connection",
                "pymssql.Cursor"),
    "pyodbc": ("https://github.com/mkleehammer/pyodbc/wiki/The-pyodbc-Module#connect", "pyodbc.Connection",
               "pyodbc.Cursor"),
    "oracledb": ("https://python-oracledb.readthedocs.io/en/latest/api_manual/module.html#oracledb.connect "
                 "(connect_async "
                 "is the coroutine)", "oracledb.Connection", "oracledb.Cursor"),
    "cx_Oracle": ("https://cx-oracle.readthedocs.io/en/latest/api_manual/module.html#cx_Oracle.connect",
                  "cx_Oracle.Connection", "cx_Oracle.Cursor"),
    "snowflake.connector": ("https://docs.snowflake.com/en/developer-guide/python-connector/"
                            "python-connector-api#connect",
                            "snowflake.connector.connection.SnowflakeConnection",
                            "snowflake.connector.cursor.SnowflakeCursor"),
    "databricks.sql": ("https://docs.databricks.com/en/dev-tools/python-sql-connector.html", "databricks.sql.client."
                       "Connection", "databricks.sql.client.Cursor"),
    "trino.dbapi": ("https://github.com/trinodb/trino-python-client#dbapi", "trino.dbapi.Connection",
                    "trino.dbapi.Cursor"),
    "pg8000": ("https://github.com/tlocke/pg8000#db-api-2-interactive-examples", "pg8000.Connection", "pg8000.Cursor"),
    "pg8000.dbapi": ("https://github.com/tlocke/pg8000#db-api-2-interactive-examples", "pg8000.Connection",
                     "pg8000.Cursor"),
}
_CONNECTION = {m: D for m in ("commit", "rollback", "execute", "executemany", "ping", "autocommit", "run")}
_CURSOR = {m: D for m in ("execute", "executemany", "fetchone", "fetchall", "fetchmany", "callproc", "nextset",
                          "fetch_pandas_all", "fetch_arrow_all", "fetchval")}
MYSQL_POOL = ("https://dev.mysql.com/doc/connector-python/en/connector-python-connection-pooling.html (a pool is "
              "created with pool_size connections; get_connection lends a PooledMySQLConnection)")
PSYCOPG2_POOL = ("https://www.psycopg.org/docs/pool.html (minconn connections are created with the pool; getconn "
                 "returns a connection)")
PSYCOPG_POOL = ("https://www.psycopg.org/psycopg3/docs/api/pool.html#psycopg_pool.ConnectionPool (getconn waits "
                "until a connection is free, up to timeout, and returns a psycopg Connection; connection() does the "
                "same as a context manager; AsyncConnectionPool is the async twin)")
POOLS = {  # pool class: (documentation, the method lending a connection, the connection's type)
    "mysql.connector.pooling.MySQLConnectionPool": (MYSQL_POOL, "get_connection",
                                                    "mysql.connector.pooling.PooledMySQLConnection"),
    "psycopg2.pool.SimpleConnectionPool": (PSYCOPG2_POOL, "getconn", "psycopg2.extensions.connection"),
    "psycopg2.pool.ThreadedConnectionPool": (PSYCOPG2_POOL, "getconn", "psycopg2.extensions.connection"),
}
_PSYCOPG_POOLS = ("psycopg_pool.ConnectionPool", "psycopg_pool.pool.ConnectionPool")
"""psycopg 3's pool: built, it connects in background workers (no wait); lending and ``wait`` block."""
CLICKHOUSE_CONNECT = ("https://clickhouse.com/docs/integrations/python#client-interface (get_client connects and "
                      "checks the server; query/command/insert are HTTP requests; get_async_client is the twin)")
CLICKHOUSE_DRIVER = "https://clickhouse-driver.readthedocs.io/en/latest/api.html#clickhouse_driver.Client.execute"
SQL_DRIVERS = Vocabulary(
    calls={
        **{f"{m}.connect": (D, doc) for m, (doc, _, _) in _DRIVERS.items()},
        **{f"clickhouse_connect.{f}": (D, CLICKHOUSE_CONNECT) for f in ("get_client", "create_client")},
        **{pool: (D, doc) for pool, (doc, _, _) in POOLS.items()},
    },
    families=(
        Family(tuple({c for _, c, _ in _DRIVERS.values()}), _CONNECTION, PEP249 + " (Connection.commit/rollback; "
               "the drivers' execute shortcuts run a statement)"),
        Family(tuple({c for _, _, c in _DRIVERS.values()}), _CURSOR, PEP249 + " (Cursor.execute and fetch* wait "
               "for the server)"),
        Family(("mysql.connector.pooling.PooledMySQLConnection",), _CONNECTION, MYSQL_POOL),
        Family(_PSYCOPG_POOLS, {m: D for m in ("getconn", "connection", "wait")}, PSYCOPG_POOL),
        Family(("clickhouse_connect.driver.Client", "clickhouse_connect.driver.client.Client",
                "clickhouse_connect.driver.httpclient.HttpClient"),
               {m: D for m in ("query", "command", "insert", "query_df", "query_np", "query_arrow", "insert_df",
                               "insert_arrow", "ping", "raw_query", "query_rows_stream", "query_df_stream")},
               CLICKHOUSE_CONNECT),
        Family(("clickhouse_driver.Client", "clickhouse_driver.client.Client"),
               {m: D for m in ("execute", "execute_iter", "execute_with_progress", "query_dataframe",
                               "insert_dataframe")}, CLICKHOUSE_DRIVER),
    ),
    returns={
        **{f"{m}.connect": c for m, (_, c, _) in _DRIVERS.items()},
        **{f"{c}.cursor": k for _, c, k in _DRIVERS.values()},
        **{f"{c}.execute": k for _, c, k in _DRIVERS.values()},  # pyodbc, sqlite-style shortcuts return the cursor
        **{f"clickhouse_connect.{f}": "clickhouse_connect.driver.Client" for f in ("get_client", "create_client")},
        **{pool: pool for pool in POOLS},
        **{f"{pool}.{lend}": conn for pool, (_, lend, conn) in POOLS.items()},
        **{f"{pool}.{lend}": "psycopg.Connection" for pool in _PSYCOPG_POOLS for lend in ("getconn", "connection")},
        "mysql.connector.pooling.PooledMySQLConnection.cursor": "mysql.connector.cursor.MySQLCursor",
    },
)
