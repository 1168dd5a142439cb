"""Files shipped inside a package, read through ``importlib.resources`` (or its backport ``importlib_resources``)
and ``pkgutil.get_data``.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`). A
``Traversable`` from ``files(package)`` is a path into the installed package: ``open``, ``read_text`` and
``read_bytes`` read the file in the calling thread (a web page's HTML/CSS/JS, a model's vocabulary, a prompt), as
``open`` on a path does; ``joinpath`` (and ``/``) only build another ``Traversable``. The older module functions
(``read_text``, ``open_binary``...) and ``pkgutil.get_data`` read the same way; ``as_file`` may copy the resource
out of a zip into a temporary file. Each entry names the documentation of the call.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Vocabulary
from faultlib.detect.serving.blocking.libraries.names import names

F = "blocking_file_io"

FILES = ("https://docs.python.org/3/library/importlib.resources.html#importlib.resources.files (a Traversable; "
         "open/read_text/read_bytes read the resource's file)")
TRAVERSABLE = ("https://docs.python.org/3/library/importlib.resources.abc.html#importlib.resources.abc.Traversable "
               "(open, read_bytes, read_text read the file; joinpath returns another Traversable)")
FUNCTIONS = ("https://docs.python.org/3/library/importlib.resources.html#functional-api (read_text, read_binary, "
             "open_text, open_binary read the resource; as_file is left out: it copies only a resource inside a "
             "zip, and gives an installed package's file its own path)")
GET_DATA = "https://docs.python.org/3/library/pkgutil.html#pkgutil.get_data (reads the resource's bytes)"

_PACKAGES = ("importlib.resources", "importlib_resources")
_TRAVERSABLE = "importlib.resources.abc.Traversable"

RESOURCES = Vocabulary(
    calls={
        **names(F, TRAVERSABLE, _TRAVERSABLE, "open", "read_text", "read_bytes"),
        **{name: entry for package in _PACKAGES for name, entry in names(
            F, FUNCTIONS, package, "read_text", "read_binary", "open_text", "open_binary").items()},
        **names(F, GET_DATA, "pkgutil", "get_data"),
    },
    families=(),
    returns={
        **{f"{package}.files": _TRAVERSABLE for package in _PACKAGES},
        f"{_TRAVERSABLE}.joinpath": _TRAVERSABLE,
    },
)
