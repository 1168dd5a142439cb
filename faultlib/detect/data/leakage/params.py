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


def parameter_bindings(tree: ast.Module) -> dict[str, list[ast.expr]]:
    """``{parameter name: [argument expressions]}`` over every call ``f(...)`` of a function ``def f`` of the module
    (methods and calls through attributes are left out: their receiver shifts the positions)."""
    defs: dict[str, list[ast.arguments]] = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            defs.setdefault(node.name, []).append(node.args)
    out: dict[str, list[ast.expr]] = {}
    for node in ast.walk(tree):
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
    positions)."""
    todo = [expr]
    while todo:
        n = todo.pop()
        if isinstance(n, ast.Attribute) and n.attr in ("shape", "size", "ndim") or isinstance(n, ast.Call) and \
                isinstance(n.func, ast.Name) and n.func.id == "len":
            continue
        yield n
        todo.extend(ast.iter_child_nodes(n))


def reaches_columns(index: ast.expr, names: set[str]) -> bool:
    """``index`` reads a frame's ``.columns`` or a name of :func:`column_names`: it selects columns."""
    return any(isinstance(n, ast.Attribute) and n.attr == "columns" or isinstance(n, ast.Name) and n.id in names
               for n in ast.walk(index))


__all__ = ["column_names", "parameter_bindings", "reaches_columns"]
