"""A client a class builds lazily, which the class's own start-up coroutine builds first in a worker thread.

A back-end class keeps its connection in an attribute and builds it on first use; its start-up coroutine calls that
getter through an executor, so the building (a connection, a version probe, a token file read) happens off the loop
before any request::

    def _session(self):
        if self._client is not None:
            return self._client
        self._client = make_client(self.socket)
        self._client.get(self.url + "/version")
        return self._client

    async def startup(self):
        await asyncio.get_running_loop().run_in_executor(None, self._session)

A later ``self._session()`` from a request's coroutine returns the stored client at the first statement: the
building steps below the early return block nothing there. All of it must hold: the getter's first statement is
``if self.X is not None: return self.X`` (or ``if self.X: return self.X``), the getter assigns ``self.X``, and a
coroutine of the same class awaits an offloading call (:data:`~faultlib.detect.serving.blocking.vocab.OFFLOAD`,
:data:`~faultlib.detect.serving.blocking.vocab.OFFLOAD_METHODS`) handed the bound getter itself. The same judgment
as a labelled verdict on a server whose constructor fills a table before the loop runs. Used by
:func:`~faultlib.detect.serving.blocking.analyze_sources` on each finding's path.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking import vocab
from faultlib.detect.serving.blocking.model import Func

__all__ = ["PrewarmedGetters"]

_OFFLOADERS = frozenset({name.rpartition(".")[2] for name in vocab.OFFLOAD} | set(vocab.OFFLOAD_METHODS))


class PrewarmedGetters:
    """Per analysis: the getters whose memo a start-up coroutine of their class fills off the loop."""

    def __init__(self, index) -> None:
        self.index = index
        self._guards: dict[int, int | None] = {}

    def warmed(self, path) -> bool:
        """Whether some step of ``path`` (``((func, line), ...)``) lies below a prewarmed getter's early return."""
        for func, line in path:
            end = self._guard_end(func)
            if end is not None and line > end:
                return True
        return False

    def _guard_end(self, func: Func) -> int | None:
        if id(func) not in self._guards:
            end = _memo_guard(func)
            self._guards[id(func)] = end if end is not None and _offloaded_by_class(func) else None
        return self._guards[id(func)]


def _memo_guard(func: Func) -> int | None:
    """The last line of ``func``'s opening ``if self.X [is not None]: return self.X`` when ``func`` assigns
    ``self.X``; else None."""
    if func.is_async or func.cls is None or not func.node.body:
        return None
    first = func.node.body[0]
    if not (isinstance(first, ast.If) and not first.orelse and len(first.body) == 1
            and isinstance(first.body[0], ast.Return)):
        return None
    test = first.test
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.IsNot) and (
            isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is None):
        test = test.left
    memo = _self_attr(test)
    if memo is None or _self_attr(first.body[0].value) != memo:
        return None
    assigned = any(isinstance(n, ast.Assign) and any(_self_attr(t) == memo for t in n.targets) for n in func.nodes)
    return (first.end_lineno or first.lineno) if assigned else None


def _offloaded_by_class(func: Func) -> bool:
    """A coroutine of ``func``'s class awaits an offloading call handed ``self.<func>`` itself."""
    for method in func.cls.methods.values():
        if not method.is_async:
            continue
        for node in method.nodes:
            if not (isinstance(node, ast.Await) and isinstance(node.value, ast.Call)):
                continue
            call = node.value
            called = call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", None)
            if called in _OFFLOADERS and any(_self_attr(a) == func.node.name for a in call.args):
                return True
    return False


def _self_attr(expr: ast.expr | None) -> str | None:
    """``X`` of ``self.X``, else None."""
    if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id == "self":
        return expr.attr
    return None
