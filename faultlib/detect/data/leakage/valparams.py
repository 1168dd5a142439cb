"""A validation part a function receives from callers out of sight, for the static leakage analysis.

A project keeps its training code in functions of a module and its evaluation design in the script that calls
them::

    # forecasting/lstm.py
    def train_lstm(X_tr, y_tr, X_val, y_val, epochs=50):
        best_f1 = -1.0
        for epoch in range(epochs):
            fit_one_epoch(model, X_tr, y_tr)
            f1 = f1_score(y_val, model.predict(X_val), average="macro")
            if f1 > best_f1:                          # the epoch is chosen on the validation part ...
                best_f1, best_state = f1, model.state_dict()
        print(f"best val macro-F1={best_f1:.4f}")     # ... and its best logged
        return model

    # scripts/train.py: a three-way split in time, the test block scored once
    X_tr, X_val, X_test = X[years <= 2021], X[years == 2022], X[years >= 2023]
    model = train_lstm(X_tr, y_tr, X_val, y_val)
    print(f1_score(y_test, model.predict(X_test), average="macro"))

Read alone (or from a script that imports the module without calling the function), the function is run on opaque
arguments: its callers are out of sight, and the rows at ``X_val`` are whatever they pass. A parameter named for
*validation* (``X_val``, ``val_loader``, ``y_valid``; not one named for testing) is, by the function's own contract,
the part of the training rows its callers set aside for choices: keeping the best epoch there, or fitting a
``cv='prefit'`` calibrator there (scikit-learn user guide 1.16.2: "the data used for fitting the classifier and for
calibrating it must be disjoint"), and logging the score it reached, is the validation step of the design, not a
score of the held-out test (Goodfellow, Bengio & Courville, *Deep Learning*, section 7.8: the epoch count is a
hyperparameter chosen on a validation set; issue 17 wave 101: a solar-flare project's helpers keep their best epoch
and calibrate on the 2022 block while its scripts report only the separate >= 2023 test block). The house rule
"a validation part carved apart from the test is not a leak" then applies to the function itself.

A function called in the program is judged at its calls (the rows passed, the parts scored after: the caller that
passes its test part as ``X_val`` and reports it is reported there), and a parameter named for testing stays held
out: :func:`caller_validation` answers only for a function no code of the program calls.
"""

from __future__ import annotations

import ast

from faultlib.detect.data.leakage.vocab import looks_like_test, looks_like_train, looks_like_validation, name_tokens
from faultlib.pyflow.walk import tree_fact, walk_once

__all__ = ["caller_validation", "validation_parameter"]

#: words of a name for testing, beside ``val``: such a parameter stays a held-out part
_TEST_WORDS = frozenset({"test", "tst", "te", "holdout", "heldout"})


def validation_parameter(name: str) -> bool:
    """``X_val``, ``val_loader``, ``y_valid``: a name for validation rows, with no word for testing or training."""
    return looks_like_validation(name) and looks_like_test(name) and not looks_like_train(name) and not any(
        t in _TEST_WORDS for t in name_tokens(name))


def _exported(tree: ast.AST) -> frozenset[int]:
    """The ids of the strings of ``__all__`` lists: names exported, not called."""
    return frozenset(id(c) for n in walk_once(tree) if isinstance(n, (ast.Assign, ast.AugAssign)) and any(
        isinstance(t, ast.Name) and t.id == "__all__" for t in (n.targets if isinstance(n, ast.Assign) else [n.target]))
        for c in ast.walk(n.value) if isinstance(c, ast.Constant))


def _used_names(tree: ast.AST) -> frozenset[str]:
    """Every name the program reads and every attribute it looks up (a call, a callback handed on, a name in a
    string: ``getattr(module, "train_lstm")``, a registry), ``__all__`` left out."""
    exported = _exported(tree)
    return frozenset(n.id for n in walk_once(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)) | \
        frozenset(n.attr for n in walk_once(tree) if isinstance(n, ast.Attribute)) | frozenset(
            n.value for n in walk_once(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(
                n) not in exported)


def caller_validation(tree: ast.AST, func: ast.FunctionDef | ast.AsyncFunctionDef | None, name: str) -> bool:
    """``name`` is a parameter of ``func`` named for validation (:func:`validation_parameter`), and nothing in
    ``tree`` calls or names ``func``: its validation part is its callers' (see the module docstring)."""
    if func is None or not validation_parameter(name):
        return False
    params = {a.arg for a in [*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs]}
    return name in params and func.name not in tree_fact(tree, _used_names)
