"""Paths a function's parameter receives from its callers, for the leakage analysis of files handed on.

An experiment script scores each of the feature tables an earlier script selected::

    def rows(name):
        return pd.read_csv(name)                 # which file?
    def folds(name):
        x = rows(name); ... KFold(...).split(x) ...
    def start():
        for one in ["kept_by_test.csv", "kept_by_trees.csv"]:
            folds(one)

:func:`~.pathexprs.path_of` takes a parameter for "whatever the caller passes" and knows no file, so the
selection written on every row (tsfresh ``select_features``, a ``SelectFromModel``) was not linked to the
cross-validation reading it (wave 58, EEG scripts). :func:`caller_paths` answers the files a read of a parameter
may name: the path each call of its function in the same script passes (a literal or constant, the parameter's
default when the call leaves it out, an element of the literal list a ``for`` loop of the caller walks, or the
caller's own parameter, followed up to :data:`MAX_DEPTH` callers). Every call must pass a known path, else the
answer is empty (no guess).

Source: the call semantics of the Python language reference (6.3.4 Calls: positional and keyword arguments bind
the parameters, a missing one takes its default; 8.3 the ``for`` statement binds the target to each item).
"""

from __future__ import annotations

import ast
import copy

from faultlib.detect.data.leakage.nonedefaults import parameter_defaults
from faultlib.detect.data.leakage.pathexprs import FilePath, PathEnv, path_of
from faultlib.pyflow.walk import walk_once

#: how many callers up a parameter is followed
MAX_DEPTH = 4
#: the most paths one read may name
MAX_PATHS = 8


class CallerPaths:
    """The functions of one tree (a script, or a session's joined scripts: ``segments``) and their calls.

    Args:
        tree: the module.
        env: its :class:`~.pathexprs.PathEnv` (path constants by scope).
        segments: ``(first line, last line)`` of each script in ``tree`` (a call links a function of its own
            script only).
    """

    def __init__(self, tree: ast.Module, env: PathEnv, segments: list[tuple[int, int]] | None = None):
        self.env = env
        self._tree = tree
        self._segments = segments or [(1, 1 << 30)]
        self._functions: list[ast.FunctionDef | ast.AsyncFunctionDef] = []
        self._owned: dict[object, list[ast.AST]] = {}  # a scope's own nodes, walked once (_scope_nodes)
        self._calls: dict[str, list[ast.Call]] = {}
        for node in walk_once(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self._functions.append(node)
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                self._calls.setdefault(node.func.id, []).append(node)
        self._functions.sort(key=lambda f: (f.lineno, -(f.end_lineno or f.lineno)))

    def paths(self, node: ast.expr, line: int, depth: int = 0) -> list[FilePath]:
        """The files ``node`` (a path expression on ``line``) may name: its own path, or the paths its callers
        pass when it is a parameter or a loop variable; ``[]`` when any of them is unknown. (The one file a
        parameter holds in the call the analysis runs now is :mod:`.passedpaths`'.)"""
        known = path_of(node, self.env, line)
        if known is not None:
            return [known]
        if depth > MAX_DEPTH:
            return []
        func = self._function_at(line)
        if not isinstance(node, ast.Name):
            return self._substituted(node, line, func, depth)
        looped = self._loop_items(node.id, line, func)
        if looped is not None:
            return _all_known([self.paths(e, e.lineno, depth + 1) for e in looped])
        if func is not None and node.id in _parameters(func) and not _rebound(self._scope_nodes(func, line), node.id):
            return self._passed(func, node.id, depth)
        return []

    def _substituted(self, node: ast.expr, line: int, func: ast.FunctionDef | ast.AsyncFunctionDef | None,
                     depth: int) -> list[FilePath]:
        """A path built from one parameter or loop variable (``base + name``, ``os.path.join(DIR, name)``): the
        expression's path with each file that name may hold written in its place."""
        passed = {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and (
            func is not None and n.id in _parameters(func) or self._loop_items(n.id, line, func) is not None)}
        if len(passed) != 1:
            return []
        name = passed.pop()
        values = self.paths(ast.Name(name, ast.Load()), line, depth)
        if not all(v.exact for v in values):
            return []
        return _all_known([[p] if (p := path_of(_replaced(node, name, v.text), self.env, line)) else []
                           for v in values])

    def _passed(self, func: ast.FunctionDef | ast.AsyncFunctionDef, name: str, depth: int) -> list[FilePath]:
        segment = self._segment(func.lineno)
        same_name = [f for f in self._functions if f.name == func.name and self._segment(f.lineno) == segment]
        calls = [c for c in self._calls.get(func.name, ()) if self._segment(c.lineno) == segment]
        if len(same_name) != 1 or not calls:
            return []
        position = [a.arg for a in [*func.args.posonlyargs, *func.args.args]].index(name) \
            if name in _positional(func) else None
        default = parameter_defaults(func).get(name)
        found = []
        for call in calls:
            arg = call.args[position] if position is not None and position < len(call.args) else next(
                (k.value for k in call.keywords if k.arg == name), default)
            if arg is None or any(isinstance(a, ast.Starred) for a in call.args) or any(
                    k.arg is None for k in call.keywords):
                return []
            found.append(self.paths(arg, call.lineno if arg is not default else func.lineno, depth + 1))
        return _all_known(found)

    def _function_at(self, line: int) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        inner = None
        for f in self._functions:
            if f.lineno > line:
                break
            if (f.end_lineno or f.lineno) >= line:
                inner = f
        return inner

    def _loop_items(self, name: str, line: int, func: ast.AST | None) -> list[ast.expr] | None:
        """The items of the literal list a ``for name in ...`` holding ``line`` walks (``None``: no such loop)."""
        nodes = self._scope_nodes(func, line)
        for node in nodes:
            if isinstance(node, ast.For) and isinstance(node.target, ast.Name) and node.target.id == name and \
                    node.body[0].lineno <= line <= (node.end_lineno or node.lineno):
                return _literal_items(node.iter, nodes)
        return None

    def _scope_nodes(self, func: ast.FunctionDef | ast.AsyncFunctionDef | None, line: int) -> list[ast.AST]:
        """The nodes of ``func``'s body, or of the top level of ``line``'s script when ``func`` is ``None``, not
        descending into nested functions and classes (walked once per scope)."""
        key: object = id(func) if func is not None else ("top", self._segment(line))
        if key not in self._owned:
            segment = self._segment(line)
            self._owned[key] = _own_nodes(func.body if func is not None else [
                s for s in self._tree.body if self._segment(s.lineno) == segment])
        return self._owned[key]

    def _segment(self, line: int) -> int:
        return next((i for i, (first, last) in enumerate(self._segments) if first <= line <= last), -1)


class _Replace(ast.NodeTransformer):
    def __init__(self, name: str, text: str):
        self.name, self.text = name, text

    def visit_Name(self, node: ast.Name) -> ast.expr:
        return ast.Constant(self.text) if node.id == self.name else node


def _replaced(node: ast.expr, name: str, text: str) -> ast.expr:
    """A copy of ``node`` with the string ``text`` in place of the name ``name``."""
    return _Replace(name, text).visit(copy.deepcopy(node))


def _own_nodes(body: list[ast.stmt]) -> list[ast.AST]:
    """The nodes of a body, not descending into nested functions and classes."""
    out: list[ast.AST] = []
    todo: list[ast.AST] = list(body)
    while todo:
        n = todo.pop()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        out.append(n)
        todo.extend(ast.iter_child_nodes(n))
    return out


def _literal_items(iterable: ast.expr, nodes: list[ast.AST]) -> list[ast.expr] | None:
    """A list or tuple literal, or a name bound once in the scope of ``nodes`` (:func:`_own_nodes`) to one."""
    if isinstance(iterable, (ast.List, ast.Tuple)):
        return list(iterable.elts)
    if isinstance(iterable, ast.Name):
        bound = [n.value for n in nodes if isinstance(n, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == iterable.id for t in n.targets)]
        if len(bound) == 1 and isinstance(bound[0], (ast.List, ast.Tuple)) and not _rebound(nodes, iterable.id, 1):
            return list(bound[0].elts)
    return None


def _positional(func: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    return [a.arg for a in [*func.args.posonlyargs, *func.args.args]]


def _parameters(func: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    return {*_positional(func), *(a.arg for a in func.args.kwonlyargs)}


def _rebound(nodes: list[ast.AST], name: str, allowed: int = 0) -> bool:
    """``name`` is bound among a scope's own ``nodes`` more than ``allowed`` times (assigned, a loop target, ...)."""
    stores = sum(1 for n in nodes if isinstance(n, ast.Name) and n.id == name
                 and isinstance(n.ctx, ast.Store))
    return stores > allowed


def _all_known(groups: list[list[FilePath]]) -> list[FilePath]:
    """Every group's paths, in order and once each; ``[]`` when a group is empty (one unknown path) or too many."""
    if not groups or any(not g for g in groups):
        return []
    out = list(dict.fromkeys(p for g in groups for p in g))
    return out if len(out) <= MAX_PATHS else []


__all__ = ["MAX_DEPTH", "MAX_PATHS", "CallerPaths"]
