"""Which held-aside rows are a script's *test* part and which its *validation* part, by the rows and by the names
the script gives them (``tuned_on_test`` in :mod:`.earlystop` and :mod:`.choices`; :mod:`.validation`).

* :func:`file_validation`: a validation part of a whole training file (``train.csv`` split in two, no split or
  fold before): the notebook's only labelled rows held aside;
* :func:`choosing_named`: a name for the rows a script chooses its model on (``X_val``, ``dvalid``, ``xgvalid``,
  ``ds_eval``, ``X_dev``, a tag ``'valid'``);
* :func:`held_out`, :func:`named_test_part`, :func:`input_named_test`: the test part; a training file's
  validation part counts when the script names it for testing (``X_test``), as it is then what the notebook
  reports as its test score (scored there, or fitted on: ``fit_on_test``).
"""

from __future__ import annotations

import ast

from faultlib.detect.data.leakage import vocab
from faultlib.detect.data.leakage.values import Data, Rows, parts

#: name tokens of rows kept for choosing a model (``X_val``, ``dvalid``, ``xgvalid``, ``ds_eval``, ``X_dev``, ``cv_x``: a
#: "cross-validation set" in the older sense of one held-aside validation part)
_CHOOSING = ("validation", "valid", "val", "eval", "dev", "cv")
#: ... and the longest prefix glued to one (``d``valid, ``xg``valid, ``lg``valid)
_GLUED = 3


def choosing_named(name: str) -> bool:
    """A variable named for the rows a script chooses its model on (validation or evaluation rows)."""
    for t in vocab.name_tokens(name):
        if t in _CHOOSING or any(t.endswith(c) and len(t) - len(c) <= _GLUED for c in _CHOOSING):
            return True
    return False


def file_validation(p: Rows) -> int | None:
    """Index of the ``val`` split step in ``p`` when ``p`` is a validation part of a whole training file (no
    split or fold before it), else ``None``."""
    if not (p.root.from_file and vocab.looks_like_train(p.root.name) and not p.root.whole):
        return None
    for i, step in enumerate(p.steps):
        if step.part == "val":
            return i
        if step.kind in ("split", "fold"):
            return None
    return None


def held_out(x: Data, test_named: bool) -> bool:
    """Rows of the test part: named for testing, a split's test part, or a test file; never a fold's part. A
    validation part of a whole training file (``train.csv`` beside a ``test.csv`` without labels) is the test part
    when the script names it so (``test_named``: ``X_test``): its score is then the notebook's reported test score
    (:mod:`~faultlib.detect.data.leakage.validation`)."""
    ps = parts(x.rows)
    if any(s.kind == "fold" for p in ps for s in p.steps):
        return False
    if any(s.part == "val" for p in ps for s in p.steps):
        return test_named and all(file_validation(p) is not None for p in ps)
    return x.test or any(s.kind == "split" and s.part == "test" for p in ps for s in p.steps) or \
        any(p.root.test for p in ps)


def named_test_part(x: Data, arg: ast.expr | None) -> bool:
    """``x`` is a validation part of a whole training file passed under a name for testing (``model.predict(X_test)``
    after ``train_test_split`` of ``train.csv``): the rows the notebook reports as its test score."""
    while isinstance(arg, (ast.Subscript, ast.Attribute)):
        arg = arg.value
    return isinstance(arg, ast.Name) and vocab.looks_like_test(arg.id) and not choosing_named(arg.id) and \
        bool(parts(x.rows)) and all(file_validation(p) is not None for p in parts(x.rows))


def split_named_test(x: Data, arg: ast.expr | None) -> bool:
    """``x`` is the held-aside part of the first split of a table named for training, passed under a name for testing
    (``y_test`` of ``train_test_split`` over ``train_df``, read from a file the script does not tell apart from
    others): the name of the table made it a validation part, but no split came before and the script calls the
    part its test set, so its score is the notebook's reported test score, as for :func:`named_test_part`'s
    training file (issue 17 wave 101: an exoplanet notebook's threshold read off ``y_test``'s curve)."""
    while isinstance(arg, (ast.Subscript, ast.Attribute)):
        arg = arg.value
    if not (isinstance(arg, ast.Name) and vocab.looks_like_test(arg.id) and not choosing_named(arg.id)):
        return False
    ps = parts(x.rows)
    return bool(ps) and all(_first_split_val(p) for p in ps)


def _first_split_val(p: Rows) -> bool:
    """The first split or fold step of ``p`` is a split's ``val`` part."""
    first = next((s for s in p.steps if s.kind in ("split", "fold")), None)
    return first is not None and first.kind == "split" and first.part == "val"


def input_named_test(x: Data, call: ast.Call) -> bool:
    """A fit ``call`` whose input ``x`` (its first argument) is a training file's validation part named for testing
    (``sc.fit_transform(X_test)``, ``SelectKBest(...).fit_transform(X_test, y_test)`` after ``train_test_split`` of
    ``train.csv`` beside a ``test.csv``): the fit saw the rows the notebook reports its test score on, as a fit on a
    split's test part does, so it is ``fit_on_test`` (the name, not the file layout, says which part is the test)."""
    return named_test_part(x, call.args[0] if call.args else None)


__all__ = ["choosing_named", "file_validation", "held_out", "named_test_part", "input_named_test", "split_named_test"]
