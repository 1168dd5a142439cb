"""A parser that fetches only when given a location: ``feedparser.parse(content)`` of text already downloaded.

``feedparser.parse(url_file_stream_or_string)`` downloads the feed when its argument is a URL, reads the file when
it is a path or a stream, and parses in memory when it is the document itself
(https://feedparser.readthedocs.io/en/latest/introduction.html: "parse a feed from a remote URL, a local file or
a string"). The vocabulary reports it as an HTTP fetch; when the argument is the text a coroutine already awaited
(``content = await resp.text()`` with aiohttp, or the awaited expression itself), nothing is fetched: the call
parses one document in memory and is left out. A name counts as awaited text when every assignment to it in the
function is an ``await``. Used by :mod:`~faultlib.detect.serving.blocking.sites`.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func

__all__ = ["CONTENT_OR_LOCATION", "parses_awaited_text"]

CONTENT_OR_LOCATION = frozenset({"feedparser.parse", "feedparser.api.parse"})
"""Calls whose first argument is either a location to fetch or the document itself."""


def parses_awaited_text(target: str, call: ast.Call, func: Func) -> bool:
    """Whether ``call`` of ``target`` (one of :data:`CONTENT_OR_LOCATION`) is given text a coroutine awaited."""
    if target not in CONTENT_OR_LOCATION or not call.args:
        return False
    given = call.args[0]
    if isinstance(given, ast.Await):
        return True
    if not isinstance(given, ast.Name):
        return False
    values = [n.value for n in func.nodes if isinstance(n, (ast.Assign, ast.AnnAssign)) and n.value is not None
              and any(isinstance(t, ast.Name) and t.id == given.id
                      for t in (n.targets if isinstance(n, ast.Assign) else [n.target]))]
    stores = [n for n in func.nodes if isinstance(n, ast.Name) and n.id == given.id and isinstance(n.ctx, ast.Store)]
    return bool(values) and len(values) == len(stores) and all(isinstance(v, ast.Await) for v in values)
