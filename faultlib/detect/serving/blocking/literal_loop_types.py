"""The type of a loop variable that walks a literal table of values of one type.

``config_paths = [DEFAULT_CONFIG, config_dir / "configuration.yaml"]`` then ``for path in config_paths:
path.open()``: each turn binds one of the listed values, so when every row has the same known type the variable
has it too (held-out wave 52: a voice assistant merging its configuration files with ``Path.open`` in the loop of
every command's ``async`` main). The rows are those
:func:`~faultlib.detect.serving.blocking.loop_items.loop_values` reads (a display in the ``for``, or a name bound to
one once); a row of unknown or different type gives no type. Used by
:meth:`~faultlib.detect.serving.blocking.index.Index.local_types`.

Rows that are instances of different classes of the analysed files (``for stage in [Resize(), Encode()]:
stage.run(x)``, or an instance's list ``self.stages = [Resize(), Encode()]`` walked in another method) give the
variable no one type, but each turn calls the method of the row it is bound to (a ``for`` binds each item in turn,
https://docs.python.org/3/reference/compound_stmts.html#the-for-statement), so every row's class counts
(:func:`looped_classes`, read by :func:`~faultlib.detect.serving.blocking.choices.union_members` like a ``Union``).
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.listed_elements import listed_classes
from faultlib.detect.serving.blocking.loop_items import loop_rows, loop_values
from faultlib.detect.serving.blocking.model import Func, Klass, nodes_of

__all__ = ["literal_loop_types", "loop_aliases", "looped_classes"]


def literal_loop_types(index, func: Func, known: dict) -> dict:
    """``{loop variable: type}`` for the plain ``for`` loops of ``func`` over a literal table whose rows share one
    known type, leaving out the names in ``known``."""
    found: dict = {}
    for node in nodes_of(func, ast.For):
        target = node.target
        if not isinstance(target, ast.Name) or target.id in known or target.id in found:
            continue
        rows = loop_values(index, func, target.id)
        types = [index.type_of(row, func) for row in rows]
        if types and types[0] is not None and all(t is types[0] or t == types[0] for t in types):
            found[target.id] = types[0]
    return found


def looped_classes(index, func: Func, use: ast.Name) -> list[Klass]:
    """The classes of the analysed files the loop variable ``use`` (a read of it in ``func``) is bound to instances
    of, when the innermost ``for`` of ``func`` that binds it and holds the read in its body walks a literal table or
    an instance list of two or more such classes and nothing else; else [] (a read outside every such loop, or the
    loop's rows not all instances of the analysed files' classes). Only that loop counts: another ``for`` of the
    same name over other classes binds it to those only while it runs."""
    loop = _enclosing_loop(func, use)
    alias = _alias_of(func, use) if loop is None else None
    if alias is not None:  # current = stage; current.run(x): the loop variable's classes
        loop, use = alias
    if loop is None:
        return []
    table = func.__dict__.setdefault("_faultlib_looped_classes", {})
    key = (id(loop), use.id)
    if key not in table:
        table[key] = _looped(index, func, loop, use.id)
    return table[key]


def loop_aliases(func: Func, types: dict) -> dict:
    """``{local: type}`` for a local bound once, inside a ``for``, to that loop's variable (``current = stage``), when
    the loop variable has a type in ``types``: each turn it names the same object the variable does."""
    found: dict = {}
    for node in nodes_of(func, ast.Assign):
        if (len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) and isinstance(node.value, ast.Name)
                and node.targets[0].id not in types and node.value.id in types
                and _enclosing_loop(func, node.value) is not None and _stores(func, node.targets[0].id) == 1):
            found[node.targets[0].id] = types[node.value.id]
    return found


def _alias_of(func: Func, use: ast.Name) -> tuple[ast.For, ast.Name] | None:
    """``(loop, the loop variable's read)`` when ``use`` reads a local bound once to the loop variable of a ``for``
    whose body holds ``use`` (see :func:`loop_aliases`)."""
    if _stores(func, use.id) != 1:
        return None
    for node in nodes_of(func, ast.Assign):
        if (len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) and node.targets[0].id == use.id
                and isinstance(node.value, ast.Name)):
            loop = _enclosing_loop(func, node.value)
            if loop is not None and any(n is use for stmt in loop.body for n in ast.walk(stmt)):
                return loop, node.value
    return None


def _stores(func: Func, name: str) -> int:
    return sum(1 for n in nodes_of(func, ast.Name) if n.id == name and not isinstance(n.ctx, ast.Load))


def _enclosing_loop(func: Func, use: ast.Name) -> ast.For | None:
    """The innermost ``for`` of ``func`` that binds ``use``'s name and holds ``use`` in its body (the reads of every
    loop variable of ``func`` are mapped to their loop once per function)."""
    reads = func.__dict__.get("_faultlib_loop_reads")
    if reads is None:
        reads = func.__dict__["_faultlib_loop_reads"] = {}
        loops = [n for n in nodes_of(func, ast.For) if isinstance(n.target, ast.Name)]
        for loop in sorted(loops, key=lambda n: (n.lineno, n.col_offset)):  # an inner loop after its outer one
            reads.update((id(n), loop) for stmt in loop.body for n in ast.walk(stmt)
                         if isinstance(n, ast.Name) and n.id == loop.target.id)
    found = reads.get(id(use))
    return found if found is not None and found.target.id == use.id else None


def _looped(index, func: Func, loop: ast.For, name: str) -> list[Klass]:
    if index.installed is not None and index.installed.inside_library:
        return []  # as listed_loop_types: a library's own loops stay untyped
    rows = loop_rows(index, loop, func, name)
    if rows:
        found: list[Klass] = []
        for row in rows:
            typed = index.type_of(row, func)
            if not isinstance(typed, Klass):
                return []
            found += [typed] if all(typed is not k for k in found) else []
        return found if len(found) > 1 else []
    if isinstance(loop.iter, (ast.Name, ast.Attribute, ast.Call)):  # for h in make(): make's returned list
        return listed_classes(index, loop.iter, func)
    return []
