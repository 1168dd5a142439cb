"""Serialisers that read or write a file object wrapped around a descriptor (``os.fdopen``): the first I/O on it.

The atomic-write idiom makes the temporary file with ``tempfile.mkstemp`` (which only creates it: one inode, left
out by the labelling rules), wraps the descriptor with ``os.fdopen(fd, "w")`` (no I/O: "an alias of the open()
built-in" over a descriptor already open, https://docs.python.org/3/library/os.html#os.fdopen), serialises into it,
and renames it over the target (``os.replace``, metadata). So no ``open`` call is there to report, and the file's
content is written by the serialiser: ``json.dump(state, f)`` writes through ``f.write``
(https://docs.python.org/3/library/json.html#json.dump: "serialize obj as a JSON formatted stream to fp (a
.write()-supporting file-like object)"), as ``yaml.safe_dump(data, f)`` does (https://pyyaml.org/wiki/
PyYAMLDocumentation: "dump ... accepts ... an open file"); ``json.load(f)`` and ``yaml.safe_load(f)`` read it. The
file object's own ``read``/``write`` calls are in the standard library's family already
(:mod:`~faultlib.detect.serving.blocking.libraries.stdlib`). Over a file ``open`` made, the same serialisers stay
silent: that ``open`` is the blocker reported (:mod:`~faultlib.detect.serving.blocking.libraries.fileformats`).
Used by :func:`~faultlib.detect.serving.blocking.sites.named_site`.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.libraries.stdlib import FILE_OBJECT
from faultlib.detect.serving.blocking.model import Func

__all__ = ["descriptor_file_call"]

SERIALISERS = {"json.dump": 1, "json.load": 0, "yaml.dump": 1, "yaml.safe_dump": 1, "yaml.safe_load": 0,
               "yaml.load": 0, "yaml.full_load": 0, "marshal.dump": 1, "marshal.load": 0}
"""Functions that read or write the file object at this position (keyword ``fp``/``stream``/``file`` too)."""
_KEYWORDS = ("fp", "stream", "file")


def descriptor_file_call(index, target: str, call: ast.Call, func: Func) -> str | None:
    """What ``call`` (of the dotted name ``target``) does when it serialises into or out of an ``os.fdopen`` file
    object (see the module docstring), else None."""
    position = SERIALISERS.get(target)
    if position is None:
        return None
    arg = next((k.value for k in call.keywords if k.arg in _KEYWORDS),
               call.args[position] if position < len(call.args) else None)
    if arg is None or index.type_of(arg, func) != FILE_OBJECT:
        return None
    return f"{target} (through a file object os.fdopen made: the file's own I/O)"
