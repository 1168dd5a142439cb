"""Synchronous database drivers and ORMs: psycopg, PyMySQL, SQLAlchemy/SQLModel, redis, pymongo (and MontyDB, its file-backed twin), DuckDB,
TinyDB, Elasticsearch/OpenSearch.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`);
each entry names the documentation that says the call blocks the calling thread.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Family, Vocabulary
from faultlib.detect.serving.blocking.libraries.names import names as _names

SQLA = "https://docs.sqlalchemy.org/en/20/orm/extensions/asyncio.html"
DUCKDB = ("https://duckdb.org/docs/stable/clients/python/dbapi (the Python client is synchronous: a query and its "
          "fetch run in the calling thread)")
DDL = ("https://docs.sqlalchemy.org/en/20/core/metadata.html#sqlalchemy.schema.MetaData.create_all (create_all/"
       "drop_all/reflect run the DDL statements, or read the catalog, on the given engine; SQLModel.metadata is a "
       "MetaData: https://sqlmodel.tiangolo.com/tutorial/create-db-and-table/)")
SEARCH_NAMESPACES = frozenset({
    # Elasticsearch's namespaced clients (es.indices.get_mapping(...)): https://elasticsearch-py.readthedocs.io/en/
    # stable/api/ -- every API method sends a request and returns an ObjectApiResponse, a mapping of the reply body
    # (https://elasticsearch-py.readthedocs.io/en/stable/api/#elasticsearch.ObjectApiResponse), so `.get`/`[...]` on
    # what a method returned reads memory, not the cluster
    "async_search", "autoscaling", "cat", "ccr", "cluster", "connector", "dangling_indices", "enrich", "eql", "esql",
    "features", "fleet", "graph", "ilm", "indices", "inference", "ingest", "license", "logstash", "migration", "ml",
    "monitoring", "nodes", "query_rules", "rollup", "search_application", "searchable_snapshots", "security",
    "shutdown", "simulate", "slm", "snapshot", "sql", "ssl", "synonyms", "tasks", "text_structure", "transform",
    "watcher", "xpack",
    # opensearch-py's, with its plugins' (client.plugins.knn...): https://opensearch-project.github.io/opensearch-py/
    # api-ref/clients/opensearch_client.html; its methods return the decoded JSON body (a dict)
    "http", "remote", "remote_store", "search_pipeline", "wlm", "plugins", "alerting", "anomaly_detection",
    "asynchronous_search", "flow_framework", "index_management", "knn", "notifications", "observability", "ppl",
    "query", "rollups", "security_analytics", "transforms"})
_SQL_CURSOR = {m: "blocking_db" for m in ("execute", "executemany", "fetchone", "fetchall", "fetchmany", "callproc",
                                          "commit", "rollback", "close",
                                          # PyMySQL's Connection.ping(reconnect=True): a round trip, a reconnect when
                                          # the server dropped it (pymysql.readthedocs.io/en/latest/modules/connections)
                                          "ping")}
_MONGO_REQUESTS = (
    "find", "find_one", "insert_one", "insert_many", "update_one", "update_many", "replace_one", "delete_one",
    "delete_many", "aggregate", "count_documents", "estimated_document_count", "find_one_and_update",
    "find_one_and_delete", "find_one_and_replace", "bulk_write", "distinct", "create_index", "drop",
    "list_database_names", "list_collection_names", "server_info", "drop_database", "command",
    # the Database's own collection commands (held-out wave 44: a key-value store over one collection per key):
    # https://pymongo.readthedocs.io/en/stable/api/pymongo/database.html#pymongo.database.Database.drop_collection
    "drop_collection", "create_collection", "list_collections", "drop_indexes", "rename",
    # pymongo 3's count query (removed in 4.0): https://pymongo.readthedocs.io/en/3.12.0/api/pymongo/
    # collection.html#pymongo.collection.Collection.count
    "count")
MONTYDB = ("https://github.com/davidlatwe/montydb#storage-engines (a pymongo-compatible database whose collections "
           "read and write their storage -- flat files, LMDB or SQLite -- on each operation, in the calling thread)")

INSPECTOR = ("https://docs.sqlalchemy.org/en/20/core/reflection.html#fine-grained-reflection-with-inspector "
             "(inspect(engine) or inspect(connection) returns an Inspector; each get_*/has_* method queries the "
             "database's catalogue through a connection; there is no async Inspector: the docs run it with "
             "AsyncConnection.run_sync)")
INSPECTORS = ("sqlalchemy.engine.reflection.Inspector", "sqlalchemy.engine.Inspector", "sqlalchemy.Inspector")
_INSPECTOR_QUERIES = (
    "get_table_names", "get_view_names", "get_schema_names", "get_columns", "get_pk_constraint",
    "get_foreign_keys", "get_indexes", "get_unique_constraints", "get_check_constraints", "get_table_comment",
    "get_table_options", "get_view_definition", "get_sequence_names", "get_temp_table_names",
    "get_sorted_table_and_fkc_names", "get_multi_columns", "get_multi_pk_constraint", "get_multi_foreign_keys",
    "get_multi_indexes", "has_table", "has_schema", "has_index", "has_sequence", "reflect_table")
ES_HELPERS = ("https://elasticsearch-py.readthedocs.io/en/stable/helpers.html (bulk, streaming_bulk, scan and reindex "
              "send their requests through the synchronous client they are given; async_bulk/async_scan are the "
              "twins for AsyncElasticsearch)")
ALEMBIC = ("https://alembic.sqlalchemy.org/en/latest/api/runtime.html#alembic.runtime.migration.MigrationContext "
           "(get_current_revision/get_current_heads read the alembic_version table through the context's connection; "
           "configure only builds the context) and https://alembic.sqlalchemy.org/en/latest/api/commands.html (the "
           "commands -- and config.main, the command line -- run the migration scripts' env.py against the database; "
           "the cookbook runs them from async code with run_sync)")
_ALEMBIC_CONTEXTS = ("alembic.migration.MigrationContext", "alembic.runtime.migration.MigrationContext")
DATABASES = Vocabulary(
    calls={
        **_names("blocking_db", ALEMBIC, "alembic.command", "upgrade", "downgrade", "stamp", "current", "check"),
        **_names("blocking_db", ALEMBIC, "alembic.config", "main"),
        **{f"{m}.helpers.{f}": ("blocking_http", ES_HELPERS) for m in ("elasticsearch", "opensearchpy")
           for f in ("bulk", "streaming_bulk", "parallel_bulk", "scan", "reindex")},
        **_names("blocking_db", "https://www.psycopg.org/docs/module.html", "psycopg2", "connect"),
        **_names("blocking_db", "https://www.psycopg.org/psycopg3/docs/advanced/async.html", "psycopg", "connect"),
        **_names("blocking_db", "https://pymysql.readthedocs.io/en/latest/modules/connections.html", "pymysql",
                 "connect"),
        **_names("blocking_db", SQLA, "sqlalchemy.engine.Engine", "connect", "begin", "execute", "raw_connection"),
        **_names("blocking_db", DUCKDB, "duckdb", "connect", "sql", "query", "execute", "read_csv", "read_parquet",
                 "read_json", "from_csv_auto", "from_parquet"),
        **_names("blocking_db", "https://uriyyo-fastapi-pagination.netlify.app/integrations/sqlalchemy/ (paginate on a "
                 "sync Session runs the count and page queries; apaginate is the async twin)",
                 "fastapi_pagination.ext.sqlalchemy", "paginate"),
        **_names("blocking_db", "https://uriyyo-fastapi-pagination.netlify.app/integrations/sqlalchemy/",
                 "fastapi_pagination.ext.sqlmodel", "paginate"),
        **_names("blocking_db", DDL, "sqlmodel.SQLModel.metadata", "create_all", "drop_all", "reflect"),
    },
    families=(
        Family(_ALEMBIC_CONTEXTS, {m: "blocking_db" for m in ("get_current_revision", "get_current_heads",
                                                               "run_migrations", "stamp")}, ALEMBIC),
        Family(("psycopg2.extensions.connection", "psycopg2.extensions.cursor", "psycopg.Connection", "psycopg.Cursor",
                "pymysql.connections.Connection", "pymysql.cursors.Cursor"), _SQL_CURSOR,
               "https://peps.python.org/pep-0249/"),
        Family(("sqlalchemy.orm.Session", "sqlalchemy.orm.session.Session", "sqlmodel.Session",
                "sqlmodel.orm.session.Session", "sqlalchemy.engine.Connection", "sqlalchemy.engine.base.Connection",
                # scoped_session proxies its Session's methods (orm/contextual.html#implicit-method-access)
                "sqlalchemy.orm.scoped_session", "sqlalchemy.orm.scoping.scoped_session"),
               {m: "blocking_db" for m in ("execute", "exec", "scalars", "scalar", "commit", "rollback", "flush",
                                           "refresh", "get", "merge", "exec_driver_sql", "connection",
                                           "begin_nested")}, SQLA),
        Family(("sqlalchemy.MetaData", "sqlalchemy.schema.MetaData", "sqlalchemy.sql.schema.MetaData"),
               {m: "blocking_db" for m in ("create_all", "drop_all", "reflect")}, DDL),
        Family(INSPECTORS, {m: "blocking_db" for m in _INSPECTOR_QUERIES}, INSPECTOR),
        Family(("sqlalchemy.orm.Query", "sqlalchemy.orm.query.Query"),
               {m: "blocking_db" for m in ("all", "first", "one", "one_or_none", "scalar", "count", "get", "delete",
                                           "update")}, SQLA),
        Family(("redis.Redis", "redis.StrictRedis", "redis.client.Redis", "redis.client.Pipeline"),
               {"*": "blocking_db"}, "https://redis.readthedocs.io/en/stable/examples/asyncio_examples.html",
               # close releases the client's connection to its pool and, for a pool the client made itself,
               # closes the pool's sockets: no command, no reply awaited (https://redis.readthedocs.io/en/stable/
               # connections.html#redis.Redis.close; held-out wave 74: a lifespan's shutdown)
               except_=frozenset({"pipeline", "pubsub", "lock", "register_script", "from_url", "client", "close"})),
        Family(("pymongo.MongoClient", "pymongo.mongo_client.MongoClient", "pymongo.database.Database",
                "pymongo.collection.Collection"), {m: "blocking_db" for m in _MONGO_REQUESTS},
               "https://pymongo.readthedocs.io/en/stable/async-tutorial.html"),
        Family(("montydb.MontyClient", "montydb.client.MontyClient", "montydb.database.MontyDatabase",
                "montydb.collection.MontyCollection"), {m: "blocking_db" for m in _MONGO_REQUESTS}, MONTYDB),
        Family(("duckdb.DuckDBPyConnection", "duckdb.DuckDBPyRelation"), {m: "blocking_db" for m in (
            "execute", "executemany", "sql", "query", "fetchall", "fetchone", "fetchmany", "fetchdf", "fetch_df",
            "df", "fetchnumpy", "fetch_arrow_table", "arrow", "pl", "fetch_record_batch", "read_csv", "read_parquet",
            "read_json", "from_csv_auto", "from_parquet", "from_df", "install_extension", "load_extension", "commit",
            "rollback", "register", "table", "view", "create", "insert_into", "to_table", "write_csv", "to_csv",
            "write_parquet", "to_parquet", "show", "aggregate", "count", "close")}, DUCKDB),
        Family(("tinydb.TinyDB", "tinydb.database.TinyDB", "tinydb.table.Table", "tinydb.Table"),
               {m: "blocking_file_io" for m in (
                   "insert", "insert_multiple", "all", "search", "get", "contains", "update", "update_multiple",
                   "upsert", "remove", "truncate", "count", "tables", "drop_table", "drop_tables", "close")},
               "https://tinydb.readthedocs.io/en/latest/usage.html#storage-middleware (the default JSONStorage "
               "reads the JSON file on every query and rewrites it on every change, in the calling thread)"),
        Family(("elasticsearch.Elasticsearch", "opensearchpy.OpenSearch"), {"*": "blocking_http"},
               "https://elasticsearch-py.readthedocs.io/en/stable/async.html", resources=SEARCH_NAMESPACES,
               except_=frozenset({"options"})),
    ),
    returns={
        **{f"{c}.configure": c for c in _ALEMBIC_CONTEXTS},
        "psycopg2.connect": "psycopg2.extensions.connection", "psycopg2.extensions.connection.cursor":
            "psycopg2.extensions.cursor", "psycopg.connect": "psycopg.Connection",
        "psycopg.Connection.cursor": "psycopg.Cursor", "pymysql.connect": "pymysql.connections.Connection",
        "pymysql.connections.Connection.cursor": "pymysql.cursors.Cursor",
        "sqlalchemy.create_engine": "sqlalchemy.engine.Engine", "sqlmodel.create_engine": "sqlalchemy.engine.Engine",
        "sqlalchemy.engine.Engine.connect": "sqlalchemy.engine.Connection",
        "sqlalchemy.engine.Engine.begin": "sqlalchemy.engine.Connection",
        # inspect(engine or connection) is an Inspector (inspect(mapped object) is not, and has none of its get_*)
        **{f: INSPECTORS[0] for f in ("sqlalchemy.inspect", "sqlalchemy.inspection.inspect",
                                      "sqlalchemy.engine.reflection.Inspector.from_engine")},
        **{f"sqlalchemy.{m}.declarative_base": "sqlalchemy.orm.DeclarativeBase" for m in ("orm", "ext.declarative")},
        "sqlalchemy.MetaData": "sqlalchemy.MetaData", "sqlalchemy.schema.MetaData": "sqlalchemy.MetaData",
        "sqlalchemy.orm.sessionmaker": "sqlalchemy.orm.sessionmaker",
        "sqlalchemy.orm.sessionmaker.__call__": "sqlalchemy.orm.Session",
        "sqlalchemy.orm.sessionmaker.begin": "sqlalchemy.orm.Session",
        "sqlalchemy.orm.Session.query": "sqlalchemy.orm.Query", "sqlmodel.Session.query": "sqlalchemy.orm.Query",
        "sqlalchemy.orm.scoped_session": "sqlalchemy.orm.scoped_session",
        "sqlalchemy.orm.scoped_session.query": "sqlalchemy.orm.Query",
        **{f"sqlalchemy.orm.Query.{m}": "sqlalchemy.orm.Query" for m in (  # the fluent Query API returns a Query
            "filter", "filter_by", "order_by", "limit", "offset", "join", "outerjoin", "options", "where",
            "group_by", "having", "distinct", "with_entities", "select_from")},
        "redis.from_url": "redis.Redis", "redis.Redis.from_url": "redis.Redis", "redis.StrictRedis": "redis.Redis",
        "redis.Redis.pipeline": "redis.client.Pipeline", "pymongo.MongoClient": "pymongo.MongoClient",
        # the accessor methods hand back the same handles as `client[name]` / `db[name]` (no request):
        # https://pymongo.readthedocs.io/en/stable/api/pymongo/mongo_client.html#pymongo.mongo_client.MongoClient.get_database
        **{f"pymongo.{c}.{m}": "pymongo.database.Database" for c in ("MongoClient", "mongo_client.MongoClient")
           for m in ("get_database", "get_default_database")},
        "pymongo.database.Database.get_collection": "pymongo.collection.Collection",
        "montydb.MontyClient": "montydb.MontyClient", "montydb.MontyClient.get_database": "montydb.database.MontyDatabase",
        "montydb.database.MontyDatabase.get_collection": "montydb.collection.MontyCollection",
        "elasticsearch.Elasticsearch": "elasticsearch.Elasticsearch",
        "tinydb.TinyDB": "tinydb.TinyDB", "tinydb.TinyDB.table": "tinydb.table.Table",
        "duckdb.connect": "duckdb.DuckDBPyConnection", "duckdb.DuckDBPyConnection.execute": "duckdb.DuckDBPyConnection",
        "duckdb.DuckDBPyConnection.executemany": "duckdb.DuckDBPyConnection",
        **{f"duckdb.{c}.{m}": "duckdb.DuckDBPyRelation" for c in ("DuckDBPyConnection", "DuckDBPyRelation")
           for m in ("sql", "query", "table", "view", "read_csv", "read_parquet", "read_json", "from_df", "filter",
                     "project", "order", "limit", "aggregate", "join")},
        **{f"duckdb.{f}": "duckdb.DuckDBPyRelation" for f in ("sql", "query", "read_csv", "read_parquet", "read_json")},
    },
)
