"""Models known only by how the script uses them (duck typing), for the static leakage analysis.

A class the analysis cannot see (imported from the course's own module, ``from pegasos import *``; defined in a
cell that does not parse, a template left for the student) is an unknown callable: its instances are unknown
values, and their ``fit``/``score`` say nothing. scikit-learn's estimator contract says what they are when the
script uses them as one (scikit-learn developer guide, "Rolling your own estimator": ``fit(X, y)`` learns from
the rows and labels, ``predict(X)`` and ``score(X, y)`` evaluate): an instance that is fitted with labels
(``m.fit(X, y)``, ``fit(X, y=...)``) and then predicts or is scored (``predict``, ``predict_proba``,
``predict_log_proba``, ``decision_function``, ``score``) is a supervised model.

A transformer is fitted with labels too (a selector, a target encoder): an instance that is ever asked to
``transform`` (or ``fit_transform``/``fit_resample``) is left unknown, and so is one fitted without labels
(``fit(df)``: a Prophet or a clusterer's contract, not a classifier's). The decision is per class: every variable
the script binds to ``C(...)`` is looked at, and one that transforms makes ``C`` no model. A class the analysis
knows (its own vocabulary, a class defined in the file) keeps its known meaning.

Beside :mod:`.byuse`, which decides classes of a KNOWN estimator library the table lacks while the script runs
(a model until it transforms): here the class resolves to nothing the analysis knows, so nothing says it is an
estimator at all, and the loop rule (``choices.loop_facts``) needs the answer before the script is interpreted;
hence a scan of the whole file first. (One mechanism for both is possible: next step, not done here.)
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.data.leakage import vocab
from faultlib.detect.data.leakage.values import Est
from faultlib.pyflow.values import Ref
from faultlib.pyflow.walk import children, tree_fact, walk_once

#: methods of the estimator contract that only a model has (scikit-learn developer guide, "Estimators")
_PREDICTS = frozenset({"predict", "predict_proba", "predict_log_proba", "decision_function", "score"})
#: methods that make an instance a transformer or a sampler
_TRANSFORMS = frozenset({"transform", "fit_transform", "fit_resample", "inverse_transform"})


def _callee(call: ast.Call) -> str | None:
    """``Pegasos`` of ``Pegasos(...)``, ``models.Pegasos`` of ``models.Pegasos(...)``; ``None`` for anything else."""
    root = call.func
    while isinstance(root, ast.Attribute):
        root = root.value
    return ast.unparse(call.func) if isinstance(root, ast.Name) else None


def _known(ref: Ref) -> bool:
    """A class the analysis already gives a meaning (a model, search, transformer, splitter or pipeline), or
    anything of an estimator library it reads (``xgboost.train``, ``lightgbm.train``: a booster's training
    function that :mod:`.earlystop` and :mod:`.byuse` decide, not an unseen class; wave 76: ``model =
    xgb.train(..., evals=[(dtest, 'test')], early_stopping_rounds=10)`` went silent once a later cell bound
    ``model`` to a Keras network that is fitted and scored)."""
    name = ref.last
    return vocab.is_model(name, ref.module) or vocab.is_search(name) or vocab.is_preprocessing(name) or \
        name in vocab.STATELESS or name in vocab.SPLITTERS or name in vocab.PIPELINES or \
        ref.module.split(".")[0] in vocab.ESTIMATOR_MODULES


def _labelled_fit(call: ast.Call) -> bool:
    return len(call.args) >= 2 or any(k.arg == "y" for k in call.keywords)


def _scoped_nodes(tree: ast.Module):
    """``(scope, node)`` for every node: ``scope`` is the innermost function holding it (``None`` at module level),
    so a variable ``model`` of one function is not the ``model`` of another."""
    stack: list[tuple[ast.AST, ast.AST | None]] = [(tree, None)]
    while stack:
        node, scope = stack.pop()
        yield scope, node
        inner = node if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) else scope
        stack.extend((child, inner) for child in children(node))  # ast.iter_child_nodes' list, at less cost


def duck_models(tree: ast.Module) -> frozenset[str]:
    """The callee texts (``Pegasos``, ``models.Pegasos``) whose instances the script fits with labels and then
    predicts with or scores, and never transforms with (see the module docstring). A function or class the file
    defines is no unseen class: the analysis reads its body (``model = random_forest(X, y, depth)`` returns what the
    body builds). Computed once per tree (:func:`~faultlib.pyflow.walk.tree_fact`): the analyzer's set-up and
    :class:`DuckModels` both ask."""
    return tree_fact(tree, _duck_models)


def _duck_models(tree: ast.Module) -> frozenset[str]:
    defined = {n.name for n in walk_once(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    nodes = list(_scoped_nodes(tree))
    made: dict[tuple[int, str], set[str]] = {}  # (scope, variable) -> callees it is bound to
    for scope, n in nodes:
        if isinstance(n, ast.Assign) and isinstance(n.value, ast.Call) and _callee(n.value):
            for t in n.targets:
                if isinstance(t, ast.Name):
                    made.setdefault((id(scope), t.id), set()).add(_callee(n.value))  # type: ignore[arg-type]
    used: dict[tuple[int, str], set[str]] = {}  # (scope, variable) -> methods called on it ("fit" only with labels)
    for scope, n in nodes:
        if not (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)):
            continue
        receiver, method = n.func.value, n.func.attr
        if method == "fit" and not _labelled_fit(n):
            method = "fit()"
        if isinstance(receiver, ast.Name):
            used.setdefault((id(scope), receiver.id), set()).add(method)
        elif isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Attribute) and \
                receiver.func.attr == "fit" and _labelled_fit(receiver) and isinstance(receiver.func.value, ast.Call):
            callee = _callee(receiver.func.value)  # C(...).fit(X, y).predict(X_test)
            if callee:
                made.setdefault((id(receiver), f"<chain {callee}>"), set()).add(callee)
                used.setdefault((id(receiver), f"<chain {callee}>"), set()).update({"fit", method})
    models: set[str] = set()
    spoiled: set[str] = set()
    for var, callees in made.items():
        methods = used.get(var, set())
        if methods & _TRANSFORMS or "fit()" in methods:
            spoiled |= callees
        elif "fit" in methods and methods & _PREDICTS:
            models |= callees
    return frozenset(c for c in models - spoiled if c.split(".", 1)[0] not in defined)


class DuckModels:
    """A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer`: ``C(...)`` of an unknown class ``C`` in
    :func:`duck_models` is a supervised model (needs ``tree``, ``_expr`` and ``_args``)."""

    def _call(self, node: ast.Call, frame: Any) -> Any:
        if not hasattr(self, "_ducks"):
            self._ducks = duck_models(self.tree)
        callee = _callee(node) if self._ducks else None
        if callee in self._ducks:
            func = self._expr(node.func, frame)
            if isinstance(func, Ref) and not _known(func):
                self._args(node, frame)  # what the constructor reads is still evaluated (a data argument reaches)
                return Est(func.last, "model", supervised=True)
        return super()._call(node, frame)  # type: ignore[misc]


__all__ = ["DuckModels", "duck_models"]
