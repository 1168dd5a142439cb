"""Statistics of a table of scored rows -- each row's label beside the model's prediction for it -- for the static
leakage analysis: an evaluation report, not a fit.

After a model has predicted the held-out rows, marketing and risk projects summarise the result in a table of their
own: a lift chart (the predictions cut into deciles, the conversion rate of each decile over the baseline rate of all
the scored rows), a calibration or interval-coverage table, a tier summary of predicted against realised value::

    def lift_by_decile(y_true, y_pred):
        df = pd.DataFrame({"y_true": y_true, "y_pred": y_pred})
        df["decile"] = pd.qcut(df["y_pred"], 10, labels=False)       # edges of the predictions
        baseline = df["y_true"].mean()                                 # the scored rows' base rate
        return df.groupby("decile").agg({"y_true": "mean"}) / baseline

    scored = pd.concat([test[["customer_id", TARGET]], predictions], axis=1)
    scored.groupby("predicted_decile").agg(realised=(TARGET, "mean"))

These quantiles, means and per-group aggregates are computed over the test rows, but their inputs are the label and
the model's output for those rows, never a feature: a cumulative gains / lift table is a metric of the ranking the
model produced (Ling & Li, "Data mining for direct marketing: problems and solutions", KDD 1998, lift analysis;
Provost & Fawcett, *Data Science for Business*, 2013, ch. 8, "Visualizing model performance": profit, lift and
cumulative response curves are computed from the scored test set), exactly as a reliability diagram bins the
predicted probabilities of the test rows (Niculescu-Mizil & Caruana, "Predicting good probabilities with supervised
learning", ICML 2005). A table holding a label column can be no model's input without putting the answer in the
features, so nothing fitted on it shapes a feature the model is scored on. The house reads them as reports (issue 17,
wave 98: nine lift/coverage/tier tables of a lead-scoring and a CLV project judged false ``fit_on_test`` alarms), as it
reads statistics of residuals (:mod:`.residualstats`) and averages of prediction buffers (:mod:`.predbuffers`).

What the program must show, syntactically (:func:`scored_statistics`), for a statistic call to be left unfitted:
its receiver or first argument is a **scored table** (or a column, row selection, rank or comparison of one), that is

* ``pd.DataFrame({...})`` whose every value is a label or a prediction, with at least one of each; or
  ``pd.concat([...], axis=1)`` of such parts: a selection of the label column with key columns only
  (``test[["customer_id", "snapshot_date", TARGET]]``: ids and dates, no feature) and the model's output;
* a name every binding of which in its scope is a scored table (``frame = scored.copy()``,
  ``scored = scored.reset_index(drop=True)``), or a parameter every call in the program fills with one, or a
  parameter the program itself names for scored rows (``def tier_summary(scored_holdout)``, a helper of a module
  whose callers are elsewhere); a local name is judged by what it is bound to, never by its name alone.

A *label* is a name for the target that is no prediction (``y_true``, ``y_test``: :func:`.targets.label_like`) or a
read of a target column (one the script uses as ``y``, or the value of a constant named for it:
``TARGET_COLUMN = "margin_180d"``); a *prediction* is a model's output (:func:`.predbuffers.is_prediction`), a name
for one (``y_pred``, ``preds``, ``test_predictions``, ``y_prob``), the result of a function named for predicting
(``predict(bundle, test)``) or of a call on a prediction (``apply_policy(test_predictions, cfg)``). A table of
predictions without labels (a stacker's input) and any table with a feature column stay statistics of the rows.

A report only describes the scored rows: a statistic of them whose output is learnt from is part of a model
(:mod:`.fitinputs`). Quantile buckets of the validation predictions, each with a Platt layer fitted on its rows
(histogram binning, Zadrozny & Elkan, ICML 2001), make the bucket edges parameters of a calibrator scored on those
very rows, so a call whose output reaches a ``fit`` stays a statistic of the rows (issue 17, wave 89's
``pd.qcut(cal_df["p"])`` feeding ``cal_df.groupby("bucket")``'s per-bucket ``LogisticRegression``).
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.data.leakage import vocab
from faultlib.detect.data.leakage.fitinputs import reaches_fit
from faultlib.detect.data.leakage.predbuffers import is_prediction
from faultlib.detect.data.leakage.targets import call_name, label_like
from faultlib.pyflow.walk import walk_once

#: name tokens of a model's output for each row
_PREDICTION_WORDS = frozenset({"pred", "preds", "predicted", "prediction", "predictions", "proba", "probas", "prob",
                               "probs", "probability", "probabilities", "yhat"})
#: name tokens of a table of rows a model has scored (its predictions written beside each row)
_SCORED_WORDS = frozenset({"scored"})
#: methods that keep a value what it is (a column read out, reshaped, copied, reindexed, ranked)
_KEEPS = frozenset({"values", "to_numpy", "ravel", "flatten", "reshape", "copy", "astype", "reset_index", "squeeze",
                    "tolist", "to_list"})
#: methods that bring another table's columns in: their result is no longer the scored table alone
_BRINGS = frozenset({"merge", "join", "combine_first", "update", "append", "concat", "assign"})
_Scope = ast.Module | ast.FunctionDef | ast.AsyncFunctionDef


def _words(name: str) -> set[str]:
    return set(vocab.name_tokens(name))


def _prediction_name(name: str) -> bool:
    low = name.lower()
    return bool(_words(name) & _PREDICTION_WORDS) or low in ("y_score", "y_scores", "y_hat", "yhat")


def _unwrap(node: ast.expr) -> ast.expr:
    """``y.values``, ``y.to_numpy().ravel()``, ``np.asarray(y)``, ``y[:, 1]``: the value underneath."""
    while True:
        if isinstance(node, ast.Attribute) and node.attr in _KEEPS:
            node = node.value
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _KEEPS:
            node = node.func.value
        elif isinstance(node, ast.Call) and call_name(node) in ("array", "asarray", "Series") and node.args:
            node = node.args[0]
        else:
            return node


class _Program:
    """The label words, the functions and the scored parameters of one module."""

    def __init__(self, tree: ast.Module, targets: set) -> None:
        self.tree = tree
        self.labels = {t for t in targets if isinstance(t, str)}
        self.functions: dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]] = {}
        for node in walk_once(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.functions.setdefault(node.name, []).append(node)
            elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                    and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str) and \
                    label_like(node.targets[0].id):
                self.labels.add(node.value.value)  # TARGET_COLUMN = "margin_180d": the target's column
        self.params: dict[int, set[str]] = {}
        self.predicted: dict[int, set[str]] = {}
        self._resolving: set[tuple[str, str]] = set()

    # ------------------------------------------------------------------ what an expression is

    def prediction(self, node: ast.expr, scope: dict[str, list[ast.expr]], depth: int = 0) -> bool:
        if depth > 8:
            return False
        if is_prediction(node):
            return True
        node = _unwrap(node)
        while isinstance(node, ast.Subscript):
            node = node.value  # preds[:, 1]
        if isinstance(node, ast.Name):
            return _prediction_name(node.id) or self._every_binding(node.id, scope, self.prediction, depth)
        if isinstance(node, ast.Call):
            if "predict" in call_name(node).lower():  # predict(bundle, test): a function named for predicting
                return True
            return bool(node.args) and self.prediction(node.args[0], scope, depth + 1)  # apply_policy(preds, cfg)
        return False

    def _every_binding(self, name: str, scope: dict[str, list[ast.expr]], test: Any, depth: int) -> bool:
        """Every binding of ``name`` passes ``test``; a rebinding from the name itself (``scored =
        scored.reset_index(drop=True)``) is judged with the name taken as passing, and at least one binding must
        not read the name."""
        values = scope.get(name) or []
        key = (name, test.__name__)
        if key in self._resolving:
            return True  # (inside a rebinding from itself: as its other bindings are)
        if not values or all(_reads(v, name) for v in values):
            return False
        self._resolving.add(key)
        try:
            return all(test(v, scope, depth + 1) for v in values)
        finally:
            self._resolving.discard(key)

    def _label_key(self, key: ast.expr) -> bool:
        return isinstance(key, ast.Constant) and key.value in self.labels or \
            isinstance(key, ast.Name) and label_like(key.id) and not _prediction_name(key.id)

    @staticmethod
    def _key_column(key: ast.expr) -> bool:
        return isinstance(key, ast.Constant) and isinstance(key.value, str) and bool(
            vocab.ID_COLUMN.search(key.value) or vocab.ENTITY_COLUMN.search(key.value) or
            vocab.DATE_COLUMN.search(key.value))

    def label(self, node: ast.expr, scope: dict[str, list[ast.expr]]) -> bool:
        node = _unwrap(node)
        if isinstance(node, ast.Name):  # the program's word for its target, unless bound to a prediction
            return label_like(node.id) and not _prediction_name(node.id) and not any(
                self.prediction(v, scope) for v in scope.get(node.id, []))
        if isinstance(node, ast.Subscript):
            key = node.slice
            if isinstance(key, ast.List):  # test[["customer_id", TARGET]]: keys and the label, no feature
                return any(self._label_key(k) for k in key.elts) and all(
                    self._label_key(k) or self._key_column(k) for k in key.elts)
            return self._label_key(key)
        if isinstance(node, ast.Attribute):
            return node.attr in self.labels
        return False

    def built(self, node: ast.expr, scope: dict[str, list[ast.expr]]) -> bool:
        """A scored table made here: a dict of labels and predictions, or labels and predictions side by side."""
        if not isinstance(node, ast.Call):
            return False
        name = call_name(node)
        if name == "DataFrame" and node.args and isinstance(node.args[0], ast.Dict):
            items = node.args[0].values
        elif name == "concat" and node.args and isinstance(node.args[0], (ast.List, ast.Tuple)) and any(
                k.arg == "axis" and isinstance(k.value, ast.Constant) and k.value.value in (1, "columns")
                for k in node.keywords):
            items = node.args[0].elts
        else:
            return False
        kinds = ["p" if self.prediction(v, scope) else "l" if self.label(v, scope) else None for v in items]
        return "p" in kinds and "l" in kinds and None not in kinds

    def scored(self, node: ast.expr, scope: dict[str, list[ast.expr]], depth: int = 0) -> bool:
        """``node`` is a scored table or is computed from one alone (a column, a rank, a comparison, a group)."""
        if depth > 12:
            return False
        if isinstance(node, ast.Name):
            if not scope.get(node.id):  # a parameter no call fills with a scored table: the program's word decides
                return bool(_words(node.id) & _SCORED_WORDS)
            return self._every_binding(node.id, scope, self.scored, depth)
        if isinstance(node, (ast.Subscript, ast.Attribute)):
            return self.scored(node.value, scope, depth + 1)
        if isinstance(node, ast.Call):
            if self.built(node, scope):
                return True
            if isinstance(node.func, ast.Attribute) and node.func.attr not in _BRINGS:
                return self.scored(node.func.value, scope, depth + 1)
            return False
        if isinstance(node, ast.BinOp):
            return all(self.scored(s, scope, depth + 1) or isinstance(s, ast.Constant) for s in (node.left, node.right)) \
                and not (isinstance(node.left, ast.Constant) and isinstance(node.right, ast.Constant))
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            return any(self.scored(s, scope, depth + 1) for s in sides) and all(
                self.scored(s, scope, depth + 1) or isinstance(s, ast.Constant) for s in sides)
        if isinstance(node, ast.BoolOp):
            return all(self.scored(v, scope, depth + 1) for v in node.values)
        return False

    # ------------------------------------------------------------------ scopes

    def bindings(self, scope: _Scope) -> dict[str, list[ast.expr]]:
        """Every value bound to each plain name in ``scope`` (not in nested functions); a name bound by unpacking,
        a loop or a ``with`` is bound to something unknown (an empty name node, never scored)."""
        out: dict[str, list[ast.expr]] = {}
        if not isinstance(scope, ast.Module):
            for a in [*scope.args.posonlyargs, *scope.args.args, *scope.args.kwonlyargs]:
                if a.arg in self.params.get(id(scope), ()):
                    out.setdefault(a.arg, []).append(ast.Name(id="__scored__", ctx=ast.Load()))
                elif a.arg in self.predicted.get(id(scope), ()):
                    out.setdefault(a.arg, []).append(ast.Name(id="__pred__", ctx=ast.Load()))
        unknown = ast.Constant(value=None)
        for node in _own_nodes(scope):
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    if isinstance(target, ast.Name):
                        out.setdefault(target.id, []).append(node.value)
                    elif isinstance(target, (ast.Tuple, ast.List)):
                        for n in ast.walk(target):
                            if isinstance(n, ast.Name):
                                out.setdefault(n.id, []).append(unknown)
            elif isinstance(node, (ast.For, ast.AsyncFor, ast.AugAssign, ast.comprehension)):
                for n in ast.walk(node.target):
                    if isinstance(n, ast.Name):
                        out.setdefault(n.id, []).append(unknown)
            elif isinstance(node, ast.withitem) and node.optional_vars is not None:
                for n in ast.walk(node.optional_vars):
                    if isinstance(n, ast.Name):
                        out.setdefault(n.id, []).append(unknown)
        return out

    def scopes(self) -> list[_Scope]:
        return [self.tree, *(f for fs in self.functions.values() for f in fs)]

    def infer_parameters(self) -> None:
        """Parameters every call in the program fills with a scored table (or with a prediction), to a fixpoint."""
        for _ in range(4):
            passed: dict[tuple[int, str], list[tuple[bool, bool]]] = {}
            for scope in self.scopes():
                names = self.bindings(scope)
                for call in _own_nodes(scope):
                    if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Name):
                        continue
                    for fn in self.functions.get(call.func.id, []):
                        params = [a.arg for a in [*fn.args.posonlyargs, *fn.args.args]]
                        pairs = list(zip(params, call.args)) + [(k.arg, k.value) for k in call.keywords if k.arg]
                        for param, arg in pairs:
                            passed.setdefault((id(fn), param), []).append(
                                (self.scored(arg, names), self.prediction(arg, names)))
            params: dict[int, set[str]] = {}
            predicted: dict[int, set[str]] = {}
            for (fn, param), seen in passed.items():
                if all(s for s, _ in seen):
                    params.setdefault(fn, set()).add(param)
                if all(p for _, p in seen):
                    predicted.setdefault(fn, set()).add(param)
            if params == self.params and predicted == self.predicted:
                return
            self.params, self.predicted = params, predicted


def _reads(value: ast.expr, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(value))


def _own_nodes(scope: _Scope) -> list[ast.AST]:
    """The nodes of ``scope``'s body, not those of functions or classes defined in it (or of lambdas)."""
    out: list[ast.AST] = []
    stack: list[ast.AST] = list(scope.body)
    while stack:
        node = stack.pop()
        out.append(node)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        stack.extend(ast.iter_child_nodes(node))
    return out


def scored_statistics(tree: ast.Module, targets: set) -> frozenset[int]:
    """Ids of the calls of ``tree`` whose receiver or first argument is a scored table or computed from one alone
    (see the module docstring), and whose output reaches no fit (:func:`.fitinputs.reaches_fit`); ``targets``: the
    columns the script uses as ``y`` (:func:`.targets.target_columns`)."""
    program = _Program(tree, targets)
    program.infer_parameters()
    out: set[int] = set()
    for scope in program.scopes():
        names = program.bindings(scope)
        for node in _own_nodes(scope):
            if not isinstance(node, ast.Call):
                continue
            receiver = node.func.value if isinstance(node.func, ast.Attribute) else None
            if (receiver is not None and program.scored(receiver, names) or node.args and program.scored(
                    node.args[0], names)) and not reaches_fit(tree, node):
                out.add(id(node))
    return frozenset(out)


__all__ = ["scored_statistics"]
