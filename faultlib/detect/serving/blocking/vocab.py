"""What counts as blocking: the one vocabulary of calls that block the calling thread, each with its source.

Names are canonical (what ``import`` resolves them to): ``time.sleep``, ``requests.get``; a method of an
instance whose type the analysis knows is ``TYPE.method`` (``requests.Session.get``,
``sqlalchemy.orm.Session.execute``), and a sub-client reached by attributes extends the type
(``openai.OpenAI.chat.completions.create``). A :class:`Vocabulary` holds

* ``calls``: ``{dotted name: (kind, source URL)}``, exact names;
* ``families``: :class:`Family` rules for client types whose every network method blocks (a sync redis
  client, a boto3 client) or whose model calls do (a LangChain runnable, a Hugging Face pipeline);
* ``returns``: ``{call: type}`` -- what a factory returns, so the methods of its result are known
  (``sqlite3.connect`` -> ``sqlite3.Connection``).

Third-party packages extend it through the entry-point group ``faultlib.blocking_calls``: each entry
point names a :class:`Vocabulary` (or a function returning one); faultlib's own tables are registered
there the same way (``pyproject.toml``) and are also loaded directly, so an uninstalled checkout
still has them. :func:`vocabulary` merges them once per process. Torch modules and scikit-learn
estimators are recognised by type (:func:`is_torch_module`, :func:`is_estimator`).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from functools import lru_cache

from faultlib.detect.serving.blocking.entries import Family, Vocabulary  # re-exported: the plugin API
from faultlib.detect.serving.blocking.sdks import SDKS

ENTRY_POINT_GROUP = "faultlib.blocking_calls"
HTTP_VERBS = ("get", "post", "put", "patch", "delete", "head", "options", "request")


def _names(kind: str, source: str, prefix: str, *members: str) -> dict[str, tuple[str, str]]:
    return {f"{prefix}.{m}": (kind, source) for m in members}


PY = "https://docs.python.org/3/library/"
STDLIB = Vocabulary(
    calls={
        "time.sleep": ("blocking_sleep", PY + "time.html#time.sleep"),
        **_names("blocking_http", PY + "urllib.request.html", "urllib.request", "urlopen", "urlretrieve"),
        **_names("blocking_http", PY + "urllib.request.html", "urllib.request.OpenerDirector", "open"),
        **_names("blocking_http", PY + "http.client.html", "http.client.HTTPConnection", "request", "getresponse",
                 "connect"),
        **_names("blocking_http", PY + "http.client.html", "http.client.HTTPSConnection", "request", "getresponse",
                 "connect"),
        "builtins.open": ("blocking_file_io", PY + "functions.html#open"),
        "io.open": ("blocking_file_io", PY + "io.html#io.open"),
        **_names("blocking_file_io", PY + "os.html", "os", "read", "write", "fsync"),
        "os.walk": ("blocking_file_io", PY + "os.html#os.walk (lists a whole directory tree)"),
        **_names("blocking_file_io", PY + "pathlib.html", "pathlib.Path", "open", "read_text", "write_text",
                 "read_bytes", "write_bytes"),
        **_names("blocking_file_io", PY + "shutil.html", "shutil", "copy", "copy2", "copyfile", "copyfileobj",
                 "copytree", "rmtree",
                 "move", "make_archive", "unpack_archive"),
        **_names("blocking_file_io", PY + "tempfile.html", "tempfile", "NamedTemporaryFile", "TemporaryFile",
                 "SpooledTemporaryFile", "mkstemp", "TemporaryDirectory"),
        **_names("blocking_file_io", PY + "pickle.html", "pickle", "load", "dump"),
        **_names("blocking_socket_io", PY + "socket.html", "socket", "create_connection", "getaddrinfo",
                 "gethostbyname", "gethostbyaddr"),
        **_names("blocking_socket_io", PY + "socket.html", "socket.socket", "connect", "accept", "recv", "recv_into",
                 "recvfrom", "send", "sendall", "sendto", "sendfile"),
        "select.select": ("blocking_socket_io", PY + "select.html#select.select"),
        **_names("blocking_subprocess", PY + "subprocess.html", "subprocess", "run", "call", "check_call",
                 "check_output", "getoutput", "getstatusoutput"),
        **_names("blocking_subprocess", PY + "subprocess.html", "subprocess.Popen", "wait", "communicate"),
        **_names("blocking_subprocess", PY + "os.html#os.system", "os", "system", "popen", "wait", "waitpid"),
        **_names("blocking_cpu", PY + "hashlib.html#key-derivation", "hashlib", "pbkdf2_hmac", "scrypt"),
        **_names("blocking_db", PY + "sqlite3.html", "sqlite3", "connect"),
        **{f"{m}.connect": ("blocking_db", "https://github.com/rigglemania/pysqlcipher3 and "
                                          "https://github.com/coleifer/sqlcipher3 (SQLCipher's DB-API modules: the "
                                          "sqlite3 interface, same connection and cursor)")
           for m in ("pysqlcipher3.dbapi2", "sqlcipher3", "sqlcipher3.dbapi2", "pysqlite2.dbapi2")},
        **_names("blocking_db", PY + "sqlite3.html", "sqlite3.Connection", "execute", "executemany", "executescript",
                 "commit", "rollback", "backup"),
        **_names("blocking_db", PY + "sqlite3.html", "sqlite3.Cursor", "execute", "executemany", "executescript",
                 "fetchone", "fetchall", "fetchmany"),
    },
    returns={
        "socket.create_connection": "socket.socket", "socket.socket": "socket.socket",
        "urllib.request.build_opener": "urllib.request.OpenerDirector", "pathlib.Path": "pathlib.Path",
        **{f"pathlib.Path.{m}": "pathlib.Path" for m in ("resolve", "absolute", "with_suffix", "with_name",
                                                        "with_stem", "joinpath", "expanduser", "__truediv__")},
        "subprocess.Popen": "subprocess.Popen", "http.client.HTTPConnection": "http.client.HTTPConnection",
        "http.client.HTTPSConnection": "http.client.HTTPSConnection", "sqlite3.connect": "sqlite3.Connection",
        **{f"{m}.connect": "sqlite3.Connection" for m in ("pysqlcipher3.dbapi2", "sqlcipher3", "sqlcipher3.dbapi2",
                                                          "pysqlite2.dbapi2")},
        "sqlite3.Connection.cursor": "sqlite3.Cursor", "sqlite3.Connection.execute": "sqlite3.Cursor",
        "asyncio.get_running_loop": "asyncio.AbstractEventLoop", "asyncio.get_event_loop": "asyncio.AbstractEventLoop",
        "asyncio.new_event_loop": "asyncio.AbstractEventLoop", "tempfile.SpooledTemporaryFile":
            "tempfile.SpooledTemporaryFile",
        "concurrent.futures.ThreadPoolExecutor": "concurrent.futures.ThreadPoolExecutor",
        "concurrent.futures.ProcessPoolExecutor": "concurrent.futures.ProcessPoolExecutor",
        **{f"concurrent.futures.{e}.submit": "concurrent.futures.Future"
           for e in ("ThreadPoolExecutor", "ProcessPoolExecutor", "Executor")},
    },
    families=(  # waiting for another thread or process: the loop stops until it answers
        Family(tuple(f"{m}.{q}" for m in ("queue", "multiprocessing") for q in
                     ("Queue", "LifoQueue", "PriorityQueue", "SimpleQueue", "JoinableQueue")),
               {"get": "blocking_task", "join": "blocking_task"},
               PY + "queue.html#queue.Queue.get (blocks until an item is available unless block=False)"),
        Family(("threading.Event", "threading.Condition", "threading.Barrier", "multiprocessing.Event"),
               {"wait": "blocking_task", "wait_for": "blocking_task"}, PY + "threading.html#threading.Event.wait"),
        Family(("threading.Thread", "multiprocessing.Process"), {"join": "blocking_task"},
               PY + "threading.html#threading.Thread.join"),
        Family(("concurrent.futures.Future",), {"result": "blocking_task", "exception": "blocking_task"},
               PY + "concurrent.futures.html#concurrent.futures.Future.result (waits for the call to finish)"),
        Family(("tempfile.SpooledTemporaryFile",), {m: "blocking_file_io" for m in (
            "read", "readline", "readlines", "write", "writelines", "truncate", "flush", "rollover")},
               PY + "tempfile.html#tempfile.SpooledTemporaryFile (a real file on disk past max_size); Starlette's "
               "UploadFile.file is one: https://www.starlette.io/requests/#request-files (the async read/write "
               "methods run these in a thread pool)"),
    ),
)

REQUESTS = "https://requests.readthedocs.io/en/latest/api/"
HTTPX = "https://www.python-httpx.org/async/"
OPENAI = "https://github.com/openai/openai-python#async-usage"
HTTP_CLIENTS = Vocabulary(
    calls={
        **_names("blocking_http", REQUESTS, "requests", *HTTP_VERBS), **_names("blocking_http", REQUESTS,
                                                                               "requests.api", *HTTP_VERBS),
        **_names("blocking_http", REQUESTS, "requests.Session", *HTTP_VERBS, "send"),
        **_names("blocking_http", REQUESTS, "requests.sessions.Session", *HTTP_VERBS, "send"),
        **_names("blocking_http", "https://urllib3.readthedocs.io/en/stable/reference/", "urllib3", "request"),
        **_names("blocking_http", "https://github.com/spyoungtech/grequests#usage (map/imap send the requests "
                 "with gevent and wait for them in the calling thread)", "grequests", "map", "imap",
                 "imap_enumerated"),
        **_names("blocking_http", "https://urllib3.readthedocs.io/en/stable/reference/", "urllib3.PoolManager",
                 "request", "urlopen"),
        **_names("blocking_http", HTTPX, "httpx", *HTTP_VERBS, "stream"),
        **_names("blocking_http", HTTPX, "httpx.Client", *HTTP_VERBS, "send", "stream"),
        # the pre-1.0 module-level OpenAI API (openai<1): every call a synchronous request; `acreate` is the async one
        **{f"openai.{r}.create": ("blocking_http", "https://github.com/openai/openai-python/blob/v0.28.1/README.md")
           for r in ("ChatCompletion", "Completion", "Embedding", "Image", "Edit", "Moderation")},
        **_names("blocking_http", "https://github.com/openai/openai-python/blob/v0.28.1/README.md", "openai.Audio",
                 "transcribe", "translate"),
    },
    families=(
        Family(("openai.OpenAI", "openai.AzureOpenAI", "openai.Client", "anthropic.Anthropic", "anthropic.Client"),
               {"create": "blocking_http", "generate": "blocking_http", "retrieve": "blocking_http",
                "list": "blocking_http", "delete": "blocking_http", "parse": "blocking_http",
                "stream": "blocking_http", "create_variation": "blocking_http", "edit": "blocking_http",
                "upload": "blocking_http", "content": "blocking_http"}, OPENAI, resources=True),
    ),
    returns={"requests.session": "requests.Session", "requests.Session": "requests.Session",
             "httpx.Client": "httpx.Client", "urllib3.PoolManager": "urllib3.PoolManager"},
)

SQLA = "https://docs.sqlalchemy.org/en/20/orm/extensions/asyncio.html"
DUCKDB = ("https://duckdb.org/docs/stable/clients/python/dbapi (the Python client is synchronous: a query and its "
          "fetch run in the calling thread)")
_SQL_CURSOR = {m: "blocking_db" for m in ("execute", "executemany", "fetchone", "fetchall", "fetchmany", "callproc",
                                          "commit", "rollback", "close")}
DATABASES = Vocabulary(
    calls={
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
    },
    families=(
        Family(("psycopg2.extensions.connection", "psycopg2.extensions.cursor", "psycopg.Connection", "psycopg.Cursor",
                "pymysql.connections.Connection", "pymysql.cursors.Cursor"), _SQL_CURSOR,
               "https://peps.python.org/pep-0249/"),
        Family(("sqlalchemy.orm.Session", "sqlalchemy.orm.session.Session", "sqlmodel.Session",
                "sqlmodel.orm.session.Session", "sqlalchemy.engine.Connection", "sqlalchemy.engine.base.Connection",
                # scoped_session proxies its Session's methods (orm/contextual.html#implicit-method-access)
                "sqlalchemy.orm.scoped_session", "sqlalchemy.orm.scoping.scoped_session"),
               {m: "blocking_db" for m in ("execute", "exec", "scalars", "scalar", "commit", "rollback", "flush",
                                           "refresh", "get", "merge", "exec_driver_sql", "connection")}, SQLA),
        Family(("sqlalchemy.orm.Query", "sqlalchemy.orm.query.Query"),
               {m: "blocking_db" for m in ("all", "first", "one", "one_or_none", "scalar", "count", "get", "delete",
                                           "update")}, SQLA),
        Family(("redis.Redis", "redis.StrictRedis", "redis.client.Redis", "redis.client.Pipeline"),
               {"*": "blocking_db"}, "https://redis.readthedocs.io/en/stable/examples/asyncio_examples.html",
               except_=frozenset({"pipeline", "pubsub", "lock", "register_script", "from_url", "client"})),
        Family(("pymongo.MongoClient", "pymongo.mongo_client.MongoClient", "pymongo.database.Database",
                "pymongo.collection.Collection"),
               {m: "blocking_db" for m in (
                   "find", "find_one", "insert_one", "insert_many", "update_one", "update_many", "replace_one",
                   "delete_one", "delete_many", "aggregate", "count_documents", "estimated_document_count",
                   "find_one_and_update", "find_one_and_delete", "find_one_and_replace", "bulk_write", "distinct",
                   "create_index", "drop", "list_database_names", "list_collection_names", "server_info",
                   "drop_database", "command")}, "https://pymongo.readthedocs.io/en/stable/async-tutorial.html"),
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
               "https://elasticsearch-py.readthedocs.io/en/stable/async.html", resources=True,
               except_=frozenset({"options"})),
    ),
    returns={
        "psycopg2.connect": "psycopg2.extensions.connection", "psycopg2.extensions.connection.cursor":
            "psycopg2.extensions.cursor", "psycopg.connect": "psycopg.Connection",
        "psycopg.Connection.cursor": "psycopg.Cursor", "pymysql.connect": "pymysql.connections.Connection",
        "pymysql.connections.Connection.cursor": "pymysql.cursors.Cursor",
        "sqlalchemy.create_engine": "sqlalchemy.engine.Engine", "sqlmodel.create_engine": "sqlalchemy.engine.Engine",
        "sqlalchemy.engine.Engine.connect": "sqlalchemy.engine.Connection",
        "sqlalchemy.engine.Engine.begin": "sqlalchemy.engine.Connection",
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

BOTO3 = "https://boto3.amazonaws.com/v1/documentation/api/latest/guide/clients.html"
CELERY = "https://docs.celeryq.dev/en/stable/reference/celery.result.html#celery.result.AsyncResult.get"
CLOUD_AND_TASKS = Vocabulary(
    families=(
        Family(("botocore.client.BaseClient",), {"*": "blocking_http"}, BOTO3,
               except_=frozenset({"get_paginator", "get_waiter", "can_paginate", "generate_presigned_url",
                                  "generate_presigned_post", "close", "meta", "exceptions"})),
        Family(("boto3.resources.base.ServiceResource",),
               {m: "blocking_http" for m in ("upload_file", "download_file", "upload_fileobj", "download_fileobj",
                                             "put", "get", "delete", "load", "reload", "copy", "create_bucket")},
               "https://boto3.amazonaws.com/v1/documentation/api/latest/guide/resources.html", resources=True),
        Family(("googleapiclient.discovery.Resource",), {"execute": "blocking_http"},
               "https://googleapis.github.io/google-api-python-client/docs/thread_safety.html", resources=True),
        Family(("celery.result.AsyncResult", "celery.result.GroupResult"),
               {m: "blocking_task" for m in ("get", "wait", "join", "join_native", "collect")}, CELERY),
        Family(("passlib.context.CryptContext",), {m: "blocking_cpu" for m in ("hash", "verify", "verify_and_update")},
               "https://passlib.readthedocs.io/en/stable/lib/passlib.context.html"),
    ),
    calls={"bcrypt.hashpw": ("blocking_cpu", "https://github.com/pyca/bcrypt#usage"),
           "bcrypt.checkpw": ("blocking_cpu", "https://github.com/pyca/bcrypt#usage")},
    returns={"googleapiclient.discovery.build": "googleapiclient.discovery.Resource",
             "boto3.client": "botocore.client.BaseClient", "boto3.session.Session.client": "botocore.client.BaseClient",
             "boto3.Session.client": "botocore.client.BaseClient",
             "boto3.resource": "boto3.resources.base.ServiceResource",
             "boto3.Session.resource": "boto3.resources.base.ServiceResource",
             "celery.result.AsyncResult": "celery.result.AsyncResult",
             "passlib.context.CryptContext": "passlib.context.CryptContext"},
)

LANGCHAIN = "https://python.langchain.com/docs/concepts/runnables/#asynchronous-support"
MODELS = Vocabulary(
    calls={
        **_names("blocking_file_io", "https://pytorch.org/docs/stable/generated/torch.load.html", "torch", "load",
                 "save"),
        **_names("blocking_file_io", "https://numpy.org/doc/stable/reference/routines.io.html", "numpy", "load", "save",
                 "savez", "loadtxt", "savetxt", "fromfile"),
        **_names("blocking_file_io", "https://pandas.pydata.org/docs/reference/io.html", "pandas", "read_csv",
                 "read_parquet", "read_json", "read_excel", "read_pickle"),
        **_names("blocking_file_io", "https://joblib.readthedocs.io/en/stable/persistence.html", "joblib", "load",
                 "dump"),
        **{f"{m}.load_model": ("blocking_file_io", "https://keras.io/api/models/model_saving_apis/model_saving_and_loading/")
           for m in ("keras.models", "keras.saving", "tensorflow.keras.models")},
    },
    families=(
        Family(("langchain",), {m: "blocking_http" for m in (
            "invoke", "batch", "stream", "predict", "predict_messages", "run", "__call__", "get_relevant_documents",
            "similarity_search", "similarity_search_with_score", "max_marginal_relevance_search", "add_documents",
            "add_texts", "embed_query", "embed_documents", "generate")} | {
            "load": "blocking_file_io", "load_and_split": "blocking_file_io", "lazy_load": "blocking_file_io"},
            LANGCHAIN, prefix=True),
        Family(("transformers.",), {"from_pretrained": "blocking_file_io", "save_pretrained": "blocking_file_io"},
               "https://huggingface.co/docs/transformers/main_classes/model", prefix=True),
        Family(("transformers.Pipeline", "transformers.pipelines.base.Pipeline"), {"__call__": "blocking_cpu"},
               "https://huggingface.co/docs/transformers/main_classes/pipelines"),
        Family(("transformers.PreTrainedModel",), {m: "blocking_cpu" for m in ("__call__", "generate", "forward")},
               "https://huggingface.co/docs/transformers/main_classes/text_generation"),
        Family(("transformers.PreTrainedModel",), {m: "blocking_cpu" for m in (
            "chat", "stream_chat", "chat_stream", "stream_generate")},
               "https://huggingface.co/THUDM/chatglm3-6b and https://huggingface.co/Qwen/Qwen-7B-Chat (the chat "
               "methods of trust_remote_code models run the whole generation, or yield it, in the calling thread)"),
        Family(("keras.Model", "tensorflow.keras.Model"),
               {m: "blocking_cpu" for m in ("predict", "fit", "evaluate", "__call__", "predict_on_batch")},
               "https://keras.io/api/models/model_training_apis/"),
        Family(("llama_cpp.Llama",), {m: "blocking_cpu" for m in (
            "__call__", "create_completion", "create_chat_completion", "create_embedding", "embed", "generate",
            "eval")}, "https://llama-cpp-python.readthedocs.io/en/latest/api-reference/"),
        Family(("diffusers.",), {"__call__": "blocking_cpu"},
               "https://huggingface.co/docs/diffusers/api/pipelines/overview#diffusers.DiffusionPipeline (calling a "
               "pipeline runs the whole denoising loop in the calling thread)", prefix=True, suffix="Pipeline"),
        Family(("diffusers.",), {m: "blocking_cpu" for m in ("encode", "decode", "__call__", "forward")},
               "https://huggingface.co/docs/diffusers/api/models/overview (diffusers models are torch.nn.Module "
               "subclasses; AutoencoderKL.encode/decode run the VAE)", prefix=True,
               suffix=("Model", "AutoencoderKL", "AutoencoderTiny", "VQModel")),
        Family(("sentence_transformers.SentenceTransformer",), {"encode": "blocking_cpu"},
               "https://sbert.net/docs/package_reference/sentence_transformer/SentenceTransformer.html"),
    ),
    returns={
        "torch.load": "torch.nn.Module", "torch.jit.load": "torch.nn.Module", "torch.jit.script": "torch.nn.Module",
        "torch.jit.trace": "torch.nn.Module", "torch.compile": "torch.nn.Module",
        "joblib.load": "sklearn.base.BaseEstimator", "transformers.pipeline": "transformers.Pipeline",
        "pickle.load": "sklearn.base.BaseEstimator", "pickle.loads": "sklearn.base.BaseEstimator",  # a pickled model:
        "cloudpickle.load": "sklearn.base.BaseEstimator",  # only its predict/transform/fit calls are blockers
        "keras.models.load_model": "keras.Model", "keras.saving.load_model": "keras.Model",
        "tensorflow.keras.models.load_model": "keras.Model",
    },
)

BUILTIN = (STDLIB, HTTP_CLIENTS, DATABASES, CLOUD_AND_TASKS, MODELS)

METHOD_RETURNS: dict[str, str] = {"delay": "celery.result.AsyncResult", "apply_async": "celery.result.AsyncResult",
                                  "AsyncResult": "celery.result.AsyncResult"}
"""Method names whose result has a known type whatever the receiver (Celery's ``task.delay(...)``)."""

METHOD_NAMES: dict[str, str] = {"read_text": "blocking_file_io", "write_text": "blocking_file_io",
                                "read_bytes": "blocking_file_io", "write_bytes": "blocking_file_io",
                                "forward": "blocking_cpu", "extract_text": "blocking_cpu"}
"""Method names distinctive enough to flag on a receiver of unknown type (pathlib's I/O; ``forward``; a PDF page's
``extract_text`` in pypdf/pdfplumber: https://pypdf.readthedocs.io/en/stable/user/extract-text.html)."""

FLUSHING_METHODS = frozenset({"commit", "flush"})
FLUSH_EVENTS = frozenset({"before_insert", "after_insert", "before_update", "after_update", "before_delete",
                          "after_delete", "before_flush", "after_flush", "after_flush_postexec", "before_commit"})
"""SQLAlchemy mapper and session events run inside the flush of ``session.commit()``/``flush()``, in the calling
thread (https://docs.sqlalchemy.org/en/20/orm/events.html#mapper-events: "called ... within the flush process")."""

ATTRIBUTE_TYPES: dict[str, dict[str, str]] = {
    name: {"file": "tempfile.SpooledTemporaryFile"} for name in (
        "fastapi.UploadFile", "fastapi.datastructures.UploadFile", "starlette.datastructures.UploadFile")}
"""Documented attributes of framework objects with their type: an upload's ``.file`` is the SpooledTemporaryFile
behind it (https://www.starlette.io/requests/#request-files; its sync ``read`` is file I/O)."""

ATTRIBUTE_SETTERS: dict[str, str] = {
    "register_modules": "https://huggingface.co/docs/diffusers/api/pipelines/overview (DiffusionPipeline."
                        "register_modules(name=module, ...) sets each keyword as an attribute of the pipeline)"}
"""Methods that store their keyword arguments as attributes of ``self`` (``self.register_modules(unet=unet)`` makes
``self.unet``): the attribute has the argument's type."""

SAME_TYPE_METHODS = frozenset({"eval", "train", "to", "cpu", "cuda", "half", "float", "double", "requires_grad_",
                               "fit", "configurable_fields", "configurable_alternatives", "with_config", "with_retry",
                               "with_fallbacks", "with_types", "with_listeners"})
"""Methods of a torch module (``fit`` of an estimator, LangChain's ``with_config``/``configurable_fields``: a
runnable of the same behaviour) that return the object itself (or one that calls it)."""

ESTIMATOR_METHODS = frozenset({"fit", "predict", "predict_proba", "predict_log_proba", "decision_function",
                               "transform", "fit_transform", "fit_predict", "score", "kneighbors"})
TORCH_MODULE_METHODS = frozenset({"forward", "generate"})
MODEL_METHODS = frozenset({"predict", "predict_proba", "transcribe", "detect", "infer", "inference"})
OPENAI_SHAPES = frozenset({("chat", "completions", "create"), ("completions", "create"), ("embeddings", "create"),
                           ("images", "generate"), ("messages", "create"), ("transcriptions", "create"),
                           ("responses", "create")})
"""Call paths of the OpenAI API's shape; many SDKs copy it (https://platform.openai.com/docs/api-reference): on a
sync client instance the call is a blocking HTTPS request."""
LOAD_METHODS = frozenset({"from_pretrained", "load_from_checkpoint", "from_single_file"})
"""Class methods of any third-party model class that read weights from disk or the Hub (the Hugging Face
``from_pretrained`` convention, Lightning's ``load_from_checkpoint``, diffusers' ``from_single_file``)."""
"""Model calls of any third-party model class (``Blade2Blade(...).predict``, a speech model's ``transcribe``): the
inference runs in the calling thread (an async model's call is awaited, and an awaited call is no blocker)."""

OFFLOAD: dict[str, int] = {"asyncio.to_thread": 0, "anyio.to_thread.run_sync": 0, "trio.to_thread.run_sync": 0,
                           "starlette.concurrency.run_in_threadpool": 0, "fastapi.concurrency.run_in_threadpool": 0,
                           "asyncer.asyncify": 0, "anyio.to_process.run_sync": 0}
"""Functions that run their function argument (at this index) in a worker thread: off the loop."""

OFFLOAD_METHODS: dict[str, int] = {"run_in_executor": 1, "submit": 0}
"""Methods that run their function argument in an executor (``loop.run_in_executor(ex, fn)``,
``executor.submit(fn)``); ``submit`` only on an executor (see :func:`is_executor`)."""

LOOP_CALLBACK_METHODS: dict[str, int] = {"call_soon": 0, "call_soon_threadsafe": 0, "call_later": 1, "call_at": 1,
                                         "add_done_callback": 0, "add_reader": 1, "add_writer": 1}
"""Loop methods whose function argument (at this index) runs *on* the loop, as a callback."""

INFERENCE_CONTEXTS = frozenset({"torch.no_grad", "torch.inference_mode", "torch.autograd.no_grad",
                                "torch.autograd.grad_mode.no_grad", "torch.autograd.grad_mode.inference_mode"})

ADVICE = {
    "blocking_sleep": "use `await asyncio.sleep(...)`",
    "blocking_http": "use the library's async client (aiohttp, httpx.AsyncClient, openai.AsyncOpenAI, aioboto3, "
                     "`ainvoke`) or `await asyncio.to_thread(...)`",
    "blocking_db": "use an async driver (aiosqlite, asyncpg, SQLAlchemy's AsyncSession, redis.asyncio, motor) or "
                   "`await asyncio.to_thread(...)`; in FastAPI a plain `def` endpoint runs in the thread pool",
    "blocking_task": "poll the result without waiting (`AsyncResult.ready()`) or `await asyncio.to_thread(result.get)`",
    "blocking_file_io": "use `await asyncio.to_thread(...)` (or aiofiles)",
    "blocking_socket_io": "use asyncio streams (`asyncio.open_connection`) or the loop's `sock_*` methods",
    "blocking_subprocess": "use `await asyncio.create_subprocess_exec(...)`",
    "blocking_cpu": "run it in `loop.run_in_executor(...)` or `asyncio.to_thread(...)` (torch releases the GIL in "
                    "its kernels), or a process pool",
}


@dataclass(frozen=True)
class Merged:
    """Every loaded :class:`Vocabulary` merged: ``calls``, ``families``, ``returns``, ``plugins`` (entry points
    loaded) and ``failed`` (``name: why`` for entry points that could not be loaded)."""

    calls: dict[str, tuple[str, str]]
    families: tuple[Family, ...]
    returns: dict[str, str]
    plugins: tuple[str, ...]
    failed: tuple[str, ...]

    def _families_of(self, type_name: str) -> list[Family]:
        cache = self.__dict__.setdefault("_by_type", {})  # frozen dataclass: a per-type memo of matching families
        found = cache.get(type_name)
        if found is None:
            found = cache[type_name] = [f for f in self.families if f.owns(type_name)]
        return found

    def family_kind(self, type_name: str, method: str) -> tuple[str, str] | None:
        """``(kind, source)`` of ``type_name.method`` by a family rule, or None."""
        for family in self._families_of(type_name):
            kind = family.kind_of(method)
            if kind is not None:
                return kind, family.source
        return None

    def sub_resource(self, type_name: str, attr: str) -> str | None:
        """The type of ``instance.attr`` when ``type_name`` is a client with sub-clients (``openai.OpenAI.chat``)."""
        for family in self._families_of(type_name):
            if family.resources and not attr.startswith("_"):
                return f"{type_name}.{attr}"
        if type_name == "pathlib.Path" and attr == "parent":
            return "pathlib.Path"
        if attr in ATTRIBUTE_TYPES.get(type_name, {}):
            return ATTRIBUTE_TYPES[type_name][attr]
        if type_name in ("pymongo.MongoClient", "pymongo.mongo_client.MongoClient"):
            return "pymongo.database.Database"
        if type_name == "pymongo.database.Database":
            return "pymongo.collection.Collection"
        return None


@lru_cache(maxsize=1)
def vocabulary() -> Merged:
    """The built-in tables plus every ``faultlib.blocking_calls`` entry point (loaded once per process; an entry
    point that fails to load is left out and named in ``failed``, with a :class:`UserWarning`)."""
    from importlib.metadata import entry_points

    tables, plugins, failed = [*BUILTIN, SDKS], [], []
    for ep in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
        try:
            value = ep.load()
            value = value() if callable(value) and not isinstance(value, Vocabulary) else value
            if not isinstance(value, Vocabulary):
                raise TypeError(f"is a {type(value).__name__}, not a faultlib Vocabulary")
            if value.problem():  # junk entries would replace built-in ones and hide their findings
                raise TypeError(value.problem())
        except (Exception, SystemExit) as exc:  # a plugin's failure (even sys.exit) must not stop or end the analysis
            failed.append(f"{ep.name}: {type(exc).__name__}: {exc}")
            warnings.warn(f"{ENTRY_POINT_GROUP} entry point {ep.name!r} ({ep.value}) not loaded: {exc}", stacklevel=2)
            continue
        plugins.append(ep.name)
        if all(value is not t for t in tables):
            tables.append(value)
    calls: dict[str, tuple[str, str]] = {}
    returns: dict[str, str] = {}
    families: list[Family] = []
    for table in tables:
        calls.update(table.calls)
        returns.update(table.returns)
        families.extend(table.families)
    return Merged(calls, tuple(families), returns, tuple(plugins), tuple(failed))


def is_torch_module(type_name: str | None) -> bool:
    """A torch ``nn.Module`` type: ``torch.nn.Module``, ``torch.nn.Linear``, ``torch.nn.modules.*``,
    ``torch.jit.ScriptModule``, and a Hugging Face model class (``transformers.LlamaModel``,
    ``transformers.BertForSequenceClassification``: every one is an ``nn.Module``)."""
    if not type_name:
        return False
    if type_name in ("torch.nn.Module", "torch.jit.ScriptModule", "torch.jit.RecursiveScriptModule"):
        return True
    head, _, last = type_name.rpartition(".")
    if head.startswith("transformers") and last[:1].isupper() and (last.endswith("Model") or "For" in last) and not (
            last.startswith(("TF", "Flax"))):
        return True
    return head.startswith("torch.nn") and last[:1].isupper() and "functional" not in head



def is_estimator(type_name: str | None) -> bool:
    """A scikit-learn estimator type (``sklearn.*`` class)."""
    return bool(type_name) and type_name.startswith("sklearn.") and type_name.rpartition(".")[2][:1].isupper()


def is_third_party_instance(type_name: str | None) -> bool:
    """An instance of a class outside the standard library's ``builtins``/``typing`` (``blade2blade.Blade2Blade``)."""
    return bool(type_name) and "." in type_name and type_name.rpartition(".")[2][:1].isupper() and not (
        type_name.startswith(("builtins.", "typing.", "unittest.")))


def is_executor(type_name: str | None) -> bool:
    """A :class:`concurrent.futures.Executor` (or a pool named like one: ``ThreadPoolExecutor``, ``ProcessPool``)."""
    if not type_name:
        return False
    last = type_name.rpartition(".")[2]
    return type_name.startswith("concurrent.futures.") or last.endswith(("Executor", "Pool"))
