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
``resp.text()``/``resp.read()`` of such a response returns, directly or through a local bound once to it. A parameter
or any other value says nothing about its size: silent. Used by the ``fetched`` test of
:class:`~faultlib.detect.serving.blocking.entries.BlocksWhen` (``bs4.BeautifulSoup`` in
:mod:`~faultlib.detect.serving.blocking.libraries.scrapers`).
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func

__all__ = ["FETCHED", "NOT_FETCHED", "as_fetched", "fetched_body"]

FETCH_VERBS = frozenset({"get", "post", "request", "fetch", "urlopen"})
"""Calls that fetch a page: an HTTP client's verbs (requests, httpx, aiohttp) and ``urllib``'s ``urlopen``."""
BODY_ATTRIBUTES = frozenset({"text", "content", "data"})
"""A response's whole body: requests/httpx ``Response.text``/``.content``, urllib3's ``.data``."""
BODY_READS = frozenset({"text", "read"})
"""A response's methods returning its whole body: aiohttp's awaited ``text()``/``read()``, urllib's ``read()``."""
MAX_DEPTH = 4
FETCHED = ast.Constant(True)
NOT_FETCHED = ast.Constant(False)


def as_fetched(expr: ast.expr, func: Func) -> ast.expr:
    """:data:`FETCHED` when ``expr`` is a fetched page's body in ``func`` (:func:`fetched_body`), else
    :data:`NOT_FETCHED` (for :func:`~faultlib.detect.serving.blocking.sites.argument_blocks`)."""
    return FETCHED if fetched_body(expr, func) else NOT_FETCHED


def fetched_body(expr: ast.expr, func: Func, depth: int = 0) -> bool:
    """Whether ``expr``, evaluated in ``func``, is the whole body of a page fetched there (see the module docstring)."""
    if depth > MAX_DEPTH:
        return False
    if isinstance(expr, ast.Await):
        expr = expr.value
    if isinstance(expr, ast.Name):
        bound = _only_binding(expr.id, func)
        return bound is not None and fetched_body(bound, func, depth + 1)
    if isinstance(expr, ast.Attribute) and expr.attr in BODY_ATTRIBUTES:
        return _response(expr.value, func, depth)
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr in BODY_READS:
        return _response(expr.func.value, func, depth)
    return False


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
