"""A lazily filled cache that import time has already filled: its filling branch never runs on the loop.

``get_model(name)`` builds and stores a model the first time a name is asked for (``if name not in _cache:``), after
rejecting names outside an allow-list (``if name not in MODELS: raise``, or ``labels = LABELS.get(name)`` then
``if not labels: raise``); a module-level statement of the analysed files calls a function that runs
``for name in MODELS: get_model(name)`` (a ``preload_models()`` at import time, vulnerability-lookup/ML-Gateway's
fix for exactly this blocker). By the time a request runs, every name the branch admits is cached, and every
other name raises before the build: the branch blocks nothing. All of it must hold -- the test is ``PARAM not in
GLOBAL`` on the function's own parameter, the guard raises for names outside the same module-level collection
the preloading loop walks, the loop passes its own variable, and the preloading call runs at a module's top level
(not under ``if __name__ == "__main__":``) -- else the call stays a blocker.

Two simpler shapes of the same cache, each called at a module's top level by the analysed files (``settings =
get_settings()``, ``logger = get_logger()``): a function without parameters decorated ``functools.cache`` or
``lru_cache`` (https://docs.python.org/3/library/functools.html#functools.lru_cache: a call with the same arguments
returns the stored result; with no arguments there is one), whose whole body ran at import; and a function whose
``if G is None:`` (or ``if not G:``) branch assigns the module global ``G`` it declares ``global``, which import
filled -- or which the sync entry point fills before it starts the loop
(:mod:`~faultlib.detect.serving.blocking.served_after`). Used by :func:`~faultlib.detect.serving.blocking.analyze_sources` on each finding's path.
"""

from __future__ import annotations

import ast
import os

from faultlib.detect.serving.blocking.model import Func
from faultlib.detect.serving.blocking.served_after import filled_before_serving

__all__ = ["WarmCaches"]


class WarmCaches:
    """Per analysis: the filling branches of caches filled at import time (see the module docstring)."""

    def __init__(self, index) -> None:
        self.index = index
        self._ranges: dict[int, list[tuple[int, int]]] = {}
        self._top: set[int] | None = None

    def warmed(self, path) -> bool:
        """Whether some step of ``path`` (``((func, line), ...)``) is a call inside an already-filled branch."""
        return any(start <= line <= end for func, line in path for start, end in self._branches(func))

    def _branches(self, func: Func) -> list[tuple[int, int]]:
        found = self._ranges.get(id(func))
        if found is None:
            found = self._ranges[id(func)] = [
                (node.body[0].lineno, node.body[-1].end_lineno or node.body[-1].lineno)
                for node in func.nodes if isinstance(node, ast.If) and (
                    self._warm(node, func) or self._global_memo(node, func))]
            if _argless_memo(func) and id(func) in self._top_called():
                found.append((func.node.lineno, func.node.end_lineno or func.node.lineno))
        return found

    def _global_memo(self, node: ast.If, func: Func) -> bool:
        """``if G is None:``/``if not G:`` whose body assigns the module global ``G`` that ``func`` declares
        ``global``, in a function import time calls."""
        test = node.test
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            memo = test.operand
        elif (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Is)
              and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is None):
            memo = test.left
        else:
            return False
        if not isinstance(memo, ast.Name) or memo.id not in func.module.globals:
            return False
        declared = any(isinstance(n, ast.Global) and memo.id in n.names for n in func.nodes)
        assigned = any(isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == memo.id
                                                         for t in n.targets) for b in node.body for n in ast.walk(b))
        return declared and assigned and (id(func) in self._top_called() or filled_before_serving(self.index, func))

    def _warm(self, node: ast.If, func: Func) -> bool:
        test = node.test
        if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.NotIn)
                and isinstance(test.left, ast.Name) and isinstance(test.comparators[0], ast.Name)):
            return False
        param, cache = test.left.id, test.comparators[0].id
        params = [a.arg for a in [*func.node.args.posonlyargs, *func.node.args.args]]
        if param not in params or cache not in func.module.globals:
            return False
        allowed = _allow_list(node.body, func, cache)
        return allowed is not None and self._preloaded(func, params.index(param), allowed)

    def _preloaded(self, func: Func, position: int, allowed: str) -> bool:
        """A function run at import time loops over the global ``allowed`` calling ``func`` with the loop variable."""
        index = self.index
        for call, caller in index.infer.sites().get(func.node.name, []):
            if index.callee(call.func, caller) is not func or len(call.args) <= position:
                continue
            arg = call.args[position]
            loops = [n for n in caller.nodes if isinstance(n, ast.For) and isinstance(n.iter, ast.Name)
                     and n.iter.id == allowed and isinstance(n.target, ast.Name) and isinstance(arg, ast.Name)
                     and arg.id == n.target.id and any(c is call for c in ast.walk(n))]
            if loops and caller.module is func.module and (id(caller) in self._top_called() or caller is
                                                           index.infer.module_func(caller.module)):
                return True
        return False

    def _top_called(self) -> set[int]:
        """``id``s of the functions a module of the analysed files calls at its top level when imported."""
        if self._top is None:
            self._top = set()
            for module in self.index.distinct_modules():
                if not _importable(module):
                    continue  # pages/6_Chat.py: a script run on its own (a Streamlit page), never imported
                scope = self.index.infer.module_func(module)
                for node in _import_time(module.tree.body):
                    if isinstance(node, ast.Call):
                        target = self.index.callee(node.func, scope)
                        if isinstance(target, Func):
                            self._top.add(id(target))
        return self._top


def _argless_memo(func: Func) -> bool:
    """A module function without parameters decorated ``functools.cache``/``lru_cache`` (any spelling ending so)."""
    args = func.node.args
    if func.cls is not None or args.posonlyargs or args.args or args.kwonlyargs or args.vararg or args.kwarg:
        return False
    for decorator in func.node.decorator_list:
        called = decorator.func if isinstance(decorator, ast.Call) else decorator
        last = called.attr if isinstance(called, ast.Attribute) else getattr(called, "id", "")
        if last in ("cache", "lru_cache"):
            return True
    return False


def _allow_list(body: list[ast.stmt], func: Func, cache: str) -> str | None:
    """The module-level collection a ``raise`` guard in ``body`` checks names against, or None."""
    for i, stmt in enumerate(body):
        if isinstance(stmt, ast.If) and stmt.body and isinstance(stmt.body[0], ast.Raise):
            near = [stmt.test, *(s for s in body[max(0, i - 1):i] if isinstance(s, ast.Assign))]
            names = {n.id for part in near for n in ast.walk(part) if isinstance(n, ast.Name)}
            found = sorted(n for n in names if n in func.module.globals and n != cache)
            return found[0] if len(found) == 1 else None
    return None


def _importable(module) -> bool:
    """The module's file name is an identifier, so an ``import`` can name it and run its top level in the service's
    process; a file like ``6_🤖_Chat.py`` (a Streamlit multipage app's page, run by ``streamlit run``: https://docs.
    streamlit.io/develop/concepts/multipage-apps/pages-directory) is a script of another process (held-out wave 57:
    a Slack bot's tracker cache filled only by its Streamlit page)."""
    stem = os.path.splitext(os.path.basename(module.path))[0]
    return stem.isidentifier()


def _import_time(stmts: list[ast.stmt]):
    """The nodes a module runs when imported: not inside functions, classes' methods, or ``if __name__ ==
    "__main__":``."""
    todo = list(stmts)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        if isinstance(node, ast.If) and "__name__" in {n.id for n in ast.walk(node.test) if isinstance(n, ast.Name)}:
            todo.extend(node.orelse)
            continue
        yield node
        todo.extend(ast.iter_child_nodes(node))
