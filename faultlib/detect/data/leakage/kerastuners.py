"""A KerasTuner search scored on its ``validation_data``, for the static leakage analysis's ``tuned_on_test``.

KerasTuner's tuners (``Hyperband``, ``RandomSearch``, ``BayesianOptimization``, ``GridSearch``) build one model per
trial and train it with ``tuner.search(x, y, ..., validation_data=...)``; ``search`` "performs a search for best
hyperparameter configurations" and passes its keyword arguments to ``model.fit`` (KerasTuner API reference,
``Tuner.search``). Each trial is ranked by the tuner's ``objective``; an objective named for a validation metric
(``'val_loss'``, ``'val_accuracy'``, ``kt.Objective('val_auc', ...)``) is computed on ``validation_data``. The best
trial is then taken with ``get_best_hyperparameters()`` or ``get_best_models()``. When ``validation_data`` is the test
part of the script's split, the test rows chose the hyperparameters, as a loop keeping the best test score does
(:mod:`~faultlib.detect.data.leakage.choices`): the test score of the model built from them is optimistic (a wave-95
air-quality notebook tunes its LSTM's units with ``Hyperband(objective='val_loss')`` on ``(X_test, y_test)``).

:class:`KerasTunerSearches` recognises the call and hands it to
:meth:`~faultlib.detect.data.leakage.earlystop.EarlyStops._stopped_on`, which decides, as for a ``fit`` stopped early, whether the evaluation rows are the test part (reported) or a validation part, a fold or
the training rows themselves (silent). Silent here: a tuner whose objective is a training metric (``'loss'``,
``'accuracy'``: the validation rows are only logged), and a search whose best trial nothing takes.
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.pyflow.walk import walk_once

#: the tuners KerasTuner ships (``keras_tuner.tuners``), under their public names
TUNERS = frozenset({"Hyperband", "RandomSearch", "BayesianOptimization", "GridSearch"})
#: the packages: ``keras_tuner``, and ``kerastuner`` (its name before version 1.1)
PACKAGES = ("keras_tuner", "kerastuner")
#: the calls that take the best trial's result
BEST = frozenset({"get_best_hyperparameters", "get_best_models"})


def _dotted(node: ast.expr) -> str:
    if isinstance(node, ast.Attribute):
        inner = _dotted(node.value)
        return f"{inner}.{node.attr}" if inner else ""
    return node.id if isinstance(node, ast.Name) else ""


def _aliases(tree: ast.Module) -> tuple[set[str], set[str]]:
    """The names the module gives the KerasTuner package (``kt``) and its tuner classes (``Hyperband``)."""
    packages: set[str] = set()
    classes: set[str] = set()
    for node in walk_once(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] in PACKAGES:
                    packages.add(a.asname or a.name)
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] in PACKAGES:
            classes |= {a.asname or a.name for a in node.names if a.name in TUNERS}
            packages |= {a.asname or a.name for a in node.names if a.name == "tuners"}
    return packages, classes


def _tuner_call(value: ast.expr, packages: set[str], classes: set[str]) -> ast.Call | None:
    """``kt.Hyperband(...)``, ``keras_tuner.tuners.RandomSearch(...)``, ``Hyperband(...)`` imported from the package."""
    if not isinstance(value, ast.Call):
        return None
    name = _dotted(value.func)
    head, _, last = name.rpartition(".")
    if last in TUNERS and (head in packages or head.split(".")[0] in packages) or not head and last in classes:
        return value
    return None


def _validation_objective(call: ast.Call) -> str | None:
    """The tuner's objective when it is a validation metric (``'val_loss'``, ``Objective('val_auc', 'max')``)."""
    objective = next((k.value for k in call.keywords if k.arg == "objective"), call.args[1] if len(call.args) > 1
                     else None)
    if isinstance(objective, ast.Call) and objective.args:
        objective = objective.args[0]
    if isinstance(objective, ast.Constant) and isinstance(objective.value, str) and objective.value.startswith("val"):
        return objective.value
    return None


def tuner_search(node: ast.Call, tree: ast.Module, bindings: dict[str, list[ast.expr]]) -> str | None:
    """How ``node`` (``tuner.search(..., validation_data=...)``) chooses by its evaluation rows, in words, or ``None``
    (not a KerasTuner search, an objective on training metrics, or a best trial nothing takes)."""
    if not (isinstance(node.func, ast.Attribute) and node.func.attr == "search" and isinstance(node.func.value, ast.Name)
            and any(k.arg == "validation_data" for k in node.keywords)):
        return None
    name = node.func.value.id
    packages, classes = _aliases(tree)
    if not packages and not classes:
        return None
    built = [c for v in bindings.get(name, []) if (c := _tuner_call(v, packages, classes)) is not None]
    objective = next((o for c in built if (o := _validation_objective(c))), None)
    if objective is None:
        return None
    taken = any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in BEST
                and isinstance(n.func.value, ast.Name) and n.func.value.id == name for n in walk_once(tree))
    return f"the tuner's objective {objective!r} (its best trial is taken)" if taken else None


class KerasTunerSearches:
    """A mixin of :class:`~faultlib.detect.data.leakage.static.Analyzer` placed before
    :class:`~faultlib.detect.data.leakage.earlystop.EarlyStops`, whose ``_stopped_on`` it calls: ``tuner.search`` told
    the test rows is ``tuned_on_test`` (see the module docstring)."""

    def _method_value(self, receiver: Any, name: str, args: list[Any], kwargs: dict[str, Any], node: ast.Call,
                      frame: Any) -> Any:
        if name == "search" and "validation_data" in kwargs:
            how = tuner_search(node, self.tree, self._bindings)
            if how:
                self._stopped_on([kwargs.get("validation_data")], node, how,  # type: ignore[attr-defined]
                                 f"{ast.unparse(node.func.value)}.search", frame, args[0] if args else kwargs.get("x"))
        return super()._method_value(receiver, name, args, kwargs, node, frame)  # type: ignore[misc]

    tree: ast.Module
    _bindings: dict


__all__ = ["BEST", "PACKAGES", "TUNERS", "KerasTunerSearches", "tuner_search"]
