"""The data file a helper reads when its callers name it, for the static leakage analysis.

A preprocessing script names its files once, under ``if __name__ == "__main__":``, and hands them to a helper::

    def clean(input_file, output_file):
        df = pd.read_csv(input_file)                          # which rows?
        df[c] = df[c].fillna(df[c].mean())                    # the mean of those rows
        ...
    if __name__ == "__main__":
        here = os.getcwd()
        base = os.path.dirname(here) if os.path.basename(here) == "scripts" else here
        clean(os.path.join(base, "data", "test.csv"), os.path.join(base, "data", "test_clean.csv"))

The folder is computed at run time (the working directory, or its parent), so the path is no string constant and
the read was an unknown table: the test file filled with its own mean went unreported (issue 17, wave 87: a
competition's preprocessing scripts, one for ``train.csv`` and one for ``test.csv``). The file *name* is known
whatever the folder is (``os.path.join`` keeps its last part: Python library reference, ``os.path.join``), and
in a program that names a held-out file (``test.csv``) the name is what says which rows a table holds
(:func:`~.sole_file.file_table`). So a read of a helper's parameter is the table of the file every caller passes
(:class:`~.callerpaths.CallerPaths`: literals, constants, ``os.path.join`` of a computed folder and a literal name,
``f"{base}/test.csv"``, ``Path(base) / "test.csv"``) when all of them name one data file stem, ``train`` or ``test``
alike; anything else stays unknown (no guess). A helper called once for each file (``clean(join(base,
"train.csv"))``, then ``clean(join(base, "test.csv"))``) is run by the analysis once per call: each run reads the
file of the call running it (:mod:`.passedpaths`: the file a parameter holds in this call), a table of its own
(:func:`call_file_table`), so the run on the test file fills it with its own means and the run on the training
file does not.
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.data.leakage import vocab
from faultlib.detect.data.leakage.pathexprs import FilePath
from faultlib.detect.data.leakage.sole_file import file_table
from faultlib.detect.data.leakage.values import MaybeData
from faultlib.pyflow.values import Const


def passed_file_table(paths: list[Any], node: ast.Call, *, separate_test: bool) -> Any:
    """The table a reader call returns when its path is a parameter whose callers all name one data file.

    Args:
        paths: the :class:`~.pathexprs.FilePath` s the callers pass (``[]``: some caller passes an unknown path).
        node: the reader call (``pd.read_csv(input_file)``).
        separate_test: the program names a held-out file (``test.csv``) beside its training file.

    Returns:
        a :class:`~faultlib.detect.data.leakage.values.MaybeData` named for the file's stem, or ``None``.
    """
    if not separate_test or not paths:
        return None
    stems = {vocab.data_file_stem(p.name) for p in paths}
    if len(stems) != 1 or None in stems:
        return None
    (stem,) = stems
    return file_table([Const(f"{stem}.csv")], node, separate_test=True, sole=None)


def call_file_table(path: FilePath, node: ast.Call, *, separate_test: bool, sole: str | None) -> MaybeData:
    """The table a reader in a helper returns for the file this call of the helper names (:mod:`.passedpaths`):
    the file's own rows, named by the file as a literal path would name them (``train.csv`` beside ``test.csv``:
    :func:`~.sole_file.file_table`; ``sole``: the script's only data file); each file read through the helper is
    a table of its own, not one table for every call."""
    table = file_table([Const(path.text)], node, separate_test=separate_test, sole=sole)
    if table is None:
        table = MaybeData(vocab.data_file_stem(path.text) or path.name, node.lineno)
        table.from_file = True
    return table


__all__ = ["call_file_table", "passed_file_table"]
