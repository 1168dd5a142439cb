"""A zip archive written into memory without compression: a copy, not work.

``zipfile.ZipFile(buffer, "w")`` over an ``io.BytesIO`` writes each member as it is given when the compression is
the default ``ZIP_STORED`` (https://docs.python.org/3/library/zipfile.html#zipfile.ZipFile: "compression is the ZIP
compression method to use when writing the archive, and should be ZIP_STORED, ZIP_DEFLATED, ..."; ``ZIP_STORED``
is no compression): the member bytes are copied into memory. With ``ZIP_DEFLATED``/``ZIP_BZIP2``/``ZIP_LZMA`` every
member is compressed on the calling thread (CPU work, still a finding), and reading an archive (mode ``"r"``, the
default) parses its directory. Used by :func:`~faultlib.detect.serving.blocking.sites.named_site` for a file call
over an in-memory buffer.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import dotted

__all__ = ["stored_in_memory"]

WRITE_MODES = frozenset({"w", "a", "x"})


def stored_in_memory(target: str, call: ast.Call) -> bool:
    """Whether ``call`` of ``target`` opens a ``zipfile.ZipFile`` for writing with no compression."""
    if target != "zipfile.ZipFile":
        return False
    keywords = {k.arg: k.value for k in call.keywords}
    if None in keywords:
        return False  # **options: may compress
    mode = keywords.get("mode", call.args[1] if len(call.args) > 1 else None)
    compression = keywords.get("compression", call.args[2] if len(call.args) > 2 else None)
    if not (isinstance(mode, ast.Constant) and mode.value in WRITE_MODES):
        return False
    return compression is None or (dotted(compression) or [""])[-1] == "ZIP_STORED"
