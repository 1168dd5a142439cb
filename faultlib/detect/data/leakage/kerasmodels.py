"""Keras models as models of the static leakage analysis.

A compiled Keras model is a predictor with the estimator contract's shape (keras.io, "The Model class" and "Model
training APIs"): ``Model.fit(x, y, validation_data=...)`` trains it on ``x``; ``Model.evaluate(x, y)`` "returns the
loss value & metrics values for the model in test mode" on those rows, a score as scikit-learn's ``score(X, y)``
is; ``predict(x)`` predicts. So ``Sequential(...)`` and the functional ``keras.Model(inputs, outputs)`` (from
``keras`` or ``tensorflow.keras``; a user's class named ``Model`` or PyTorch's ``nn.Sequential`` is none) make a
model the analysis tracks, and the rules for scikit-learn models apply: a loop that builds a candidate from its
variable (units, layers, learning rate, epochs) and keeps the best ``evaluate`` of the test rows is
``tuned_on_test`` (:mod:`.choices`); a model fitted on every row and evaluated on the test part is
``trained_on_test``. Early stopping on ``validation_data`` is :mod:`.earlystop`'s rule, which reads the call.

Keras' ``fit`` resumes from the weights the model has (keras.io: "fit ... trains the model for a fixed number of
epochs"; a second call goes on training): a loop that calls ``fit`` on a model built before it makes a new
candidate each pass (one more epoch), so a best kept by a test score in that loop is the best epoch on the test
rows, as early stopping on them is. A function the file defines that builds and returns a Keras model is a
constructor of candidates too (``model = build(units)`` in a loop).

TensorFlow 2's subclassing API writes the network as a class of the project (keras.io, "Making new layers and
models via subclassing": ``class Coder(keras.Model)`` defines ``__init__`` and ``call``, and inherits ``compile``,
``fit``, ``evaluate`` and ``predict`` from ``Model``). An instance of such a class (a base that is Keras' ``Model``
or ``Sequential``, or a project class that is one) is a Keras model too: without it ``coder.fit(X_train, X_train,
validation_data=(X_test, X_test), callbacks=[EarlyStopping(...)])`` was a call of a method the class does not
define, and the early stopping on the test windows went unseen (issue 17 wave 85: an LSTM autoencoder for sensor
anomalies in a ``tf.keras.Model`` subclass, imported by its training script).
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.data.leakage.values import Est
from faultlib.pyflow.values import Ref
from faultlib.pyflow.walk import walk_once

#: Keras model classes (keras.io: ``keras.Sequential``, ``keras.Model``; ``keras.models`` re-exports them)
MODELS = frozenset({"Sequential", "Model"})
#: modules a Keras model class is imported from (Keras 2/3, ``tf.keras``, the ``tf_keras`` package)
_MODULES = frozenset({"keras", "tensorflow", "tf", "tf_keras"})
#: Keras ``Model`` methods that score the rows given, by the scikit-learn method they stand for
METHODS = {"evaluate": "score", "evaluate_generator": "score", "predict_classes": "predict"}


def is_keras_model(name: str, module: str) -> bool:
    """``Sequential``/``Model`` imported from Keras (``keras.models``, ``tensorflow.keras``, ``tf.keras``)."""
    return name in MODELS and module.split(".")[0] in _MODULES


def keras_constructors(tree: ast.Module) -> frozenset[str]:
    """Callee names that build a Keras model: the names the file binds to Keras' model classes (an import, an
    alias) and the functions it defines that return a model built by one. For :func:`.choices.loop_facts`."""
    names = {a.asname or a.name for n in walk_once(tree) if isinstance(n, ast.ImportFrom) and n.module and
             n.module.split(".")[0] in _MODULES for a in n.names if a.name in MODELS}
    names |= {m for m in MODELS if any(isinstance(n, ast.Attribute) and n.attr == m and _keras_chain(n.value)
                                       for n in walk_once(tree))}  # keras.Sequential, tf.keras.models.Model
    if not names:
        return frozenset()
    for fn in (n for n in walk_once(tree) if isinstance(n, ast.FunctionDef)):
        built = {t.id for a in ast.walk(fn) if isinstance(a, ast.Assign) and isinstance(a.value, ast.Call) and
                 _callee(a.value) in names for t in a.targets if isinstance(t, ast.Name)}
        if any(isinstance(r, ast.Return) and r.value is not None and (
                isinstance(r.value, ast.Name) and r.value.id in built or
                isinstance(r.value, ast.Call) and _callee(r.value) in names) for r in ast.walk(fn)):
            names.add(fn.name)
    return frozenset(names)


def keras_loops(facts: list, tree: ast.Module, constructors: frozenset[str]) -> list:
    """``facts`` (:class:`.choices.LoopFacts`) with the loops that train a Keras model built before them one more
    epoch per pass marked as varying a candidate (see the module docstring)."""
    if not constructors:
        return facts
    epochs = _epoch_loops(tree, constructors)
    for f in facts:
        f.varies = f.varies or f.start in epochs
    return facts


def _epoch_loops(tree: ast.Module, constructors: frozenset[str]) -> set[int]:
    models = {t.id for a in walk_once(tree) if isinstance(a, ast.Assign) and isinstance(a.value, ast.Call) and
              _callee(a.value) in constructors for t in a.targets if isinstance(t, ast.Name)}
    return {loop.lineno for loop in walk_once(tree) if isinstance(loop, ast.For) and any(
        isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute) and c.func.attr == "fit" and
        isinstance(c.func.value, ast.Name) and c.func.value.id in models and not _built_in(loop, c.func.value.id)
        for c in ast.walk(loop))}


def _built_in(loop: ast.For, name: str) -> bool:
    return any(isinstance(a, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in a.targets)
               for a in ast.walk(loop))


def _keras_chain(node: ast.expr) -> bool:
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name) and node.id in _MODULES | {"models"}


def _callee(call: ast.Call) -> str:
    f = call.func
    return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""


class KerasModels:
    """A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer` (see the module docstring)."""

    def _class(self, node: ast.ClassDef, frame: Any) -> Any:
        cls = super()._class(node, frame)  # type: ignore[misc]
        keras = self.__dict__.setdefault("_keras_classes", set())
        for base in node.bases:
            value = self._expr(base, frame)  # type: ignore[attr-defined]
            if isinstance(value, Ref) and is_keras_model(value.last, value.module) or id(value) in keras:
                keras.add(id(cls))  # class Coder(tf.keras.Model), or a subclass of such a project class
                break
        return cls

    def _class_value(self, cls: Any) -> Any:
        if id(cls) in self.__dict__.get("_keras_classes", ()):
            return Est(cls.node.name, "model", options={"keras": True})
        return super()._class_value(cls)  # type: ignore[misc]

    def _library(self, ref: Ref, args: list[Any], kwargs: dict[str, Any], node: ast.Call, frame: Any) -> Any:
        out = super()._library(ref, args, kwargs, node, frame)  # type: ignore[misc]
        if is_keras_model(ref.last, ref.module) and not isinstance(out, Est):
            return Est(ref.last, "model")
        return out

    def _estimator(self, est: Est, name: str, args: list[Any], kwargs: dict[str, Any], node: ast.Call,
                   frame: Any) -> Any:
        if (est.cls in MODELS or est.options.get("keras")) and name in METHODS:
            name = METHODS[name]  # model.evaluate(X_test, y_test): a score of those rows
        return super()._estimator(est, name, args, kwargs, node, frame)  # type: ignore[misc]


__all__ = ["KerasModels", "METHODS", "MODELS", "is_keras_model", "keras_constructors", "keras_loops"]
