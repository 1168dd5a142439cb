"""Vector databases reached over a synchronous client: Milvus (``pymilvus``), and LangChain's server-backed stores.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`; Qdrant,
Chroma, Pinecone and FAISS are in :mod:`faultlib.detect.serving.blocking.sdks`). ``pymilvus``'s ORM talks to the
server over a blocking gRPC channel: ``connections.connect`` opens it, building a ``Collection`` asks the server
whether it exists (and creates it when given a schema), ``load``/``search``/``query``/``insert``... wait for the
server's answer; ``MilvusClient`` does the same with one object (``AsyncMilvusClient`` is its async twin, left
out). Building LangChain's ``Chroma`` opens chromadb's client and its collection (SQLite on disk when persisted);
its searches are in the LangChain family of :mod:`faultlib.detect.serving.blocking.libraries.models`, and the other
requests of LangChain's server-backed stores (``delete``, ``delete_collection``, ``get``, the searches by vector
that family does not name) are here. ``pymilvus.model``'s embedding functions run their model in the calling
thread (or call the provider's API for the hosted ones). Each entry names the documentation of the call.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Family, Vocabulary
from faultlib.detect.serving.blocking.libraries.names import names

D = "blocking_db"

MILVUS_CONNECT = ("https://milvus.io/api-reference/pymilvus/v2.4.x/ORM/Connections/connect.md (connects to the "
                  "server over gRPC before it returns)")
MILVUS_COLLECTION = ("https://milvus.io/api-reference/pymilvus/v2.4.x/ORM/Collection/Collection.md (the "
                     "constructor checks the collection on the server, creating it when a schema is given; load, "
                     "search, query, insert... are gRPC requests that wait for the server)")
MILVUS_UTILITY = "https://milvus.io/api-reference/pymilvus/v2.4.x/ORM/utility/has_collection.md (gRPC requests)"
MILVUS_CLIENT = ("https://milvus.io/api-reference/pymilvus/v2.4.x/MilvusClient/Client/MilvusClient.md (every "
                 "method is a gRPC request; AsyncMilvusClient is the async twin)")
MILVUS_BUILDERS = frozenset({"close", "prepare_index_params", "create_schema", "create_field_schema"})
"""``MilvusClient``'s methods that send nothing: ``close``, and the classmethods that build request objects in memory
(https://milvus.io/api-reference/pymilvus/v2.4.x/MilvusClient/Management/prepare_index_params.md: "prepares index
parameters" as an ``IndexParams``; ``create_schema``/``create_field_schema`` build a ``CollectionSchema``/
``FieldSchema``): the ``create_index``/``create_collection`` they are handed to is the request."""

LANGCHAIN_CHROMA = ("https://python.langchain.com/api_reference/chroma/vectorstores/langchain_chroma.vectorstores."
                    "Chroma.html (the constructor builds a chromadb client -- a PersistentClient on persist_directory "
                    "or client_settings -- and gets or creates the collection in its SQLite store)")
_LANGCHAIN_CHROMA = ("langchain_chroma.Chroma", "langchain_chroma.vectorstores.Chroma",
                     *(f"{p}.vectorstores{m}.Chroma" for p in ("langchain", "langchain_community")
                       for m in ("", ".chroma")))

LANGCHAIN_STORE = ("https://python.langchain.com/api_reference/core/vectorstores/langchain_core.vectorstores.base."
                   "VectorStore.html (delete, get_by_ids and the searches by vector are synchronous requests to the "
                   "store's server; adelete, aget_by_ids, asimilarity_search_by_vector... are the async twins, which "
                   "the base class runs in an executor)")
_LANGCHAIN_STORES = (*_LANGCHAIN_CHROMA, "langchain_qdrant.Qdrant", "langchain_qdrant.QdrantVectorStore",
                     "langchain_community.vectorstores.Qdrant", "langchain_community.vectorstores.qdrant.Qdrant",
                     "langchain_mongodb.MongoDBAtlasVectorSearch",
                     "langchain_mongodb.vectorstores.MongoDBAtlasVectorSearch",
                     "langchain_community.vectorstores.MongoDBAtlasVectorSearch", "langchain_milvus.Milvus",
                     "langchain_community.vectorstores.Milvus", "langchain_postgres.PGVector",
                     "langchain_postgres.vectorstores.PGVector", "langchain_weaviate.WeaviateVectorStore",
                     "langchain_pinecone.PineconeVectorStore", "langchain_elasticsearch.ElasticsearchStore")
"""LangChain vector stores whose data lives on a server (an in-process store -- FAISS, InMemoryVectorStore -- deletes
in memory and is left out)."""
_LANGCHAIN_STORE_REQUESTS = ("delete", "delete_collection", "get", "get_by_ids", "similarity_search_by_vector",
                             "similarity_search_with_score_by_vector", "similarity_search_with_relevance_scores",
                             "max_marginal_relevance_search_by_vector", "_similarity_search_with_score")

MILVUS_MODEL = ("https://milvus.io/docs/embeddings.md (pymilvus.model's embedding functions: "
                "encode_documents/encode_queries run the local model -- ONNX, sentence-transformers, BGE-M3, BM25 -- "
                "in the calling thread, the hosted ones send the texts to the provider's API)")
_MILVUS_HOSTED = tuple(f"pymilvus.model.dense.{c}EmbeddingFunction" for c in (
    "OpenAI", "Jina", "Voyage", "Cohere", "Mistralai", "Nomic", "Gemini", "Instructor"))

_COLLECTION_METHODS = ("__init__", "load", "release", "search", "hybrid_search", "query", "search_iterator",
                       "query_iterator", "insert", "upsert", "delete", "flush", "compact", "create_index",
                       "drop_index", "drop", "create_partition", "drop_partition", "has_partition",
                       "wait_for_compaction_completed", "get_compaction_state")

VECTORS = Vocabulary(
    calls={
        **names(D, MILVUS_CONNECT, "pymilvus.connections", "connect"),
        **names(D, MILVUS_UTILITY, "pymilvus.utility", "has_collection", "list_collections", "drop_collection",
                "wait_for_loading_complete", "loading_progress", "wait_for_index_building_complete",
                "index_building_progress", "rename_collection", "flush_all"),
    },
    families=(
        Family(("pymilvus.Collection", "pymilvus.orm.collection.Collection"),
               {m: D for m in _COLLECTION_METHODS}, MILVUS_COLLECTION),
        Family(("pymilvus.MilvusClient", "pymilvus.milvus_client.MilvusClient"), {"*": D}, MILVUS_CLIENT,
               except_=MILVUS_BUILDERS),
        Family(_LANGCHAIN_CHROMA, {"__init__": D}, LANGCHAIN_CHROMA),
        Family(_LANGCHAIN_STORES, {m: "blocking_http" for m in _LANGCHAIN_STORE_REQUESTS}, LANGCHAIN_STORE),
        Family(_MILVUS_HOSTED, {m: "blocking_http" for m in ("encode_documents", "encode_queries", "__call__")},
               MILVUS_MODEL),
        Family(("pymilvus.model.",), {m: "blocking_cpu" for m in ("encode_documents", "encode_queries", "__call__")},
               MILVUS_MODEL, prefix=True, suffix="EmbeddingFunction"),
    ),
    returns={},
)
