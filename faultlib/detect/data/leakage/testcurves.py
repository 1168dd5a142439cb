"""Hyperparameter grids whose every setting is scored on the test rows and reported, for ``tuned_on_test``.

:mod:`.choices` counts a loop as a search when it keeps the best (``if score > best``, ``max(scores)``) or types a
value read off the curve into the next model. A grid that only *reports* each setting's test score is the same
search done by the reader::

    for depth in [1, 3, 5]:
        for n in [10, 100, 1000]:
            score = evaluate({"max_depth": depth, "n_estimators": n})   # fits on train, scores the test part
            print(depth, n, score)                                        # (or results.append / df.loc[...] =)

The settings are then read off the printed, saved or plotted test scores: the house labels call it "K read off the
test curve" (Cawley & Talbot, JMLR 11, 2010: choosing among settings by the scores of the rows that report the
result biases that result; ASE'22's multi-test leakage). :func:`test_curves` finds, syntactically, a ``for`` loop

* over written-out candidates: a list or tuple of literals (numbers, strings, tuples or dicts of them),
  ``range``/``np.linspace``/``np.arange``/``np.logspace`` of literals, ``itertools.product`` or ``ParameterGrid``
  of such, or a name bound to one of these (``configs = [...]`` then ``for cfg in configs``);
* whose variable is a hyperparameter: the value of a string key of a dict literal (``{"max_depth": depth}``), a
  keyword of a call (``Ridge(alpha=a)``, ``fit_model(cfg, order=p)``), or the argument of a function the module
  defines (``walk_forward_validation(data, n_test, cfg)``); never a seed (``random_state``, ``np.random.seed``),
  never a split's proportion (``train_test_split(test_size=t)``: another experiment);
* whose body reports a value it computed: ``print``, ``append``/``extend``, a store into a table, a write;
* that is a grid of two settings or more: nested loops that each set one, or one loop over combinations
  (``product``, a list of tuples or dicts). One parameter's curve with nothing chosen stays silent (the house
  tests: a k or C curve only printed or plotted); a train-versus-test curve too.

Whether the score is a **test** score is the analysis' part (:meth:`.choices.ChoiceChecks._check_tuned`, at the
``predict``): a grid scored on a validation part, or by cross-validation, stays silent there. A loop over model
classes (``for model in [LogisticRegression(), SVC()]``) iterates constructed models, not literals, and stays
silent (a spot-check of several models is no tuning by the house labels).
"""

from __future__ import annotations

import ast
from dataclasses import replace

from faultlib.detect.data.leakage import vocab
from faultlib.detect.data.leakage.choices import LoopFacts
from faultlib.detect.data.leakage.guards import seed_only
from faultlib.detect.data.leakage.targets import call_name
from faultlib.pyflow.walk import walk_once

#: calls that write out a range of candidates from literal bounds
_RANGES = frozenset({"range", "linspace", "arange", "logspace", "geomspace"})
#: calls that combine candidate lists into a grid
_GRIDS = frozenset({"product", "ParameterGrid", "zip"})
#: keywords that vary a run, not the model, or a split, not the setting
_NOT_SETTINGS = frozenset({"random_state", "seed", "verbose", "n_jobs", "warm_start", "test_size", "train_size",
                           "random_seed", "shuffle", "scoring"})
#: calls whose keywords are no settings of a model (output, plotting)
_NOT_SETTERS = frozenset({"print", "format", "plot", "scatter", "bar", "legend", "title", "xlabel", "ylabel",
                          "savefig", "figure", "subplot", "subplots", "append", "to_csv", "write"})
#: loop variables that count repetitions, not settings (a seed sweep shows the variance of one model)
_REPEATS = frozenset({"seed", "seeds", "random_state", "state", "rs", "fold", "folds", "trial", "rep", "repeat",
                      "run"})
#: calls that report each pass's value
_REPORTS = frozenset({"print", "append", "extend", "write", "writerow", "to_csv", "info", "log", "plot", "scatter"})
#: first words of a name that holds the label column a model learns
_LABEL_WORDS = frozenset({"y", "target", "targets", "label", "labels"})
#: calls that build a table of reported rows
_TABLES = frozenset({"DataFrame", "Series", "from_records", "from_dict"})


def _literal(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.UnaryOp):
        return _literal(node.operand)
    if isinstance(node, (ast.Tuple, ast.List)):
        return all(_literal(e) for e in node.elts)
    if isinstance(node, ast.Dict):
        return all(k is not None and _literal(k) for k in node.keys) and all(
            _literal(v) or isinstance(v, ast.Name) for v in node.values)
    return False


def _candidates(node: ast.expr, bound: dict[str, ast.expr], depth: int = 2) -> bool:
    """``node`` writes out candidate settings (see the module docstring)."""
    if isinstance(node, (ast.List, ast.Tuple)):
        return len(node.elts) > 1 and all(_literal(e) for e in node.elts)
    if isinstance(node, ast.Call) and call_name(node) in _RANGES:
        return bool(node.args) and all(_literal(a) for a in node.args)
    if isinstance(node, ast.Call) and call_name(node) in _GRIDS:
        return bool(node.args) and all(_candidates(a, bound, depth) for a in node.args)
    if isinstance(node, ast.Call) and call_name(node) == "enumerate" and node.args:
        return _candidates(node.args[0], bound, depth)
    if isinstance(node, ast.Name) and depth and node.id in bound:
        return _candidates(bound[node.id], bound, depth - 1)
    return False


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _setting(value: ast.expr, targets: set[str]) -> bool:
    """``value`` is a loop variable itself (or a number computed from it), not a key into a table
    (``params['C'][j]``: a setting chosen before the loop for each item, as one model per label column does), nor
    a name built from it (a layer's name, a metric's name)."""
    if isinstance(value, ast.Name):
        return value.id in targets
    if isinstance(value, (ast.BinOp, ast.UnaryOp)):  # 2 ** k, -a: the value itself, rescaled
        return any(_setting(v, targets) for v in ast.iter_child_nodes(value) if isinstance(v, ast.expr))
    return False  # params['C'][j], get_layer('h' + i), f'{m}_macro': a key or a name built from it


def _fold_loop(loop: ast.For) -> bool:
    """A loop inside the grid that walks a splitter's folds (``for tr, va in KFold(5).split(X)``): each setting is
    cross-validated, silent by the house's policy for a sweep over folds. Walk-forward windows written by hand,
    whose test dates are the reported out-of-sample result, stay a test curve (house labels, wave 66)."""
    return any(isinstance(c, ast.Call) and (call_name(c) == "split" or call_name(c) in vocab.SPLITTERS)
               for stmt in loop.body for n in ast.walk(stmt) if isinstance(n, ast.For) for c in ast.walk(n.iter))


def _repeats(targets: set[str]) -> bool:
    """``seed``, ``ran_state``, ``fold``: a loop that repeats one setting."""
    return any(t.lower() in _REPEATS for name in targets for t in vocab.name_tokens(name))


def _over_targets(loop: ast.For, targets: set[str]) -> bool:
    """The loop variable picks the label column each pass learns (``y = df[endpoint].values``,
    ``target = table[col]``): one model per task (an ADME endpoint, a gene's response), not candidate settings of
    one model. No endpoint can be chosen over another by its test score (they answer different questions), so such
    a loop is no axis of a grid (house labels, wave 80: a radius-by-endpoint table)."""
    for n in (n for stmt in loop.body for n in ast.walk(stmt)):
        if isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and vocab.name_tokens(t.id)[:1] and
                                             vocab.name_tokens(t.id)[0].lower() in _LABEL_WORDS for t in n.targets) \
                and any(isinstance(s, ast.Subscript) and isinstance(s.slice, ast.Name) and s.slice.id in targets
                        for s in ast.walk(n.value)):
            return True
    return False


def _scores_training_rows(loop: ast.For) -> bool:
    """The loop scores each setting on the training rows too (``knn.score(X_train, y_train)`` beside the test
    score): a train-versus-test curve, the textbook picture of over- and under-fitting, judged no choice by the
    house labels (a plotted alpha or k curve with nothing read off it)."""
    return any(isinstance(n, ast.Call) and call_name(n) in vocab.EVALUATE and n.args and any(
        isinstance(a, ast.Name) and vocab.looks_like_train(a.id) for a in ast.walk(n.args[0]))
        for stmt in loop.body for n in ast.walk(stmt))


def _configures(call: ast.Call, name: str, defined: set[str]) -> bool:
    """A call whose keywords configure a model: a model or class constructor (``Ridge(alpha=a)``, a wrapper
    ``Forest(depth=d)``), ``set_params``, or a function of the module (``evaluate(cfg, order=p)``); never a data
    method (``frame.sample(frac=f)``: a learning curve over training sizes)."""
    return vocab.is_model(name) or name[:1].isupper() or name == "set_params" or name in defined


def _record_dicts(loop: ast.For) -> set[int]:
    """Ids of the dict literals of ``loop`` that are rows of a result table, not settings: a dict handed to a call
    that reports (``rows.append({"fraction": frac, **metrics})``, ``print``, ``pd.DataFrame``), stored into a table
    (``df.loc[i] = {...}``), or bound to a name (``base = {"endpoint": col, "noise": level}``) that is only spread
    into such rows or reported. Its keys name the experiment's conditions beside the scores; they configure
    nothing, so they are no evidence that the loop variable is a hyperparameter (house: a test score is a leak only
    when a choice is made from it; wave 80's learning-curve and noise grids)."""
    body = [n for stmt in loop.body for n in ast.walk(stmt)]
    records: set[int] = set()
    for n in body:
        if isinstance(n, ast.Call) and (call_name(n) in _REPORTS or call_name(n) in _TABLES):
            records |= {id(d) for a in [*n.args, *(k.value for k in n.keywords)] for d in ast.walk(a)
                        if isinstance(d, ast.Dict)}
        elif isinstance(n, ast.Assign) and any(isinstance(t, ast.Subscript) for t in n.targets):
            records |= {id(d) for d in ast.walk(n.value) if isinstance(d, ast.Dict)}
    for n in body:
        if not (isinstance(n, ast.Assign) and isinstance(n.value, ast.Dict) and len(n.targets) == 1
                and isinstance(n.targets[0], ast.Name)):
            continue
        name = n.targets[0].id
        uses = [u for u in body if isinstance(u, ast.Name) and u.id == name and isinstance(u.ctx, ast.Load)]
        spread = {id(v) for d in body if isinstance(d, ast.Dict) and id(d) in records
                  for k, v in zip(d.keys, d.values) if k is None}
        reported = {id(x) for c in body if isinstance(c, ast.Call) and (call_name(c) in _REPORTS
                    or call_name(c) in _TABLES) for a in [*c.args, *(k.value for k in c.keywords)]
                    for x in ast.walk(a)}
        if uses and all(id(u) in spread or id(u) in reported for u in uses):
            records.add(id(n.value))
    return records


def _sets_hyperparameter(loop: ast.For, targets: set[str], defined: set[str]) -> bool:
    records = _record_dicts(loop)
    for n in (n for stmt in loop.body for n in ast.walk(stmt)):
        if isinstance(n, ast.Dict) and id(n) not in records and any(
                isinstance(k, ast.Constant) and isinstance(k.value, str) and k.value not in _NOT_SETTINGS
                and _setting(v, targets) for k, v in zip(n.keys, n.values)):
            return True
        if not isinstance(n, ast.Call):
            continue
        name = call_name(n)
        if name in _NOT_SETTERS or name in vocab.SPLIT_FUNCTIONS or vocab.is_search(name):  # a search: its CV picks
            continue
        if _configures(n, name, defined) and any(k.arg and k.arg not in _NOT_SETTINGS and _setting(k.value, targets)
               and not seed_only(k.value, targets) for k in n.keywords):
            return True
        if name in defined and any(isinstance(a, ast.Name) and a.id in targets for a in n.args):
            return True
    return False


def _report_line(loop: ast.For) -> int:
    """The first line in the loop that prints, collects or stores a value the loop computed (0: none)."""
    computed = {t.id for stmt in loop.body for n in ast.walk(stmt) if isinstance(n, (ast.Assign, ast.AugAssign))
                for t in ast.walk(n.targets[0] if isinstance(n, ast.Assign) else n.target) if isinstance(t, ast.Name)}
    for n in (n for stmt in loop.body for n in ast.walk(stmt)):
        if isinstance(n, ast.Call) and call_name(n) in _REPORTS and any(
                _names(a) & computed or isinstance(a, ast.Call) for a in [*n.args, *(k.value for k in n.keywords)]):
            return n.lineno
        if isinstance(n, ast.Assign) and any(isinstance(t, ast.Subscript) for t in n.targets) and (
                _names(n.value) & computed or isinstance(n.value, ast.Call)):
            return n.lineno
    return 0


def _several_settings(loop: ast.For, bound: dict[str, ast.expr]) -> bool:
    """One pass sets several hyperparameters at once: ``for a, b in product(...)``, a list of tuples or dicts."""
    iterable = bound.get(loop.iter.id, loop.iter) if isinstance(loop.iter, ast.Name) else loop.iter
    return isinstance(loop.target, ast.Tuple) and not (isinstance(iterable, ast.Call) and call_name(
        iterable) == "enumerate") or isinstance(iterable, ast.Call) and call_name(iterable) in _GRIDS or isinstance(
        iterable, (ast.List, ast.Tuple)) and all(isinstance(e, (ast.Tuple, ast.Dict)) for e in iterable.elts)


def test_curves(tree: ast.Module) -> dict[int, int]:
    """``{first line of a grid loop: line where it reports each setting's value}`` (see the module docstring).

    Only a grid of two or more settings counts (nested loops that each set one, or one loop over combinations):
    a single parameter's curve printed or collected with nothing chosen stays silent by the house's tests (a
    teaching curve of k or C; :mod:`.choices` still reports one whose best is kept or typed back)."""
    nodes = list(walk_once(tree))
    bound = {t.id: n.value for n in nodes if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}
    defined = {n.name for n in nodes if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    sweeps: list[ast.For] = []
    for loop in (n for n in nodes if isinstance(n, ast.For) and _candidates(n.iter, bound)):
        targets = _names(loop.target)
        if targets and not (_repeats(targets) or _fold_loop(loop) or _scores_training_rows(loop)
                            or _over_targets(loop, targets)) and \
                _sets_hyperparameter(loop, targets, defined):
            sweeps.append(loop)
    out: dict[int, int] = {}
    for loop in sweeps:
        nested = any(o is not loop and (o.lineno <= loop.lineno <= (o.end_lineno or o.lineno) or
                                        loop.lineno <= o.lineno <= (loop.end_lineno or loop.lineno)) for o in sweeps)
        if (nested or _several_settings(loop, bound)) and (line := _report_line(loop)):
            out[loop.lineno] = line
    return out


def read_off_curves(facts: list[LoopFacts], curves: dict[int, int]) -> list[LoopFacts]:
    """``facts`` with every grid loop of ``curves`` that keeps no best marked as a search that chooses where it
    reports (its settings are read off the reported curve); cross-validation loops stay as they are."""
    return [replace(f, varies=True, chooses=curves[f.start], read_off=True) if f.start in curves and not f.chooses and not f.cv
            else f for f in facts]


__all__ = ["read_off_curves", "test_curves"]
