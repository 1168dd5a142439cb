"""A model saved by one script and scored by another on the rows it was trained on, for the static leakage
analysis's ``trained_on_test``.

Small projects split their pipeline into scripts that hand each other files::

    # train.py                                   # evaluate.py
    df = pd.read_csv('data/clean.csv')           df = pd.read_csv('data/clean.csv')
    model.fit(X_of(df), df.label)                model = joblib.load('model.pkl')
    joblib.dump(model, 'model.pkl')              print(classification_report(df.label, model.predict(X_of(df))))

The training script fits on every row of the table and no script holds any row out, so the evaluation script's
report is the model's score on its own training rows: a resubstitution estimate, optimistic for any model that can
fit its training set (Hastie, Tibshirani & Friedman, *The Elements of Statistical Learning*, 2nd ed., section 7.2:
training error "is not a good estimate of the test error"). Read alone, neither script shows it; the repository's
file index (:mod:`.repofiles`) does (issue 17 wave 91: a spam detector whose evaluation script reported the
classification report of the rows the logistic regression was fitted on).

:func:`resubstituted` reports, at the prediction in the analysed script, when:

* the script loads a model file (``joblib.load``/``pickle.load``/``load_model`` of a constant path), predicts or
  scores with it, and computes a metric (a ``sklearn.metrics`` report or score);
* another script of the repository writes that file after a ``fit``;
* both read the same table file (``.csv``, ``.parquet``, ``.npy``...), and neither splits, samples or cuts rows
  (no ``train_test_split``, splitter, ``sample``, slice or random mask of rows, :mod:`.rowcuts`; a string split or
  a column slice cuts none): the scored rows are the training rows.

Silent: a training script that holds rows out (a split, a slice, a mask), an evaluation script reading another table
(``test.csv``), and a loaded model that is only used to predict new inputs (an app: no metric).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

from faultlib.detect.data.leakage import vocab
from faultlib.detect.data.leakage.rowcuts import cuts_rows
from faultlib.detect.data.leakage.targets import call_name
from faultlib.pyflow.walk import walk_once

__all__ = ["Resubstitution", "resubstituted"]

#: calls that load a saved model from a path (joblib, pickle, Keras, XGBoost/LightGBM boosters)
_LOADS = frozenset({"load", "load_model", "Booster"})
#: metric functions whose names do not end in ``_score``/``_error`` (sklearn.metrics)
_REPORTS = frozenset({"classification_report", "confusion_matrix", "roc_curve", "precision_recall_curve"})
#: table files (not a pickled model)
_TABLES = (".csv", ".tsv", ".parquet", ".pq", ".feather", ".xlsx", ".xls", ".json", ".jsonl", ".npy", ".npz", ".txt",
           ".h5", ".hdf5")


@dataclass(frozen=True)
class Resubstitution:
    """Where the loaded model predicts (line), the model file, the training script and the shared table."""

    line: int
    model_file: str
    trainer: str
    table: str


def _loaded_models(tree: ast.AST) -> dict[str, int]:
    """Names bound to a model loaded from a file -> the line of the load."""
    out = {}
    for n in walk_once(tree):
        if isinstance(n, ast.Assign) and isinstance(n.value, ast.Call) and call_name(n.value) in _LOADS:
            for t in (t for t in n.targets if isinstance(t, ast.Name)):
                out[t.id] = n.value.lineno
    return out


def _first_prediction(tree: ast.AST, models: dict[str, int]) -> tuple[int, int] | None:
    """``(line of the first predict/score with a loaded model, line of its load)``."""
    calls = sorted((n for n in walk_once(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                    and n.func.attr in vocab.EVALUATE and isinstance(n.func.value, ast.Name)
                    and n.func.value.id in models), key=lambda c: c.lineno)
    return (calls[0].lineno, models[calls[0].func.value.id]) if calls else None  # type: ignore[union-attr]


def _metric(tree: ast.AST) -> bool:
    return any(isinstance(n, ast.Call) and (call_name(n) in _REPORTS or call_name(n).endswith(("_score", "_error")))
               for n in walk_once(tree))


def _fits(tree: ast.AST) -> bool:
    return any(isinstance(n, ast.Call) and call_name(n) in ("fit", "fit_transform") for n in walk_once(tree))


def _tables(accesses: list) -> set[str]:
    return {a.path.text for a in accesses if a.mode == "read" and a.path.text.lower().endswith(_TABLES)}


def resubstituted(path: str, tree: ast.AST, repo) -> Resubstitution | None:
    """The place where the script at ``path`` scores a model that another script of ``repo`` (a
    :class:`~.repofiles.RepoFiles`) fitted on every row of the table it scores (see the module docstring)."""
    from faultlib.detect.data.leakage.pathexprs import same_file
    from faultlib.detect.data.leakage.reposcripts import script_tree

    models = _loaded_models(tree)
    found = _first_prediction(tree, models) if models else None
    if found is None or not _metric(tree) or cuts_rows(tree) or _fits(tree):
        return None
    me = str(Path(path).resolve())
    mine = next((v for k, v in repo.accesses.items() if str(Path(k).resolve()) == me), None)
    if mine is None:
        return None
    loaded = [a for a in mine if a.mode == "read" and a.line == found[1]]
    tables = _tables(mine)
    if not loaded or not tables:
        return None
    for other, accesses in repo.accesses.items():
        if str(Path(other).resolve()) == me:
            continue
        writes = [w for w in accesses if w.mode == "write" and any(
            same_file(w.path, r.path, repo.name_unique) for r in loaded)]
        shared = tables & _tables(accesses)
        if not writes or not shared:
            continue
        theirs = script_tree(Path(other))
        if theirs is None or not _fits(theirs) or cuts_rows(theirs):
            continue
        return Resubstitution(found[0], writes[0].path.text, str(other), sorted(shared)[0])
    return None
