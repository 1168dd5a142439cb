"""A file the project wrote under a bare name and reads back from a folder of its own: moved there by hand.

:func:`~.pathexprs.same_file` never matches a bare name written with a name read in a folder, because a Kaggle
kernel's ``train_data.csv`` and another kernel's ``../input/comp/train_data.csv`` are different files. A script
that pickles its imputed table as ``table.pkl`` in the working directory, while the script that models it reads
``Processed_Data/table.pkl``, is the other case: the project keeps its intermediate results in a folder of its own,
and the pickle was moved there between the two runs (wave 69: a recidivism challenge's EDA script wrote its
mean-imputed table without a folder; the modelling script read it from ``Processed_Data/``, split it 60/40 and
reported the validation scores).

:func:`moved_by_hand` accepts the pair only where the mismatch can be nothing else: the name is written at one
path in the repository (checked by the caller), it is a serialised intermediate result of the project
(:data:`INTERMEDIATE_SUFFIXES`: a pickle, a joblib or NumPy dump, a Parquet/Feather/HDF5 table: formats a
competition does not hand out as its raw data, unlike a ``.csv``), and the folder read is below the working
directory (relative, no ``..``, not an ``input`` folder of a notebook platform).
"""

from __future__ import annotations

import posixpath

#: formats a project writes its own intermediate results in (pickle, joblib, NumPy, Parquet, Feather, HDF5)
INTERMEDIATE_SUFFIXES = (".pkl", ".pickle", ".joblib", ".npy", ".npz", ".parquet", ".feather", ".h5", ".hdf5")


def moved_by_hand(written: str, read: str) -> bool:
    """``written`` is a bare file name, ``read`` the same name in a folder below the working directory, and the
    file is an intermediate result (see the module docstring)."""
    if posixpath.dirname(written) or not written.lower().endswith(INTERMEDIATE_SUFFIXES):
        return False
    folders = posixpath.dirname(read).split("/")
    return bool(posixpath.dirname(read)) and not read.startswith(("/", "~")) and not any(
        f in ("..", "input") for f in folders)


__all__ = ["INTERMEDIATE_SUFFIXES", "moved_by_hand"]
