"""Choices made with the test rows, and look-alikes that are not fits, for the static leakage analysis.

A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer` (it needs ``report``, ``smap`` and the
syntactic facts :func:`loop_facts` computes once per module) and syntactic helpers:

* ``tuned_on_test``: a loop tries candidates (a hyperparameter, a model, a feature set), scores each on the
  test rows and keeps the best (``if score > best``, ``max(scores)``, ``np.argmax(errors)``, ``idxmax()`` or
  ``sort_values(...).iloc[0]`` (or ``.head(1)``) of a table built from the scores, or the value read off the curve typed into
  the next model, which is then scored on the same rows: ``KNeighborsClassifier(n_neighbors=7)`` after
  ``for k in range(1, 30)``). The
  reported score is then the maximum of several noisy test scores: optimistic, as a score on training rows
  is (ASE'22's *multi-test leakage*: Yang, Brower-Sinning, Lewis, Kästner, "Data leakage in notebooks: static
  detection and better processes", ASE 2022; Cawley & Talbot, JMLR 11, 2010, "On over-fitting in model
  selection and subsequent selection bias in performance evaluation"). Choosing on a part named for
  validation (``X_val``, ``X_dev``) is the intended practice and stays silent, as do cross-validation folds. A
  part of a whole training file (``train.csv`` beside an unlabelled ``test.csv``) scored under a name for testing
  (``X_test``) is the notebook's reported test part and counts (:func:`.testparts.named_test_part`); a function
  handed to an optimizer (optuna, hyperopt) is such a loop too (:mod:`.objectives`).
* :func:`reflection`: ``x.max() - x`` (``np.max(img) - img``) inverts values (a negative image). It uses the
  set's own range only as a mirror: every difference between two rows is kept (an isometry), so the same
  reflection of train and test rows, or of all rows before a split, tells a model nothing about the test
  rows. It is not a fitted statistic; scaling by the range (``x / x.max()``) still is.
* :func:`masked_before_split`: a statistic of a masked subset (``df.loc[df.y == 0, 'chol'].median()``) taken
  before the split of the rows it was masked from saw some of the held-out rows; :func:`names_columns`:
  ``df[predictors]`` with ``predictors`` built from ``df.columns`` selects columns, not rows; a
  ``ColumnTransformer`` of stateless parts (:func:`composite_learns`) learns nothing.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

from faultlib.detect.data.leakage import vocab
from faultlib.detect.data.leakage.opencvml import opencv_setter, opencv_variables
from faultlib.detect.data.leakage.callsites import function_at, loop_site
from faultlib.detect.data.leakage.handedcands import hands_candidate
from faultlib.detect.data.leakage.helperpicks import appending_params, handed_to_appender, picking_functions
from faultlib.detect.data.leakage.comparedby import kept_by_another_value
from faultlib.detect.data.leakage.guards import branches, counter_guard, counters, seed_only, size_guard
from faultlib.detect.data.leakage.laterpicks import later_running_best
from faultlib.detect.data.leakage.passbests import kept_per_pass
from faultlib.detect.data.leakage.targets import call_name, validation_named
from faultlib.detect.data.leakage.testparts import named_test_part
from faultlib.detect.data.leakage.values import Data, Est, Rows, parts
from faultlib.findings import Finding, Severity
from faultlib.pyflow.walk import walk_once

#: calls that pick the best of the collected scores (a sort alone orders a table or a plot; its first row, ``.iloc[0]``,
#: picks one)
_CHOOSERS = frozenset({"max", "min", "argmax", "argmin", "nanargmax", "nanargmin", "idxmax", "idxmin", "nlargest",
                       "nsmallest"})
#: keywords that vary a run, not the model (a seed sweep shows the variance of one model)
_NOT_HYPERPARAMETERS = frozenset({"random_state", "seed", "verbose", "n_jobs", "warm_start"})
#: how far after a sweep (lines of the module; notebook cells joined) a value typed back in counts as read off it
_TYPED_BACK_WITHIN = 60
#: ... and how soon the model built with it must be scored on the rows the sweep scored (the claim is about that score)
_SCORED_WITHIN = 15
_RANGE_BOUNDS = frozenset({"max", "amax", "nanmax", "min", "amin", "nanmin"})


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def reflection(node: ast.BinOp) -> bool:
    """``x.max() - x``, ``np.max(x) - x``: the range bound of ``x`` minus ``x`` itself (see the module docstring)."""
    left = node.left
    if not isinstance(left, ast.Call) or call_name(left) not in _RANGE_BOUNDS or any(
            k.arg == "axis" for k in left.keywords):
        return False
    if isinstance(left.func, ast.Attribute) and not left.args:
        inner = left.func.value
    elif left.args and len(left.args) == 1:
        inner = left.args[0]
    else:
        return False
    return ast.dump(inner) == ast.dump(node.right)


@dataclass
class LoopFacts:
    """What one ``for`` loop does, read from the syntax: ``varies`` (a constructor or ``set_params`` call takes
    the loop variable: a candidate per iteration), ``chooses`` (it keeps the best), ``targets`` (its variables)."""

    start: int
    end: int
    targets: set[str]
    varies: bool
    chooses: int  # the line where the best is kept (0: nowhere)
    cv: bool
    varied: dict[str, set[str]] = field(default_factory=dict)  # constructor -> keywords that take the loop variable
    read_off: bool = False  # ``chooses`` is where each candidate's test score is reported, no best kept (.testcurves)


def loop_facts(tree: ast.Module, models: frozenset[str] = frozenset()) -> list[LoopFacts]:
    """Every ``for`` loop's :class:`LoopFacts` (innermost last for equal starts); ``models``: constructors known as
    models by their use only (:func:`.ducks.duck_models`), candidates a loop varies like a library's."""
    out: list[LoopFacts] = []
    nodes = list(walk_once(tree))
    loops = [n for n in nodes if isinstance(n, ast.For)]
    if not loops:
        return out
    later_calls = sorted((n for n in nodes if isinstance(n, ast.Call)), key=lambda n: (n.lineno, n.col_offset))
    names_of: dict[int, set[str]] = {}

    def names(node: ast.AST) -> set[str]:  # cached: every loop looks at the same later calls
        if id(node) not in names_of:
            names_of[id(node)] = _names(node)
        return names_of[id(node)]

    assigns = [n for n in nodes if isinstance(n, ast.Assign)]
    counted = counters(tree)  # if k > 0: a fold counter's guard, not a choice (guards.py)
    cv_models = opencv_variables(tree)  # knn = cv2.ml.KNearest_create(); knn.setDefaultK(k) (opencvml.py)
    firsts = _first_rows(nodes)  # x.iloc[0], x.iloc[0, 1], x.head(1)
    appenders = appending_params(tree)  # record(y_test, board, ...): the helper appends to board (helperpicks.py)
    pickers = picking_functions(tree)  # best = winner(board): the helper sorts and returns the first row
    holders = {id(c): {t.id for t in a.targets if isinstance(t, ast.Name)} for a in assigns
               for c in ast.walk(a.value) if isinstance(c, ast.Call)}  # knn = KNN(...).fit(...): the model's variable
    resplit = tuple((o.lineno, o.end_lineno or o.lineno) for o in loops if any(
        isinstance(n, ast.Call) and call_name(n) in vocab.SPLIT_FUNCTIONS for n in ast.walk(o)))
    for loop in loops:
        targets = _names(loop.target)
        end = loop.end_lineno or loop.lineno
        body = [n for stmt in loop.body for n in ast.walk(stmt)]
        cv = any(isinstance(n, ast.Call) and (call_name(n) == "split" or call_name(n) in vocab.SPLITTERS)
                 for n in ast.walk(loop.iter))
        varied: dict[str, set[str]] = {}
        for call in (n for n in body if isinstance(n, ast.Call)):
            name = call_name(call)
            if not (vocab.is_model(name) or vocab.is_search(name) or name in vocab.PIPELINES or name == "set_params"
                    or any(m.rsplit(".", 1)[-1] == name for m in models) or opencv_setter(call, cv_models)):
                continue
            keys = {k.arg or "" for k in call.keywords if _names(k.value) & targets
                    and not seed_only(k.value, targets)} - _NOT_HYPERPARAMETERS
            if keys or any(_names(a) & targets for a in call.args) and not any(
                    k.arg in _NOT_HYPERPARAMETERS and _names(k.value) & targets for k in call.keywords):
                varied.setdefault(name, set()).update(keys)
        kept: set[str] = set()  # names the loop body appends to or stores into
        chooses = 0
        for n in body:
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in ("append", "extend") \
                    and isinstance(n.func.value, ast.Name):
                kept.add(n.func.value.id)
            elif isinstance(n, ast.Call) and appenders:
                kept |= handed_to_appender(n, appenders)
            elif isinstance(n, (ast.Assign, ast.AugAssign)):
                for t in (n.targets if isinstance(n, ast.Assign) else [n.target]):
                    base = t
                    while isinstance(base, (ast.Subscript, ast.Attribute)):
                        base = base.value
                    if isinstance(base, ast.Name) and base is not t:
                        kept.add(base.id)
            elif isinstance(n, ast.If) and isinstance(n.test, ast.Compare) and any(
                    isinstance(op, (ast.Gt, ast.Lt, ast.GtE, ast.LtE)) for op in n.test.ops) and any(
                    isinstance(s, (ast.Assign, ast.AugAssign)) for s in branches(n)) and not counter_guard(n.test, counted) \
                    and not size_guard(n.test):
                chooses = chooses or n.lineno  # if score > best: best = score
        scored = {name for n in body if isinstance(n, ast.Call) and call_name(n) in vocab.EVALUATE and n.args
                  for name in _names(n.args[0])}  # what the loop scores each candidate on
        for a in (a for a in assigns if a.lineno > end):
            if kept & names(a.value):  # results_df = pd.DataFrame(results): the same scores
                kept |= {t.id for t in a.targets if isinstance(t, ast.Name)}
        if not chooses and kept:
            chooses = _first_of_sorted(later_calls, firsts, kept, end, names)
        if not chooses and kept and pickers:
            chooses = next((c.lineno for c in later_calls if c.lineno > end and isinstance(c.func, ast.Name)
                            and c.func.id in pickers and kept & names(c)
                            and function_at(tree, c.lineno) == function_at(tree, loop.lineno)), 0)
        if not chooses and kept:  # for i, n in enumerate(names): if scores[i] > best: ... (laterpicks.py)
            chooses = later_running_best(loops, kept, end, counted, names)
        typed_back: set[str] = set()  # constructors already seen after the loop: only the first one counts
        since = end

        def sweep_of(call: ast.Call, this: ast.For = loop) -> ast.For | None:
            return next((o for o in loops if o is not this and o.lineno <= call.lineno <= (o.end_lineno or o.lineno)
                         and _names(call) & _names(o.target)), None)
        for call in later_calls:
            if call.lineno <= end or chooses:
                continue
            name = call_name(call)
            if name in _CHOOSERS and kept & names(call):
                chooses = call.lineno  # max(scores), np.argmax(errors), min(zip(errors, ks))
            elif name in varied and name not in typed_back and kept and sweep_of(call) is not None:
                # the same constructor swept again by a later loop: a new curve, not a value typed back (the value
                # typed after that curve may still be read off this one: the window runs from its end)
                since = max(since, sweep_of(call).end_lineno or call.lineno)
            elif name in varied and name not in typed_back and kept and call.lineno - since <= _TYPED_BACK_WITHIN:
                typed_back.add(name)  # the scores were collected (a curve), the next model takes one value of it
                if any(k.arg in varied[name] and isinstance(k.value, ast.Constant) and _candidate(k.value.value,
                                                                                                loop.iter)
                       for k in call.keywords) and _scored_again(call, scored, later_calls, holders, resplit):
                    chooses = call.lineno
        out.append(LoopFacts(loop.lineno, end, targets, bool(varied), chooses, cv, varied))
    out.sort(key=lambda f: f.start - f.end)  # innermost first
    return out


def _first_row(key: ast.expr) -> bool:
    first = key.elts[0] if isinstance(key, ast.Tuple) and key.elts else key
    return isinstance(first, ast.Constant) and first.value == 0


def _first_rows(nodes: list[ast.AST]) -> list[tuple[int, ast.expr]]:
    """``(line, table)`` of every first row taken by position: ``t.iloc[0]``, ``t.iloc[0, 1]``, and ``t.head(1)``
    (pandas ``DataFrame.head(n)`` returns the first ``n`` rows: with ``n=1`` the top row of a sorted table, read on
    by ``best['k'].values[0]`` or ``.to_dict('records')[0]``)."""
    out = [(n.lineno, n.value.value) for n in nodes if isinstance(n, ast.Subscript)
           and isinstance(n.value, ast.Attribute) and n.value.attr == "iloc" and _first_row(n.slice)]
    out += [(n.lineno, n.func.value) for n in nodes if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
            and n.func.attr == "head" and [getattr(a, "value", None) for a in [*n.args, *(
                k.value for k in n.keywords if k.arg == "n")]] == [1]]
    return out


def _first_of_sorted(calls: list[ast.Call], firsts: list[tuple[int, ast.expr]], kept: set[str], end: int,
                     names: Any = None) -> int:
    """``results_df.sort_values('acc').iloc[0]`` (or of a name the sort was assigned to): the first row of the sorted
    scores is the best one; the line where it is taken, else 0."""
    names = names or _names
    if not any(c.lineno > end and call_name(c) in ("sort_values", "sort", "sorted") and kept & names(c)
               for c in calls):
        return 0
    return next((line for line, table in firsts if line > end and kept & _names(table)), 0)


def _scored_again(call: ast.Call, scored: set[str], calls: list[ast.Call], holders: dict[int, set[str]],
                  resplit: tuple[tuple[int, int], ...] = ()) -> bool:
    """The model built by ``call`` (chained, or through the variable it is assigned to) is scored soon after on the
    rows the sweep scored (``knn = KNN(n_neighbors=9); knn.fit(...); knn.score(X_test, y_test)``). A score inside a
    loop that splits the rows anew each pass (``resplit``: how the score varies with the split) is another
    experiment, not the swept one's test rows."""
    names = holders.get(id(call), set())
    for c in calls:
        if not (call.lineno <= c.lineno <= call.lineno + _SCORED_WITHIN) or call_name(c) not in vocab.EVALUATE or \
                not c.args or not _names(c.args[0]) & scored or not isinstance(c.func, ast.Attribute) or any(
                    a <= c.lineno <= b for a, b in resplit):
            continue
        receiver = c.func.value
        if any(n is call for n in ast.walk(receiver)) or _names(receiver) & names:
            return True
    return False


def _candidate(value: Any, iterable: ast.expr) -> bool:
    """``value`` is among the loop's candidates when they are written out (``range(1, 40)``, ``[1, 3, 5]``);
    candidates held in a variable are taken as unknown (any value)."""
    if isinstance(iterable, (ast.List, ast.Tuple, ast.Set)):
        return any(isinstance(e, ast.Constant) and e.value == value for e in iterable.elts) or not all(
            isinstance(e, ast.Constant) for e in iterable.elts)
    if isinstance(iterable, ast.Call) and call_name(iterable) == "range" and all(
            isinstance(a, ast.Constant) and isinstance(a.value, int) for a in iterable.args):
        return isinstance(value, int) and value in range(*[a.value for a in iterable.args])
    return True


#: transformers made of other transformers: they learn only what their parts learn
COMPOSITES = frozenset({"ColumnTransformer", "make_column_transformer", "FeatureUnion", "make_union"})


def _root_name(node: ast.expr | None) -> str | None:
    while isinstance(node, (ast.Subscript, ast.Attribute)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _held_aside(x: Any) -> bool:
    """Rows a split held aside (a validation or test part), not a cross-validation fold."""
    ps = parts(x.rows) if isinstance(x, Data) else []
    return any(s.kind == "split" and s.part in ("val", "test") for p in ps for s in p.steps) and not any(
        s.kind == "fold" for p in ps for s in p.steps)


def masked_before_split(fit: Rows, held: Rows) -> Rows:
    """``df.loc[df.y == 0, 'chol'].median()`` fills rows of ``df`` that a later ``train_test_split(df)`` sends to
    both sides: a statistic of a masked subset, taken before the split of the rows it was masked from, saw some of
    the held-out rows. Returns the rows the mask was drawn from in that case (so the split's test part is covered),
    else ``fit`` unchanged. Rows dropped from the whole table after the mask and before the split
    (``df = df[df.adults > 0]``: a cleaning filter, wave 98) leave the split's test part inside the masked table's
    rows all the same."""
    k = 0
    while k < min(len(fit.steps), len(held.steps)) and fit.steps[k] == held.steps[k]:
        k += 1
    rest, after = fit.steps[k:], held.steps[k:]
    dropped = 0  # (the cleaning filters of the whole table between the mask and the split)
    while dropped < len(after) and after[dropped].kind == "filter" and after[dropped].part is None:
        dropped += 1
    if 0 < dropped < len(after) and after[dropped].kind == "split":
        after = after[dropped:]
    split = after[0].kind == "split" and after[0].part == "test" if after else False
    shuffled = len(after) > 1 and after[0].part == "shuffle" and after[1].kind == "slice"  # sample(frac=1)[:n]
    if fit.root == held.root and rest and all(s.kind == "filter" and s.part in (None, "class") for s in rest) and (
            split or shuffled) and all(s.line < after[0].line for s in rest):
        return Rows(fit.root, fit.steps[:k])
    return fit


def names_columns(index: ast.expr, bindings: dict[str, list[ast.expr]], depth: int = 3) -> bool:
    """``df[predictors]`` with ``predictors = list(set(df.columns) - {'y'})``, ``df[df.columns[2:]]``: the index is
    built from a frame's ``.columns``, so it selects columns (pandas ``df[list_of_labels]``), not rows.

    A pure function of the syntax: with ``bindings`` from :func:`bindings` (a :class:`Bindings`) each answer is
    remembered per (node, depth), so a name bound many times (``df = ...`` on every line of a feature script) is
    not walked again for every subscript that mentions it (without that: bindings ** depth walks of the tree)."""
    memo = getattr(bindings, "memo", None)
    if memo is None:
        return _names_columns(index, bindings, depth)
    key = (index, depth)  # an AST node hashes by identity; the key keeps it alive while the memo lives
    found = memo.get(key)
    if found is None:
        found = memo[key] = _names_columns(index, bindings, depth)
    return found


def _names_columns(index: ast.expr, bindings: dict[str, list[ast.expr]], depth: int) -> bool:
    for n in ast.walk(index):
        if isinstance(n, ast.Attribute) and n.attr == "columns":
            return True
        if isinstance(n, ast.Attribute) and n.attr == "index" and per_column(n.value, bindings, depth):
            return True
        if depth and isinstance(n, ast.Name) and _bound_to_columns(n.id, bindings, depth - 1):
            return True
    return False


def _bound_to_columns(name: str, bindings: dict[str, list[ast.expr]], depth: int) -> bool:
    """Some expression ``name`` is bound to names columns (:func:`names_columns` at ``depth``), remembered per
    (name, depth) in a :class:`Bindings`' memo: a name bound on every line of a feature script is asked about by
    every subscript that mentions it, and each asked all its bindings again."""
    memo = getattr(bindings, "memo", None)
    key = (name, depth)  # a string key: never one of the memo's node keys
    found = memo.get(key) if memo is not None else None
    if found is None:
        found = any(names_columns(b, bindings, depth) for b in bindings.get(name, ()))
        if memo is not None:
            memo[key] = found
    return found


#: reductions whose result has one value per column (pandas ``DataFrame.sum()``, ``.isnull().sum()``, ``.dtypes``):
#: its index is the column names
_PER_COLUMN = frozenset({"sum", "count", "mean", "median", "std", "var", "min", "max", "nunique", "skew", "kurt",
                         "any", "all"})
#: methods that keep a Series' index labels (a sort, a cut, a filter)
_KEEPS_LABELS = frozenset({"sort_values", "head", "tail", "nlargest", "nsmallest", "dropna", "abs", "round"})


def per_column(node: ast.expr, bindings: dict[str, list[ast.expr]], depth: int = 3) -> bool:
    """``missing = df.isnull().sum(); missing[missing > 0].sort_values()``: a Series of one value per column of a
    frame, so its ``.index`` holds column names (pandas: a reduction over ``axis=0``, the default)."""
    while True:
        if isinstance(node, ast.Subscript):
            node = node.value
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _KEEPS_LABELS:
            node = node.func.value
        else:
            break
    if isinstance(node, ast.Attribute) and node.attr == "dtypes":
        return True
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _PER_COLUMN:
        if any(isinstance(n, ast.Attribute) and n.attr in ("groupby", "resample", "rolling", "pivot_table", "T")
               for n in ast.walk(node.func.value)):
            return False  # df.groupby(k).mean(): one row per group, its index the group keys
        return not any(k.arg == "axis" and isinstance(k.value, ast.Constant) and k.value.value in (1, "columns")
                       for k in node.keywords)
    return bool(depth) and isinstance(node, ast.Name) and any(per_column(b, bindings, depth - 1)
                                                              for b in bindings.get(node.id, ()))


class Bindings(dict):
    """``{name: [expression, ...]}`` as :func:`bindings` builds it, with ``memo``: the answers of
    :func:`names_columns` over this map (it never changes once built)."""

    def __init__(self) -> None:
        super().__init__()
        self.memo: dict[tuple[ast.AST | str, int], bool] = {}


def bindings(tree: ast.Module) -> Bindings:
    """The expressions each simple name is assigned anywhere in the module (a syntactic map for
    :func:`names_columns`; ``col`` is reused by many loops)."""
    out = Bindings()
    for n in walk_once(tree):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
            out.setdefault(n.targets[0].id, []).append(n.value)
        elif isinstance(n, ast.For) and isinstance(n.target, ast.Name):
            out.setdefault(n.target.id, []).append(n.iter)  # for col in df.columns: df[col] is a column
    return out


def composite_learns(args: list[Any], kwargs: dict[str, Any]) -> bool:
    """``ColumnTransformer([('log', FunctionTransformer(np.log1p), ['Fare'])], remainder='passthrough')`` learns
    nothing from the rows (a stateless part, the rest passed through): its fit is no leak. ``True`` when a part
    learns from rows or when the parts are not known."""
    from faultlib.pyflow.values import Tup

    found: list[Est] = []

    def walk(value: Any, depth: int = 0) -> None:
        if isinstance(value, Est):
            found.append(value)
        elif isinstance(value, Tup) and depth < 4:
            for item in value.items:
                walk(item, depth + 1)

    for value in [*args, *kwargs.values()]:
        walk(value)
    return not found or any(e.preprocessing for e in found)


class ChoiceChecks:
    """``tuned_on_test`` (see the module docstring); needs ``_loop_facts``, ``_call_lines``, ``tree``, ``report``,
    ``smap`` and ``data_of`` (a value as data, or ``None``)."""

    def _test_rows(self, value: Any, arg: ast.expr | None) -> bool:
        """``value`` (passed as ``arg``) is test rows: a split's test part, a test file, a part named for testing;
        never a part named for validation, by the argument or where its rows come from (a helper's parameter
        holding ``X_valid``)."""
        x = self.data_of(value)  # type: ignore[attr-defined]
        if x is None or validation_named(arg) or x.rows is not None and all(
                validation_named(ast.Name(p.root.name)) for p in parts(x.rows)):  # (read from cells_valid.csv)
            return False
        return x.test or any(s.kind == "split" and s.part == "test" for p in parts(x.rows) for s in p.steps) \
            or any(p.root.test for p in parts(x.rows)) or named_test_part(x, arg)

    def _check_tuned(self, est: Est, x: Data, node: ast.Call, frame: Any) -> None:
        arg = node.args[0] if node.args else None
        if "_pass_bests" not in self.__dict__:
            self._pass_bests = kept_per_pass(self.tree)  # type: ignore[attr-defined]
        per_pass = self._pass_bests.get(node.lineno)  # scores[fold] = best of the grid on the fold (passbests.py)
        held = self._test_rows(x, arg) or per_pass is not None
        rescored: dict[int, frozenset[str]] = getattr(self, "_picks_rescored", {})  # (bestrefits.py)
        if not held and not (rescored and _held_aside(x) and _root_name(arg)):
            return
        receiver = node.func.value if isinstance(node.func, ast.Attribute) else None
        lines = [node.lineno, *self._call_lines]
        for facts in self._loop_facts:
            if facts.cv or not facts.chooses or not any(facts.start <= ln <= facts.end for ln in lines):
                continue
            by_loop = receiver is not None and _names(receiver) & facts.targets or (
                arg is not None and _names(arg) & facts.targets and facts.start <= node.lineno <= facts.end)
            if not (facts.varies or by_loop or hands_candidate(self.tree, self._call_lines, facts.start, facts.end,
                                                               facts.targets)):  # evaluate(model, ...) (handedcands)
                continue
            if not held and _root_name(arg) not in rescored.get(facts.start, ()):
                continue  # a validation part chooses: its rows count only when the pick is scored on them again
            if facts.start in self._tuned:
                return
            self._tuned.add(facts.start)
            at = loop_site(self.tree, node.lineno, self._call_lines, facts.start, facts.end)  # (callsites.py)
            if kept_by_another_value(self.tree, facts.start, facts.end, at, facts.chooses):
                self._tuned.discard(facts.start)
                continue  # the best is kept by another value; this test score is only shown (comparedby.py)
            if self.smap.where(at).get("file") != self.smap.where(facts.start).get("file"):  # a joined module's
                at = next((ln for ln in reversed(self._call_lines) if facts.start <= ln <= facts.end), at)  # helper
            where = self.smap.where(at)
            self.report.findings.append(Finding(
                "leakage", Severity.WARNING,
                f"{est.cls}.{call_name(node)}() scores the "
                + ((f"held-out rows of each pass, whose best score is stored as the pass's result "
                    f"({self.smap.describe(per_pass.stored)})" if per_pass is not None else "test rows") if held
                   else "held-aside rows the chosen candidate is scored on again after the search")
                + " inside the loop on "
                f"{self.smap.describe(facts.start)}, which tries candidates, and "
                + ("every candidate's test score is reported to be read off "
                   if facts.read_off else "the best is kept by that score ")
                + f"({self.smap.describe(facts.chooses)}): the "
                + ("test rows chose the model, so its test score is optimistic (ASE'22 multi-test leakage). Fix: "
                   "choose on a validation part or by cross-validation on the training part, then score the test "
                   "part once" if per_pass is None else
                   "rows each pass reports chose its candidate, so every pass's score, and their mean, is optimistic "
                   "(Varma & Simon 2006). Fix: choose inside each pass on a split of its training rows (nested "
                   "cross-validation), then score the pass's held-out rows once"),
                {**where, "column": node.col_offset + 1 if at == node.lineno else 1,
                 "function": frame.qualname if at == node.lineno else function_at(self.tree, at)},
                {"estimator": est.cls, "loop": self.smap.where(facts.start), "kept": self.smap.where(facts.chooses),
                 "held_out_rows":
                 x.rows.describe() if x.rows is not None else None}, kind="tuned_on_test"))
            return
