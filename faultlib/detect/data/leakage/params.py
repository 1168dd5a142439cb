"""What a helper's parameters are bound to, read from the module's calls of it (syntactic, for column names).

:func:`faultlib.detect.data.leakage.choices.names_columns` decides that ``df[name]`` selects columns when
``name`` was built from a frame's ``.columns``; it follows the module's assignments and ``for`` loops. Column
names also travel through the parameters of the user's helpers::

    numerical = [c for c in df.columns if df[c].dtype != 'O']
    def cap(part, col): ... part[col].quantile(0.75) ...   # col is one of those column names
    def cap_all(frame, cols):
        for c in cols:
            cap(frame, c)
    cap_all(df, numerical)

so a parameter is bound, for that purpose, to every argument expression passed to it by a call of the helper by
its name (positional or keyword; Python language reference, "Calls"). Without it, ``part[col]`` with an
unknown ``col`` is read as a row selection, and a statistic of the selected rows no longer covers the rows a
later cross-validation scores.
"""

from __future__ import annotations

import ast

from faultlib.pyflow.walk import walk_once


def parameter_bindings(tree: ast.Module) -> dict[str, list[ast.expr]]:
    """``{parameter name: [argument expressions]}`` over every call ``f(...)`` of a function ``def f`` of the module
    (methods and calls through attributes are left out: their receiver shifts the positions)."""
    defs: dict[str, list[ast.arguments]] = {}
    for node in walk_once(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            defs.setdefault(node.name, []).append(node.args)
    out: dict[str, list[ast.expr]] = {}
    for node in walk_once(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in defs):
            continue
        for params in defs[node.func.id]:
            positional = [p.arg for p in params.posonlyargs + params.args]
            for name, arg in zip(positional, node.args):
                if not isinstance(arg, ast.Starred):
                    out.setdefault(name, []).append(arg)
            known = set(positional) | {p.arg for p in params.kwonlyargs}
            for kw in node.keywords:
                if kw.arg in known:
                    out.setdefault(kw.arg, []).append(kw.value)
    return out


def column_names(bindings: dict[str, list[ast.expr]], params: dict[str, list[ast.expr]], hops: int = 6) -> set[str]:
    """The names bound, through a chain of at most ``hops`` assignments, ``for`` loops and helper parameters, to an
    expression that reads a frame's ``.columns`` (computed once per module: a fixpoint over the bindings, each
    binding expression walked once, so a name bound in many places such as ``col`` or ``i`` stays cheap)."""
    reads: dict[str, tuple[bool, set[str]]] = {}
    for table in (bindings, params):
        for name, exprs in table.items():
            direct, names = reads.get(name, (False, set()))
            for expr in exprs:
                for n in _not_sizes(expr):
                    if isinstance(n, ast.Attribute) and n.attr == "columns":
                        direct = True
                    elif isinstance(n, ast.Name):
                        names.add(n.id)
            reads[name] = (direct, names)
    return reached(reads, hops)


def reached(reads: dict[str, tuple[bool, set[str]]], hops: int) -> set[str]:
    """The keys of ``reads`` (``key -> (reads the source itself, the other keys it reads)``) that read the source
    directly or through at most ``hops`` others: a fixpoint over the map."""
    found = {name for name, (direct, _) in reads.items() if direct}
    for _ in range(hops):
        more = {name for name, (_, names) in reads.items() if name not in found and names & found}
        if not more:
            break
        found |= more
    return found


def _not_sizes(expr: ast.expr):
    """The nodes of ``expr`` outside a size (``df.shape[0]``, ``len(df)``, ``df.size``): the count of a table's rows
    or columns is a number, not column names (``N = table.shape[0]; folds = train_test_split(range(N))``: row
    positions). Nor is a subscript's index: ``X = clean[feature_cols]`` is the table's columns, a table, not the
    names that chose them (``cols[:5]`` still reads ``cols``); without this every name built from such a table
    (its ``.index`` slices, the fold index lists a helper cuts from it) was taken for column names, and a row
    selection by them for a choice of columns (issue 17, wave 85). Nor are the names a ``drop`` removes
    (``df = df.drop(columns=[col])`` with ``col`` from ``df.columns`` is still the frame: only its receiver says what it
    is; wave 87)."""
    todo = [expr]
    while todo:
        n = todo.pop()
        if isinstance(n, ast.Attribute) and n.attr in ("shape", "size", "ndim") or isinstance(n, ast.Call) and \
                isinstance(n.func, ast.Name) and n.func.id == "len":
            continue
        yield n
        dropping = isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "drop"
        todo.extend([n.value] if isinstance(n, ast.Subscript) else [n.func] if dropping else ast.iter_child_nodes(n))


#: calls whose result is a pandas table (never a NumPy array): reading a file or building a frame, or a method only a
#: DataFrame has (pandas API, "Input/output", "DataFrame")
_FRAME_MAKERS = frozenset({"read_csv", "read_excel", "read_parquet", "read_json", "read_table", "read_sql",
                           "read_sql_query", "read_feather", "read_pickle", "DataFrame", "get_dummies", "select_dtypes",
                           "merge", "reset_index", "set_index", "rename", "dropna", "drop_duplicates", "read_fwf"})


def _frame_binding(expr: ast.expr) -> bool:
    """``pd.read_csv(...)``, ``df.select_dtypes(np.number).fillna(0)``, ``X.drop(columns=[...])``: an expression
    whose value is a pandas table, read from its method chain (one frame-only call in it is enough)."""
    for n in ast.walk(expr):
        if isinstance(n, ast.Call):
            f = n.func
            name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
            if name in _FRAME_MAKERS or name == "drop" and any(k.arg == "columns" for k in n.keywords):
                return True
    return False


def frame_loop_names(tree: ast.Module, bindings: dict[str, list[ast.expr]]) -> set[str]:
    """Loop variables of ``for col in table:`` where ``table`` is a name bound (somewhere) to a pandas table and never
    to anything else that is plainly an array: iterating a DataFrame gives its column labels, as ``table.columns``
    does (pandas API, "DataFrame.__iter__": iterate over the info axis), so ``table[col]`` is a column, not a row
    mask. A loop over a NumPy array (``for row in X_train``) gives rows: a name never bound to a frame-only call is
    left alone."""
    out: set[str] = set()
    for n in walk_once(tree):
        if isinstance(n, (ast.For, ast.comprehension)) and isinstance(n.target, ast.Name) and isinstance(
                n.iter, ast.Name):
            exprs = bindings.get(n.iter.id, [])
            if any(_frame_binding(e) for e in exprs) and not any(_array_binding(e) for e in exprs):
                out.add(n.target.id)
    return out


def string_loop_names(tree: ast.Module, bindings: dict[str, list[ast.expr]]) -> set[str]:
    """Loop variables of ``for col in ['age', 'income', ...]:`` (a literal list or tuple of strings, or a name every
    binding of which is one): ``table[col]`` then picks a column by its label (pandas API, "Indexing and selecting
    data": ``df['label']`` selects a column), never rows by a mask. A list longer than the interpreter unrolls
    (``cat_var`` of twelve feature names, wave 88) leaves ``col`` an unknown value, read as a possible mask
    otherwise. Names are module-wide: a name any other binding gives another value (``for col in tqdm(cols)``,
    ``col = pick(...)``) is left alone."""
    def strings(expr: ast.expr) -> bool:
        if isinstance(expr, ast.Name):
            held = bindings.get(expr.id, [])
            return bool(held) and all(isinstance(e, (ast.List, ast.Tuple)) and _string_items(e) for e in held)
        return isinstance(expr, (ast.List, ast.Tuple)) and _string_items(expr)

    loops = [n for n in walk_once(tree) if isinstance(n, (ast.For, ast.comprehension))
             and isinstance(n.target, ast.Name) and strings(n.iter)]
    return {n.target.id for n in loops  # type: ignore[union-attr]
            if all(strings(e) for e in bindings.get(n.target.id, [n.iter]))}  # type: ignore[union-attr]


def _string_items(expr: ast.List | ast.Tuple) -> bool:
    return bool(expr.elts) and all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in expr.elts)


def _array_binding(expr: ast.expr) -> bool:
    """``np.array(...)``, ``X.values``, ``X.to_numpy()``, ``scaler.fit_transform(X)``: plainly an array."""
    return any(isinstance(n, ast.Attribute) and n.attr in ("values", "to_numpy", "array", "asarray", "fit_transform",
                                                           "transform", "reshape", "toarray")
               for n in ast.walk(expr))


def reaches_columns(index: ast.expr, names: set[str]) -> bool:
    """``index`` reads a frame's ``.columns`` or a name of :func:`column_names`: it selects columns."""
    return any(isinstance(n, ast.Attribute) and n.attr == "columns" or isinstance(n, ast.Name) and n.id in names
               for n in ast.walk(index))


__all__ = ["column_names", "frame_loop_names", "parameter_bindings", "reached", "reaches_columns", "string_loop_names"]
