"""A second-level fit on held-out predictions, scored on the rows it was fitted on: a blender, a calibrator or blend
weights chosen with the labels they are then scored against.

Stacking and calibration learn from the first-level models' predictions for rows those models did not train on
(out-of-fold predictions, a validation or test part). The second-level model is itself a model: scoring it on the
rows it was fitted on is a training score, however held out the rows were for the first level::

    iso = IsotonicRegression().fit(blend_oof, y)                          # <- trained_on_test
    print(brier_score_loss(y, iso.predict(blend_oof)))                   # the 'calibrated CV score'

    meta = LogisticRegression().fit(test_probs, y_test)                   # <- trained_on_test
    w = meta.coef_[0] / meta.coef_[0].sum()
    print(log_loss(y_test, w[0] * p_forest + w[1] * p_boost))

    for w in np.arange(0, 1.01, 0.05):                                    # blend weights chosen on the scored rows
        loss = brier_score_loss(y, w * oof_a + (1 - w) * oof_b)           # <- tuned_on_test
        if loss < best: best, best_w = loss, w

Each reports a score of rows whose labels fitted (or chose) the last step: optimistic, as a model scored on its
training rows (scikit-learn user guide 1.16, "Probability calibration": "the data used to fit the regressor
should be disjoint from the data used to fit the classifier" -- and from the data that evaluates it; Wolpert,
"Stacked generalization", Neural Networks 1992: the level-1 learner's own error is estimated on rows apart from
its fit). Issue 17, waves 79 (a meta-model fitted on the test rows' predictions and their labels), 82 (isotonic
calibration and a weight grid on season-forward out-of-fold predictions), 50 and 52 (Platt scaling on out-of-fold
predictions, a blender scored on the validation predictions it was fitted on).

Found syntactically in one module or function (:func:`stacked_fits`):

* ``m.fit(P, Y)`` (or a blend-weight optimiser's ``m.fit_predict(Y, P)``) where ``P`` holds held-out predictions
  -- a name carrying ``oof`` (out of fold), a name for predictions of held-out rows (``val_preds``,
  ``validation_predicts``, ``test_proba``), or a ``predict`` call on rows named for testing or validation, through
  the names ``P`` is built from (the assignments, appends and stores into a buffer that reach it in source order; a
  column of out-of-fold predictions set among other features, ``df['ridge_oof'] = ...``, makes no table of
  predictions) -- or ``Y`` names test or validation labels; later a metric of ``Y`` (the same expression) and
  ``m.predict*(P)`` (the same ``P``), directly or through a name, or of a value built from ``m.coef_`` /
  ``m.feature_importances_``: ``trained_on_test`` at the fit; or ``m.fit_predict``'s own output: the optimiser
  searched the weights on the scored rows, ``tuned_on_test`` at the call.
* a ``for`` loop whose body scores, with labels ``Y``, a sum of two or more predictions each multiplied by a weight
  the loop varies, keeps the score (compared in an ``if``, stored in a table or a list), and the predictions are
  out-of-fold or test predictions or ``Y`` names test labels: ``tuned_on_test`` at the metric. Weights chosen on a
  validation part, beside a test part that scores the blend once, are chosen apart from it and stay silent.

A fit given rows and labels named for validation (``calibrator.fit(X_val, y_val)``) while the program scores another
part named for testing, or as the validation parameters of a function no code calls, is the validation step of a
three-way design and stays silent too (:mod:`.valparams`). A fit on training predictions (``P`` from the training
rows) is a training score and stays silent, as does a blend
whose weights are fixed numbers, and a weight loop over predictions whose scores are only printed.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

from faultlib.detect.data.leakage import vocab
from faultlib.detect.data.leakage.callsites import function_at
from faultlib.detect.data.leakage.scoreloops import _test_labels
from faultlib.detect.data.leakage.targets import call_name, label_like, validation_named
from faultlib.detect.data.leakage.valparams import validation_fit
from faultlib.detect.data.leakage.values import maybe_data, parts
from faultlib.findings import Finding, Severity

#: estimator methods whose result is the model's output for each sample
_PREDICTORS = frozenset({"predict", "predict_proba", "predict_log_proba", "decision_function", "transform"})
#: fitted attributes a blend's weights are read from
_WEIGHTS = frozenset({"coef_", "intercept_", "feature_importances_", "weights", "weights_"})
#: metric functions outside the ``*_score``/``*_error``/``*_loss`` names, and short names of hand-written ones
_METRIC_WORDS = ("rmse", "rmsle", "mae", "mse", "mape", "smape", "auc", "logloss", "gini", "brier", "accuracy")
_HELD_TOKENS = frozenset({"val", "valid", "validation", "test", "holdout", "tst", "oot"})
_VALIDATION_TOKENS = frozenset({"val", "valid", "validation"})
_PRED_TOKENS = frozenset({"pred", "preds", "predict", "predicts", "predicted", "prediction", "predictions", "proba",
                          "probas", "prob", "probs"})
_DEPTH = 5
#: calls and attributes that keep the values of what they are called on
_SAME = frozenset({"reshape", "ravel", "flatten", "to_numpy", "astype", "squeeze", "tolist", "copy"})


#: ``{name: [(line, expression, whole), ...]}``: each binding of a name, ``whole`` when it rebinds the name (an
#: assignment) rather than adding to it (a store into a buffer, ``append``, ``+=``)
Binds = dict[str, list[tuple[int, ast.expr, bool]]]


@dataclass(frozen=True)
class StackedFit:
    """``kind`` found at ``line``/``column`` (the fit, or the metric), scored on ``score_line``; ``model`` the
    second-level model's name (or the loop's weight names)."""

    kind: str
    model: str
    line: int
    column: int
    score_line: int


def _dump(node: ast.AST) -> str:
    return ast.dump(node, annotate_fields=False, include_attributes=False)


def _scopes(tree: ast.Module) -> list[list[ast.AST]]:
    """The nodes of the module and of each function, a nested function's nodes left to its own scope."""
    out: list[list[ast.AST]] = []

    def visit(scope: ast.AST) -> None:
        nodes: list[ast.AST] = []
        stack = list(ast.iter_child_nodes(scope))
        while stack:
            node = stack.pop()
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                visit(node)
                continue
            nodes.append(node)
            stack.extend(ast.iter_child_nodes(node))
        out.append(nodes)

    visit(tree)
    return out


def selection_base(node: ast.expr, *, calls: bool = False) -> ast.expr:
    """The expression a selection starts from: ``oof`` of ``oof[va]``, ``X`` of ``X.iloc[idx].values`` and of
    ``*X``; with ``calls``, through method calls too (``X`` of ``X.fillna(0)[cols]``, ``f`` of ``f(x)``)."""
    while isinstance(node, (ast.Subscript, ast.Attribute, ast.Starred)) or calls and isinstance(node, ast.Call):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node


def _binds(nodes: list[ast.AST]) -> Binds:
    """What each name is assigned (``whole``), augmented, appended or stored with (see :data:`Binds`)."""
    out: Binds = {}

    def add(target: ast.expr, value: ast.expr, line: int, whole: bool = True) -> None:
        if isinstance(target, ast.Name):
            out.setdefault(target.id, []).append((line, value, whole))
        elif isinstance(target, (ast.Tuple, ast.List)):
            values = value.elts if isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(
                target.elts) else [value] * len(target.elts)
            for t, v in zip(target.elts, values):
                add(t, v, line, whole)
        elif isinstance(target, ast.Subscript) and isinstance(selection_base(target), ast.Name) and not _column_key(
                target):
            out.setdefault(selection_base(target).id, []).append((line, value, False))  # oof[va] = m.predict(X[va])

    for node in nodes:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                add(target, node.value, node.lineno)
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            add(node.target, node.value, node.lineno)
        elif isinstance(node, ast.AugAssign):
            add(node.target, node.value, node.lineno, False)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in (
                "append", "extend") and isinstance(node.func.value, ast.Name) and node.args:
            out.setdefault(node.func.value.id, []).append((node.lineno, node.args[0], False))
    return out


def _column_key(target: ast.Subscript) -> bool:
    """``df['ridge_oof'] = ...``, ``df[['a', 'b']] = ...``: a column set (a feature among others), not rows stored."""
    key = target.slice
    keys = key.elts if isinstance(key, (ast.List, ast.Tuple)) else [key]
    return bool(keys) and all(isinstance(k, ast.Constant) and isinstance(k.value, str) for k in keys)


def _reaching(binds: Binds, name: str, line: int) -> tuple[int, list[ast.expr]]:
    """The bindings of ``name`` that reach ``line`` read in source order: the last assignment before it and the
    stores, appends and ``+=`` after that one (a name rebound later for a chart does not count); with its line."""
    before = sorted((b for b in binds.get(name, ()) if b[0] < line), key=lambda b: b[0])
    start = max((b[0] for b in before if b[2]), default=0)
    return start, [v for ln, v, _ in before if ln >= start]


def _held_name(name: str, validation: bool = True) -> bool:
    """``oof_a``, ``men_lgb_oof``, ``val_preds``, ``validation_predicts``, ``test_proba``: held-out predictions
    (without ``validation``: out-of-fold or test predictions only)."""
    tokens = vocab.name_tokens(name)
    if any(t.startswith("oof") for t in tokens) or "out_of_fold" in name.lower():
        return True
    held = _HELD_TOKENS if validation else _HELD_TOKENS - _VALIDATION_TOKENS
    return bool(set(tokens) & held) and bool(set(tokens) & _PRED_TOKENS)


def _held_out(expr: ast.expr, binds: Binds, memo: dict[tuple[str, int, bool], bool], depth: int = 0, *,
              validation: bool = True) -> bool:
    """``expr`` holds predictions for held-out rows (see the module docstring), through the bindings that reach it
    (without ``validation``: out-of-fold or test predictions only); ``memo`` keeps each name's answer per reaching
    assignment (a name being followed counts as no)."""
    for node in ast.walk(expr):
        if isinstance(node, ast.Call) and call_name(node) in _PREDICTORS - {"transform"} and node.args:
            rows = selection_base(node.args[0])
            if isinstance(rows, ast.Name) and (vocab.looks_like_test(rows.id) and not validation_named(rows) or
                                               validation and validation_named(rows)):
                return True  # m.predict_proba(X_test_hash.values)
        if not isinstance(node, ast.Name):
            continue
        if _held_name(node.id, validation):
            return True
        start, values = _reaching(binds, node.id, node.lineno)
        key = (node.id, start, validation)
        if key not in memo:
            memo[key] = False
            memo[key] = depth < _DEPTH and any(_held_out(v, binds, memo, depth + 1, validation=validation)
                                               for v in values)
        if memo[key]:
            return True
    return False


def _norm(node: ast.expr) -> str:
    """``y_val.reshape(-1, 1)``, ``y.values``, ``y.to_numpy()``: the same values as ``y``, as text to compare."""
    while True:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _SAME:
            node = node.func.value
        elif isinstance(node, ast.Attribute) and node.attr == "values":
            node = node.value
        else:
            return _dump(node)


def _held_labels(node: ast.expr) -> bool:
    """``y_test``, ``test_y``, ``y_val``, ``y_valid[mask]``: labels of a test or validation part."""
    base = selection_base(node)
    return _test_labels(node) or isinstance(base, ast.Name) and validation_named(base) and label_like(base.id)


def _metric(node: ast.AST) -> bool:
    if not isinstance(node, ast.Call) or len(node.args) < 2:
        return False
    name = call_name(node).lower()
    return name.endswith(("_score", "_error", "_loss")) or any(w in name for w in _METRIC_WORDS)


def _from_model(expr: ast.expr, model: str, inputs: str, binds: Binds, lo: int,
                hi: int, memo: dict[str, bool], depth: int = 0) -> bool:
    """``expr`` is built from ``model``'s output for ``inputs`` or from its fitted weights (names bound between
    ``lo`` and ``hi`` followed; ``memo`` keeps each name's answer)."""
    for node in ast.walk(expr):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _PREDICTORS \
                and isinstance(node.func.value, ast.Name) and node.func.value.id == model and node.args and \
                _norm(node.args[0]) == inputs:
            return True
        if isinstance(node, ast.Attribute) and (node.attr in _WEIGHTS or node.attr == "fit_predict") and isinstance(
                node.value, ast.Name) and node.value.id == model:
            return True  # model.coef_, model.fit_predict(y_val, fold_preds): its fitted weights applied
        if isinstance(node, ast.Name):
            if node.id not in memo:
                memo[node.id] = False
                memo[node.id] = depth < _DEPTH and any(lo <= line <= hi and _from_model(
                    v, model, inputs, binds, lo, hi, memo, depth + 1) for line, v, _ in binds.get(node.id, ()))
            if memo[node.id]:
                return True
    return False


def _fits_scored(nodes: list[ast.AST], binds: Binds, held: dict[tuple[str, int, bool], bool]) -> list[StackedFit]:
    metrics = sorted((n for n in nodes if _metric(n)), key=lambda n: n.lineno)  # type: ignore[attr-defined]
    out = []
    for node in nodes:
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in (
                "fit", "fit_predict") and isinstance(node.func.value, ast.Name) and len(node.args) >= 2):
            continue
        model, inputs, labels = node.func.value.id, node.args[0], node.args[1]
        # fit(X, y); fit_predict(y_true, preds) of a blend-weight optimiser (either order: both may be the labels)
        pairs = [(inputs, labels)] + ([(labels, inputs)] if node.func.attr == "fit_predict" else [])
        if not any(m.lineno >= node.lineno for m in metrics) or not any(  # type: ignore[attr-defined]
                _held_labels(y) or _held_out(x, binds, held) for x, y in pairs):
            continue
        wanted = {_norm(y): _norm(x) for x, y in pairs}
        for m in metrics:
            if m.lineno < node.lineno:  # type: ignore[attr-defined]
                continue
            args, memo = m.args, {}  # type: ignore[attr-defined]
            want = next((_norm(a) for a in args if _norm(a) in wanted), None)
            if want is not None and any(_norm(a) != want and _from_model(
                    a, model, wanted[want], binds, node.lineno, m.lineno, memo) for a in args):  # type: ignore
                kind = "trained_on_test" if node.func.attr == "fit" else "tuned_on_test"  # weights searched on them
                out.append(StackedFit(kind, model, node.lineno, node.col_offset + 1, m.lineno))  # type: ignore
                break
    return out


def _loop_names(loop: ast.For) -> set[str]:
    """Names a ``for`` loop varies: its targets and whatever its body assigns."""
    out = {n.id for n in ast.walk(loop.target) if isinstance(n, ast.Name)}
    for node in ast.walk(loop):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
            node, (ast.AugAssign, ast.For)) else []
        for t in targets:
            out |= {n.id for n in ast.walk(t) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    return out


def _terms(expr: ast.expr) -> list[ast.expr]:
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Add, ast.Sub)):
        return _terms(expr.left) + _terms(expr.right)
    return [expr]


def _weighted(term: ast.expr, varied: set[str]) -> ast.expr | None:
    """``w1 * oof_a``, ``oof_b * wts[1]``, ``(1 - w) * oof_b``: the prediction a varied weight multiplies."""
    if not (isinstance(term, ast.BinOp) and isinstance(term.op, ast.Mult)):
        return None

    def varies(node: ast.expr) -> bool:
        return any(isinstance(n, ast.Name) and n.id in varied for n in ast.walk(node))

    for weight, other in ((term.left, term.right), (term.right, term.left)):
        if varies(weight) and not varies(other) and not isinstance(other, ast.Constant):
            return other
    return None


def _blend_terms(expr: ast.expr, loop: ast.For, varied: set[str]) -> list[ast.expr]:
    """The predictions a blend scored in ``loop`` weighs by varied weights (``w1 * a + w2 * b``, or a name the
    loop builds that way, also by ``+=``)."""
    found = [p for p in (_weighted(t, varied) for t in _terms(expr)) if p is not None]
    expr = selection_base(expr)  # preds[mask]: the rows of the blend the loop builds
    if isinstance(expr, ast.Name):
        for node in ast.walk(loop):
            assigned = isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == expr.id for t in node.targets)
            added = isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) and \
                node.target.id == expr.id and isinstance(node.op, ast.Add)  # final += p_k * w[k]
            if assigned or added:
                found += [p for p in (_weighted(t, varied) for t in _terms(node.value)) if p is not None]  # type: ignore
    return found


def _kept(loop: ast.For, metric: ast.Call, parents: dict[int, ast.AST]) -> bool:
    """The loop keeps the score: compared in an ``if`` of the loop, stored in a table or appended to a list."""
    parent = parents.get(id(metric))
    if isinstance(parent, ast.Call) and call_name(parent) == "append":
        return True
    if not isinstance(parent, ast.Assign):
        return False
    if any(isinstance(t, ast.Subscript) for t in parent.targets):
        return True  # output[j, k] = log_loss(...)
    names = {t.id for t in parent.targets if isinstance(t, ast.Name)}
    for node in ast.walk(loop):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Compare) and any(
                isinstance(n, ast.Name) and n.id in names for n in ast.walk(node.test)):
            return True
        if isinstance(node, ast.Call) and call_name(node) == "append" and any(
                isinstance(a, ast.Name) and a.id in names for a in node.args):
            return True
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Subscript) for t in node.targets) and isinstance(
                node.value, ast.Name) and node.value.id in names:
            return True
    return False


def _weight_grids(nodes: list[ast.AST], binds: Binds, held: dict[tuple[str, int, bool], bool],
                  parents: dict[int, ast.AST]) -> list[StackedFit]:
    out = []
    loops = [n for n in nodes if isinstance(n, ast.For)]
    for metric in (n for n in nodes if _metric(n)):
        around = [lp for lp in loops if lp.lineno < metric.lineno <= (lp.end_lineno or lp.lineno)]  # type: ignore
        if not around:
            continue
        loop = max(around, key=lambda lp: lp.lineno)  # the innermost loop
        varied = set().union(*(_loop_names(lp) for lp in around))
        args = metric.args  # type: ignore[attr-defined]
        for labels in args:
            blends = [_blend_terms(a, loop, varied) for a in args if a is not labels]
            preds = next((b for b in blends if len(b) >= 2), None)
            if preds is None:
                continue
            # weights chosen on a validation part are chosen apart from the test part (thresholds.py's house test);
            # on out-of-fold predictions (the reported estimate) or on the test part they are not
            if (_test_labels(labels) or all(_held_out(p, binds, held, validation=False) for p in preds)) and _kept(
                    loop, metric, parents):
                names = sorted({n.id for n in ast.walk(loop.target) if isinstance(n, ast.Name)})
                out.append(StackedFit("tuned_on_test", ", ".join(names) or "weights", metric.lineno,  # type: ignore
                                      metric.col_offset + 1, metric.lineno))  # type: ignore[attr-defined]
                break
    return out


def stacked_fits(tree: ast.Module) -> list[StackedFit]:
    """Second-level fits and blend weights scored on the rows whose labels fitted them (see the module docstring)."""
    parents = {id(child): node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    module_binds: Binds = {}
    out: list[StackedFit] = []
    for i, nodes in enumerate(reversed(_scopes(tree))):  # the module's scope first: its names serve the functions
        binds = _binds(nodes)
        if i == 0:
            module_binds = binds
        merged = binds if i == 0 else {**module_binds, **binds}
        held: dict[tuple[str, int, bool], bool] = {}
        fits = {(n.lineno, n.col_offset + 1): n for n in nodes if isinstance(n, ast.Call)}
        out += [f for f in _fits_scored(nodes, merged, held) if not (f.kind == "trained_on_test" and validation_fit(
            tree, fits[(f.line, f.column)]))] + _weight_grids(nodes, merged, held, parents)  # (valparams.py)
    return out


class ScoredWeights:
    """A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer` (after
    :class:`~faultlib.detect.data.leakage.testlabels.TestTrainedModels`, whose ``_labelled_fits`` it reads): a metric
    call whose scored values carry the fit of a model trained with labels on exactly the held-out rows scored, and
    whose fitted weights were read (``meta.coef_`` of a meta-model fitted on the test part's predictions, applied to
    those predictions) reports ``trained_on_test`` at that fit (the flow form of :func:`stacked_fits`, for rows a
    split or a fold held out, whatever their names)."""

    def _importances(self, est: Any) -> Any:
        out = super()._importances(est)  # type: ignore[misc]
        if out is not None:  # meta.coef_, meta.feature_importances_: the fit's weights read (selectors.py)
            vars(self).setdefault("_weights_read", set()).add(est.fit.uid)
        return out

    def _library(self, ref: Any, args: list[Any], kwargs: dict[str, Any], node: ast.Call, frame: Any) -> Any:
        if _metric(node) and vars(self).get("_weights_read"):
            self._check_scored_weights([*args, *kwargs.values()], node.lineno)
        return super()._library(ref, args, kwargs, node, frame)  # type: ignore[misc]

    def _check_scored_weights(self, args: list[Any], line: int) -> None:
        labelled, read = getattr(self, "_labelled_fits", ()), vars(self).get("_weights_read", ())
        for value in args:
            data = maybe_data(value)
            scored = parts(data.rows) if data is not None else ()
            if not scored or not all(any(s.kind in ("split", "fold") and s.part in ("test", "val") for s in p.steps)
                                     for p in scored):
                continue  # only rows a split or a fold held out (a name, or a stack with test.csv, is not enough)
            for fit in data.taints:  # type: ignore[union-attr]
                if fit.uid in labelled and fit.uid in read and not fit.handwritten and parts(fit.rows) == scored:
                    self._reached.add((fit.line, fit.column))  # type: ignore[attr-defined]
                    self._emit("trained_on_test", fit, line=line, data=data,  # type: ignore[attr-defined]
                               why=f"values built from its fitted weights are scored on {self.smap.describe(line)} "  # type: ignore[attr-defined]
                                   "against the same held-out rows: the score is measured on rows it was fitted on")
                    return


def stacked_findings(tree: ast.Module, smap: Any, findings: list[Finding],
                     extra: list[StackedFit] = ()) -> list[Finding]:  # type: ignore[assignment]
    """:func:`stacked_fits` (and ``extra`` fits found alike: :mod:`.learntparams`) as findings, leaving out a line
    where a finding of the same kind already is."""
    seen = {(f.kind, f.location.get("file"), f.location.get("index"), f.location.get("line")) for f in findings}
    out = []
    for s in [*stacked_fits(tree), *extra]:
        where = smap.where(s.line)
        key = (s.kind, where.get("file"), where.get("index"), where.get("line"))
        if key in seen:
            continue
        seen.add(key)
        if s.kind == "trained_on_test":
            message = (f"`{s.model}` is fitted ({smap.describe(s.line)}) on held-out predictions or labels -- a "
                       "blender, a calibrator or blend weights -- and scored against the same labels on "
                       f"{smap.describe(s.score_line)}: the score is measured on the rows it was fitted on. Fix: fit "
                       "the second level on out-of-fold predictions of the training rows (cross_val_predict, or "
                       "CalibratedClassifierCV) and score it on rows apart from its fit")
        elif s.line != s.score_line:
            message = (f"`{s.model}` chooses blend weights ({smap.describe(s.line)}) with held-out labels and "
                       f"predictions, and the blend is scored against the same labels on {smap.describe(s.score_line)}"
                       ": the scored rows chose the weights, so the score is optimistic. Fix: choose the weights on "
                       "other rows (nested out-of-fold predictions) or report a score of rows apart")
        else:
            message = (f"blend weights ({s.model}) vary in the loop and each blend of held-out predictions is scored "
                       f"on {smap.describe(s.line)} against the labels it is then reported on, the score kept to "
                       "choose the weights: the scored rows chose the blend, so its score is optimistic. Fix: choose "
                       "the weights on other rows (nested out-of-fold predictions) or report a score of rows apart")
        out.append(Finding("leakage", Severity.ERROR if s.kind == "trained_on_test" else Severity.WARNING, message,
                           {**where, "column": s.column, "function": function_at(tree, s.line)},
                           {"estimator": s.model, "at": smap.where(s.score_line)}, kind=s.kind))
    return out


__all__ = ["ScoredWeights", "StackedFit", "selection_base", "stacked_findings", "stacked_fits"]
