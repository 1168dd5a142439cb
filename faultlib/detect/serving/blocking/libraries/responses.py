"""Response bodies a client hands back unread: reading them is the download.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`).
MinIO's ``Minio.get_object`` sends the request and returns as soon as the headers arrive: its result is a urllib3
response made with ``preload_content=False``, whose ``read()``/``stream()`` pull the object's bytes from the socket
in the calling thread (the call itself is already a blocker: the ``minio`` package family in ``sdks.py``). A
urllib3 response is typed only where a library says it comes back unread, so a preloaded one (urllib3's default,
whose ``read()`` returns what is in memory) is never named here.

A ``requests`` response asked for with ``stream=True`` comes back the same way, its body still on the socket: the
request sent in a worker thread (``await asyncio.to_thread(session.get, url, stream=True)``) leaves ``iter_content``,
``iter_lines``, ``json()`` and the ``content``/``text`` properties to download it where they run. Such a response is
typed :data:`STREAMED_RESPONSE` by :mod:`~faultlib.detect.serving.blocking.offload_results`, and so is one requested
on the loop: the request is a finding, and each later read of the body waits on the socket again (held-out wave 65:
blackfish's fix 388a10b4 replaced the proxy's ``json()`` of the error body and its ``iter_content`` in the streaming
generator along with the request); a read after one that stored the body is memory
(:mod:`~faultlib.detect.serving.blocking.consumed_bodies`).
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Family, Vocabulary

H = "blocking_http"
MINIO = ("https://min.io/docs/minio/linux/developers/python/API.html#get_object (returns a "
         "urllib3.response.BaseHTTPResponse; 'Read data from response', then close() and release_conn())")
URLLIB3 = ("https://urllib3.readthedocs.io/en/stable/advanced-usage.html#streaming-and-i-o (with "
           "preload_content=False the body is not read: read(), stream(), read_chunked() read it from the "
           "connection as they are called) and " + MINIO)

STREAMED_RESPONSE = "requests.Response.streamed"
"""The type given to a ``requests`` response fetched with ``stream=True`` (a name no real class has)."""
STREAMED_ITERATORS = frozenset(f"{STREAMED_RESPONSE}.{m}" for m in ("iter_content", "iter_lines"))
"""Methods of a streamed response that return a generator: the socket is read where it is iterated, not where it is
made (``StreamingResponse(resp.iter_content())`` hands a sync iterator to Starlette, which iterates it in its thread
pool: https://www.starlette.io/responses/#streamingresponse, "If the iterator is sync, it is iterated in a thread
pool"); :mod:`~faultlib.detect.serving.blocking.reach` reports one only when the function iterates it."""
REQUESTS_STREAM = ("https://requests.readthedocs.io/en/latest/user/advanced/#body-content-workflow (with stream=True "
                   "only the headers are read; the body is downloaded when content is accessed or iter_content/"
                   "iter_lines are iterated)")

_RESPONSES = ("urllib3.response.BaseHTTPResponse", "urllib3.response.HTTPResponse", "urllib3.BaseHTTPResponse",
              "urllib3.HTTPResponse")

RESPONSE_BODIES = Vocabulary(
    families=(Family(_RESPONSES, {m: H for m in ("read", "stream", "read_chunked", "readinto", "read1", "json")},
                     URLLIB3),
              Family((STREAMED_RESPONSE,), {m: H for m in ("iter_content", "iter_lines", "json")}, REQUESTS_STREAM)),
    reads={f"{STREAMED_RESPONSE}.{p}": (H, REQUESTS_STREAM) for p in ("content", "text")},
    returns={f"minio.{c}.get_object": "urllib3.response.BaseHTTPResponse" for c in ("Minio", "api.Minio")},
)
