"""A project's own saving helpers, for the static leakage analysis.

Competition projects often keep their file writing in a module of their own, a copy of a library's or written
for the project, and call it from every feature script::

    # data_io.py
    def save_data(X, y, path):
        writer = {".csv": save_csv, ".h5": save_hdf5}[os.path.splitext(path)[1]]
        writer(X, y, path)

    # make_features.py
    both = pd.concat([trn, tst])
    ...                                                # statistics of every row, test rows included
    save_data(both.values[:n_trn], y, "feat/trn.h5")   # read back by the training script

A library's helper named like that (``kaggler.data_io.save_data``) already counts as saving its data
(:func:`~faultlib.detect.data.leakage.vocab.saves`): what is written is used elsewhere, so a fit that shaped it
matters. The project's own helper is a function the analysis follows, but the writer it picks is often out of
reach (a table of writers indexed by the file's extension, a format chosen by an argument), so its data reached
nothing and a statistic of the train+test stack written for the training script was reported at ``info`` or not
at all (issue 17 wave 87: a Kaggle playground project whose seven feature scripts all save through ``save_data``).
So a call of a project function named like a saving helper (``save_*``, ``dump_*``, ``write_*``, or one of the
library names, not a picture: :func:`~faultlib.detect.data.leakage.vocab.saves`) saves its arguments, as the
library's helper does, and the function still runs.

A helper named for a picture (``save_fig``, ``write_plot``) saves a plot, and any other project function only
reaches what its body hands on.

A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer`.
"""

from __future__ import annotations

from typing import Any

from faultlib.detect.data.leakage import vocab

__all__ = ["SaveHelpers"]


class SaveHelpers:
    """A call of the project's own saving helper saves its arguments (see the module docstring)."""

    def _invoke(self, func: Any, args: list[Any], kwargs: dict[str, Any], line: int) -> Any:
        if vocab.saves(func.node.name.lstrip("_")):
            self._reach(*args, *kwargs.values())  # type: ignore[attr-defined]
        return super()._invoke(func, args, kwargs, line)  # type: ignore[misc]
