"""LangChain's stores backed by a server: the Redis chat message history and the vector stores whose constructor
connects (Milvus, Zilliz, PGVector).

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`; LangChain's
``Chroma`` is in :mod:`~faultlib.detect.serving.blocking.libraries.vectors`, the stores' searches in the LangChain
family of :mod:`~faultlib.detect.serving.blocking.libraries.models`). ``RedisChatMessageHistory`` keeps the messages
of one session in a Redis list through the synchronous ``redis`` client: reading ``messages`` is an ``LRANGE``,
adding one an ``RPUSH``/``LPUSH`` (``append`` in the early ``langchain.memory`` releases), ``clear`` a ``DELETE``.
Building the Milvus or Zilliz store connects to the server and loads the collection when it exists; building
``PGVector`` opens its SQLAlchemy engine and creates the extension, tables and collection row. Each entry names the
documentation of the call.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Family, Vocabulary

D = "blocking_db"

REDIS_HISTORY = ("https://python.langchain.com/api_reference/community/chat_message_histories/langchain_community."
                 "chat_message_histories.redis.RedisChatMessageHistory.html (a synchronous redis client: messages "
                 "reads the list with LRANGE, add_message pushes with LPUSH, clear deletes the key)")
MILVUS = ("https://python.langchain.com/api_reference/milvus/vectorstores/langchain_milvus.vectorstores.milvus.Milvus"
          ".html (the constructor connects with the connection_args and loads the existing collection)")
PGVECTOR = ("https://python.langchain.com/api_reference/community/vectorstores/langchain_community.vectorstores."
            "pgvector.PGVector.html (the constructor creates the engine, the vector extension, the tables and the "
            "collection unless pre_delete_collection/create_extension say otherwise)")

_PACKAGES = ("langchain", "langchain_community")
_HISTORY_MODULES = ("langchain.memory", "langchain.memory.chat_message_histories",
                    "langchain.memory.chat_message_histories.redis", "langchain_community.chat_message_histories",
                    "langchain_community.chat_message_histories.redis", "langchain_redis",
                    "langchain_redis.chat_message_history")
_REDIS_HISTORIES = tuple(f"{m}.RedisChatMessageHistory" for m in _HISTORY_MODULES)
_HISTORY_WRITES = ("add_message", "add_messages", "add_user_message", "add_ai_message", "append", "clear")


def _stores(name: str, *modules: str) -> tuple[str, ...]:
    """The paths LangChain has exported the vector store ``name`` under (``langchain.vectorstores``, the
    community package, its per-store module, and the partner packages in ``modules``)."""
    module = name.lower()
    return (*(f"{p}.vectorstores{m}.{name}" for p in _PACKAGES for m in ("", f".{module}")),
            *(f"{m}.{name}" for m in modules))


LANGCHAIN_STORES = Vocabulary(
    families=(
        Family(_REDIS_HISTORIES, {m: D for m in _HISTORY_WRITES}, REDIS_HISTORY),
        Family(_stores("Milvus", "langchain_milvus", "langchain_milvus.vectorstores"), {"__init__": D}, MILVUS),
        Family(_stores("Zilliz", "langchain_milvus", "langchain_milvus.vectorstores"), {"__init__": D}, MILVUS),
        Family(_stores("PGVector", "langchain_postgres", "langchain_postgres.vectorstores"), {"__init__": D}, PGVECTOR),
    ),
    reads={f"{h}.messages": (D, REDIS_HISTORY) for h in _REDIS_HISTORIES},
)
