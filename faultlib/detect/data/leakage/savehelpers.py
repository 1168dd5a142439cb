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

Saved, not used: like any save (:mod:`.savedreach`), the helper's call is a reach kept apart from a model's, of the
file its parameters receive from the call when that is one file (``save_table(df, write_path)``, the path handed
down by its caller: :mod:`.passedpaths`). A fit whose only reach is such a save takes the verdict of the scripts
that read the file: a stage that runs one helper on the training file and on the test file, whose model script
trains on the training file's features and leaves the test file's unused, shows the training call's kind, not the
test call's ``fit_on_test`` (issue 17, wave 89).

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
            files = self._passed_files()  # type: ignore[attr-defined]
            self._while_writing(files[0] if len(files) == 1 else None,  # type: ignore[attr-defined]
                                self._reach_saved, *args, *kwargs.values())  # type: ignore[attr-defined]
        return super()._invoke(func, args, kwargs, line)  # type: ignore[misc]
