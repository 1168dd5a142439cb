"""Cloud data warehouses' synchronous Python clients: Google BigQuery (``google-cloud-bigquery``) and Snowflake's
Snowpark (``snowflake-snowpark-python``).

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`; Snowflake's
DB-API connector is in :mod:`~faultlib.detect.serving.blocking.libraries.sqldrivers`).

BigQuery: every method of ``bigquery.Client`` that names a resource or a job is a REST request made in the calling
thread (``query`` inserts the job, ``list_*``/``get_*``/``create_*``/``delete_*``/``insert_rows*``/``load_table_*``
...); what ``query`` returns is a ``QueryJob`` whose ``result()`` polls the job until it is done and fetches the rows,
as long as the query runs (https://cloud.google.com/python/docs/reference/bigquery/latest/google.cloud.bigquery.
job.QueryJob#google_cloud_bigquery_job_QueryJob_result: "Start the job and wait for it to complete and get the
result"). Not requests: ``Client.dataset(id)``/``Client.table``-style builders return a ``DatasetReference`` made in
memory ("Deprecated ... construct a DatasetReference using its constructor", https://cloud.google.com/python/docs/
reference/bigquery/latest/google.cloud.bigquery.client.Client#google_cloud_bigquery_client_Client_dataset). The
constructor given no ``credentials`` resolves Application Default Credentials (``google.auth.default()``: reads the
credentials file, on Google Cloud asks the metadata server; https://cloud.google.com/python/docs/reference/bigquery/
latest/google.cloud.bigquery.client.Client: "credentials ... If not passed (and if no _http object is passed), falls
back to the default inferred from the environment").

Snowpark: ``Session.builder.configs(options).create()`` (or ``getOrCreate()``) opens the session, logging in over the
network (https://docs.snowflake.com/en/developer-guide/snowpark/reference/python/latest/snowpark/api/snowflake.
snowpark.Session.SessionBuilder.create); ``session.sql(q)`` and ``session.table(name)`` build a lazy ``DataFrame``,
and its actions run the query and wait for the rows: ``collect``, ``to_pandas``, ``count``, ``show``, ``first``,
``to_local_iterator`` (https://docs.snowflake.com/en/developer-guide/snowpark/python/working-with-dataframes#
performing-an-action-to-evaluate-a-dataframe: "a DataFrame is lazily evaluated ... To evaluate it, call an action
method"). Held-out wave 61: an MCP server for each.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import BlocksWhen, Family, Vocabulary

H, D = "blocking_http", "blocking_db"

_CLIENTS = ("google.cloud.bigquery.Client", "google.cloud.bigquery.client.Client")
_JOBS = ("google.cloud.bigquery.QueryJob", "google.cloud.bigquery.job.QueryJob")
BIGQUERY = "https://cloud.google.com/python/docs/reference/bigquery/latest/google.cloud.bigquery.client.Client"
QUERY_JOB = ("https://cloud.google.com/python/docs/reference/bigquery/latest/google.cloud.bigquery.job.QueryJob "
             "(result/to_dataframe/to_arrow wait for the job and fetch its rows; reload/cancel/exists are requests)")
SNOWPARK = ("https://docs.snowflake.com/en/developer-guide/snowpark/reference/python/latest/snowpark/api/"
            "snowflake.snowpark.Session.SessionBuilder.create (create/getOrCreate open the session over the network)")
SNOWPARK_SESSION = ("https://docs.snowflake.com/en/developer-guide/snowpark/reference/python/latest/snowpark/session "
                    "(use_* run a USE statement, write_pandas uploads; sql/table only build a lazy DataFrame)")
SNOWPARK_ACTIONS = ("https://docs.snowflake.com/en/developer-guide/snowpark/python/working-with-dataframes"
                    "#performing-an-action-to-evaluate-a-dataframe (an action runs the query and waits for the rows)")

_CLIENT_CALLS = ("query", "query_and_wait", "list_datasets", "list_tables", "list_rows", "list_jobs", "list_projects",
                 "list_models", "list_routines", "get_dataset", "get_table", "get_job", "get_model", "get_routine",
                 "create_dataset", "create_table", "delete_dataset", "delete_table", "update_dataset",
                 "update_table", "insert_rows", "insert_rows_json", "insert_rows_from_dataframe",
                 "load_table_from_uri", "load_table_from_file", "load_table_from_dataframe", "load_table_from_json",
                 "extract_table", "copy_table", "get_service_account_email", "cancel_job")
_JOB_CALLS = ("result", "to_dataframe", "to_arrow", "reload", "cancel", "exists", "done")
_SESSIONS = ("snowflake.snowpark.Session", "snowflake.snowpark.session.Session")
_BUILDERS = tuple(f"{s}.builder" for s in _SESSIONS)
_FRAMES = ("snowflake.snowpark.DataFrame", "snowflake.snowpark.dataframe.DataFrame")
_ACTIONS = ("collect", "to_pandas", "count", "show", "first", "to_local_iterator", "to_pandas_batches",
            "create_or_replace_view", "create_or_replace_temp_view", "cache_result")

WAREHOUSES = Vocabulary(
    calls={
        **{c: (H, BIGQUERY + " (given no credentials it resolves Application Default Credentials: google.auth."
                                "default reads the key file or asks the metadata server)") for c in _CLIENTS},
        **{f"{b}.{m}": (D, SNOWPARK) for b in _BUILDERS for m in ("create", "getOrCreate")},
    },
    when={c: BlocksWhen("credentials", position=1, test="unset", absent=True) for c in _CLIENTS},
    families=(
        Family(_CLIENTS, {m: H for m in _CLIENT_CALLS}, BIGQUERY),
        Family(_JOBS, {m: H for m in _JOB_CALLS}, QUERY_JOB),
        Family(_SESSIONS, {m: D for m in ("use_database", "use_schema", "use_warehouse", "use_role",
                                          "write_pandas", "close")}, SNOWPARK_SESSION),
        Family(_FRAMES, {m: D for m in _ACTIONS}, SNOWPARK_ACTIONS),
        Family(tuple(f"{b}.configs" for b in _BUILDERS) + tuple(f"{b}.config" for b in _BUILDERS),
               {"create": D, "getOrCreate": D}, SNOWPARK),
    ),
    returns={
        **{f"{c}.query": _JOBS[0] for c in _CLIENTS},
        **{f"{s}.{m}": _FRAMES[0] for s in _SESSIONS for m in ("sql", "table")},
        **{f"{b}.{m}": f"{_BUILDERS[0]}.configs" for b in _BUILDERS for m in ("configs", "config")},
        **{f"{_BUILDERS[0]}.configs.{m}": f"{_BUILDERS[0]}.configs" for m in ("configs", "config")},
        **{f"{b}.{m}": _SESSIONS[0] for b in _BUILDERS for m in ("create", "getOrCreate")},
        **{f"{_BUILDERS[0]}.configs.{m}": _SESSIONS[0] for m in ("create", "getOrCreate")},
        **{f"{_FRAMES[0]}.{m}": _FRAMES[0] for m in ("filter", "select", "sort", "limit", "join", "group_by", "agg",
                                                      "with_column", "drop", "distinct", "union", "where")},
    },
)
