"""Response bodies a client hands back unread: reading them is the download.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`).
MinIO's ``Minio.get_object`` sends the request and returns as soon as the headers arrive: its result is a urllib3
response made with ``preload_content=False``, whose ``read()``/``stream()`` pull the object's bytes from the socket
in the calling thread (the call itself is already a blocker: the ``minio`` package family in ``sdks.py``). A
urllib3 response is typed only where a library says it comes back unread, so a preloaded one (urllib3's default,
whose ``read()`` returns what is in memory) is never named here.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Family, Vocabulary

H = "blocking_http"
MINIO = ("https://min.io/docs/minio/linux/developers/python/API.html#get_object (returns a "
         "urllib3.response.BaseHTTPResponse; 'Read data from response', then close() and release_conn())")
URLLIB3 = ("https://urllib3.readthedocs.io/en/stable/advanced-usage.html#streaming-and-i-o (with "
           "preload_content=False the body is not read: read(), stream(), read_chunked() read it from the "
           "connection as they are called) and " + MINIO)

_RESPONSES = ("urllib3.response.BaseHTTPResponse", "urllib3.response.HTTPResponse", "urllib3.BaseHTTPResponse",
              "urllib3.HTTPResponse")

RESPONSE_BODIES = Vocabulary(
    families=(Family(_RESPONSES, {m: H for m in ("read", "stream", "read_chunked", "readinto", "read1", "json")},
                     URLLIB3),),
    returns={f"minio.{c}.get_object": "urllib3.response.BaseHTTPResponse" for c in ("Minio", "api.Minio")},
)
