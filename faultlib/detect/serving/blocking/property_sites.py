"""Accesses without a call that run a third-party object's I/O: reading a property, and indexing a persistent
mapping (``shelf[key] = value`` pickles into the dbm file behind a ``shelve.Shelf``: a family that names
``__getitem__``/``__setitem__``/``__delitem__``, :func:`item_sites`), and entering a ``with`` statement on an object
whose family names ``__enter__`` (``with FileLock(path):`` acquires the lock file, :func:`entered_sites`).

Reading a property of a third-party object that does the I/O itself: ``result.state`` on a Celery
``AsyncResult`` asks the result backend (Redis, a database, the RPC queue) for the task's state each time it is read
(https://docs.celeryq.dev/en/stable/reference/celery.result.html#celery.result.AsyncResult.state). No call appears
in the source, so the vocabulary lists these reads apart (:attr:`~faultlib.detect.serving.blocking.entries.
Vocabulary.reads`, ``{TYPE.attribute: (kind, source)}``). The getters of classes of the analysed files are followed
instead (:func:`~faultlib.detect.serving.blocking.dispatch.property_reads`). Used by
:mod:`~faultlib.detect.serving.blocking.reach`.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.consumed_bodies import read_before
from faultlib.detect.serving.blocking.libraries.responses import STREAMED_RESPONSE
from faultlib.detect.serving.blocking.lock_attempts import made_to_try_once
from faultlib.detect.serving.blocking.model import Func, nodes_of
from faultlib.detect.serving.blocking.sites import Site

__all__ = ["blocking_reads", "entered_sites", "item_sites"]

_ITEM_METHODS = {ast.Load: "__getitem__", ast.Store: "__setitem__", ast.Del: "__delitem__"}


def blocking_reads(func: Func, index) -> list[Site]:
    """A site for each read in ``func`` of a property the vocabulary's ``reads`` lists, on a value of its type (not
    a call of it, not an assignment to it), and each :func:`item_sites` and :func:`entered_sites` one."""
    reads = index.vocab.reads
    if not reads:
        return item_sites(func, index) + entered_sites(func, index)
    names = index.__dict__.get("_faultlib_read_names")
    if names is None:
        names = index.__dict__["_faultlib_read_names"] = frozenset(name.rpartition(".")[2] for name in reads)
    called = None
    found = []
    for node in nodes_of(func, ast.Attribute):
        if not (node.attr in names and isinstance(node.ctx, ast.Load)):
            continue
        if called is None:
            called = {id(n.func) for n in nodes_of(func, ast.Call)}
        if id(node) in called:
            continue
        owner = index.type_of(node.value, func)
        entry = reads.get(f"{owner}.{node.attr}") if isinstance(owner, str) else None
        if entry is not None and not (owner == STREAMED_RESPONSE and read_before(node, func)):  # body stored
            found.append(Site(entry[0], f"{owner}.{node.attr} (reading the property queries the server)", func, node))
    return found + item_sites(func, index) + entered_sites(func, index)


def item_sites(func: Func, index) -> list[Site]:
    """A site for each ``x[key]`` read, store or ``del`` in ``func`` on a value whose family names the matching
    ``__getitem__``/``__setitem__``/``__delitem__``."""
    found = []
    for node in nodes_of(func, ast.Subscript):
        if not isinstance(node.value, (ast.Name, ast.Attribute)) or isinstance(node.slice, ast.Slice):
            continue  # a slice builds (a Django queryset's rooms[:10] stays lazy); an index or key reads
        method = _ITEM_METHODS.get(type(node.ctx))
        owner = index.type_of(node.value, func) if method else None
        kind = index.vocab.family_kind(owner, method) if isinstance(owner, str) else None
        if kind is not None:
            found.append(Site(kind[0], f"{owner}.{method}", func, node))
    return found


def entered_sites(func: Func, index) -> list[Site]:
    """A site for each context expression of a plain ``with`` in ``func`` whose value's family names ``__enter__``:
    the statement calls ``__enter__`` on the spot, in the same thread (the language reference, "The with
    statement", https://docs.python.org/3/reference/compound_stmts.html#the-with-statement), so ``with
    FileLock(path):`` waits for the lock file as ``lock.acquire()`` does. ``async with`` calls ``__aenter__``
    instead, and a family names the sync method only. A lock made to try once (``FileLock(p, blocking=False)``:
    :mod:`~faultlib.detect.serving.blocking.lock_attempts`) does not wait there."""
    found = []
    for node in nodes_of(func, ast.With):
        for item in node.items:
            owner = index.type_of(item.context_expr, func)
            kind = index.vocab.family_kind(owner, "__enter__") if isinstance(owner, str) else None
            if kind is not None and not made_to_try_once(item.context_expr, func):  # FileLock(p, timeout=0)
                found.append(Site(kind[0], f"{owner}.__enter__ (entered by the with statement)", func,
                                  item.context_expr))
    return found
