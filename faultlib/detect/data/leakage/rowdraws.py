"""Oversampling written by hand: which items of a row stack are rows drawn again from a table.

A stack of rows (``pd.concat``, ``np.vstack``, ``np.concatenate``) repeats rows -- oversampling by hand -- when one
of its items is rows *chosen again* from a table the stack already holds:

* **selected by their label**: ``df[df['label'] == 1]``, ``df.loc[df.y.isin([1, 2])]``, ``X[y == 1]``,
  ``df.query('target == 1')``, or a subset of such a selection (``minority.sample(200)``): the minority class
  copied, imbalanced-learn's "naive random over-sampling" written out (imbalanced-learn user guide,
  "Over-sampling": ``RandomOverSampler`` "duplicat[es] some of the original samples of the minority class");
* **drawn with replacement**: ``df.sample(n, replace=True)``, ``df.sample(frac=3)``, ``X[np.random.choice(len(X),
  n)]`` (NumPy's ``choice`` draws with replacement unless given ``replace=False``), ``X[rng.integers(0, n,
  size=k)]``, ``np.repeat(X, k, axis=0)``, ``np.tile(X, (k, 1))``, ``df.loc[df.index.repeat(w)]``: the by-hand
  twin of ``sklearn.utils.resample`` ("replace=True: implements resampling with replacement", scikit-learn API
  reference), which :mod:`~faultlib.detect.data.leakage.design` reads itself;
* **the same table listed twice** beside other rows (``pd.concat([df, upsets, upsets])``), or a selection by the
  label listed again and again (``pd.concat([neg, neg])``, ``pd.concat([minority] * k)``), to be joined to the rest.

Done before a split (or outside the cross-validation loop), copies of one row land in training and in the held-out
part: information about the evaluation rows in the training data (Kaufman, Rosset, Perlich & Stitelman, "Leakage
in data mining: formulation, detection, and avoidance", ACM TKDD 2012); imbalanced-learn's "Common pitfalls and
recommended practices" asks to resample the training part only, inside the cross-validation.

A whole table repeated and nothing else (``pd.concat([df, df])``, ``pd.concat([X] * n_repeats)``) changes the
balance of no class: it is oversampling only where a split then deals the rows out one by one (``train_test_split``,
``KFold``, a random mask), which parts the copies of a row (:mod:`~faultlib.detect.data.leakage.copysplits`). Copies
kept together by a split on a key they share, repeated after the split, or only predicted are no leak (judged false
alarms at stop 53: a forecasting solution's bagged copies, kept in one group fold, and its submission rows repeated).
Any other stack of a table with rows *derived* from it repeats no chosen row and is not this kind
(judged false alarms at stop 44): a game in its other team order, placeholder rows for the missing hours of a series, one
sample's feature blocks joined, a path padded with its own first row, a duplicate injected by a tutorial at a
fixed or random single position, the rows an inner merge kept beside those it dropped, a submission assembled from
predicted parts, two views (originator, responder) of each flow, a random subset chosen by weight (no label, no
replacement). Read from the code: each item's expression, a name followed to its last binding before the stack.
"""

from __future__ import annotations

import ast

from faultlib.detect.data.leakage.repeatedlists import written_out
from faultlib.detect.data.leakage.targets import call_name, label_like
from faultlib.pyflow.walk import walk_once

LABEL = "label"
REPLACEMENT = "replacement"
TWICE = "twice"
WHOLE = "whole"

#: methods that keep the rows they are given (a label selection stays one after them)
_SAME_ROWS = frozenset({"reset_index", "copy", "sort_index", "sort_values", "astype", "drop", "dropna", "fillna",
                        "rename", "to_numpy", "array", "asarray", "DataFrame", "head", "tail", "sample",
                        "to_list", "tolist"})
_INDEXERS = frozenset({"loc", "iloc"})
_STACKS = frozenset({"concat", "concatenate", "vstack", "row_stack"})
_DEPTH = 6


def _keyword(node: ast.Call, name: str) -> ast.expr | None:
    return next((k.value for k in node.keywords if k.arg == name), None)


def _constant(node: ast.expr | None) -> object:
    return node.value if isinstance(node, ast.Constant) else None


def _bound(name: str, bindings: dict[str, list[ast.expr]], line: int) -> ast.expr | None:
    """The last expression ``name`` is assigned before ``line`` (``None`` when it has none)."""
    before = [b for b in bindings.get(name, ()) if b.lineno < line]
    return max(before, key=lambda b: b.lineno) if before else None


def _unwrapped(expr: ast.expr) -> ast.expr:
    """``df['fraud']`` for ``df['fraud'].values``, ``df['fraud'].to_numpy()``, ``df.fraud.astype(int)``."""
    while isinstance(expr, ast.Attribute) and expr.attr == "values" or isinstance(expr, ast.Call) and isinstance(
            expr.func, ast.Attribute) and expr.func.attr in ("to_numpy", "astype", "copy"):
        expr = expr.value if isinstance(expr, ast.Attribute) else expr.func.value  # type: ignore[union-attr]
    return expr


def _label_reference(node: ast.expr, targets: set) -> bool:
    """``df['Survived']``, ``df.label``, ``y``, ``y_train`` (or their ``.values``): the target column or a vector
    named for it."""
    node = _unwrapped(node)
    if isinstance(node, ast.Subscript):
        key = _constant(node.slice)
        return isinstance(key, str) and (key in targets or label_like(key))
    if isinstance(node, ast.Attribute):
        return isinstance(node.value, (ast.Name, ast.Subscript)) and (node.attr in targets or label_like(node.attr))
    return isinstance(node, ast.Name) and (label_like(node.id) or node.id in targets)


def _label_mask(key: ast.expr, bindings: dict[str, list[ast.expr]], targets: set, line: int) -> bool:
    """A boolean mask comparing the label with a value (``df.y == 1``, ``df['cls'].isin([1, 2])``, ``~(y == 0)``,
    ``(df.y == 1) & (df.age > 30)``); a mask bound to a name first (``mask = df.y == 1``). Not a test of the label's
    presence (``df.y.notnull()``: the labelled rows, a train/test parting)."""
    if isinstance(key, ast.Name):
        bound = _bound(key.id, bindings, line)
        return bound is not None and not isinstance(bound, ast.Name) and _label_mask(bound, bindings, targets, line)
    if isinstance(key, ast.UnaryOp) and isinstance(key.op, (ast.Invert, ast.Not)):
        return _label_mask(key.operand, bindings, targets, line)
    if isinstance(key, ast.BinOp) and isinstance(key.op, (ast.BitAnd, ast.BitOr)):
        return any(_label_mask(s, bindings, targets, line) for s in (key.left, key.right))
    if isinstance(key, ast.BoolOp):
        return any(_label_mask(s, bindings, targets, line) for s in key.values)
    if isinstance(key, ast.Compare):
        sides = [key.left, *key.comparators]
        return any(_label_reference(s, targets) for s in sides) and not any(
            isinstance(s, ast.Constant) and s.value is None for s in sides)
    if isinstance(key, ast.Call) and call_name(key) == "isin" and isinstance(key.func, ast.Attribute):
        return _label_reference(key.func.value, targets)
    return False


def _query_on_label(node: ast.Call, targets: set) -> bool:
    """``df.query('target == 1')``: a query string that names the label."""
    text = _constant(node.args[0]) if node.args else None
    if not isinstance(text, str):
        return False
    words = {w for w in text.replace("`", " ").split() if w.isidentifier()}
    return any(w in targets or label_like(w) for w in words)


def _with_replacement(node: ast.Call) -> bool:
    """Random positions drawn with replacement: ``np.random.choice(n, k)`` (NumPy: ``replace=True`` by default),
    ``rng.integers(0, n, size=k)`` / ``np.random.randint(0, n, k)`` (a vector of positions, not one), an index
    repeated (``df.index.repeat(w)``, ``np.repeat(idx, k)``), ``random.choices(idx, k=n)`` (Python standard library,
    ``random.choices``: "a k sized list of elements chosen from the population with replacement")."""
    name = call_name(node)
    if name == "choices":
        return _stdlib_random(node) and _keyword(node, "k") is not None
    if name == "choice":
        return _constant(_keyword(node, "replace")) is not False and (len(node.args) > 1 or _keyword(
            node, "size") is not None)
    if name in ("randint", "integers"):
        return len(node.args) > 2 or _keyword(node, "size") is not None
    return name == "repeat"


def _positions(key: ast.expr, bindings: dict[str, list[ast.expr]], targets: set, line: int,
               depth: int) -> str | None:
    """How an index array (a subscript's key) chose its positions: at random with replacement, or from rows
    selected by their label (``np.random.choice(df[df.y == 1].index, k, replace=False)``)."""
    if isinstance(key, ast.Name) and depth < _DEPTH:
        bound = _bound(key.id, bindings, line)
        return _positions(bound, bindings, targets, bound.lineno, depth + 1) if bound is not None else None
    if not isinstance(key, ast.Call):
        return None
    if _with_replacement(key):
        return REPLACEMENT
    if call_name(key) == "choice" and key.args or _stdlib_sample(key):
        return LABEL if drawn(key.args[0], bindings, targets, line, depth + 1) == LABEL else None
    return None


def _stdlib_sample(node: ast.Call) -> bool:
    """``random.sample(population, k)``: ``k`` distinct items of ``population`` (Python standard library,
    ``random.sample``: "a k length list of unique elements chosen from the population sequence"), the positions of
    rows when ``population`` is a table's index (``random.sample(df.query('y == 1').index.to_list(), k=8)``)."""
    return call_name(node) == "sample" and _stdlib_random(node)


def _stdlib_random(node: ast.Call) -> bool:
    """``random.<f>(population, ...)``: a function of the standard library's ``random`` module given a population."""
    f = node.func
    return isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "random" and \
        bool(node.args)


def _numpy_call(node: ast.Call) -> bool:
    """``np.repeat(...)``: a function of NumPy, not a method of the array."""
    f = node.func
    return isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id in ("np", "numpy")


def _repeats(node: ast.Call) -> bool:
    """``np.repeat(X, k, axis=0)`` / ``X.repeat(k, axis=0)`` and ``np.tile(X, (k, 1))``: every row repeated."""
    name, numpy = call_name(node), _numpy_call(node)
    if name == "repeat":
        place = 2 if numpy else 1
        axis = _keyword(node, "axis") or (node.args[place] if len(node.args) > place else None)
        return _constant(axis) == 0
    if name == "tile" and numpy and len(node.args) > 1:
        reps = node.args[1]
        return isinstance(reps, ast.Tuple) and len(reps.elts) == 2 and _constant(reps.elts[1]) == 1 and \
            _constant(reps.elts[0]) != 1
    return False


def drawn(expr: ast.expr | None, bindings: dict[str, list[ast.expr]], targets: set, line: int,
          depth: int = 0) -> str | None:
    """How the rows of ``expr`` were chosen again from a table, if they were: :data:`LABEL` (a selection by the
    label, or a subset of one), :data:`REPLACEMENT` (drawn with replacement, or repeated), else ``None``.

    Args:
        expr: an item of a row stack.
        bindings: ``{name: [expressions assigned to it anywhere]}``
            (:func:`~faultlib.detect.data.leakage.choices.bindings`); a name stands for its last binding before
            ``line``.
        targets: the columns and names the script uses as its labels (:func:`label_columns`).
        line: the line of the stack.
    """
    if expr is None or depth > _DEPTH:
        return None
    if isinstance(expr, ast.Name):
        bound = _bound(expr.id, bindings, line)
        return drawn(bound, bindings, targets, bound.lineno, depth + 1) if bound is not None else None
    if isinstance(expr, ast.Attribute):
        return drawn(expr.value, bindings, targets, line, depth + 1) if expr.attr in ("values", "index", "T") \
            else None
    if isinstance(expr, ast.Call):
        return _drawn_by_call(expr, bindings, targets, line, depth)
    if isinstance(expr, ast.Subscript):
        base, key = expr.value, expr.slice
        if isinstance(base, ast.Attribute) and base.attr in _INDEXERS:
            base = base.value
            key = key.elts[0] if isinstance(key, ast.Tuple) and key.elts else key
        elif isinstance(key, ast.Tuple) and key.elts:
            key = key.elts[0]  # X[rows, :]
        if _label_mask(key, bindings, targets, line):
            return LABEL
        how = _positions(key, bindings, targets, line, depth)
        return how or drawn(base, bindings, targets, line, depth + 1)  # a subset of drawn rows is drawn rows
    return None


def _drawn_by_call(node: ast.Call, bindings: dict[str, list[ast.expr]], targets: set, line: int,
                   depth: int) -> str | None:
    name = call_name(node)
    receiver = node.func.value if isinstance(node.func, ast.Attribute) else None
    if name == "sample":
        frac = _constant(_keyword(node, "frac"))
        if _constant(_keyword(node, "replace")) is True or isinstance(frac, (int, float)) and frac > 1:
            return REPLACEMENT
    if _repeats(node):
        return REPLACEMENT
    if name == "query" and receiver is not None and _query_on_label(node, targets):
        return LABEL
    if name in _SAME_ROWS:
        inner = node.args[0] if name in ("array", "asarray", "DataFrame") and node.args else receiver
        return drawn(inner, bindings, targets, line, depth + 1)
    if name in _STACKS:  # neg = pd.concat([neg, neg]): still the rows chosen by their label, now repeated
        listed = _listed(node)
        hows = [drawn(e, bindings, targets, line, depth + 1) for e in listed or ()]
        return LABEL if LABEL in hows else REPLACEMENT if REPLACEMENT in hows or any(listed_twice(listed or [])) \
            else None
    return None


def _listed(node: ast.Call) -> list[ast.expr] | None:
    """The items of a stack written as a list (``pd.concat([a, b])``, ``pd.concat(objs=[...])``, ``[a] + [b] * k``:
    :mod:`.repeatedlists`), ``None`` when they are not written out (``pd.concat(parts)``, ``[*extras]``)."""
    listed = node.args[0] if node.args else next(
        (k.value for k in node.keywords if k.arg in ("objs", "tup", "arrays")), None)
    return None if listed is None else written_out(listed)


def listed_twice(items: list[ast.expr]) -> list[bool]:
    """For each item of a stack, whether the same table (the same name or attribute, ``df``, ``self.data``) was
    listed before it: ``pd.concat([df, df])`` doubles every row."""
    seen: set[str] = set()
    out = []
    for item in items:
        text = ast.dump(item) if isinstance(item, (ast.Name, ast.Attribute)) else None
        out.append(text is not None and text in seen)
        if text is not None:
            seen.add(text)
    return out


class _Scope:
    """The bindings of one function (or of the module's top level, outside every function): a name in a helper is
    not the name a notebook's other cells bind (``df`` is every function's parameter)."""

    def __init__(self, bindings: dict[str, list[ast.expr]], spans: list[tuple[int, int]], line: int):
        self._bindings, self._spans, self._home = bindings, spans, self._innermost(spans, line)

    @staticmethod
    def _innermost(spans: list[tuple[int, int]], line: int) -> tuple[int, int] | None:
        inside = [s for s in spans if s[0] <= line <= s[1]]
        return max(inside) if inside else None

    def get(self, name: str, default: tuple = ()) -> list[ast.expr]:
        return [b for b in self._bindings.get(name, default) if self._innermost(self._spans, b.lineno) == self._home]


def _column_of(expr: ast.expr) -> str | None:
    """``df['fraud']``, ``df.fraud``, ``df['fraud'].values``: the column a name is bound to."""
    expr = _unwrapped(expr)
    if isinstance(expr, ast.Subscript) and isinstance(_constant(expr.slice), str):
        return str(_constant(expr.slice))
    if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name):
        return expr.attr
    return None


def label_columns(tree: ast.AST, bindings: dict[str, list[ast.expr]], targets: set) -> set:
    """The target columns (``targets``: :func:`~faultlib.detect.data.leakage.targets.target_columns`) and the names
    passed as the labels with the columns they are bound to: ``ys = claims['fraud']`` then
    ``train_test_split(xs, ys)``, ``model.fit(xs, ys)``, ``cross_val_score(m, xs, ys)`` or ``y=ys`` make ``ys`` and
    ``'fraud'`` the label."""
    from faultlib.detect.data.leakage import vocab

    out = set(targets)
    for node in walk_once(tree):
        if not isinstance(node, ast.Call):
            continue
        name = call_name(node)
        place = 1 if name in ("fit", *vocab.SPLIT_FUNCTIONS) else 2 if name in vocab.CV_FUNCTIONS else None
        given = [node.args[place]] if place is not None and len(node.args) > place else []
        given += [k.value for k in node.keywords if k.arg in ("y", "label", "target")]
        for label in given:
            if isinstance(label, ast.Name):
                out.add(label.id)
                out |= {c for c in map(_column_of, bindings.get(label.id, ())) if c is not None}
    return out


def function_spans(tree: ast.AST) -> list[tuple[int, int]]:
    """The first and last lines of every function the module defines."""
    return [(n.lineno, n.end_lineno or n.lineno) for n in walk_once(tree)
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]


def stacked_draws(node: ast.Call, bindings: dict[str, list[ast.expr]], targets: set,
                  spans: list[tuple[int, int]]) -> list[str | None] | None:
    """How each item of a row stack written as a list (``pd.concat([a, b])``, ``np.vstack((a, b))``,
    ``pd.concat(objs=[...])``) repeats rows: :data:`TWICE`, :data:`LABEL`, :data:`REPLACEMENT` or ``None``;
    :data:`WHOLE` for the copies of one whole table repeated and nothing else (``pd.concat([X] * k)``), oversampling
    only where a row-wise split parts the copies (:mod:`~faultlib.detect.data.leakage.copysplits`);
    ``None`` for the whole stack when its items are not written out (``pd.concat(parts)``, ``[*extras]``). A name
    stands for its last binding before the stack in the same function (``spans``: :func:`function_spans`)."""
    listed = _listed(node)
    if listed is None:
        return None
    scope = _Scope(bindings, spans, node.lineno)
    again = listed_twice(listed)
    hows = [TWICE if twice else drawn(e, scope, targets, node.lineno)  # type: ignore[arg-type]
            for e, twice in zip(listed, again)]
    if hows and hows[0] is None and all(again[1:]):
        return [None] + [WHOLE] * (len(hows) - 1)  # pd.concat([X] * k): one whole table repeated (copysplits.py)
    return hows


__all__ = ["LABEL", "REPLACEMENT", "TWICE", "WHOLE", "drawn", "function_spans", "label_columns", "listed_twice", "stacked_draws"]
