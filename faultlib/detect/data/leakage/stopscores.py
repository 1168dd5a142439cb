"""The rows an early stopping watched, scored again as the script's result: which scores a training call's stopping
rows get after it, and whether the script scores any other held-out rows (``tuned_on_test`` in :mod:`.earlystop`).

Early stopping keeps the number of rounds or epochs (or the weights) that scored best on its evaluation rows
(LightGBM/XGBoost/CatBoost ``early_stopping_rounds``, Keras ``EarlyStopping(restore_best_weights=True)``, see
:mod:`.earlystop`). When the script then scores **those same rows** and that is its result::

    for tr, va in KFold(5).split(X):
        model.fit(X[tr], y[tr], eval_set=[(X[va], y[va])], early_stopping_rounds=50)
        scores.append(roc_auc_score(y[va], model.predict_proba(X[va])[:, 1]))   # the fold's reported score

the reported number is the best of many looks at the rows it is measured on: the stopping point is a
hyperparameter chosen on them, and its score is a selection score, optimistically biased (Cawley & Talbot, JMLR 11,
2010, "On over-fitting in model selection and subsequent selection bias in performance evaluation", section 5: the
criterion used to choose must not be the one reported). It holds for a validation part named so (``X_val``) and for a
cross-validation fold alike; it does not hold when the script scores another held-out part (``X_test``) as well:
that later score is the reported one and the stopping rows were a validation set, the intended practice.

:class:`StopScores` reads the module once (syntax only):

* :meth:`StopScores.stop_rows`: the stopping rows of a call's evaluation-set argument as short texts (``X_val``,
  ``X[va]``; through a data holder: ``dvalid = lgb.Dataset(X_val, label=y_val)`` gives ``dvalid``, ``X_val``,
  ``y_val``), less the training rows (``valid_sets=[dtrain, dvalid]``);
* :meth:`StopScores.logged_alone`: the training call's own per-round log of the stopping rows' score, when the
  script scores no held-out rows at all and predicts no other held-out part cut from its data (a competition
  notebook that splits ``train.csv``, stops on the validation part with ``verbose_eval=True`` and only predicts
  the unlabelled ``test.csv``): the printed log is then the result the author reads (issue 17's house decision of
  wave 47, applied to the validation parts of wave 74);
* :meth:`StopScores.rescored`: a score on those rows after the call in its own function (or module): a metric
  (``*_score``/``*_error``/``*_loss``, ``rmse``, ``auc``, ``gini``, ``map@k`` ...) or a model's ``evaluate``/``score``
  or an error written by its formula (``np.mean((pred - y) ** 2)``, ``np.abs(pred - y).mean()``: :mod:`.handerrors`)
  whose arguments are, or were computed from (three assignments back: ``p = model.predict(X_val)``,
  ``oof[va] = model.predict(X[va])``), the stopping rows, or the booster's own best score (``model.best_score``);
  ``None`` when the script scores any other rows named for holding out (``X_test``, ``y_holdout``) anywhere in it.
  A name assigned anew after the call (a later split's ``X_val``) holds other rows: its score is neither a score of
  the stopping rows nor of a test part.
"""

from __future__ import annotations

import ast
import re

from faultlib.detect.data.leakage import vocab
from faultlib.detect.data.leakage.callerscores import CallerScores
from faultlib.detect.data.leakage.defaultlogs import default_log
from faultlib.detect.data.leakage.evalsets import DATA_CONTAINERS
from faultlib.detect.data.leakage.filelineage import FileLineage
from faultlib.detect.data.leakage.handerrors import handwritten_error, imported_names
from faultlib.detect.data.leakage.linescopes import LineScopes
from faultlib.detect.data.leakage.otherscores import OtherScores
from faultlib.detect.data.leakage.targets import call_name
from faultlib.pyflow.walk import walk, walk_once

#: calls that only hold rows for a trainer (the booster's data holders; torch/numpy wrappers): their rows are the
#: rows of their data and label arguments
_HOLDERS = DATA_CONTAINERS | {"DataLoader", "TensorDataset", "tensor", "Tensor", "FloatTensor", "LongTensor",
                              "from_numpy", "array", "asarray", "TabularDataset"}
#: the keywords of a data holder that carry rows (``label=y_val``), not options (``feature_name=cols``)
_ROW_KEYWORDS = frozenset({"data", "label", "X", "y", "x"})
#: metric functions by name: scikit-learn's ``*_score``/``*_error``/``*_loss`` and the short or hand-written ones
_METRIC_SUFFIXES = ("_score", "_error", "_loss")
_METRIC_WORDS = re.compile(r"(^|_)(rmse|rmsle|rmspe|mae|mse|mape|smape|auc|gini|logloss|accuracy|acc|f1|mapk|ndcg|"
                           r"r2|brier|kappa|corrcoef|cross_entropy|classification_report|confusion_matrix)(_|$|\d)",
                           re.IGNORECASE)
#: model methods that score the rows they are given
_SCORING_METHODS = frozenset({"evaluate", "score", "evaluate_generator"})
#: a booster's own record of its best score on the evaluation set (LightGBM/XGBoost ``best_score``, sklearn API
#: ``best_score_``)
_BEST_SCORE = frozenset({"best_score", "best_score_"})
_DEPTH = 3
#: calls that train a model (their result is a model, not rows) and the model methods that read the rows they are
#: given (the receiver is a model)
_TRAINING = frozenset({"fit", "train", "fit_generator"})
_MODEL_CALLS = _TRAINING | vocab.EVALUATE | vocab.MODEL_METHODS | _SCORING_METHODS


def _metric(node: ast.Call) -> bool:
    """A metric call by its name (``accuracy_score``, ``rmse``, ``mapk_from_scored_df``) or a model's
    ``evaluate``/``score``."""
    name = call_name(node)
    if isinstance(node.func, ast.Attribute) and name in _SCORING_METHODS:
        return True
    return name.endswith(_METRIC_SUFFIXES) or bool(_METRIC_WORDS.search(name))


def _pairs(node: ast.Assign | ast.AugAssign | ast.AnnAssign) -> list[tuple[ast.expr, ast.expr]]:
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    out: list[tuple[ast.expr, ast.expr]] = []
    for target in targets:
        if isinstance(target, (ast.Tuple, ast.List)):
            if isinstance(node.value, (ast.Tuple, ast.List)) and len(node.value.elts) == len(target.elts):
                out += list(zip(target.elts, node.value.elts))  # a, b = x, y; never a, b = f(...)
        elif node.value is not None:
            out.append((target, node.value))
    return out


def _best_score_of(node: ast.AST) -> str | None:
    """The model whose recorded best score ``node`` reads: ``model.best_score``, ``getattr(model, 'best_score')``,
    or XGBoost's ``model.attr('best_score')`` (a ``Booster`` keeps ``best_score`` and ``best_iteration`` as string
    attributes: XGBoost Python API, ``Booster.attr(key)``, "Get attribute string from the Booster"); else ``None``."""
    owner: ast.expr | None = None
    if isinstance(node, ast.Attribute) and node.attr in _BEST_SCORE:
        owner = node.value
    elif isinstance(node, ast.Call) and len(node.args) >= 1 and isinstance(node.args[-1], ast.Constant) and \
            node.args[-1].value in _BEST_SCORE:
        if isinstance(node.func, ast.Name) and node.func.id == "getattr" and len(node.args) >= 2:
            owner = node.args[0]
        elif isinstance(node.func, ast.Attribute) and node.func.attr == "attr" and len(node.args) == 1:
            owner = node.func.value
    return owner.id if isinstance(owner, ast.Name) else None


def _helper_call(node: ast.Call, helpers: set[str]) -> bool:
    """A call of one of the module's scoring ``helpers``: by its name, or as a method of the object itself
    (``self.evaluate_(y_valid, pred)``, a class's own scoring method)."""
    func = node.func
    return isinstance(func, ast.Name) and func.id in helpers or isinstance(func, ast.Attribute) and \
        isinstance(func.value, ast.Name) and func.value.id == "self" and func.attr in helpers


def _bound_name(target: ast.expr) -> str | None:
    """The variable an assignment binds or writes into (``p``, ``oof[va]`` -> ``oof``, ``tmp['score']``)."""
    while isinstance(target, ast.Subscript):
        target = target.value
    return target.id if isinstance(target, ast.Name) else None


class StopScores(CallerScores):
    """One module's scores and assignments, read once; see the module docstring.

    Args:
        tree: the parsed module (a notebook's code cells joined).
    """

    def __init__(self, tree: ast.Module):
        self.tree = tree
        self._binds: dict[str, list[tuple[int, bool, ast.expr]]] = {}  # name -> (line, writes into it, value)
        self._targets: dict[int, list[str]] = {}  # id(value call) -> the names it is assigned to
        self._stmt: dict[int, int] = {}  # id(assigned value) -> the line of its assignment statement
        self._events: list[tuple[ast.AST, list[ast.expr]]] = []  # a scoring node and the expressions it scores
        self._functions: list[ast.AST] = []
        self._scopes = LineScopes(tree)
        self._others = OtherScores(tree, self._scopes)
        modules = imported_names(tree)
        for node in walk_once(tree):
            if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                for target, value in _pairs(node):
                    name = _bound_name(target)
                    if name:
                        into = not isinstance(target, ast.Name) or isinstance(node, ast.AugAssign)
                        self._binds.setdefault(name, []).append((node.lineno, into, value))
                        self._targets.setdefault(id(value), []).append(name)
                        self._stmt[id(value)] = node.lineno
            elif isinstance(node, ast.Call) and _metric(node):
                self._events.append((node, [*node.args, *(k.value for k in node.keywords)]))
            elif isinstance(node, ast.Call) and handwritten_error(node, modules):
                self._events.append((node, handwritten_error(node, modules) or []))
            elif _best_score_of(node):
                self._events.append((node, []))
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self._functions.append(node)
        for binds in self._binds.values():
            binds.sort(key=lambda b: b[0])
        self._memo: dict[tuple[str, int, int], frozenset[str]] = {}
        helpers = self._scoring_helpers()
        if helpers:  # compute_metrics(actual, predicted), self.evaluate_(y, p): a metric of the rows it is given
            self._events += [(n, [*n.args, *(k.value for k in n.keywords)]) for n in walk_once(tree)
                             if isinstance(n, ast.Call) and _helper_call(n, helpers)]

    def _scoring_helpers(self) -> set[str]:
        """The module's functions that score their own parameters and train nothing (``def compute_metrics(actual,
        pred): ... mean_squared_error(actual, pred)``): a call of one scores the rows it passes, as a metric does. A
        function that also trains (a cross-validation helper scoring its folds) is no metric of its arguments."""
        out: set[str] = set()
        for fn in self._functions:
            if any(isinstance(n, ast.Call) and call_name(n) in _TRAINING for n in ast.walk(fn)):
                continue
            params = {a.arg for a in [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs]}  # type: ignore[attr-defined]
            end = fn.end_lineno or fn.lineno
            for node, args in self._events:
                if fn.lineno < node.lineno <= end and isinstance(node, ast.Call) and \
                        params & {r for a in args for r in self._rows(a, 1, node.lineno)}:
                    out.add(fn.name)  # type: ignore[attr-defined]
                    break
        return out

    def _values(self, name: str, line: int) -> list[ast.expr]:
        """What ``name`` holds at ``line``: its last assignment before it and the writes into it since
        (``oof = np.zeros(n)``, then ``oof[va] = model.predict(X[va])``); every assignment when none comes before
        (a function defined above the code that binds the name). An assignment on ``line`` itself is not yet done
        there: ``out = out.rename(...)`` reads the ``out`` bound before it. Only the assignments ``line``'s scope sees
        count (:mod:`.linescopes`): a function's parameter holds its caller's rows, not a module variable's of the
        same name, so with no assignment of its own before ``line`` it holds nothing this reader knows."""
        binds, parameter = self._scopes.visible(name, line, self._binds.get(name, []))
        held: list[ast.expr] = []
        for at, into, value in binds:
            if at >= line:
                break
            held = [*held, value] if into else [value]
        return held if held or parameter else [value for _, _, value in binds]

    # --- the rows an expression reads -------------------------------------------------------------------------
    def _rows(self, node: ast.AST, depth: int, line: int) -> set[str]:
        """Texts of the rows ``node`` reads: its variables and row selections (``X[va]``), and, ``depth``
        assignments back, what those variables were computed from. A call's function (``model`` of
        ``model.predict``) and a selection's index are not rows."""
        out: set[str] = set()
        stack = [node]
        while stack:
            n = stack.pop()
            if isinstance(n, ast.Name):
                out.add(n.id)
                if depth:
                    out |= self._name_rows(n.id, depth - 1, line)
            elif isinstance(n, ast.Subscript):
                out.add(ast.unparse(n))
                stack.append(n.value)
            elif isinstance(n, ast.Call):
                name = call_name(n)
                if name in _MODEL_CALLS:
                    if name not in _TRAINING:  # model.predict(X_val): X_val, not what the model was trained with
                        stack += [*n.args, *(k.value for k in n.keywords)]
                    continue
                stack += [*n.args, *(k.value for k in n.keywords)]
                if isinstance(n.func, ast.Attribute):  # X_val.reshape(...), X_val.to_numpy(): the rows of X_val
                    stack.append(n.func.value)
            elif isinstance(n, ast.Attribute):
                stack.append(n.value)
            elif isinstance(n, (ast.Lambda, ast.FunctionDef)):
                continue
            else:
                stack += list(ast.iter_child_nodes(n))
        return out

    def _name_rows(self, name: str, depth: int, line: int) -> frozenset[str]:
        key = (name, depth, line)
        if key not in self._memo:
            self._memo[key] = frozenset()  # a cycle (x = f(x)) stops here
            self._memo[key] = frozenset(r for v in self._values(name, line)[-6:]
                                        for r in self._rows(v, depth, self._stmt.get(id(v), v.lineno)))
        return self._memo[key]

    def _held_rows(self, node: ast.expr, line: int, depth: int = 2) -> set[str]:
        """The rows of an evaluation-set argument: its variables and row selections, and the data and label
        arguments of the data holder a variable was built with (``dvalid = lgb.Dataset(X_val, label=y_val)``)."""
        out: set[str] = set()
        if isinstance(node, (ast.List, ast.Tuple)):
            for e in node.elts:
                out |= self._held_rows(e, line, depth)
        elif isinstance(node, ast.Name):
            held = self._values(node.id, line)
            if depth and len(held) == 1 and isinstance(held[0], ast.Name):  # X_test, y_test = X_train, y_train
                return self._held_rows(held[0], held[0].lineno, depth - 1)
            out.add(node.id)
            for value in held[-4:] if depth else []:
                if isinstance(value, (ast.List, ast.Tuple)) or (
                        isinstance(value, ast.Call) and call_name(value) in _HOLDERS):
                    out |= self._held_rows(value, value.lineno, depth - 1)
        elif isinstance(node, ast.Subscript):
            out.add(ast.unparse(node))
        elif isinstance(node, ast.Attribute):  # X_val.values
            out |= self._held_rows(node.value, line, depth)
        elif isinstance(node, ast.Call) and call_name(node) in _HOLDERS:
            for arg in [*node.args[:2], *(k.value for k in node.keywords if k.arg in _ROW_KEYWORDS)]:
                out |= self._held_rows(arg, line, depth)
        return out

    def stop_rows(self, sets: list[ast.expr], training: ast.expr | None) -> set[str]:
        """The stopping rows of the evaluation-set expressions ``sets``, less the training rows ``training``."""
        rows = {r for s in sets for r in self._held_rows(s, s.lineno)}
        if training is not None:
            rows -= self._held_rows(training, training.lineno)
        return {r for r in rows if not vocab.looks_like_train(r.split("[")[0])}

    # --- what the script scores ------------------------------------------------------------------------------
    def _scope(self, node: ast.AST) -> ast.AST:
        """The innermost function around ``node``, else the module."""
        inner: ast.AST = self.tree
        for fn in self._functions:
            if fn.lineno <= node.lineno <= (fn.end_lineno or fn.lineno) and (
                    inner is self.tree or fn.lineno >= inner.lineno):
                inner = fn
        return inner

    def rescored(self, call: ast.Call, rows: set[str]) -> str | None:
        """The first score taken, after ``call`` in its function (or module), on ``rows`` (:meth:`stop_rows`), in
        words (its line in braces, ``(line {42})``, a line of the analysed tree for the caller to map back);
        ``None`` when there is none, or when the script scores other rows named for holding out."""
        if not rows:
            return None
        scope = self._scope(call)
        start, end = call.end_lineno or call.lineno, getattr(scope, "end_lineno", None)
        models = set(self._targets.get(id(call), []))
        if isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name):
            models.add(call.func.value.id)  # model.fit(...): the model itself
        found: str | None = None
        again = self.caller_scores(call, rows)  # the caller of a helper that trains scores its rows (callerscores.py)
        for node, args in self._events:
            if node in again:
                continue
            read = {r for a in args for r in self._rows(a, _DEPTH, node.lineno)}
            if read & rows and start < node.lineno and self._rebound(read & rows, call.lineno, node.lineno):
                continue  # the names hold a later split's rows: neither the stopping rows nor a test part
            if read & rows:
                after = start < node.lineno and (end is None or node.lineno <= end)
                if found is None and after:
                    found = f"{ast.unparse(node)[:80]} (line {{{node.lineno}}})"
                continue
            if not args:  # model.best_score: the booster's best score on its evaluation set
                if found is None and start < node.lineno and (end is None or node.lineno <= end) and \
                        _best_score_of(node) in models:
                    found = f"{ast.unparse(node)} (line {{{node.lineno}}})"
                continue
            held_out = {r for r in read if "[" not in r and vocab.looks_like_test(r)}
            if held_out and not self._others.other_model_score(node.lineno, call, held_out):
                return None  # another held-out part is scored: that is the reported score
        if found is None and again:
            found = f"{ast.unparse(again[0])[:80]} (line {{{again[0].lineno}}}), in the caller of the training's function"
        return found

    def _rebound(self, names: set[str], after: int, line: int) -> bool:
        """Every one of ``names`` (the stopping rows a score on ``line`` reads) was assigned anew, in the training
        call's own function (or module), between the call on ``after`` and ``line``, from values that do not read it (``X_val = scaler.transform(X_val)`` keeps
        the rows): the score reads the rows of a later split under the same name (a pre-training fit stopped on
        ``X_val``, then a fold loop's ``X_train, X_val = ...``), not the rows that stopped the call."""
        if self._scopes.at(after) is not self._scopes.at(line):
            return False  # another function's X_val is its own variable, no later value of the call's
        for name in names:
            if "[" in name:
                return False
            binds, _ = self._scopes.visible(name, line, self._binds.get(name, []))
            if not any(after < at < line and not into and not any(
                    isinstance(n, ast.Name) and n.id == name for n in walk(value)) for at, into, value in binds):
                return False
        return True

    def logged_alone(self, call: ast.Call, rows: set[str]) -> str | None:
        """How ``call`` prints its stopping rows' score round by round (``verbose_eval=True``, ``verbose=100``,
        ``lgb.log_evaluation(50)``), when the script scores no held-out rows at all and predicts no other held-out
        rows cut from its own data: that log is then the only result it shows. ``None`` otherwise."""
        how = _logs(call) or default_log(call, self.tree, self._from_file)
        if not how or not rows:
            return None
        for node, args in self._events:
            read = {r for a in args for r in self._rows(a, _DEPTH, node.lineno)}
            if read & rows or any(vocab.looks_like_test(r) for r in read if "[" not in r):
                return None
        for node in walk_once(self.tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                    node.func.attr in vocab.EVALUATE and node.args:
                names = {n.id for n in ast.walk(node.args[0]) if isinstance(n, ast.Name)}
                if any(vocab.looks_like_test(n) and n not in rows and not self._from_file(n, node.lineno)
                       for n in names):
                    return None  # a labelled part of the data predicted (a time cut, a split): scored by eye
        return how

    def _from_file(self, name: str, line: int) -> bool:
        """``name`` holds rows read from a file of their own (``pd.read_csv('test.csv')``, a column selection of
        it, the same rows through its feature steps), or rows the module never binds (a parameter): not a part cut
        from the training data (:mod:`.filelineage`)."""
        return FileLineage(self.tree, self._binds).from_file(name, line)


def _positive(node: ast.expr | None, least: int = 1) -> bool:
    return isinstance(node, ast.Constant) and (node.value is True or type(node.value) is int and node.value >= least)


def _logs(call: ast.Call) -> str | None:
    """The training call's own per-round log of its evaluation sets: ``verbose_eval=True``/``N`` (xgboost and older
    lightgbm ``train``), ``verbose=N`` above 2 (the boosters' scikit-learn ``fit``; never Keras, whose ``verbose`` is
    0, 1 or 2), a ``log_evaluation``/``print_evaluation`` callback (lightgbm)."""
    for k in call.keywords:
        if k.arg == "verbose_eval" and _positive(k.value):
            return f"verbose_eval={ast.unparse(k.value)}"
        if k.arg == "verbose" and _positive(k.value, 3) and k.value.value is not True:  # type: ignore[union-attr]
            return f"verbose={ast.unparse(k.value)}"
        if k.arg == "callbacks":
            for c in ast.walk(k.value):
                if isinstance(c, ast.Call) and call_name(c) in ("log_evaluation", "print_evaluation"):
                    return ast.unparse(c)
    return None


__all__ = ["StopScores"]
