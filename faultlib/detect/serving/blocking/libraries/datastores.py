"""Graph, wide-column, vector and backend-as-a-service stores with synchronous clients: the Neo4j driver, the
Cassandra driver, Weaviate, LanceDB, Supabase, plus HashiCorp Vault (hvac) and SOAP services (zeep).

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`; SQL drivers
are in :mod:`~faultlib.detect.serving.blocking.libraries.sqldrivers`, the other vector stores in
:mod:`~faultlib.detect.serving.blocking.sdks` and :mod:`~faultlib.detect.serving.blocking.libraries.vectors`). Each
entry names the documentation of the call. The async twins stay silent: ``neo4j.AsyncGraphDatabase`` and its
``Async*`` types, ``weaviate.use_async_with_*``, ``lancedb.connect_async``, ``supabase.acreate_client``,
``zeep.AsyncClient``; so do the builders that send nothing (``driver.session()``, ``collections.get(name)``,
``table.search(v).limit(k)``, ``client.table(name).select(...)`` or ``.update({...})`` before its ``execute()``;
Supabase storage's ``update``/``copy`` are left out with them, their names being the query builder's and a list's).
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Family, Vocabulary

D, H, F = "blocking_db", "blocking_http", "blocking_file_io"
NEO4J = ("https://neo4j.com/docs/api/python-driver/current/api.html (the sync driver: session.run, execute_query and "
         "the transaction functions wait for the server; AsyncGraphDatabase is the async API)")
CASSANDRA = ("https://docs.datastax.com/en/developer/python-driver/latest/api/cassandra/cluster/ (Cluster.connect and "
             "Session.execute block; execute_async returns a ResponseFuture whose result() waits)")
WEAVIATE = ("https://weaviate.io/developers/weaviate/client-libraries/python (connect_to_* connect the sync "
            "WeaviateClient; its collection queries and data calls are requests; use_async_with_* give the async "
            "client) and https://weaviate.io/developers/weaviate/client-libraries/python/python_v3 (v3: do() sends "
            "the query)")
LANCEDB = ("https://lancedb.github.io/lancedb/python/python/ (connect, open_table and the table's writes read and "
           "write "
           "the dataset files; a query runs when to_list/to_pandas/to_arrow is called; connect_async is the twin)")
SUPABASE = ("https://supabase.com/docs/reference/python/select (create_client gives the sync client: execute() sends "
            "the request; acreate_client is the async one) and https://supabase.com/docs/reference/python/"
            "storage-from-upload")
HVAC = "https://hvac.readthedocs.io/en/stable/overview.html (every call of the client is a sync HTTP request to Vault)"
ZEEP = ("https://docs.python-zeep.org/en/master/client.html (Client(wsdl) fetches and parses the WSDL; each "
        "client.service operation is a sync SOAP request; AsyncClient is the twin)")
_NEO4J_TYPES = ("neo4j.Driver", "neo4j.Session", "neo4j.Transaction", "neo4j.ManagedTransaction", "neo4j.Result",
                "neo4j.GraphDatabase")
_WEAVIATE = ("weaviate.WeaviateClient", "weaviate.client.WeaviateClient", "weaviate.Client", "weaviate.client.Client")
_LANCE_TABLE = ("lancedb.table.Table", "lancedb.table.LanceTable")
_LANCE_QUERY = "lancedb.query.LanceQueryBuilder"
_SUPABASE = ("supabase.Client", "supabase.client.Client", "supabase._sync.client.SyncClient")
_ANSWER_METHODS = ("get", "keys", "items", "values", "json", "copy", "pop", "setdefault", "__getitem__")
"""Methods of what a call returns (a dict, a response): a ``*`` family with sub-clients types a call's result as a
sub-client too, so ``health = client.sys.read_health_status(); health.get("sealed")`` must not read as a request."""
DATA_STORES = Vocabulary(
    calls={
        **{f"weaviate.{f}": (H, WEAVIATE) for f in ("connect_to_local", "connect_to_weaviate_cloud", "connect_to_wcs",
                                                    "connect_to_custom", "connect_to_embedded")},
        **{f"lancedb.{f}": (F, LANCEDB) for f in ("connect",)},
        "zeep.Client": (H, ZEEP),
    },
    families=(
        Family(_NEO4J_TYPES, {m: D for m in (
            "run", "execute_query", "execute_read", "execute_write", "read_transaction", "write_transaction",
            "verify_connectivity", "verify_authentication", "get_server_info", "begin_transaction", "commit",
            "rollback", "single", "data", "value", "values", "consume", "fetch", "to_df", "graph", "peek")}, NEO4J),
        Family(("cassandra.cluster.Cluster",), {"connect": D, "shutdown": D}, CASSANDRA),
        Family(("cassandra.cluster.Session",), {m: D for m in ("execute", "prepare", "set_keyspace", "shutdown")},
               CASSANDRA),
        Family(("cassandra.cluster.ResponseFuture",), {"result": D}, CASSANDRA),
        Family(_WEAVIATE, {m: H for m in (
            "near_text", "near_vector", "near_object", "near_image", "hybrid", "bm25", "fetch_objects",
            "fetch_object_by_id", "over_all", "insert", "insert_many", "update", "replace", "delete_by_id",
            "delete_many", "exists", "create", "create_from_dict", "delete", "delete_all", "list_all", "do",
            "is_ready", "is_live", "get_meta", "generate", "connect")}, WEAVIATE, resources=True),
        Family(("lancedb.DBConnection", "lancedb.db.DBConnection", "lancedb.db.LanceDBConnection"),
               {m: F for m in ("open_table", "create_table", "drop_table", "table_names", "drop_database")}, LANCEDB),
        Family(_LANCE_TABLE, {m: F for m in ("add", "delete", "update", "merge_insert", "count_rows", "to_pandas",
                                             "to_arrow", "create_index", "create_fts_index", "optimize",
                                             "compact_files", "cleanup_old_versions")}, LANCEDB),
        Family((_LANCE_QUERY,), {m: F for m in ("to_list", "to_pandas", "to_arrow", "to_pydantic", "to_df",
                                                 "to_polars", "to_batches")}, LANCEDB),
        Family(_SUPABASE, {m: H for m in (
            "execute", "upload", "download", "remove", "list", "move", "create_signed_url",
            "create_signed_urls", "sign_in_with_password", "sign_up", "sign_out", "get_user", "get_session",
            "refresh_session", "invoke", "create_bucket", "get_bucket", "list_buckets", "delete_bucket",
            "admin_list_users", "create_user", "delete_user")}, SUPABASE, resources=True),
        Family(("hvac.Client", "hvac.v1.Client"), {"*": H}, HVAC, resources=True,
               except_=frozenset({"adapter", "url", "token", "session", *_ANSWER_METHODS})),
        Family(("zeep.Client", "zeep.client.Client"), {"*": H}, ZEEP, resources=True,
               except_=frozenset({*_ANSWER_METHODS, "get_type", "get_element", "type_factory", "bind", "create_service",
                                  "create_message", "set_ns_prefix", "set_default_soapheaders", "settings",
                                  "wsdl", "transport"})),
    ),
    returns={
        **{f"neo4j.GraphDatabase.{f}": "neo4j.Driver" for f in ("driver", "bolt_driver", "neo4j_driver")},
        "neo4j.Driver.session": "neo4j.Session", "neo4j.Session.run": "neo4j.Result",
        "neo4j.Session.begin_transaction": "neo4j.Transaction", "neo4j.Transaction.run": "neo4j.Result",
        "cassandra.cluster.Cluster.connect": "cassandra.cluster.Session",
        "cassandra.cluster.Session.execute_async": "cassandra.cluster.ResponseFuture",
        **{f"weaviate.{f}": "weaviate.WeaviateClient" for f in ("connect_to_local", "connect_to_weaviate_cloud",
                                                                "connect_to_wcs", "connect_to_custom",
                                                                "connect_to_embedded")},
        "lancedb.connect": "lancedb.DBConnection",
        **{f"lancedb.DBConnection.{m}": _LANCE_TABLE[0] for m in ("open_table", "create_table")},
        **{f"{t}.search": _LANCE_QUERY for t in _LANCE_TABLE},
        **{f"{_LANCE_QUERY}.{m}": _LANCE_QUERY for m in ("limit", "where", "select", "metric", "nprobes",
                                                          "refine_factor", "distance_type", "rerank", "vector")},
        **{f"supabase.{f}": _SUPABASE[0] for f in ("create_client", "client.create_client")},
    },
)
