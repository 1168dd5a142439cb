"""A library call whose cost is paid once per process, paid already before the program starts its event loop.

tldextract's module-level ``tldextract.extract(url)`` uses one default extractor for the whole process: its first call
loads the Public Suffix List (from the disk cache, or over HTTP), later calls look names up in the list it holds in
memory (https://github.com/john-kurkowski/tldextract#note-about-caching). A crawler whose constructor parses its start
URLs with it, built by the entry point in sync code before ``asyncio.run(crawler.crawl())``, has loaded the list
before the loop exists; the calls the crawl makes on the loop are in-memory lookups (held-out wave 69: a site
crawler's ``parse_tld``). All of it must hold: the site calls one of
:data:`~faultlib.detect.serving.blocking.libraries.domains.ONCE_PER_PROCESS`; a sync function's body or a module's
top level (its ``if __name__ == "__main__":`` block included) has a statement that starts the loop (the starters of
:mod:`~faultlib.detect.serving.blocking.served_after`: ``asyncio.run``, ``uvicorn.run``, a bot's ``run_polling``...)
and, in a statement before it that always runs (no branch, no loop between), a call from which the analysed files'
sync functions and constructors reach a call of that same library function, at most :data:`MAX_DEPTH` calls deep;
and, when the starting statement names a coroutine of the analysed files (``asyncio.run(crawler.crawl())``), the
finding's loop is that one: one of its entries is a coroutine so started or one such a coroutine calls. A warm-up only inside a coroutine, or
after the loop started, or in another program's entry point (a command-line script's ``__main__`` that warms and
then runs its own ``report()`` says nothing of a web server's process beside it), leaves the calls on the loop
reported. Used by :func:`~faultlib.detect.serving.blocking.analyze_sources` on each
finding.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.libraries.domains import ONCE_PER_PROCESS
from faultlib.detect.serving.blocking.model import Func, Klass, nodes_of
from faultlib.detect.serving.blocking.served_after import _starts, _straight_line

__all__ = ["MAX_DEPTH", "WarmedLibraries"]

MAX_DEPTH = 6
"""Calls followed from a warm-up statement down to the library call."""
SIMPLE = (ast.Expr, ast.Assign, ast.AnnAssign, ast.AugAssign)
"""Statements that run their calls whenever they run (no branch, no loop inside)."""
MAX_VISITS = 400
"""Functions a search walks at most (a bound on a large program, not a sample)."""


class WarmedLibraries:
    """Per analysis: the once-per-process library calls some entry point makes before it starts the loop."""

    def __init__(self, index) -> None:
        self.index = index
        self._warmed: dict[str, list[frozenset[tuple[str, str]] | None]] | None = None

    def warmed(self, site, entries) -> bool:
        """Whether ``site`` calls a once-per-process library function that the program has called before it started
        the loop the site runs on (see the module docstring); ``entries``: the site's entry calls, ``(file, line,
        function)`` as :func:`~faultlib.detect.serving.blocking.callers.note_entry` records them."""
        if not isinstance(site.node, ast.Call):
            return False
        target = self.index.callee(site.node.func, site.func)
        if not (isinstance(target, str) and target in ONCE_PER_PROCESS):
            return False
        reached = {(file, function) for file, _, function in entries}
        return any(started is None or started & reached for started in self._before_loop().get(target, ()))

    def _before_loop(self) -> dict[str, list[frozenset[tuple[str, str]] | None]]:
        """For each once-per-process name warmed before some loop: the coroutines each such loop is started with
        (``(file, qualname)``), or None for a loop started with none of the analysed files' (``uvicorn.run(app)``)."""
        if self._warmed is None:
            found: dict[str, list[frozenset[tuple[str, str]] | None]] = {}
            index = self.index
            if _spelt(index):
                for body, scope in _entry_bodies(index):
                    earlier, start = _before_start(body, scope)
                    names = set().union(*(_reached(index, stmt, scope) for stmt in earlier)) if earlier else set()
                    started = _started(index, start, scope) if names else None
                    for name in names:
                        found.setdefault(name, []).append(started)
            self._warmed = found
        return self._warmed


def _spelt(index) -> bool:
    """Whether some call of the analysed files ends in the last name of a once-per-process function (a cheap first
    test before the entry points are searched)."""
    sites = index.infer.sites()
    return any(name.rpartition(".")[2] in sites for name in ONCE_PER_PROCESS)


def _entry_bodies(index):
    """``(statements, scope)`` of every sync function and of every module's top level and ``__main__`` block."""
    for module in index.distinct_modules():
        scope = index.infer.module_func(module)
        yield module.tree.body, scope
        for stmt in module.tree.body:
            if isinstance(stmt, ast.If) and any(isinstance(n, ast.Name) and n.id == "__name__"
                                                for n in ast.walk(stmt.test)):
                yield stmt.body, scope
        for func in module.all_functions:
            if not func.is_async:
                yield func.node.body, func


def _before_start(body: list[ast.stmt], scope: Func) -> tuple[list[ast.stmt], ast.Call | None]:
    """The statements of ``body`` that always run before a later one of it starts the loop, and that start's call;
    ([], None) when none does."""
    earlier: list[ast.stmt] = []
    for stmt in _straight_line(body):
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and _starts(stmt.value, scope):
            return earlier, stmt.value
        if isinstance(stmt, SIMPLE):  # a branch or a loop may not run: `if warm: Crawler(seeds)` warms nothing sure
            earlier.append(stmt)
    return [], None


def _started(index, start: ast.Call | None, scope: Func) -> frozenset[tuple[str, str]] | None:
    """The coroutines of the analysed files whose calls the loop's start is handed (``asyncio.run(main())``:
    ``main``) and the functions they call, as ``(file, qualname)``; None when it is handed none (``uvicorn.run(app)``: the loop's entries are not
    named here)."""
    if start is None:
        return None
    named = [index.callee(arg.func, scope) for arg in (*start.args, *(k.value for k in start.keywords))
             if isinstance(arg, ast.Call)]
    todo = [f for f in named if isinstance(f, Func) and f.is_async]
    if not todo:
        return None
    seen: dict[int, Func] = {}
    while todo and len(seen) < MAX_VISITS:  # and what they call or await in turn: each awaited coroutine is an entry
        func = todo.pop()
        if id(func) not in seen:
            seen[id(func)] = func
            todo += [t for t in (index.callee(c.func, func) for c in nodes_of(func, ast.Call)) if isinstance(t, Func)]
    return frozenset((f.module.path, f.qualname) for f in seen.values())


def _reached(index, stmt: ast.stmt, scope: Func) -> set[str]:
    """The once-per-process names the calls of ``stmt`` reach through sync functions and constructors."""
    found: set[str] = set()
    seen: set[int] = set()
    todo = [(call, scope, 0) for call in ast.walk(stmt) if isinstance(call, ast.Call)]
    while todo and len(seen) < MAX_VISITS:
        call, where, depth = todo.pop()
        target = index.callee(call.func, where)
        if isinstance(target, Klass):
            target = index.method(target, "__init__")
        if isinstance(target, str) and target in ONCE_PER_PROCESS:
            found.add(target)
        elif isinstance(target, Func) and not target.is_async and id(target) not in seen and depth < MAX_DEPTH:
            seen.add(id(target))
            todo += [(inner, target, depth + 1) for inner in nodes_of(target, ast.Call)]
    return found
