"""Jupyter notebooks (``.ipynb``): JSON whose bulk is usually cell outputs (plots as base64, long logs).

The code a static check reads is small, but a notebook with a few plots is often tens of MB: the general JSON
bound (4 MiB, for configs) refused such notebooks. A notebook is read with its own bounds (:data:`NOTEBOOK`),
through the same hardened JSON reader (depth, value count, finite numbers, no duplicate keys).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from faultlib.readers.files import Limits, MiB, read_bytes
from faultlib.readers.sizes import FileTooLarge
from faultlib.readers.jsondoc import load_json

#: a notebook's bounds: 256 MiB (outputs included), 64 levels, 5 million JSON values
NOTEBOOK = Limits(max_bytes=256 * MiB, max_depth=64, max_nodes=5_000_000)
CLEAR = "clear its outputs first (jupyter nbconvert --clear-output --inplace NOTEBOOK.ipynb)"


def load_notebook(path: Path | str, *, limits: Limits = NOTEBOOK) -> Any | None:
    """The parsed notebook at ``path``, or None when the file is empty (only whitespace).

    Raises:
        InputError: unreadable, larger than ``limits`` (the message says to clear the outputs), or not JSON
            (line and column). The notebook's structure is the caller's to check.
    """
    try:
        data = read_bytes(path, limits=limits)
    except FileTooLarge as exc:
        raise FileTooLarge(path, exc.size, exc.limit, advice=CLEAR) from None
    if not data.strip():
        return None
    return load_json(data, path, limits=limits)
