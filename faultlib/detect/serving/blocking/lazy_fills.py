"""Work a library does only sometimes -- once per process, or for one type of argument -- left out when judging a call
into an installed library (:mod:`~faultlib.detect.serving.blocking.installed`).

Library code is full of lazy set-up that runs on the first call only and is cached from then on: ``tzlocal``'s
``if _cache_tz is None: _cache_tz = _get_localzone()``, a plugin's ``importlib.import_module`` (kept in
``sys.modules``), a locale table loaded into ``self._data`` on first use, a ``functools.lru_cache`` function. Counting
those would make every call of a large library a finding, for a delay paid once per process; the analysis of the
scanned code itself is unchanged (there, a first-call load at a request is a finding, as the labels judge it).

A step of a path inside a library is a fill when it is:

* inside an ``if`` whose test asks whether a memo is empty -- ``X is None``, ``not X``, ``K not in X`` -- and whose body
  assigns that memo (``X = ...``, ``X[K] = ...``; ``X`` a name or an attribute such as ``self._data``);
* in a function decorated with ``functools.cache``/``lru_cache``/``cached_property`` (any spelling ending so), or one
  that looks a key up in a mapping and stores into that mapping (``t = self.cache.get(key)`` ... ``self.cache[key] =
  t``: Jinja2's ``_load_template``, a memo written by hand);
* a call of ``importlib.import_module`` (the module stays in ``sys.modules``);
* a lock's ``acquire`` (``threading``/``multiprocessing`` locks, semaphores, conditions): a library's thread-safety
  guard (pynvml's ``_nvmlGetFunctionPointer``) waits only while another thread holds it, which the walk cannot know.

A step is also left out when it sits in a branch on the type of a value (``if isinstance(obj, str): return
ZoneInfo(obj)``, on a parameter or a local taken from ``*args``/``**kwargs``): which branch runs depends on what the
caller passes -- a time zone's name or a tzinfo already built -- and the walk into a library does not carry the
caller's argument types (the scanned code's own
type branches are judged with them: :mod:`~faultlib.detect.serving.blocking.type_branches`).
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func, dotted

__all__ = ["filled_once", "type_dispatched"]

CACHING_DECORATORS = ("cache", "lru_cache", "cached_property", "memoize", "memoized")
ONCE_CALLS = frozenset({"importlib.import_module", "importlib.__import__", "builtins.__import__"})
LOCKS = (*(f"threading.{c}." for c in ("Lock", "RLock", "Semaphore", "BoundedSemaphore", "Condition")),
         *(f"multiprocessing.{c}." for c in ("Lock", "RLock", "Semaphore", "BoundedSemaphore")))
"""Lock types whose ``acquire`` (or ``with``) a library's guard calls (the vocabulary's ``libraries/waits.py``)."""


def filled_once(path, what: str) -> bool:
    """Whether a library path (``((func, line), ...)`` ending at a blocker that calls ``what``) runs its blocker only
    while filling a memo (see the module docstring)."""
    name = what.partition(" ")[0]
    if name in ONCE_CALLS or name.startswith(LOCKS):
        return True
    return any(_cached(func) or any(start <= line <= end for start, end in _fills(func)) for func, line in path)


def type_dispatched(path) -> bool:
    """Whether a step of ``path`` sits in a branch (either side) of an ``if`` testing ``isinstance`` of a value."""
    return any(any(start <= line <= end for start, end in _dispatches(func)) for func, line in path)


def _dispatches(func: Func) -> list[tuple[int, int]]:
    found = func.__dict__.get("_type_dispatches")
    if found is None:
        found = func.__dict__["_type_dispatches"] = [
            (node.body[0].lineno, (node.orelse or node.body)[-1].end_lineno or node.lineno)
            for node in func.nodes if isinstance(node, ast.If) and _tests_type(node.test)]
    return found


def _tests_type(test: ast.expr) -> bool:
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "isinstance"
               for n in ast.walk(test))


def _cached(func: Func) -> bool:
    for decorator in func.node.decorator_list:
        parts = dotted(decorator.func if isinstance(decorator, ast.Call) else decorator)
        if parts and parts[-1] in CACHING_DECORATORS:
            return True
    memo = func.__dict__.get("_memoises")
    if memo is None:
        memo = func.__dict__["_memoises"] = _memoises(func)
    return memo


def _memoises(func: Func) -> bool:
    """``func`` reads a key of a mapping that outlives the call (an attribute such as ``self._cache``, or a module
    global) with ``M.get(k)`` or ``k in M``, and stores a key into the same mapping. A parameter or a local
    (``kwargs.get("timeout")`` then ``kwargs["timeout"] = ...``) is no memo."""
    kept = set(func.module.globals)

    def lasting(node: ast.expr) -> bool:
        return isinstance(node, ast.Attribute) or (isinstance(node, ast.Name) and node.id in kept)

    looked, stored = set(), set()
    for node in func.nodes:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get":
            looked.update([ast.dump(node.func.value)] if lasting(node.func.value) else [])
        elif isinstance(node, ast.Compare) and any(isinstance(op, (ast.In, ast.NotIn)) for op in node.ops):
            looked.update(ast.dump(c) for c in node.comparators if lasting(c))
        elif isinstance(node, ast.Assign):
            stored.update(ast.dump(t.value) for t in node.targets
                          if isinstance(t, ast.Subscript) and lasting(t.value))
    return bool(looked & stored)


def _fills(func: Func) -> list[tuple[int, int]]:
    """Line ranges of ``func``'s memo-filling branches, computed once per function."""
    found = func.__dict__.get("_lazy_fills")
    if found is None:
        found = func.__dict__["_lazy_fills"] = [
            (node.body[0].lineno, node.body[-1].end_lineno or node.body[-1].lineno)
            for node in func.nodes if isinstance(node, ast.If) and _fills_memo(node)]
    return found


def _memo_tested(test: ast.expr) -> ast.expr | None:
    """The memo an ``if`` test asks to be empty: ``X is None``, ``not X``, ``K not in X``."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return test.operand
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        right = test.comparators[0]
        if isinstance(test.ops[0], ast.Is) and isinstance(right, ast.Constant) and right.value is None:
            return test.left
        if isinstance(test.ops[0], ast.NotIn):
            return right
    return None


def _fills_memo(node: ast.If) -> bool:
    memo = _memo_tested(node.test)
    if not isinstance(memo, (ast.Name, ast.Attribute)):
        return False
    wanted = ast.dump(memo)
    for stmt in node.body:
        for inner in ast.walk(stmt):
            targets = inner.targets if isinstance(inner, ast.Assign) else (
                [inner.target] if isinstance(inner, (ast.AnnAssign, ast.AugAssign)) else [])
            for target in targets:
                target = target.value if isinstance(target, ast.Subscript) else target
                if ast.dump(target, include_attributes=False).replace("Store()", "Load()") == wanted:
                    return True
    return False
