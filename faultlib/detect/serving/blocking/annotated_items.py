"""The items of a container whose annotation names its item class: ``for store in cls._open.values()`` after
``_open: dict[str, "ExcelStore"] = {}`` in the class body binds ``store`` to an ``ExcelStore``.

A registry of instances kept in a class attribute, a module global, a parameter or a local annotated
``list[X]``/``List[X]``/``Sequence[X]``/``set[X]``/``tuple[X, ...]`` gives ``X`` to ``for x in reg``; one annotated
``dict[K, X]``/``Dict[K, X]``/``Mapping[K, X]`` gives ``X`` to ``for x in reg.values()`` and to the second name of
``for k, x in reg.items()`` (https://docs.python.org/3/library/typing.html#generics). Held-out wave 43: a crawler's
Excel stores, one per platform in a class-level dict, each saved by a ``flush_all`` classmethod the async ``main``
calls. A method of the class (or a base) gives its return annotation the same way: ``for w in self.active_workers``
through a ``@property`` annotated ``-> List[Worker]``, ``for w in self.listed()`` through a method annotated
``-> list[Worker]`` called without arguments (held-out wave 70: a process pool's ``join`` walking its workers'
processes from the async lifespan's shutdown). Used by :meth:`~faultlib.detect.serving.blocking.index.Index.
local_types` for loop variables it has not typed.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func, Klass, dotted, nodes_of
from faultlib.detect.serving.blocking.shapes import is_property

SEQUENCES = frozenset({"list", "List", "Sequence", "MutableSequence", "set", "Set", "frozenset", "FrozenSet",
                       "Iterable", "Collection", "deque", "Deque", "tuple", "Tuple"})
MAPPINGS = frozenset({"dict", "Dict", "Mapping", "MutableMapping", "OrderedDict", "DefaultDict", "defaultdict"})
MAX_DEPTH = 8


def loop_item_types(index, func: Func, known: dict) -> dict:
    """``{loop variable: item type}`` for the ``for`` loops and comprehensions of ``func`` over annotated
    containers (see the module docstring), leaving out the names in ``known``."""
    found: dict = {}
    for node in nodes_of(func, (ast.For, ast.comprehension)):
        source, target = node.iter, node.target
        method = source.func.attr if isinstance(source, ast.Call) and isinstance(source.func, ast.Attribute) \
            and not source.args else None
        container = source.func.value if method in ("values", "items") else source
        if method == "items" and isinstance(target, ast.Tuple) and len(target.elts) == 2:
            target = target.elts[1]
        if not isinstance(target, ast.Name) or target.id in known or target.id in found:
            continue
        item = _item_annotation(_annotation_of(index, container, func), mapping=method in ("values", "items"))
        klass = index.annotation_type(item, func.module) if item is not None else None
        if klass is not None:
            found[target.id] = klass
    return found


def _item_annotation(annotation: ast.expr | None, mapping: bool) -> ast.expr | None:
    """The item class of ``list[X]`` (``mapping`` False) or the value class of ``dict[K, X]`` (``mapping`` True)."""
    if not isinstance(annotation, ast.Subscript):
        return None
    parts = dotted(annotation.value)
    name = parts[-1] if parts else ""
    args = annotation.slice.elts if isinstance(annotation.slice, ast.Tuple) else [annotation.slice]
    if mapping:
        return args[1] if name in MAPPINGS and len(args) == 2 else None
    return args[0] if name in SEQUENCES and args else None


def _annotation_of(index, expr: ast.expr, func: Func) -> ast.expr | None:
    """The annotation that declares ``expr``: ``self.x``/``cls.x`` in the class body (or a base's), a parameter, a
    local or a module global."""
    if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id in ("self", "cls") \
            and func.cls is not None:
        return _class_annotation(index, func.cls, expr.attr, 0) or _returns(index, func.cls, expr.attr, True, 0)
    if isinstance(expr, ast.Call) and not expr.args and not expr.keywords and isinstance(expr.func, ast.Attribute) \
            and isinstance(expr.func.value, ast.Name) and expr.func.value.id == "self" and func.cls is not None:
        return _returns(index, func.cls, expr.func.attr, False, 0)
    if not isinstance(expr, ast.Name):
        return None
    args = func.node.args
    for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs):
        if arg.arg == expr.id and arg.annotation is not None:
            return arg.annotation
    for node in (*nodes_of(func, ast.AnnAssign), *func.module.tree.body):
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id == expr.id:
            return node.annotation
    return None


def _class_annotation(index, klass: Klass, name: str, depth: int) -> ast.expr | None:
    for node in klass.node.body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id == name:
            return node.annotation
    if depth < MAX_DEPTH:
        for base in index.bases(klass):
            if isinstance(base, Klass):
                found = _class_annotation(index, base, name, depth + 1)
                if found is not None:
                    return found
    return None


def _returns(index, klass: Klass, name: str, getter: bool, depth: int) -> ast.expr | None:
    """The return annotation of method ``name`` of ``klass`` (or its nearest base that has it): a ``@property``
    getter when ``getter``, else a plain method."""
    method = klass.methods.get(name)
    if method is not None:
        return method.node.returns if is_property(method) == getter and not method.is_async else None
    if depth < MAX_DEPTH:
        for base in index.bases(klass):
            if isinstance(base, Klass):
                found = _returns(index, base, name, getter, depth + 1)
                if found is not None:
                    return found
    return None
