"""A parser that fetches only when given a location: ``feedparser.parse(content)`` of text already downloaded.

``feedparser.parse(url_file_stream_or_string)`` downloads the feed when its argument is a URL, reads the file when
it is a path or a stream, and parses in memory when it is the document itself
(https://feedparser.readthedocs.io/en/latest/introduction.html: "parse a feed from a remote URL, a local file or
a string"). The vocabulary reports it as an HTTP fetch; when the argument is the text a coroutine already awaited
(``content = await resp.text()`` with aiohttp, or the awaited expression itself), nothing is fetched: the call
parses one document in memory and is left out. A name counts as awaited text when every assignment to it in the
function is an ``await``, or a response's body: ``res.text`` or ``res.content`` (requests' and httpx's ``Response``
hold the whole body once the request has returned, ``await client.get(url)`` included:
https://www.python-httpx.org/api/#response, https://requests.readthedocs.io/en/latest/api/#requests.Response.text;
the request itself is reported where it is made). Used by :mod:`~faultlib.detect.serving.blocking.sites`.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func

__all__ = ["CONTENT_OR_LOCATION", "parses_awaited_text"]

CONTENT_OR_LOCATION = frozenset({"feedparser.parse", "feedparser.api.parse"})
"""Calls whose first argument is either a location to fetch or the document itself."""


def parses_awaited_text(target: str, call: ast.Call, func: Func) -> bool:
    """Whether ``call`` of ``target`` (one of :data:`CONTENT_OR_LOCATION`) is given text already fetched."""
    if target not in CONTENT_OR_LOCATION or not call.args:
        return False
    return _awaited_text(call.args[0], func)


BODY_ATTRIBUTES = frozenset({"text", "content"})
"""A response's attributes that hold its body."""


def _awaited_text(given: ast.expr, func: Func, depth: int = 0) -> bool:
    """``given`` is an ``await``, a response's body (``res.text``, ``(await client.get(u)).content``), or a name every
    assignment of which in ``func`` is one of those."""
    if isinstance(given, ast.Await):
        return True
    if isinstance(given, ast.Attribute) and given.attr in BODY_ATTRIBUTES:
        return True
    if not isinstance(given, ast.Name) or depth > 2:
        return False
    values = _assigned(given.id, func)
    return values is not None and all(_awaited_text(v, func, depth + 1) for v in values)


def _assigned(name: str, func: Func) -> list[ast.expr] | None:
    """The values assigned to ``name`` in ``func`` when every store of it is a plain assignment, else None."""
    values = [n.value for n in func.nodes if isinstance(n, (ast.Assign, ast.AnnAssign)) and n.value is not None
              and any(isinstance(t, ast.Name) and t.id == name
                      for t in (n.targets if isinstance(n, ast.Assign) else [n.target]))]
    stores = [n for n in func.nodes if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store)]
    return values if values and len(values) == len(stores) else None
