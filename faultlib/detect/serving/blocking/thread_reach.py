"""Functions that only run in a worker thread, the loops they drive there, and the overrides such a drive may run.

A worker thread's body rarely drives its coroutine itself: ``threading.Thread(target=self.worker)`` runs a loop
that calls ``self.speak(text)``, a method of the base class, which calls ``asyncio.run(self.synthesize(text))``
(xinnan-tech/xiaozhi-esp32-server: the TTS priority thread of ``TTSProviderBase``). A plain ``def`` every call of
which is made in a function only run in a worker thread runs in that thread too, and ``asyncio.run``
(https://docs.python.org/3/library/asyncio-runner.html#asyncio.run: "This function runs the passed coroutine,
taking care of managing the asyncio event loop ... This function cannot be called when another asyncio event loop is
running in the same thread") drives its coroutine on a new loop of that thread, as ``loop.run_until_complete`` does
on ``asyncio.new_event_loop()``. A function nothing in the analysed files calls may be the program's ``main``: not in
a thread. The coroutine driven is often the base's abstract method that each provider overrides: ``self.synthesize``
in a base method runs the subclass's override on a subclass instance
(https://docs.python.org/3/tutorial/classes.html#inheritance: "a method of a base class that calls another method
defined in the same base class may end up calling a method of a derived class that overrides it"), so a call that
resolves to a base method may run every override of it. Used by
:mod:`~faultlib.detect.serving.blocking.private_loops`.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.inherited import library_bases
from faultlib.detect.serving.blocking.model import Func, Klass

__all__ = ["loop_drives", "may_run", "namesakes", "only_in_threads", "overrides"]

MAX_DEPTH = 8
LOOP_RUNNERS = frozenset({"asyncio.run", "asyncio.runners.run"})
PLAIN_BASES = frozenset({"abc.ABC", "typing.Generic", "typing.Protocol", "typing_extensions.Protocol"})


def loop_drives(index, sites) -> list[tuple[ast.Call, Func]]:
    """``(call, function it is in)`` for each ``loop.run_until_complete(...)`` and ``asyncio.run(...)``."""
    runs = [(c, f) for c, f in sites.get("run", []) if index.callee(c.func, f) in LOOP_RUNNERS]
    return [*sites.get("run_until_complete", []), *runs]


def only_in_threads(index, sites, handed: set[int], func: Func) -> bool:
    """Whether ``func`` runs only in worker threads: handed to one (``handed``: ``id``s), or a plain ``def`` every
    call of which (through a base method it overrides too) is made in such a function."""
    memo: dict[int, bool] = {}
    return _in_threads(index, sites, handed, func, memo, 0)


def _in_threads(index, sites, handed: set[int], func: Func, memo: dict[int, bool], depth: int) -> bool:
    if id(func) in handed:
        return True
    if id(func) in memo:
        return memo[id(func)]
    memo[id(func)] = False  # a cycle of calls proves nothing
    if func.is_async or depth >= MAX_DEPTH or func.node.name.startswith("__"):
        return False
    calls = [(c, f) for c, f in sites.get(func.node.name, []) if may_run(index, c, f, func)]
    found = bool(calls) and all(_in_threads(index, sites, handed, f, memo, depth + 1) for _, f in calls)
    memo[id(func)] = found
    return found


def may_run(index, call: ast.Call, caller: Func, target: Func, untyped: bool = False) -> bool:
    """Whether ``call`` (made in ``caller``) may run ``target``: it resolves to ``target``, or to the method of a
    base class that ``target`` overrides, or (``untyped``: a target found by its name alone) it is a call of a method
    of that name on a receiver of unknown type."""
    found = index.callee(call.func, caller)
    if found is target:
        return True
    if found is None and untyped:
        return isinstance(call.func, ast.Attribute) and call.func.attr == target.node.name
    return (isinstance(found, Func) and found.cls is not None and target.cls is not None
            and found.node.name == target.node.name and any(k is target.cls for k in index.subclasses(found.cls)))


def overrides(index, method: Func) -> list[Func]:
    """The methods of the same name in the subclasses (analysed files) of ``method``'s class."""
    if not isinstance(method.cls, Klass):
        return []
    name = method.node.name
    return [k.methods[name] for k in index.subclasses(method.cls) if name in k.methods]


def namesakes(index, call: ast.Call, caller: Func) -> list[Func]:
    """The coroutine methods ``call`` may run when its receiver's type is unknown (``self.memory.save(...)`` with
    ``self.memory`` a provider the configuration picks): every ``async def`` of that name in a class of the analysed
    files whose bases are the analysed files' own (or ``abc.ABC``) -- a method of a subclass of a library class may
    be called by the library too, so it stays an entry."""
    if not isinstance(call.func, ast.Attribute) or index.callee(call.func, caller) is not None:
        return []
    name = call.func.attr
    return [k.methods[name] for m in index.distinct_modules() for k in m.classes.values()
            if name in k.methods and k.methods[name].is_async
            and all(b in PLAIN_BASES for b in library_bases(index, k))]
