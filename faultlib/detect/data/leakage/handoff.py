"""Data handed from one script to the next through a file, for the static leakage analysis.

Competition code often prepares features in one script and trains in another: ``prep.py`` ends with
``train.to_feather('../data/train_feats.f')``, ``model.py`` starts with ``pd.read_feather('../data/train_feats.f')``.
Run as one program (a session: :mod:`~faultlib.detect.data.leakage.session`), or in one script that writes and
re-reads, the table read back is the table written: its rows and the fits that shaped them. A write and a read are
matched by their literal path, normalised (``os.path.normpath``); a path built at run time (an f-string, a
variable) is not followed (the file is then a new table, as before).

Writers (pandas ``to_csv``, ``to_parquet``, ``to_pickle``, ``to_feather``, ``to_hdf``, ``to_json``; NumPy ``save``,
``savez``, ``savez_compressed``, ``savetxt``; ``scipy.sparse.save_npz``; ``joblib.dump(value, path)``) and readers
(pandas ``read_*``, NumPy ``load``/``loadtxt``/``genfromtxt``, ``scipy.sparse.load_npz``, ``joblib.load``): their
API references (the path is the first argument, ``joblib.dump``'s the second).
"""

from __future__ import annotations

import ast
import posixpath
from typing import Any

from faultlib.detect.data.leakage import vocab

#: library writers whose path is the second argument (``joblib.dump(value, filename)``)
_PATH_SECOND = frozenset({"dump"})
_READERS = vocab.FILE_READERS | {"load_npz"}


def _literal_path(node: ast.Call, position: int, keywords: tuple[str, ...]) -> str | None:
    arg = node.args[position] if len(node.args) > position else next(
        (k.value for k in node.keywords if k.arg in keywords), None)
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str) and arg.value.strip():
        return posixpath.normpath(arg.value.strip().replace("\\", "/"))
    return None


class FileHandoff:
    """A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer`: what a script writes to a literal path, a
    later read of that path returns (see the module docstring)."""

    def _written(self) -> dict[str, Any]:
        if not hasattr(self, "_handoff"):
            self._handoff: dict[str, Any] = {}
        return self._handoff

    def _method_value(self, receiver: Any, name: str, args: list[Any], kwargs: dict[str, Any], node: ast.Call,
                      frame: Any) -> Any:
        from faultlib.detect.data.leakage.semantics import _maybe_data

        if name in vocab.SAVES and name.startswith("to_") and _maybe_data(receiver) is not None:
            path = _literal_path(node, 0, ("path_or_buf", "path", "excel_writer"))
            if path is not None:  # train.to_feather('../data/train_feats.f')
                self._written()[path] = _maybe_data(receiver)
        return super()._method_value(receiver, name, args, kwargs, node, frame)  # type: ignore[misc]

    def _library(self, ref: Any, args: list[Any], kwargs: dict[str, Any], node: ast.Call, frame: Any) -> Any:
        from faultlib.detect.data.leakage.semantics import _maybe_data

        name = ref.last
        if name in vocab.SAVES or name == "save_npz":
            second = name in _PATH_SECOND
            path = _literal_path(node, 1 if second else 0, ("filename", "file", "fname"))
            value = args[0 if second else 1] if len(args) > (0 if second else 1) else None
            if path is not None and _maybe_data(value) is not None:
                self._written()[path] = _maybe_data(value)
        elif name in _READERS:
            path = _literal_path(node, 0, ("filepath_or_buffer", "path", "file", "fname", "filename"))
            if path is not None and path in self._written():
                return self._written()[path]  # the table written there earlier in the program
        return super()._library(ref, args, kwargs, node, frame)  # type: ignore[misc]


__all__ = ["FileHandoff"]
