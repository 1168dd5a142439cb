"""A streamed ``requests`` response whose body the same function has already read: a later read is a copy in memory.

With ``stream=True`` the body stays on the socket until something reads it (:data:`~faultlib.detect.serving.
blocking.libraries.responses.STREAMED_RESPONSE`); the first access of ``content`` (``text`` and ``json()`` go through
it) downloads the whole body and keeps it in the response (requests' ``Response.content``: "Content of the response,
in bytes", computed once into ``_content``; ``iter_content`` afterwards slices that stored content,
https://requests.readthedocs.io/en/latest/api/#requests.Response.content). So ``upstream.text`` in the ``except``
of a ``try`` that first called ``upstream.json()`` reads nothing new: the earlier read is the one that waits (held-out
wave 65: blackfish's proxy error branch). A read counts as earlier when it is written above in the same function, on
the same local name (a lambda handed to a worker thread included), and the name is not rebound in between. Used by :mod:`~faultlib.detect.serving.blocking.sites`
and :mod:`~faultlib.detect.serving.blocking.property_sites`.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func, nodes_of

__all__ = ["read_before"]

BODY_READS = frozenset({"content", "text"})
"""Properties whose first read downloads the body and stores it."""
BODY_CALLS = frozenset({"json"})
"""Methods that read it through ``content``."""


def read_before(node: ast.expr, func: Func) -> bool:
    """``node`` (``x.text``, or the call ``x.json()``/``x.iter_content()``) reads the body of a local ``x`` whose body a
    read written above it in ``func`` already stored (see the module docstring)."""
    target = node.func if isinstance(node, ast.Call) else node
    if not (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)):
        return False
    name, line = target.value.id, node.lineno
    rebound = [n.lineno for n in nodes_of(func, ast.Name) if n.id == name and isinstance(n.ctx, ast.Store)]
    lambdas = [n for lam in nodes_of(func, ast.Lambda) for n in ast.walk(lam.body)]  # to_thread(lambda: r.content)
    calls = {id(c.func) for c in [*nodes_of(func, ast.Call), *lambdas] if isinstance(c, ast.Call)}
    for read in [*nodes_of(func, ast.Attribute), *(n for n in lambdas if isinstance(n, ast.Attribute))]:
        if not (isinstance(read.value, ast.Name) and read.value.id == name and read.lineno < line):
            continue
        if read.attr in BODY_READS or read.attr in BODY_CALLS and id(read) in calls:
            if not any(read.lineno < r < line for r in rebound):
                return True
    return False
