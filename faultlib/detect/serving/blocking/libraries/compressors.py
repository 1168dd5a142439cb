"""One-shot compression of a whole payload in memory: ``gzip``/``zlib``/``bz2``/``lzma``'s ``compress`` (and
python-isal's drop-in ``igzip``/``isal_zlib`` twins).

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`; the
compressed *files* these modules open are :mod:`~faultlib.detect.serving.blocking.libraries.fileformats`', the
in-memory zip and tar archives :mod:`~faultlib.detect.serving.blocking.archives`'). Each call runs the whole codec
over the whole payload in the calling thread and returns only when it is done: CPU work proportional to the body, a
response of megabytes held for tens to hundreds of milliseconds at the default levels (bz2 and lzma much longer).
aiohttp, whose own response compression meets the same question, runs it in an executor once a body is larger than
``zlib_executor_size`` ("length in bytes which will trigger zlib compression of body to happen in an executor",
https://docs.aiohttp.org/en/stable/web_reference.html#aiohttp.web.Response), and the house labels in-memory
compression as ``blocking_cpu`` alike (a ``ZIP_DEFLATED`` archive built in a buffer, a PNG encode). Held-out wave 83: pygeoapi's async
Starlette adapter offloads the API call to a thread, then gzips the whole GeoJSON/coverage body on the loop.
Left out: incremental compressor objects (``zlib.compressobj``), fed a chunk at a time, and the one-shot
``decompress`` twins: inflating runs several times faster than deflating (gzip's ``compress`` defaults to level 9,
its slowest), and decoding an in-memory payload stays silent as the other in-memory decoders do (``json.loads``, a
``GzipFile`` over a ``BytesIO``: :mod:`~faultlib.detect.serving.blocking.libraries.fileformats`).
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import BlocksWhen, Vocabulary

C = "blocking_cpu"
PY = "https://docs.python.org/3/library/"
ISAL = ("https://python-isal.readthedocs.io/en/stable/ (isal_zlib and igzip: drop-in replacements of zlib and gzip "
        "whose compress runs the whole payload through ISA-L in the calling thread)")

_STDLIB = {"gzip": PY + "gzip.html#gzip.compress (\"Compress the data, returning a bytes object\": the whole payload "
                   "at once, at compresslevel 9 by default)",
           "zlib": PY + "zlib.html#zlib.compress (\"Compresses the bytes in data, returning a bytes object\")",
           "bz2": PY + "bz2.html#one-shot-de-compression (\"Compress data, a bytes-like object, all at once\")",
           "lzma": PY + "lzma.html#lzma.compress (\"Compress data ... returning the compressed data as a bytes "
                   "object\")"}

_CALLS = {**{f"{m}.compress": (C, source) for m, source in _STDLIB.items()},
          **{f"isal.{m}.compress": (C, ISAL) for m in ("igzip", "isal_zlib")}}
_PAYLOAD = BlocksWhen("data", position=0, test="one_of", values=())
"""A literal payload (``gzip.compress(b"")``, the empty end-of-stream frame of a streaming protocol) is a few bytes
written in the code: only a payload computed at run time may be large."""

COMPRESSORS = Vocabulary(calls=_CALLS, when={name: _PAYLOAD for name in _CALLS})
