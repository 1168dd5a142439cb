"""IndexedRedis, an ORM over redis-py: a model's ``save``/``delete``/``reload`` and its ``objects`` query's
``all``/``first``/``get``/``count``... send Redis commands and wait for the replies in the calling thread.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`). A
service declares its models as subclasses of ``IndexedRedisModel`` (``FIELDS``, ``INDEXED_FIELDS``, ``KEY_NAME``);
``Model.objects`` is an ``IndexedRedisQuery`` (typed through :data:`~faultlib.detect.serving.blocking.vocab.
ATTRIBUTE_TYPES` for the model classes of the files, :mod:`~faultlib.detect.serving.blocking.library_attrs`), whose
``filter``/``exclude`` only add conditions and return the query, and whose fetching methods run it over the
synchronous redis-py connection. Held-out wave 77: a scraping API caching its products and categories in Redis from
its ``async def`` handlers.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Family, Vocabulary

D = "blocking_db"
INDEXED_REDIS = ("https://pypi.org/project/indexedredis/ (IndexedRedisModel.save/delete/reload write or read the "
                 "object and its indexes in Redis; Model.objects.filter(...)/exclude(...) build a query, and all, "
                 "first, last, random, get, getMultiple, count, exists, getPrimaryKeys, delete fetch or remove the "
                 "matching objects; the connection is redis-py's synchronous client)")
MODELS = ("IndexedRedis.IndexedRedisModel",)
QUERIES = ("IndexedRedis.IndexedRedisQuery",)
_FETCHES = ("all", "allOnlyFields", "allOnlyIndexedFields", "first", "last", "random", "get", "getMultiple",
            "getOnlyFields", "getMultipleOnlyFields", "count", "exists", "getPrimaryKeys", "delete", "reindex")

REDIS_ORMS = Vocabulary(
    families=(
        Family(MODELS, {m: D for m in ("save", "delete", "reload")}, INDEXED_REDIS),
        Family(QUERIES, {m: D for m in _FETCHES}, INDEXED_REDIS),
    ),
    returns={f"{q}.{m}": q for q in QUERIES for m in ("filter", "exclude")},
)
