"""Google Cloud Firestore's synchronous client (``google.cloud.firestore.Client``, the one ``firebase_admin.firestore
.client()`` returns): references are built locally, their reads and writes are the requests.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`). Firestore's
data model is reached through reference objects that hold a path and nothing else: ``client.collection("users")``
gives a ``CollectionReference``, ``.document(uid)`` a ``DocumentReference``, ``.where(...)``/``.order_by(...)``/
``.limit(n)`` a ``Query`` -- "Get a reference to a collection ... / ... to a document", no request
(https://cloud.google.com/python/docs/reference/firestore/latest/google.cloud.firestore_v1.client.Client). The
requests are the terminal calls: a document's ``get``/``set``/``update``/``delete``/``create``, a collection's
``add``/``get``/``stream``/``list_documents``, a query's ``get``/``stream``, a batch's ``commit``
(https://cloud.google.com/python/docs/reference/firestore/latest/google.cloud.firestore_v1.document.DocumentReference,
...collection.CollectionReference, ...query.Query, ...batch.WriteBatch): each is a unary or streaming gRPC call that
the calling thread waits on. ``AsyncClient`` (``firebase_admin.firestore_async.client()``) is the twin, whose
references' calls are awaited.

The builders' return types are carried, so ``doc_ref = db.collection("users").document(uid)`` followed by
``doc_ref.set(data)`` is found at the ``set`` line, and the line that only builds the reference stays silent
(held-out wave 82: a web-audit service's quota and plan writes; before this table the class-name guess for
``...Client`` reported the ``collection`` link and missed the ``set`` on the variable). What a read returns, a
``DocumentSnapshot`` (``snapshot.get("field")``, ``to_dict()``), is data, not typed here.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Family, Vocabulary

H = "blocking_http"
DOCS = "https://cloud.google.com/python/docs/reference/firestore/latest/google.cloud.firestore_v1."
SOURCE = (DOCS + "document.DocumentReference (get/set/update/delete/create are requests the thread waits on; "
          "collection() and document() only build references: " + DOCS + "client.Client; AsyncClient is the twin)")

_V1 = "google.cloud.firestore_v1"
CLIENTS = ("google.cloud.firestore.Client", f"{_V1}.Client", f"{_V1}.client.Client")
DOCUMENTS = ("google.cloud.firestore.DocumentReference", f"{_V1}.DocumentReference",
             f"{_V1}.document.DocumentReference", "firebase_admin.firestore.DocumentReference")
COLLECTIONS = ("google.cloud.firestore.CollectionReference", f"{_V1}.CollectionReference",
               f"{_V1}.collection.CollectionReference", "firebase_admin.firestore.CollectionReference")
QUERIES = ("google.cloud.firestore.Query", f"{_V1}.Query", f"{_V1}.query.Query", f"{_V1}.query.CollectionGroup",
           f"{_V1}.aggregation.AggregationQuery", "firebase_admin.firestore.Query")
BATCHES = ("google.cloud.firestore.WriteBatch", f"{_V1}.WriteBatch", f"{_V1}.batch.WriteBatch",
           "google.cloud.firestore.Transaction", f"{_V1}.Transaction", f"{_V1}.transaction.Transaction")

QUERY_BUILDERS = ("where", "order_by", "limit", "limit_to_last", "offset", "select", "start_at", "start_after",
                  "end_at", "end_before", "find_nearest")
"""Methods of a collection or a query that return a new ``Query`` without a request (the query is sent by
``get``/``stream``)."""
QUERY_READS = ("get", "stream")
DOCUMENT_IO = ("get", "set", "update", "delete", "create", "collections")
COLLECTION_IO = ("add", "get", "stream", "list_documents")
CLIENT_IO = ("get_all", "collections", "recursive_delete")

_DOCUMENT, _COLLECTION, _QUERY = DOCUMENTS[0], COLLECTIONS[0], QUERIES[0]
_AGGREGATION = f"{_V1}.aggregation.AggregationQuery"

FIRESTORE = Vocabulary(
    families=(
        Family(CLIENTS, {m: H for m in CLIENT_IO}, SOURCE),
        Family(DOCUMENTS, {m: H for m in DOCUMENT_IO}, SOURCE),
        Family(COLLECTIONS, {m: H for m in COLLECTION_IO}, SOURCE),
        Family(QUERIES, {m: H for m in QUERY_READS}, DOCS + "query.Query (get/stream run the query)"),
        Family(BATCHES, {"commit": H, "get": H}, DOCS + "batch.WriteBatch (commit sends the writes; a "
               "transaction's get reads inside it)"),
    ),
    returns={
        **{f"{c}.collection": _COLLECTION for c in (*CLIENTS, *DOCUMENTS)},
        **{f"{c}.document": _DOCUMENT for c in (*CLIENTS, *COLLECTIONS)},
        **{f"{c}.collection_group": _QUERY for c in CLIENTS},
        **{f"{c}.{m}": "google.cloud.firestore.WriteBatch" for c in CLIENTS for m in ("batch", "bulk_writer")},
        **{f"{c}.transaction": "google.cloud.firestore.Transaction" for c in CLIENTS},
        **{f"{q}.{m}": _QUERY for q in (*COLLECTIONS, *QUERIES) for m in QUERY_BUILDERS},
        **{f"{q}.{m}": _AGGREGATION for q in (*COLLECTIONS, *QUERIES) for m in ("count", "sum", "avg")},
    },
)
"""Firestore's requests and the reference builders' return types (see the module docstring)."""
