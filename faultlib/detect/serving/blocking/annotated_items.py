"""The items of a container whose annotation names its item class: ``for store in cls._open.values()`` after
``_open: dict[str, "ExcelStore"] = {}`` in the class body binds ``store`` to an ``ExcelStore``.

A registry of instances kept in a class attribute, a module global, a parameter or a local annotated
``list[X]``/``List[X]``/``Sequence[X]``/``Iterable[X]``/``set[X]``/``tuple[X, ...]`` gives ``X`` to ``for x in reg``;
one annotated ``dict[K, X]``/``Dict[K, X]``/``Mapping[K, X]`` gives ``X`` to ``for x in reg.values()``, to the second
name of ``for k, x in reg.items()`` and to ``reg[k]`` (https://docs.python.org/3/library/typing.html#generics).
Held-out wave 43: a crawler's Excel stores, one per platform in a class-level dict, each saved by a ``flush_all``
classmethod the async ``main`` calls. The annotation may be written on any receiver the analysis types, on a method
or function the container is returned by, in another module
(:func:`~faultlib.detect.serving.blocking.container_annotations.declaration`): ``for w in self.active_workers``
through a ``@property`` annotated ``-> List[Worker]``, ``for w in self.listed()`` through a method annotated
``-> list[Worker]`` (held-out wave 70: a process pool's ``join`` walking its workers' processes from the async
lifespan's shutdown), ``for pi in model.get_available_providers()`` (held-out wave 76: an LLM gateway trying each
provider slot of a model, whose abstract provider's subclasses post with ``requests``).

A local built from such a container keeps its items: a comprehension that keeps the loop variable itself
(``[p for p in ready if p.idle]``: a filter), a concatenation ``fresh + busy`` (``list.__add__`` "concatenates",
https://docs.python.org/3/library/stdtypes.html#common-sequence-operations), a slice, ``list(xs)``/``sorted(xs)``,
``xs or []``; every assignment of the local must agree (an empty display aside). One item is also
``xs[0]`` and ``next(iter(xs))`` (:func:`indexed_item`, :func:`next_item`). Used by
:meth:`~faultlib.detect.serving.blocking.index.Index.local_types` for loop variables it has not typed, and by
:mod:`~faultlib.detect.serving.blocking.typeof` for subscripts and ``next``.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.container_annotations import declaration
from faultlib.detect.serving.blocking.iterables import iterated
from faultlib.detect.serving.blocking.model import Func, Type, dotted, nodes_of, unquoted

__all__ = ["annotated_item", "indexed_item", "loop_item_types", "next_item"]

SEQUENCES = frozenset({"list", "List", "Sequence", "MutableSequence", "set", "Set", "frozenset", "FrozenSet",
                       "AbstractSet", "Iterable", "Collection", "Reversible", "Iterator", "Generator", "deque", "Deque",
                       "tuple", "Tuple"})
MAPPINGS = frozenset({"dict", "Dict", "Mapping", "MutableMapping", "OrderedDict", "DefaultDict", "defaultdict"})
SAME_ITEMS = frozenset({"list", "tuple", "set", "frozenset", "sorted", "reversed", "iter"})
MAX_DEPTH = 8


def loop_item_types(index, func: Func, known: dict) -> dict:
    """``{loop variable: item type}`` for the ``for`` loops and comprehensions of ``func`` over annotated
    containers (see the module docstring), leaving out the names in ``known``."""
    found: dict = {}
    for node in nodes_of(func, (ast.For, ast.comprehension)):
        for name, container, mapping in _looped(node):
            if name in known or name in found:
                continue
            item = annotated_item(index, container, func, mapping)
            if item is not None:
                found[name] = item
    return found


def _looped(node: ast.For | ast.comprehension) -> list[tuple[str, ast.expr, bool]]:
    """``(loop variable, container, the container's values are meant)`` of a loop."""
    source, target = node.iter, node.target
    view = source.func.attr if isinstance(source, ast.Call) and isinstance(source.func, ast.Attribute) \
        and not source.args else None
    if view == "items" and isinstance(target, ast.Tuple) and len(target.elts) == 2 \
            and isinstance(target.elts[1], ast.Name):
        return [(target.elts[1].id, source.func.value, True)]
    if view == "values" and isinstance(target, ast.Name):
        return [(target.id, source.func.value, True)]
    pairs = [(name, container, False) for name, container in iterated(node)]
    return pairs or ([(target.id, source, False)] if isinstance(target, ast.Name) else [])


def indexed_item(index, expr: ast.Subscript, func: Func) -> Type | None:
    """The type of ``xs[i]`` (an item of an annotated sequence) or ``d[k]`` (a value of an annotated mapping); a
    slice is a list, not an item."""
    if isinstance(expr.slice, ast.Slice):
        return None
    return annotated_item(index, expr.value, func, False) or annotated_item(index, expr.value, func, True)


def next_item(index, call: ast.Call, func: Func) -> Type | None:
    """The type of ``next(iter(xs))`` or ``next(it)``: the first item of ``xs``."""
    if dotted(call.func) != ["next"] or not call.args:
        return None
    return annotated_item(index, call.args[0], func, False)


def annotated_item(index, container: ast.expr, func: Func, mapping: bool, depth: int = 0) -> Type | None:
    """The type of an item (``mapping``: of a value) of ``container`` read in ``func``, or None."""
    if depth > MAX_DEPTH:
        return None
    if isinstance(container, ast.Call) and isinstance(container.func, ast.Attribute) and not container.args \
            and container.func.attr == "values" and not mapping:  # list(d.values()), sorted(d.values())
        return annotated_item(index, container.func.value, func, True, depth + 1)
    passed = _passed_on(container)
    if passed:
        found = [annotated_item(index, part, func, mapping, depth + 1) for part in passed if not _empty(part)]
        return found[0] if found and found[0] is not None and all(t == found[0] for t in found) else None
    declared = declaration(index, container, func)
    if declared is not None:
        item = _item_annotation(declared[0], mapping)
        return index.annotation_type(item, declared[1]) if item is not None else None
    if isinstance(container, ast.Name):
        return _local_item(index, container.id, func, mapping, depth)
    return None


def _passed_on(container: ast.expr) -> list[ast.expr]:
    """The containers whose items ``container`` holds unchanged (see the module docstring), or []."""
    if isinstance(container, ast.BinOp) and isinstance(container.op, ast.Add):
        return [container.left, container.right]
    if isinstance(container, ast.BoolOp) and isinstance(container.op, ast.Or):
        return list(container.values)
    if isinstance(container, ast.IfExp):
        return [container.body, container.orelse]
    if isinstance(container, ast.Subscript) and isinstance(container.slice, ast.Slice):
        return [container.value]
    if isinstance(container, (ast.ListComp, ast.SetComp, ast.GeneratorExp)) and len(container.generators) == 1:
        loop = container.generators[0]
        same = isinstance(container.elt, ast.Name) and isinstance(loop.target, ast.Name) \
            and container.elt.id == loop.target.id
        return [loop.iter] if same else []
    if isinstance(container, ast.Call) and isinstance(container.func, ast.Name) and len(container.args) == 1 \
            and container.func.id in SAME_ITEMS:
        return [container.args[0]]
    return []


def _empty(expr: ast.expr) -> bool:
    return (isinstance(expr, (ast.List, ast.Tuple, ast.Set, ast.Dict)) and not getattr(expr, "elts", None)
            and not getattr(expr, "keys", None)) or (isinstance(expr, ast.Constant) and expr.value is None)


def _local_item(index, name: str, func: Func, mapping: bool, depth: int) -> Type | None:
    """The item type every assignment (and ``+=``) of the local ``name`` agrees on (remembered per function)."""
    table = func.__dict__.setdefault("_faultlib_annotated_items", {})
    key = (name, mapping)
    if key not in table:
        table[key] = None  # a local built from itself stays unknown
        values = _local_values(func, name)
        found = [annotated_item(index, v, func, mapping, depth + 1) for v in values if not _empty(v)]
        table[key] = found[0] if found and found[0] is not None and all(t == found[0] for t in found) else None
    return table[key]


def _local_values(func: Func, name: str) -> list[ast.expr]:
    """Every value assigned to (or added onto) the local ``name``; [] when one of its stores is of another kind (a
    loop target, an unpacking)."""
    values = [n.value for n in nodes_of(func, ast.Assign)
              if any(isinstance(t, ast.Name) and t.id == name for t in n.targets)]
    values += [n.value for n in nodes_of(func, ast.AugAssign)
               if isinstance(n.target, ast.Name) and n.target.id == name and isinstance(n.op, ast.Add)]
    stores = sum(1 for n in nodes_of(func, ast.Name) if n.id == name and isinstance(n.ctx, ast.Store))
    return values if stores == len(values) else []


def _item_annotation(annotation: ast.expr | None, mapping: bool) -> ast.expr | None:
    """The item class of ``list[X]`` (``mapping`` False) or the value class of ``dict[K, X]`` (``mapping`` True),
    through ``Optional[...]``, ``... | None`` and a quoted annotation."""
    annotation = unquoted(annotation)
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        sides = [s for s in (annotation.left, annotation.right) if not (isinstance(s, ast.Constant) and s.value is None)]
        return _item_annotation(sides[0], mapping) if len(sides) == 1 else None
    if not isinstance(annotation, ast.Subscript):
        return None
    parts = dotted(annotation.value)
    name = parts[-1] if parts else ""
    if name == "Optional":
        return _item_annotation(annotation.slice, mapping)
    args = annotation.slice.elts if isinstance(annotation.slice, ast.Tuple) else [annotation.slice]
    if mapping:
        return args[1] if name in MAPPINGS and len(args) == 2 else None
    if name not in SEQUENCES or not args:
        return None
    if name in ("tuple", "Tuple") and len(args) > 1 and not (len(args) == 2 and isinstance(args[1], ast.Constant)
                                                              and args[1].value is Ellipsis):
        return args[0] if all(ast.dump(a) == ast.dump(args[0]) for a in args) else None  # tuple[A, B]: two kinds
    return args[0]
