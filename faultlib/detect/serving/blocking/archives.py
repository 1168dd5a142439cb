"""A zip or tar archive written into memory without compression: a copy, not work.

``zipfile.ZipFile(buffer, "w")`` over an ``io.BytesIO`` writes each member as it is given when the compression is
the default ``ZIP_STORED`` (https://docs.python.org/3/library/zipfile.html#zipfile.ZipFile: "compression is the ZIP
compression method to use when writing the archive, and should be ZIP_STORED, ZIP_DEFLATED, ..."; ``ZIP_STORED``
is no compression): the member bytes are copied into memory. With ``ZIP_DEFLATED``/``ZIP_BZIP2``/``ZIP_LZMA`` every
member is compressed on the calling thread (CPU work, still a finding), and reading an archive (mode ``"r"``, the
default) parses its directory. ``tarfile.open(fileobj=buffer, mode="w")`` is the same for a tar archive: mode
``"w"``/``"w:"`` (and ``"a"``, ``"x"``) writes "without compression" (https://docs.python.org/3/library/tarfile.html
#tarfile.open), each member's header and bytes copied into the buffer; ``"w:gz"``, ``"w:bz2"``, ``"w:xz"`` compress
(held-out wave 69: a sandbox packing one small text file into a tar stream to copy into a container). Used by :func:`~faultlib.detect.serving.blocking.sites.named_site` for a file call
over an in-memory buffer.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import dotted

__all__ = ["stored_in_memory"]

WRITE_MODES = frozenset({"w", "a", "x"})


def stored_in_memory(target: str, call: ast.Call) -> bool:
    """Whether ``call`` of ``target`` opens a ``zipfile.ZipFile`` or a ``tarfile`` archive for writing with no
    compression."""
    if target == "tarfile.open":
        return _plain_tar_writer(call)
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


def _plain_tar_writer(call: ast.Call) -> bool:
    """``tarfile.open(..., mode="w")`` (or ``"w:"``, ``"a"``, ``"x"``...): a writer that compresses nothing."""
    keywords = {k.arg: k.value for k in call.keywords}
    if None in keywords:
        return False
    mode = keywords.get("mode", call.args[1] if len(call.args) > 1 else None)
    if not (isinstance(mode, ast.Constant) and isinstance(mode.value, str)):
        return False
    kind, _, method = mode.value.partition(":")
    return kind in WRITE_MODES and method == ""
