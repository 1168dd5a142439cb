"""Jupyter notebook files: nbformat's ``read`` and ``write``.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`).
``nbformat.read(fp, as_version)`` opens the path (or reads the file object), parses the JSON and validates the
notebook against its schema; ``nbformat.write(nb, fp)`` serialises it and writes the file. A Jupyter server
extension's ``async def`` handler that calls them waits for the disk (and the schema validation) on the server's
loop. ``nbformat.reads``/``writes`` work on strings in memory and are other names.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Vocabulary

F = "blocking_file_io"

NBFORMAT = ("https://nbformat.readthedocs.io/en/latest/api.html#reading-and-writing (read(fp, as_version): read a "
            "notebook from a file, fp a path or a file-like object; write(nb, fp): write a notebook to a file)")

NOTEBOOKS = Vocabulary(calls={
    "nbformat.read": (F, NBFORMAT),
    "nbformat.write": (F, NBFORMAT),
})
