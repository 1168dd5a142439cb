"""Blocking calls in the ``except RuntimeError`` of a ``try: asyncio.get_running_loop()``: they run only without a loop.

``asyncio.get_running_loop()`` "raises a RuntimeError if there is no running event loop"
(https://docs.python.org/3/library/asyncio-eventloop.html#asyncio.get_running_loop). A helper called both from
sync code and from coroutines tells the two apart that way: ``try: loop = asyncio.get_running_loop()`` then
``except RuntimeError: persist_row(payload)`` (the sync caller: write now) and, past the ``try``, the loop's way
(``loop.create_task(...)`` of a ``sync_to_async`` wrapper). On the loop the handler never runs, so a step of a
path through it blocks nothing there. Only a handler that names ``RuntimeError`` (alone or in a tuple) of a ``try``
whose body itself calls ``get_running_loop``; a bare ``except`` or ``except Exception`` catches other failures too
and stays a path. Held-out wave 57: a Django Channels app's audit writer that saves the row inline only when no
loop runs. Used by :func:`~faultlib.detect.serving.blocking.analyze_sources` (a finding whose path passes through
such a handler is left out).
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func, nodes_of

__all__ = ["LooplessFallbacks"]

_PROBES = frozenset({"get_running_loop"})
"""The asyncio call that raises RuntimeError exactly when no loop runs in the thread."""


class LooplessFallbacks:
    """Which steps of a path lie in a no-running-loop handler (memoised per function)."""

    def __init__(self) -> None:
        self._spans: dict[int, list[tuple[int, int]]] = {}

    def loopless(self, path) -> bool:
        """Whether some step of ``path`` (``((func, line), ...)``) is inside such a handler."""
        for func, line in path:
            if any(start <= line <= end for start, end in self._handler_spans(func)):
                return True
        return False

    def _handler_spans(self, func: Func) -> list[tuple[int, int]]:
        if id(func) not in self._spans:
            self._spans[id(func)] = [(h.lineno, h.end_lineno or h.lineno) for t in nodes_of(func, ast.Try)
                                     if _probes_loop(t.body) for h in t.handlers if _catches_runtime_error(h)]
        return self._spans[id(func)]


def _probes_loop(body: list[ast.stmt]) -> bool:
    """The statements call ``asyncio.get_running_loop()`` (or a bare imported ``get_running_loop()``)."""
    for stmt in body:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Call):
                target = node.func
                name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", None)
                if name in _PROBES:
                    return True
    return False


def _catches_runtime_error(handler: ast.ExceptHandler) -> bool:
    caught = handler.type
    names = caught.elts if isinstance(caught, ast.Tuple) else [caught] if caught is not None else []
    return any((n.attr if isinstance(n, ast.Attribute) else getattr(n, "id", None)) == "RuntimeError" for n in names)
