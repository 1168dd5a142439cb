"""The calls a function's body makes when it runs on the loop: what :class:`~faultlib.detect.serving.blocking.reach.
Reachability` examines in each function it walks.

A call is listed in source order, with whether it runs inside ``torch.no_grad()``/``inference_mode()`` (a decorator
or a ``with``). Left out: nested ``def``/``class`` bodies (run when called), the branch of an ``if`` with a literal
test that never runs (:func:`~faultlib.detect.serving.blocking.shapes.taken`), the ``else`` of an ``isinstance``
check every construction of the class satisfies (:mod:`~faultlib.detect.serving.blocking.settled_isinstance`), a function or ``lambda`` handed to an
executor (recorded in ``offloaded``: it runs on a worker thread), the statements after a ``return``/``raise``/
``continue``/``break`` of the same block (:mod:`~faultlib.detect.serving.blocking.after_exits`) and a lambda stored by a constructor of the analysed
files (:func:`~faultlib.detect.serving.blocking.stored_lambdas.stored_lambda`). Also here: the calls whose result a
function iterates on the spot, and the calls it awaits. Each list is computed once per function; every call listed
counts against the walk's operation budget (:class:`Budget`).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from itertools import repeat

from faultlib.detect.serving.blocking import vocab
from faultlib.detect.serving.blocking.after_exits import dead_statements, live_prefix
from faultlib.detect.serving.blocking.index import Func, Klass, dotted
from faultlib.detect.serving.blocking.model import nodes_of
from faultlib.detect.serving.blocking.iterating_params import handed_to_iterate
from faultlib.detect.serving.blocking.settled_isinstance import never_run
from faultlib.detect.serving.blocking.shapes import CONSUMERS, taken
from faultlib.detect.serving.blocking.sites import _segment
from faultlib.detect.serving.blocking.offloading_params import offloaded_lambda
from faultlib.detect.serving.blocking.stored_lambdas import stored_lambda
from faultlib.pyflow.walk import NO_CALLS, children

__all__ = ["BodyCalls", "Budget", "Offload"]

_NOT_RUN = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
#: the nodes that are or hold statements (as :mod:`~faultlib.detect.serving.blocking.model`'s collector)
_HOLDS_STATEMENTS = (ast.stmt, ast.excepthandler, ast.match_case)
_WITH = (ast.With, ast.AsyncWith)


class Budget(Exception):
    """The walk examined more calls than its budget allows (the report says complete: false)."""


@dataclass
class Offload:
    """A function handed to an executor (off the loop) inside code that runs on the loop."""

    function: str
    via: str
    func: Func
    line: int


class BodyCalls:
    """The per-function lists of :class:`~faultlib.detect.serving.blocking.reach.Reachability` (a mixin: it uses the
    walk's ``index``, ``operations``/``budget``, ``offloaded`` and its memo tables)."""

    def _calls(self, func: Func) -> list[tuple[ast.Call, bool]]:
        """``(call, in_inference_context)`` for every call ``func``'s body makes when it runs, in source
        order; lambdas passed to an executor and nested defs/classes left out. Computed once per function."""
        found = self._calls_memo.get(id(func))
        if found is None:
            found = self._calls_memo[id(func)] = self._walk_calls(func)
        self.operations += len(found)
        if self.operations > self.budget:
            raise Budget()
        return found

    def _walk_calls(self, func: Func) -> list[tuple[ast.Call, bool]]:
        """The calls of :meth:`_calls`, depth first in source order. Deciding what to leave out resolves names
        (:meth:`_offloaded_arg`, :func:`stored_lambda`, :meth:`_is_inference`), so it runs call by call in that order;
        the children of a node are listed by :func:`faultlib.pyflow.walk.children` (as :func:`ast.iter_child_nodes`)."""
        inference = any(self._is_inference(d, func) for d in func.node.decorator_list)
        found: list[tuple[ast.Call, bool]] = []
        todo: list[tuple[ast.AST, bool]] = [(stmt, inference) for stmt in reversed(live_prefix(func.node.body))]
        pop, extend = todo.pop, todo.extend
        while todo:
            node, inside = pop()
            if isinstance(node, _NOT_RUN):
                continue
            if not isinstance(node, _HOLDS_STATEMENTS):  # an expression (or a `with` item...): no statement inside
                self._expression_calls(node, inside, func, found)
                continue
            kids = children(node)
            dead = dead_statements(node)  # return / raise / continue / break: what follows in the block never runs
            if dead:
                kids = [c for c in kids if id(c) not in dead]
            if isinstance(node, ast.If):
                self._guard(node)
                kids = taken(node, kids)
                dead = never_run(self.index, node, func)
                kids = [c for c in kids if not any(c is d for d in dead)] if dead else kids
            elif isinstance(node, _WITH) and any(self._is_inference(item.context_expr, func) for item in node.items):
                extend(zip(reversed(node.body), repeat(True)))
                extend(zip(reversed(node.items), repeat(inside)))
                continue
            extend(zip(reversed(kids), repeat(inside)))
        return found

    def _expression_calls(self, root: ast.AST, inside: bool, func: Func, found: list[tuple[ast.Call, bool]]) -> None:
        """The calls under ``root`` (holding no statement) appended to ``found`` in the order of
        :meth:`_walk_calls`: one ``inside`` flag for all, no ``if``/``with``/``def`` to look for."""
        todo = [root]
        pop, extend = todo.pop, todo.extend
        while todo:
            node = pop()
            if node.__class__ in NO_CALLS:
                continue
            kids = children(node)
            if isinstance(node, ast.Call):
                found.append((node, inside))
                skip = (self._offloaded_arg(node, func) or stored_lambda(self.index, node, func)
                        or offloaded_lambda(self.index, node, func))
                if skip is not None:
                    kids = [c for c in kids if c is not skip]
            kids.reverse()
            extend(kids)

    def _guard(self, node: ast.If) -> None:
        """``if hasattr(x, "ainvoke"): await x.ainvoke(...) else: x.invoke(...)``: the sync call of the ``else``
        branch runs only for objects without the async twin; it is no finding (the async one is preferred)."""
        test = node.test
        if not (isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "hasattr"
                and len(test.args) == 2 and isinstance(test.args[1], ast.Constant)
                and isinstance(test.args[1].value, str) and test.args[1].value.startswith("a")):
            return
        receiver, method = ast.dump(test.args[0]), test.args[1].value[1:]
        for stmt in node.orelse:
            for sub in ast.walk(stmt):
                if (isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) and sub.func.attr == method
                        and ast.dump(sub.func.value) == receiver):
                    self._guarded.add(id(sub))

    def _is_inference(self, expr: ast.expr, func: Func) -> bool:
        call = expr.func if isinstance(expr, ast.Call) else expr
        target = self.index.callee(call, func)
        return isinstance(target, str) and target in vocab.INFERENCE_CONTEXTS

    def _offloaded_arg(self, call: ast.Call, func: Func) -> ast.expr | None:
        """The function argument ``call`` runs in a worker thread (recorded in :attr:`offloaded`), or None."""
        position, via = None, None
        if not _may_offload(call.func, func):
            return None
        target = self.index.callee(call.func, func)
        if isinstance(target, str) and target in vocab.OFFLOAD:
            position, via = vocab.OFFLOAD[target], target
        elif (isinstance(call.func, ast.Attribute) and call.func.attr in vocab.OFFLOAD_METHODS
              and (call.func.attr != "submit" or self._is_executor(call, func))):
            position, via = vocab.OFFLOAD_METHODS[call.func.attr], call.func.attr
        if position is None or len(call.args) <= position:
            return None
        arg = call.args[position]
        if isinstance(arg, ast.Lambda):
            shown = "lambda: " + _segment(func, arg.body)
        else:
            fn = arg.args[0] if (isinstance(arg, ast.Call) and dotted(arg.func) and dotted(arg.func)[-1] == "partial"
                                 and arg.args) else arg
            resolved = self.index.callee(fn, func)
            shown = resolved.qualname if isinstance(resolved, (Func, Klass)) else (
                resolved if isinstance(resolved, str) else _segment(func, fn))
        key = (func.module.path, call.lineno, call.col_offset)
        if key not in self._offload_seen:
            self._offload_seen.add(key)
            self.offloaded.append(Offload(shown, via, func, call.lineno))
        return arg if isinstance(arg, ast.Lambda) else None

    def _is_executor(self, call: ast.Call, func: Func) -> bool:
        """``x.submit(fn)`` hands ``fn`` to an executor: ``x`` is a :class:`concurrent.futures.Executor` (by type,
        or a class of the analysed files deriving from one), or of unknown type with a ``submit`` that is not
        awaited (an object's own ``async def submit`` is a coroutine, not an executor)."""
        owner = self.index.type_of(call.func.value, func)
        if isinstance(owner, Klass):
            method = self.index.method(owner, "submit")
            if method is not None and method.is_async:
                return False
            return self.index.subclass_of(owner, vocab.is_executor) or method is None
        if isinstance(owner, str):
            return vocab.is_executor(owner)
        return id(call) not in self._awaited(func)

    def _iterated(self, func: Func) -> set[int]:
        """Calls whose result ``func`` iterates on the spot: ``for x in gen()``, ``with cm():``, a comprehension's
        ``in``, ``yield from``, ``list(gen())``/``next``/``sorted``/``"".join``..., a call handed to a function of
        the files that iterates it (:mod:`~faultlib.detect.serving.blocking.iterating_params`), or a local bound to
        the call and iterated so (``g = gen()`` then ``for x in g``)."""
        found = self._iterated_memo.get(id(func))
        if found is not None:
            return found
        consumed: list[ast.expr] = []
        for n in nodes_of(func, (ast.For, ast.comprehension, ast.YieldFrom, ast.With, ast.Call)):
            if isinstance(n, ast.For):
                consumed.append(n.iter)
            elif isinstance(n, ast.comprehension):
                consumed.append(n.iter)
            elif isinstance(n, ast.YieldFrom):
                consumed.append(n.value)
            elif isinstance(n, ast.With):  # a @contextmanager generator runs to its yield on entry
                consumed.extend(item.context_expr for item in n.items)
            elif isinstance(n, ast.Call) and n.args and (
                    (isinstance(n.func, ast.Name) and n.func.id in CONSUMERS)
                    or (isinstance(n.func, ast.Attribute) and n.func.attr in ("join", "extend", "update"))):
                consumed.append(n.args[0])
        consumed.extend(handed_to_iterate(self.index, func))  # await embed_all(read_pieces(p)): iterated in there
        names = {c.id for c in consumed if isinstance(c, ast.Name)}
        found = {id(c) for c in consumed if isinstance(c, ast.Call)}
        for n in nodes_of(func, ast.Assign):
            if (isinstance(n, ast.Assign) and isinstance(n.value, ast.Call) and len(n.targets) == 1
                    and isinstance(n.targets[0], ast.Name) and n.targets[0].id in names):
                found.add(id(n.value))
        self._iterated_memo[id(func)] = found
        return found

    def _awaited(self, func: Func) -> set[int]:
        found = self._awaited_memo.get(id(func))
        if found is None:
            found = {id(n.value) for n in nodes_of(func, ast.Await)}
            found.update(id(n.iter) for n in nodes_of(func, ast.AsyncFor))  # an async generator
            found.update(id(i.context_expr) for n in nodes_of(func, ast.AsyncWith) for i in n.items)
            self._awaited_memo[id(func)] = found
        return found


_OFFLOAD_LAST = frozenset({name.rpartition(".")[2] for name in vocab.OFFLOAD} | set(vocab.OFFLOAD_METHODS))


def _may_offload(expr: ast.expr, func: Func) -> bool:
    """A cheap test before resolving the callee: the called name ends like an offloading function, or is a name
    imported under another name (``from asyncio import to_thread as off``), or a local alias of one."""
    if isinstance(expr, ast.Attribute):
        return expr.attr in _OFFLOAD_LAST
    if isinstance(expr, ast.Name):
        return (expr.id in _OFFLOAD_LAST or expr.id in func.module.imports
                or (func.parent is None and func._aliases is not None and expr.id in func._aliases)
                or func._locals is None or expr.id in func._locals)
    return isinstance(expr, ast.Call)
