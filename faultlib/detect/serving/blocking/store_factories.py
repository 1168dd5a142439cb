"""What LangChain's vector-store factories return: the store itself, and the retriever built on it.

A LangChain vector store is made by its class-level factories, not only by its constructor: ``FAISS.load_local(path,
embeddings)`` reads a saved index, ``Chroma.from_documents(docs, embeddings)`` / ``from_texts`` / ``from_embeddings``
embed and index the documents, and each "Return[s] VectorStore initialized from ..." -- an instance of the class it
is called on (https://python.langchain.com/api_reference/core/vectorstores/langchain_core.vectorstores.base.
VectorStore.html#langchain_core.vectorstores.base.VectorStore.from_documents;
https://python.langchain.com/api_reference/community/vectorstores/langchain_community.vectorstores.faiss.FAISS.html
#langchain_community.vectorstores.faiss.FAISS.load_local). ``store.as_retriever(...)`` returns a
``VectorStoreRetriever`` over the store ("Return VectorStoreRetriever initialized from this VectorStore"), a Runnable
whose ``invoke(query)`` embeds the query and searches the index in the calling thread (``ainvoke`` is the coroutine).
Without these types the store and its retriever were untyped and their searches silent (held-out wave 60: a FAISS
retriever's ``invoke`` with CPU embeddings in a FastAPI handler). The calls themselves are judged by the LangChain
family of :mod:`~faultlib.detect.serving.blocking.libraries.models` (``load_local`` reads the files,
``invoke``/``similarity_search`` search). Used by :class:`~faultlib.detect.serving.blocking.typeof.TypeOf`.
"""

from __future__ import annotations

__all__ = ["RETRIEVER", "store_factory_type"]

PACKAGES = ("langchain", "langchain_community", "langchain_core", "langchain_chroma", "langchain_pinecone",
            "langchain_qdrant", "langchain_milvus", "langchain_postgres", "langchain_mongodb", "langchain_elasticsearch",
            "langchain_weaviate", "langchain_redis")
"""LangChain's own package and the partner packages its vector stores live in."""
FACTORIES = frozenset({"from_documents", "from_texts", "from_embeddings", "load_local", "from_existing_index",
                       "from_existing_collection", "from_persist_directory"})
"""Class-level factories of a vector store that return an instance of the class."""
RETRIEVER = "langchain_core.vectorstores.VectorStoreRetriever"


def store_factory_type(target: str) -> str | None:
    """The type ``target`` (``pkg.Store.method``) returns when it is a LangChain vector store's factory (the class) or
    ``as_retriever`` (a :data:`RETRIEVER`), else None."""
    owner, _, method = target.rpartition(".")
    if not owner.startswith(tuple(f"{p}." for p in PACKAGES)) or not owner.rpartition(".")[2][:1].isupper():
        return None
    if method in FACTORIES:
        return owner
    if method == "as_retriever":
        return RETRIEVER
    return None
