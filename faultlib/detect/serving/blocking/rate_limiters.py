"""What a ``limits`` strategy is built on decides whether its calls wait on a server (issue 17).

``FixedWindowRateLimiter(RedisStorage(url))`` makes a Redis round trip in each ``hit``; the same class over a
``MemoryStorage()`` updates a dictionary (https://limits.readthedocs.io/en/stable/storage.html). The constructor's
storage argument is typed where the limiter is made, and a limiter over a server's storage gets the type
:data:`~faultlib.detect.serving.blocking.libraries.ratelimits.REMOTE_LIMITER`, whose methods the vocabulary lists;
over any other storage, or one whose type is not known, it gets :data:`LOCAL_LIMITER`, which no entry describes.
``storage_from_string(uri)`` counts as a server's storage when its literal URI names another scheme than
``memory://`` ("memory://", "redis://", "memcached://"...: https://limits.readthedocs.io/en/stable/storage.html#storage-
scheme). Used by :class:`~faultlib.detect.serving.blocking.typeof.TypeOf`.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.libraries.ratelimits import (REMOTE_LIMITER, SERVER_STORAGES, STRATEGIES,
                                                                   URI_STORAGE)

__all__ = ["LOCAL_LIMITER", "limiter_type"]

LOCAL_LIMITER = "limits.strategies.LocalRateLimiter"
"""The type of a strategy over an in-process (or unknown) storage: not a name of the package."""
LOCAL_STORAGE = "limits.storage.Storage"
"""What ``storage_from_string`` makes of a ``memory://`` URI or of one the code does not spell out: the storages' base
class, which says nothing of a server (silent)."""
FROM_STRING = frozenset({"limits.storage.storage_from_string", "limits.storage_from_string"})


def limiter_type(typeof, target: str, call: ast.Call, func, depth: int) -> str | None:
    """The type of ``call`` (of the dotted name ``target``) when it constructs a ``limits`` strategy or a storage from
    a URI (see the module docstring), else None. ``typeof`` is the analysis'
    :class:`~faultlib.detect.serving.blocking.typeof.TypeOf`."""
    if target in FROM_STRING:
        uri = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "storage_string"), None)
        server = isinstance(uri, ast.Constant) and isinstance(uri.value, str) and not uri.value.startswith("memory:")
        return URI_STORAGE if server else LOCAL_STORAGE
    if target not in STRATEGIES:
        return None
    storage = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "storage"), None)
    if storage is None or func is None:
        return LOCAL_LIMITER
    return REMOTE_LIMITER if _server_storage(typeof, storage, func, depth) else LOCAL_LIMITER


def _server_storage(typeof, storage: ast.expr, func, depth: int) -> bool:
    """Whether the expression ``storage`` is one of the storages on a server."""
    return typeof.type_of(storage, func, depth + 1) in SERVER_STORAGES | {URI_STORAGE}
