"""Karton (CERT Polska's ``karton-core``): a task pipeline whose every operation is a synchronous Redis call.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`).
``KartonBackend`` wraps a synchronous ``redis.StrictRedis`` (and a boto3 S3 client for resources): its constructor
connects and pings Redis, and each of its methods -- reading binds and tasks, registering, deleting or restarting
a task, producing one -- is one or more Redis round trips in the calling thread (its static helpers that only
build queue names or (un)serialise a bind are left out). ``KartonState(backend)`` reads
every bind, replica and task from Redis when it is built. A ``Producer`` (any ``KartonBase``) builds its own backend
when none is given, and ``send_task`` uploads the task's resources and registers the task in Redis. There is no
async variant of these classes in ``karton.core``; web front ends call them from a thread. Each entry names the
documentation.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Family, Vocabulary

R = "blocking_db"

BACKEND = ("https://karton-core.readthedocs.io/en/latest/karton_api.html (KartonBackend: the Redis/S3 backend; "
           "karton/core/backend.py makes a redis.StrictRedis and pings it in the constructor, and every method "
           "is a synchronous Redis call)")
STATE = ("https://karton-core.readthedocs.io/en/latest/karton_api.html (karton.core.inspect.KartonState: the "
         "constructor reads all binds, online consumers and tasks through the backend)")
PRODUCER = ("https://karton-core.readthedocs.io/en/latest/karton_api.html (Producer.send_task uploads the "
            "resources and registers the task in Redis; a KartonBase builds a KartonBackend when none is passed)")

_BACKENDS = ("karton.core.backend.KartonBackend", "karton.core.KartonBackend")
_STATES = ("karton.core.inspect.KartonState", "karton.core.KartonState")
_PRODUCERS = ("karton.core.Producer", "karton.core.karton.Producer")

KARTON = Vocabulary(
    families=(
        Family(_BACKENDS, {"*": R, "__init__": R}, BACKEND,
               except_=frozenset({"config", "identity", "service_info", "default_bucket_name", "get_queue_name",
                                  "get_queue_names", "serialize_bind", "unserialize_bind"})),
        Family(_STATES, {"__init__": R}, STATE),
        Family(_PRODUCERS, {"__init__": R, "send_task": R}, PRODUCER),
    ),
)
