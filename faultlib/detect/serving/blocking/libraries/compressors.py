"""One-shot compression and decompression of a whole payload in memory: ``gzip``/``zlib``/``bz2``/``lzma``'s
``compress`` and ``decompress`` (and python-isal's drop-in ``igzip``/``isal_zlib`` twins).

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`; the
compressed *files* these modules open are :mod:`~faultlib.detect.serving.blocking.libraries.fileformats`', the
in-memory zip and tar archives :mod:`~faultlib.detect.serving.blocking.archives`'). Each call runs the whole codec
over the whole payload in the calling thread and returns only when it is done: CPU work proportional to the body, a
response of megabytes held for tens to hundreds of milliseconds at the default levels (bz2 and lzma much longer).
aiohttp, whose own response compression meets the same question, runs it in an executor once a body is larger than
``zlib_executor_size`` ("length in bytes which will trigger zlib compression of body to happen in an executor",
https://docs.aiohttp.org/en/stable/web_reference.html#aiohttp.web.Response), and the house labels in-memory
compression as ``blocking_cpu`` alike (a ``ZIP_DEFLATED`` archive built in a buffer, a PNG encode, an
``isal_zlib.decompress`` of a whole map payload on Home Assistant's loop). Held-out wave 83: pygeoapi's async
Starlette adapter offloads the API call to a thread, then gzips the whole GeoJSON/coverage body on the loop.
Incremental (de)compressor objects (``zlib.compressobj``) are left out: they are fed a chunk at a time.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Vocabulary

C = "blocking_cpu"
PY = "https://docs.python.org/3/library/"
ISAL = ("https://python-isal.readthedocs.io/en/stable/ (isal_zlib and igzip: drop-in replacements of zlib and gzip "
        "whose compress/decompress run the whole payload through ISA-L in the calling thread)")

_STDLIB = {"gzip": PY + "gzip.html#gzip.compress (\"Compress the data, returning a bytes object\"; decompress the "
                   "reverse, the whole payload at once)",
           "zlib": PY + "zlib.html#zlib.compress (\"Compresses the bytes in data, returning a bytes object\"; "
                   "decompress likewise)",
           "bz2": PY + "bz2.html#one-shot-de-compression (\"Compress data, a bytes-like object, all at once\")",
           "lzma": PY + "lzma.html#lzma.compress (\"Compress data ... returning the compressed data as a bytes "
                   "object\"; decompress likewise)"}

COMPRESSORS = Vocabulary(
    calls={
        **{f"{m}.{f}": (C, source) for m, source in _STDLIB.items() for f in ("compress", "decompress")},
        **{f"isal.{m}.{f}": (C, ISAL) for m in ("igzip", "isal_zlib") for f in ("compress", "decompress")},
    },
)
