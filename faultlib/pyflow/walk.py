"""Walking syntax trees without :mod:`ast`'s generators: the same nodes, in the same order, at less cost per node.

:func:`ast.iter_child_nodes` runs two nested generators per node (it asks :func:`ast.iter_fields` for every field,
scalar ones included), and :func:`ast.walk` one more on top; the static checks walk hundreds of thousands of nodes
per service, so those frames are a large share of their time (stop 41's profile of ``check blocking``: about a
fifth). :func:`children` returns the list :func:`ast.iter_child_nodes` would yield, reading only the fields of the
node's class that can hold a node (learnt once per class); :func:`walk` is :func:`ast.walk` (breadth first, the node
itself first) as a list. Both are drop-in: a caller that depends on the order gets the same order.
"""

from __future__ import annotations

import ast
import threading
from collections import OrderedDict, deque
from typing import Callable, TypeVar

__all__ = ["CHILDLESS", "NO_CALLS", "children", "nodes_of", "scope_nodes", "tree_fact", "walk", "walk_once"]

_AST = ast.AST
T = TypeVar("T")
#: fields that hold a name, a number, a flag or a constant in every node class that has them (Python's ASDL:
#: ``identifier``, ``int``, ``string``, ``constant``), never a node or a list of nodes; ``value`` only in
#: :class:`ast.Constant`/:class:`ast.MatchSingleton` (elsewhere it is an expression)
_SCALARS = frozenset({"id", "attr", "arg", "asname", "module", "level", "kind", "type_comment", "is_async", "simple",
                      "conversion", "tag"})
_SCALAR_VALUE = (ast.Constant, ast.MatchSingleton)
#: ``name`` is an identifier everywhere but in 3.12's ``type X = ...`` (:class:`ast.TypeAlias`: a :class:`ast.Name`)
_NAME_NODE = tuple(c for c in (getattr(ast, "TypeAlias", None),) if c is not None)
_FIELDS: dict[type, tuple[str, ...]] = {}


def _fields(cls: type) -> tuple[str, ...]:
    """The fields of ``cls`` that may hold a node or a list of nodes, in ``_fields`` order."""
    found = _FIELDS.get(cls)
    if found is None:
        skip = _SCALARS | ({"value"} if issubclass(cls, _SCALAR_VALUE) else frozenset()) | (
            frozenset() if issubclass(cls, _NAME_NODE) else {"name"})
        found = _FIELDS[cls] = tuple(f for f in cls._fields if f not in skip)
    return found


#: the node classes of :mod:`ast` that can hold no node (a constant, a context, an operator): :func:`children` of one
#: is always empty, so a walk that meets one need not ask (stop 49: about a third of a function's nodes)
CHILDLESS = frozenset(c for c in vars(ast).values() if isinstance(c, type) and issubclass(c, _AST) and c is not _AST
                      and not _fields(c))
#: nodes under which no call can be: a name (its only child is its context), and the nodes that hold none
NO_CALLS = CHILDLESS | {ast.Name}


def children(node: ast.AST) -> list[ast.AST]:
    """The direct child nodes of ``node``, in :func:`ast.iter_child_nodes`' order (field order, list items in
    order; context nodes such as :class:`ast.Load` included)."""
    names = _FIELDS.get(node.__class__)
    if names is None:
        names = _fields(node.__class__)
    out: list[ast.AST] = []
    append = out.append
    for name in names:
        value = getattr(node, name, None)
        if isinstance(value, _AST):
            append(value)
        elif isinstance(value, list):
            for item in value:
                if isinstance(item, _AST):
                    append(item)
    return out


def walk(node: ast.AST) -> list[ast.AST]:
    """Every node under ``node`` (``node`` first), in :func:`ast.walk`'s breadth-first order."""
    out = [node]
    todo = deque((node,))
    popleft, extend = todo.popleft, todo.extend
    while todo:
        node = popleft()
        if node.__class__ in CHILDLESS:
            continue
        kids = children(node)
        extend(kids)
        out.extend(kids)
    return out


def scope_nodes(scope: ast.AST) -> list[ast.AST]:
    """The nodes of one scope under ``scope`` (a module or a function; ``scope`` itself left out): the functions it
    defines are there (their names, decorators and defaults are evaluated in it), their bodies are not (each is a
    scope of its own). Class bodies are walked (their statements run in the enclosing code's order); no order is
    promised."""
    out: list[ast.AST] = []
    todo = children(scope)
    while todo:
        node = todo.pop()
        out.append(node)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            todo.extend([*node.decorator_list, *node.args.defaults, *(d for d in node.args.kw_defaults if d)])
        elif node.__class__ not in CHILDLESS:
            todo.extend(children(node))
    return out


#: trees whose walk :func:`walk_once` remembers (the most recently asked)
WALKS_KEPT = 64
#: ``id(tree) -> (tree, its walk, {class or tuple of classes: the walk's nodes of it})``
_WALKS: OrderedDict[int, tuple[ast.AST, list[ast.AST], dict]] = OrderedDict()
_WALKS_LOCK = threading.Lock()


def walk_once(node: ast.AST) -> list[ast.AST]:
    """:func:`walk` of ``node``, remembered for the last :data:`WALKS_KEPT` nodes asked about: the leakage analysis
    reads a parsed program in dozens of passes (a 2,000-line program joined with its readers: about 200,000 nodes a
    pass), each of which walked it again. The tree must not change after the first call (the static checks parse,
    then only read); the list is shared: read it, never change it."""
    return _kept(node)[1]


def nodes_of(node: ast.AST, cls: type | tuple[type, ...]) -> list[ast.AST]:
    """The nodes of :func:`walk_once` of ``node`` that are instances of ``cls`` (a class or a tuple of them, as
    :func:`isinstance` takes), in the walk's order, remembered with the walk: a pass asked once per line of a program
    ("the ``for`` loops around line 812") looked at every node of it each time. The same rules as
    :func:`walk_once`: the tree does not change, the list is read, never changed."""
    entry = _kept(node)
    found = entry[2].get(cls)
    if found is None:
        found = entry[2][cls] = [n for n in entry[1] if isinstance(n, cls)]
    return found


def tree_fact(node: ast.AST, fact: Callable[[ast.AST], T]) -> T:
    """``fact(node)``, computed once while :func:`walk_once` keeps the walk of ``node``: a fact of the syntax alone
    (the models a script fits by their use, say) that two passes of one analysis both asked for, each with a walk of
    the whole program. ``fact`` must be a pure function of the tree and its answer must not be changed by its
    users (a frozenset, a tuple); the same rules as :func:`walk_once` for the tree."""
    entry = _kept(node)
    key = ("fact", fact)  # (the classes nodes_of keeps are keys of their own)
    if key not in entry[2]:
        entry[2][key] = fact(node)
    return entry[2][key]


def _kept(node: ast.AST) -> tuple[ast.AST, list[ast.AST], dict]:
    key = id(node)
    with _WALKS_LOCK:  # analyses may run in threads: the order of the kept walks is changed under one lock
        hit = _WALKS.get(key)
        if hit is not None and hit[0] is node:  # the node is kept alive with its walk, so its id is not reused
            _WALKS.move_to_end(key)
            return hit
    entry = (node, walk(node), {})
    with _WALKS_LOCK:
        _WALKS[key] = entry
        if len(_WALKS) > WALKS_KEPT:
            _WALKS.popitem(last=False)
    return entry
