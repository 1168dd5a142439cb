"""Scores of held-out rows that belong to another model, for :mod:`.stopscores`: not the reported test score of an
early-stopped training.

:meth:`.stopscores.StopScores.rescored` stays silent when a script scores "another held-out part" besides the rows
its early stopping watched: that later score is then the reported one, and the stopping rows were a validation
set (the intended practice). A score counts as such only when it can measure the stopped model. Two kinds of
scores in a program (a script with the helper modules it imports, read as one) cannot:

* a score in a method of a **training callback** class (a subclass of Keras' ``Callback`` or XGBoost's
  ``TrainingCallback``: ``def on_epoch_end(self, epoch, logs): logs['auc_val'] = roc_auc_score(self.y_val, ...)``).
  The training loop calls it once per epoch to monitor the rows it was given (Keras API reference, "Callbacks API":
  "a callback is an object that can perform actions at various stages of training"); it is the per-epoch signal
  an early stopping may watch, never the result a script reports after training;
* a score in **another function that trains its own model** on rows it cuts itself (a stacking class's
  ``fit_predict`` scoring its out-of-fold predictions, a feature-bagging method scoring its own validation part):
  the held-out rows it scores are local to that function (assigned there, no parameter, no module variable), so
  they are that experiment's rows and its score is that model's.

:func:`other_model_score` tells whether a score is of either kind; a score in the stopped training's own function,
at the module level, or in a function scoring rows it was given (``evaluate(model, X_test, y_test)``) still counts.
"""

from __future__ import annotations

import ast

from faultlib.detect.data.leakage.linescopes import LineScopes
from faultlib.detect.data.leakage.targets import call_name
from faultlib.pyflow.walk import scope_nodes, walk, walk_once

#: calls that train a model (or cross-validate one, which trains it per fold)
_TRAINS = frozenset({"fit", "train", "fit_generator", "cross_val_score", "cross_validate", "cross_val_predict"})
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def _base_name(base: ast.expr) -> str:
    return base.attr if isinstance(base, ast.Attribute) else base.id if isinstance(base, ast.Name) else ""


def _assigned(nodes: list[ast.AST]) -> set[str]:
    """The names the statements among ``nodes`` bind (assignment and loop targets, ``with ... as``)."""
    out: set[str] = set()
    for node in nodes:
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For, ast.AsyncFor)):
            targets = [node.target]
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            targets = [node.optional_vars]
        out |= {n.id for t in targets for n in walk(t) if isinstance(n, ast.Name)}
    return out


class OtherScores:
    """One module's training-callback methods and self-training functions, read once (syntax only).

    Args:
        tree: the parsed module (a program's scripts joined).
        scopes: the module's :class:`~.linescopes.LineScopes`.
    """

    def __init__(self, tree: ast.Module, scopes: LineScopes):
        self._scopes = scopes
        self._callback_methods: set[int] = set()
        for node in walk_once(tree):
            if isinstance(node, ast.ClassDef) and any(_base_name(b).endswith("Callback") for b in node.bases):
                self._callback_methods |= {id(f) for f in node.body if isinstance(f, _FUNCTIONS)}
        self._trains: dict[int, set[str] | None] = {}  # id(function) -> its own assigned names when it trains

    def _training_locals(self, fn: ast.AST) -> set[str] | None:
        """The names ``fn`` binds itself when its own body trains a model, else ``None``."""
        if id(fn) not in self._trains:
            nodes = scope_nodes(fn)
            trains = any(isinstance(n, ast.Call) and call_name(n) in _TRAINS for n in nodes)
            self._trains[id(fn)] = _assigned(nodes) if trains else None
        return self._trains[id(fn)]

    def other_model_score(self, line: int, call: ast.Call, held_out: set[str]) -> bool:
        """The score on ``line``, which reads the held-out rows ``held_out`` (names), is another model's (see the
        module docstring), not a score of the model ``call`` trains."""
        fn = self._scopes.at(line)
        if fn is None or fn.lineno <= call.lineno <= (getattr(fn, "end_lineno", None) or fn.lineno):
            return False  # the module level, or the training call's own function
        if id(fn) in self._callback_methods:
            return True
        own = self._training_locals(fn)
        return own is not None and bool(held_out) and held_out <= own


__all__ = ["OtherScores"]
