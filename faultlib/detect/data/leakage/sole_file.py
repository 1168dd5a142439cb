"""A table read from the script's only data file holds every row there is, whatever its variable is called.

``train_df = pd.read_csv("news_train.csv")`` in a notebook that reads no other data: the name says training, but
no test file stands beside it, so a later ``train_test_split(train_df)`` makes the test set, not a validation part
of a training part (:func:`~faultlib.detect.data.leakage.values.is_training_part`). A fit on all of ``train_df``
before that split leaks into the test rows (ASE'22, Yang et al., "Data leakage in notebooks": preprocessing
leakage, train and test transformed together before the split).

Precision first: the rule holds only when every file-like string constant of the script names that one data file.
A second file of any kind (``notMNIST_test.zip``, ``submission.csv``, ``model.pkl``) leaves the name in charge, as
before: the other file may hold the test rows.
"""

from __future__ import annotations

import ast
import re
from typing import Any

from faultlib.detect.data.leakage import vocab
from faultlib.detect.data.leakage.values import MaybeData
from faultlib.pyflow.values import Const, Ref
from faultlib.pyflow.walk import walk_once


def file_stem(args: list[Any], node: ast.Call) -> str | None:
    """The data file a reader call names: a constant argument, or a literal inside the expression
    (``os.path.join(DIR, 'train.csv')``, ``f'{DIR}/train.csv'``)."""
    if args and isinstance(args[0], Const) and isinstance(args[0].value, str):
        return vocab.data_file_stem(args[0].value)
    for sub in ast.walk(node.args[0]) if node.args else ():
        if isinstance(sub, ast.Constant) and isinstance(sub.value, str) and vocab.data_file_stem(sub.value):
            return vocab.data_file_stem(sub.value)
    return None


def file_table(args: list[Any], node: ast.Call, *, separate_test: bool, sole: str | None) -> MaybeData | None:
    """The table a file reader (``pd.read_csv``...) returns, where the file says what its rows are; else ``None``.

    * ``train.csv`` beside a ``test.csv`` (``separate_test``): a training part named ``train`` (the file's stem);
      ``test.csv``'s rows are held out whatever the variable is called (``testing = pd.read_csv('test.csv')``);
    * the script's only data file (``sole``): every row there is (``whole``), named after the variable it is
      bound to (:func:`renamed_whole`).
    """
    stem = file_stem(args, node)
    if stem is None:
        return None
    if separate_test and (vocab.looks_like_train(stem) or vocab.looks_like_test(stem)):
        table = MaybeData(stem, node.lineno)
    elif sole is not None:
        table = MaybeData(stem, node.lineno)
        table.whole = True
    else:
        return None
    table.from_file = True  # a table: ``train['source'] = 'train'`` adds a column, not a dict key
    return table


def renamed_whole(table: MaybeData, name: str, line: int) -> MaybeData:
    """``train_df = pd.read_csv(only_file)``: the whole table, named by its variable (as an unknown value is)."""
    out = MaybeData(name, line)
    out.from_file = out.whole = True
    out.renamed_from = table  # the same frame under another name (a helper's parameter): aliases.py follows it
    return out


#: a string that names a file (data, archive, pickle, model): a path without spaces ending in an extension
_FILE_LIKE = re.compile(r"^[^\s'\"]+\.(?:csv|tsv|txt|data|parquet|pq|jsonl?|xlsx?|feather|pkl|pickle|p|h5|hdf5?|npy|"
                        r"npz|mat|zip|gz|tgz|bz2|xz|tar|7z|db|sqlite|arff|libsvm|svmlight)$", re.IGNORECASE)


def sole_data_file(tree: ast.AST) -> str | None:
    """The one data file the script names (its path constant), or ``None`` when it names none, several, or one
    named for held-out rows (``test.csv``: then the name rules apply)."""
    files: set[str] = set()
    for node in walk_once(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and len(node.value) < 400:
            text = node.value.strip()
            if _FILE_LIKE.match(text):
                files.add(text)
                if len(files) > 1:
                    return None
    if len(files) != 1:
        return None
    (path,) = files
    stem = vocab.data_file_stem(path)
    return path if stem is not None and not vocab.looks_like_test(stem) else None


#: libraries whose file readers return a new table (``pandas.read_parquet(path)``): the rows are the file's, never
#: those of whatever the path was built from
_TABLE_LIBRARIES = ("pandas", "pd", "numpy", "np", "polars", "pl", "dask", "joblib", "pickle", "pyarrow", "modin")


def reads_new_rows(ref: Ref, node: ast.Call | None = None) -> bool:
    """``pd.read_pickle(folder + cfg.data.train)`` whose file name is not a constant: the table read is a fresh
    unknown value (named by the variable it is bound to), not rows derived from the path's parts. Without this,
    ``train`` and ``test`` both read through one config object (``cfg``) were taken for the same rows, and a scaler
    fitted on ``train`` was reported as fitted on the held-out ``test`` rows (wave 45, hydra configs). Only a path
    made of variables alone (no string constant in it): one with a file name written in the code is left as it was
    (wave 43's M5 reads joined on one data folder rely on it). The keys of a lookup in a configuration are no file
    name (``config['DATA']['TRAIN']``, ``configparser``'s sections and options: wave 89)."""
    keys = {id(n.slice) for n in ast.walk(node.args[0]) if isinstance(n, ast.Subscript)} if node is not None and \
        node.args else set()
    if node is not None and node.args and any(isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n)
                                              not in keys for n in ast.walk(node.args[0])):
        return False  # data_path + 'sales.csv': a file name in the code; the reads it joins keep their old reading
    return ref.last in vocab.FILE_READERS and ref.module.split(".", 1)[0] in _TABLE_LIBRARIES
