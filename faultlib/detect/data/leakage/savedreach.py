"""A table saved to a file reaches a model as far as the scripts that read the file use it.

The static analysis counts a save (``df.to_csv(path)``, ``np.save(path, X)``, ``joblib.dump(X, path)``) as a reach:
the file goes to a stage out of sight, which may well train on every column of it, so a fit that shaped it matters.
Where the repository's index knows the scripts that read the file and evaluate (:mod:`.repofiles`), that guess is
no longer needed: the writer is joined with each of them (:func:`~.repofiles.handed_on`), and there the readers' own
use decides. In such a join a save of a file an evaluating reader of the repository reads (``handed_files``)
reaches nothing by itself; what the reader does with the table it reads back does (a model trained on a listed
subset of its columns: :mod:`.listedcols`; a table read and never used: nothing).

A fit whose only reach was a save is marked in the report (``StaticReport.saved_only``, ``(file, cell, line)`` of
its finding): the writer's own report then takes the joins' verdict for it, an alarm of the kind a reader shows or a
note when no reader's model is reached (issue 17, wave 89: a learning-to-rank pipeline computed sixty per-property
statistics over its training, validation and test files stacked, saved them to Parquet, and its model scripts read
back only the columns of a feature list in a config class; eighteen of those statistics were in no list).
"""

from __future__ import annotations

from typing import Any

from faultlib.detect.data.leakage.pathexprs import FilePath, same_file
from faultlib.detect.data.leakage.values import maybe_data, parts


class SavedReach:
    """A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer` (needs ``_reach``, ``_reached`` and
    ``_unique``; :class:`~.handoff.FileHandoff` sets ``_writing`` while a write of a known path runs).

    Attributes:
        handed_files: the files the joined readers read (set by :func:`~.repofiles.handed_on`; empty when the
            program is analysed alone).
    """

    handed_files: tuple[FilePath, ...] = ()
    _writing: FilePath | None = None

    def _reach_saved(self, *values: Any) -> None:
        """``values`` are saved (see the module docstring): their fits are reached by the save, kept apart from the
        other reaches, unless the file is one the joined readers read."""
        handed = self._writing is not None and any(
            same_file(h, self._writing, self._unique) or same_file(self._writing, h, self._unique)  # type: ignore
            for h in self.handed_files)
        before, self._reached = self._reached, set()  # type: ignore[has-type]
        uids = self.__dict__.pop("_reached_uids", set())
        try:
            self._reach(*values)  # type: ignore[attr-defined]
            self.__dict__.setdefault("_saved_uids", set()).update(() if handed else self.__dict__.get(
                "_reached_uids", ()))
            if handed:  # (a call's fit is known by its place and tables: a statistic may be recorded twice)
                self.__dict__.setdefault("_handed_calls", set()).update(
                    _call(t) for v in values if (d := maybe_data(v)) is not None for t in d.taints)
        finally:
            self._reached, self.__dict__["_reached_uids"] = before, uids

    def _handed(self, fit: Any) -> bool:
        """This call of a fit (its place and the tables it saw) was saved to a file the joined readers read (and the
        save reached nothing)."""
        return _call(fit) in self.__dict__.get("_handed_calls", ())

    def _saved(self, fit: Any) -> bool:
        """A save reached this call of a fit (its ``uid``: a helper that saves the training file's table and the
        test file's is two calls, and only one of the files may be one the joined readers read)."""
        return fit.uid in self.__dict__.get("_saved_uids", ())


def _call(fit: Any) -> tuple:
    """A fit's place and the tables (root ids) its rows come from."""
    return fit.line, fit.column, frozenset(p.root.uid for p in parts(fit.rows)) if fit.rows is not None else None


__all__ = ["SavedReach"]
