"""Every input array a project's own model class is handed, for the static leakage analysis.

A class of the project with ``fit`` and ``predict`` is a model (the scikit-learn estimator contract a hand-written
network follows: :meth:`.static.Analyzer._class_value`), and the analysis reads a call of its ``fit`` as scikit-learn's
``fit(X, y)``: the first argument is the rows it learns from. A network written by hand often takes its inputs as
several arrays, one per input branch, before the labels (a TensorFlow 1 graph fed through ``sess.run(feed_dict=...)``;
a multi-input network's ``fit(user_idx, user_val, course_idx, course_val, act_idx, act_val, y_train, ...)``), so
the arrays after the first went unseen: features computed from a stack of the training and test tables (per-user
means over ``pd.concat([train, test])``) reached the model only through the sixth argument, and the statistic was
never reported (issue 17 wave 103: a MOOC drop-out network whose ``fit`` takes three index/value pairs).

The method's own signature says what each argument is (Python language reference, 6.3.4 "Calls": positional
arguments fill the parameters in order, keywords by name): every data argument the call binds to a parameter that
is not named for labels (``y``, ``y_train``, ``labels``, ``target``, ``truth``; a statistic of the labels is no
input) reaches the model, in ``fit``, ``predict`` or any other method of the class (an ``evaluate`` of its own).
Only methods with two such parameters at least are read here; a ``fit(X, y)`` keeps the estimator reading.
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.data.leakage import vocab
from faultlib.detect.data.leakage.values import Est, maybe_data

#: name tokens of a parameter that takes labels, not inputs
_LABEL_TOKENS = frozenset({"y", "label", "labels", "target", "targets", "truth", "gt"})


def label_parameter(name: str) -> bool:
    """``y``, ``y_train``, ``yb``, ``train_labels``, ``target``: a parameter named for the labels."""
    tokens = vocab.name_tokens(name)
    return any(t in _LABEL_TOKENS for t in tokens) or bool(tokens) and tokens[0][:1] == "y" and len(tokens[0]) <= 3


def input_arguments(method: ast.FunctionDef, args: list[Any], kwargs: dict[str, Any]) -> list[Any]:
    """The values of a call of ``method`` on an instance (``args`` by position, ``kwargs`` by name, as evaluated)
    bound to its parameters not named for labels, when there are two such parameters at least; else none."""
    params = [a.arg for a in method.args.posonlyargs + method.args.args][1:]  # self aside
    inputs = [p for p in params if not label_parameter(p)]
    if len(inputs) < 2:
        return []
    bound = {**dict(zip(params, args)), **{k: v for k, v in kwargs.items() if k in params}}
    return [bound[p] for p in inputs if p in bound]


class OwnModels:
    """A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer` (see the module docstring); place it after
    the mixins that give a class another meaning (:class:`.kerasmodels.KerasModels`)."""

    def _class_value(self, cls: Any) -> Any:
        self.__dict__.setdefault("_own_classes", {})[cls.node.name] = cls.methods
        return super()._class_value(cls)  # type: ignore[misc]

    def _estimator(self, est: Est, name: str, args: list[Any], kwargs: dict[str, Any], node: ast.Call,
                   frame: Any) -> Any:
        methods = self.__dict__.get("_own_classes", {}).get(est.cls) if est.category == "model" else None
        method = getattr(methods.get(name), "node", None) if methods else None
        if isinstance(method, ast.FunctionDef) and not est.options.get("keras"):
            if not any(isinstance(a, ast.Starred) for a in node.args):  # (positions unknown after a *list)
                values = input_arguments(method, args, kwargs)
                self._reach(*(v for v in values if maybe_data(v) is not None))  # type: ignore[attr-defined]
        return super()._estimator(est, name, args, kwargs, node, frame)  # type: ignore[misc]


__all__ = ["OwnModels", "input_arguments", "label_parameter"]
