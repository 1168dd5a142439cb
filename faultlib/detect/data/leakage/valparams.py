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
out: :func:`caller_validation` answers only for a function no code of the program calls, and
:class:`ValidationScores` (``trained_on_test``) only for rows of such a parameter while the function runs on opaque
arguments.

At a call, the same design shows in the caller: a model fitted on the rows it then scores, those rows named for
validation (``calibrated.predict(combined_val)``), while the program scores another part, named for testing, with
its labels (``f1_score(y_test, ...)``). The validation score is the log of the validation step; the test part's is
the program's result, so :class:`ValidationScores` leaves that fit silent too (the same house rule; a program whose
only labelled held-out part is the validation one still reports it).
"""

from __future__ import annotations

import ast

from typing import Any

from faultlib.detect.data.leakage import vocab
from faultlib.detect.data.leakage.foldbodies import enclosing_function
from faultlib.detect.data.leakage.targets import call_name
from faultlib.detect.data.leakage.values import parts
from faultlib.detect.data.leakage.vocab import looks_like_test, looks_like_train, looks_like_validation, name_tokens
from faultlib.pyflow.walk import tree_fact, walk_once

__all__ = ["ValidationScores", "caller_validation", "scores_test_part", "validation_fit", "validation_parameter"]

#: words of a call that scores labelled rows (a metric, a report)
_SCORING = ("score", "_error", "_report", "_matrix", "accuracy", "f1", "auc", "precision", "recall", "evaluate")

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


def _root_name(node: ast.expr | None) -> str | None:
    while isinstance(node, (ast.Subscript, ast.Attribute, ast.Call)):
        node = node.func if isinstance(node, ast.Call) else node.value
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.attr in ("values", "iloc"):
            node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _scoring_call(call: ast.Call, helpers: frozenset[str]) -> bool:
    """A call named for scoring (a metric, a report), or a call of one of the program's own functions that score
    (``helpers``)."""
    name = call_name(call)
    return any(w in name.lower() for w in _SCORING) or name in helpers


def _scoring_helpers(tree: ast.AST) -> frozenset[str]:
    """The program's own functions whose body calls a metric (``def eval_split(name, y, p): return {"auc":
    roc_auc_score(y, p), ...}``): a call of one scores what it is handed, as the metric inside would."""
    return frozenset(f.name for f in walk_once(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)) and
                     any(isinstance(c, ast.Call) and _scoring_call(c, frozenset()) for c in ast.walk(f)))


def _test_part_scores(tree: ast.AST) -> tuple[int, ...]:
    """Lines of the calls named for scoring that are handed a part named for testing (``f1_score(y_test, pred)``,
    ``evaluate(model, X_test)``), not for validation; a call of the program's own scoring function counts
    (``eval_split("test", y_test, p_test)``, see :func:`_scoring_helpers`)."""
    out = []
    helpers = _scoring_helpers(tree)
    for n in walk_once(tree):
        if isinstance(n, ast.Call) and _scoring_call(n, helpers):
            names = {a.id for arg in [*n.args, *(k.value for k in n.keywords)] for a in ast.walk(arg)
                     if isinstance(a, ast.Name)}
            if any(looks_like_test(w) and not looks_like_validation(w) and not looks_like_train(w) for w in names):
                out.append(n.lineno)
    return tuple(out)


def scores_test_part(tree: ast.AST) -> bool:
    """The program scores a part named for testing somewhere (see :func:`_test_part_scores`)."""
    return bool(tree_fact(tree, _test_part_scores))


def validation_fit(tree: ast.AST, call: ast.Call) -> bool:
    """``m.fit(X_val, y_val)``: the rows and labels a fit is given are named for validation (none for testing), and
    either the program scores another part named for testing, or they are the validation-named parameters of a
    function no code of the program calls (see the module docstring)."""
    names = [_root_name(a) for a in call.args[:2]]
    held = [n for n in names if n is not None and looks_like_test(n)]
    if not held or not all(validation_parameter(n) for n in held):
        return False
    func = enclosing_function(tree, call.lineno)
    return scores_test_part(tree) or all(caller_validation(tree, func, n) for n in held)


class ValidationScores:
    """A mixin of :class:`~faultlib.detect.data.leakage.static.Analyzer`, ahead of the ``trained_on_test`` checks
    (:mod:`.scoring`, :mod:`.testlabels`): a model fitted and scored on a validation part (see the module docstring)
    is left silent; needs ``tree``."""

    def _call_opaque(self, func: Any) -> Any:
        args = func.node.args
        marks = self.__dict__.setdefault("_opaque_validation", set())
        marks.update((a.arg, func.node.lineno) for a in [*args.posonlyargs, *args.args]
                     if validation_parameter(a.arg))
        return super()._call_opaque(func)  # type: ignore[misc]

    def _estimator(self, est: Any, name: str, args: list[Any], kwargs: dict[str, Any], node: ast.Call,
                   frame: Any) -> Any:
        before = self.__dict__.get("_scored_arg")
        self._scored_arg = node.args[0] if name in vocab.EVALUATE and node.args else None
        try:
            return super()._estimator(est, name, args, kwargs, node, frame)  # type: ignore[misc]
        finally:
            self._scored_arg = before

    def _check_trained_on(self, fit: Any, x: Any, line: int, how: str) -> None:
        fitted = parts(fit.rows)
        marks = self.__dict__.get("_opaque_validation", set())
        if fitted and all((p.root.name, p.root.line) in marks for p in fitted):
            return  # the validation-named parameter of a function run on opaque arguments: its callers' part
        scored = _root_name(self.__dict__.get("_scored_arg"))
        if scored is not None and validation_parameter(scored) and set(fitted) == set(parts(x.rows)) and \
                scores_test_part(self.tree):  # type: ignore[attr-defined]
            return  # fitted and scored on the validation part while another, test-named, part is scored
        super()._check_trained_on(fit, x, line, how)  # type: ignore[misc]
