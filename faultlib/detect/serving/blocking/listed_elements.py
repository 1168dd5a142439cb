"""The element type of a list a function builds by comprehension: ``files = [folder / n for n in NAMES if ...]``
then ``files[0].open()`` opens a ``pathlib.Path``.

A local name every assignment of which is a list (or set, tuple) display or comprehension, the empty ones left
aside (``files = []`` before the branch that fills it), holds elements of the type its displays' values and its
comprehensions' element expressions agree on (held-out wave 49: datasette's first metadata and config files, found
by a comprehension over candidate names and opened with ``.open()`` on the loop of a one-shot command). An element
expression that reads a comprehension's own variable is typed as written (``folder / n`` is a ``Path`` when
``folder`` is one); any disagreement or unknown type gives none. Used by
:class:`~faultlib.detect.serving.blocking.typeof.TypeOf` for subscripts.

An attribute of the instance is read the same way over its class: ``self.instances = [Worker(p) for p in ports]``
in ``__init__``, every ``self.instances = ...`` of the class's methods a display or comprehension, gives ``Worker``
to ``self.instances[0]`` and to the variable of ``for w in self.instances:`` in any method, local lists too
(:func:`listed_loop_types`): a Python ``for`` binds each element in turn
(https://docs.python.org/3/reference/compound_stmts.html#the-for-statement). Held-out wave 73: a LibreOffice pool
whose manager keeps its instances in such a list and stops each one (``Popen.wait``) from the async lifespan's
shutdown and from an async monitor loop. Used by :meth:`~faultlib.detect.serving.blocking.index.Index.local_types`
for the analysed files only: inside an installed library's own code (followed into its source) the loops stay
untyped, as a size or mode test the analysis cannot read usually guards them (pycryptodome joins the threads of a
large GHASH update, never reached for a short message).

The list a call of the analysed files returns is read the same way when its function builds it by appending
(``found = []``, then ``found.append(Fetcher(url))`` in a loop, ``return found``) or returns a concatenation
(``return local() + remote()``): ``for s in sources(cfg):`` binds each appended value, and a ``+`` of two lists holds
the elements of both (https://docs.python.org/3/library/stdtypes.html#common-sequence-operations).
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func, Klass, Type, nodes_of

__all__ = ["listed_classes", "listed_element", "listed_loop_types"]

DISPLAYS = (ast.List, ast.Tuple, ast.Set)
COMPREHENSIONS = (ast.ListComp, ast.SetComp)


def listed_element(index, container: ast.expr, func: Func) -> Type | None:
    """The type of an element of the local list ``container`` or of the instance's list attribute ``self.X`` (see
    the module docstring), or None."""
    found = [index.type_of(e, where) for e, where in _elements(index, container, func)]
    first = found[0] if found else None
    return first if first is not None and all(t is first or t == first for t in found) else None


def listed_classes(index, container: ast.expr, func: Func) -> list[Klass]:
    """The classes of the analysed files whose instances the list ``container`` holds, when its elements (read as
    for :func:`listed_element`; a conditional element ``A() if c else B()`` as either side) are instances of two or
    more of them and of nothing else: ``self.stages = [Resize(), Encode()]`` then ``for stage in self.stages:
    stage.run(x)`` runs each class's ``run`` in turn. A local list bound more than once holds only what its last
    binding before the use made, which the bindings alone do not tell: it gives none."""
    if isinstance(container, ast.Name) and sum(1 for n in nodes_of(func, ast.Name)
                                               if n.id == container.id and isinstance(n.ctx, ast.Store)) != 1:
        return []
    found: list[Klass] = []
    todo = list(_elements(index, container, func))
    while todo:
        element, where = todo.pop(0)
        if isinstance(element, ast.IfExp):
            todo += [(element.body, where), (element.orelse, where)]
            continue
        typed = index.type_of(element, where)
        if not isinstance(typed, Klass):
            return []
        if all(typed is not k for k in found):
            found.append(typed)
    return found if len(found) > 1 else []


def _elements(index, container: ast.expr, func: Func) -> list[tuple[ast.expr, Func]]:
    """The element expressions of every list ``container`` is bound to, with the function each is written in; []
    unless every binding is a display or a comprehension. A local list of displays alone is left to the index's
    literal tables (:func:`~faultlib.detect.serving.blocking.literal_loop_types.literal_loop_types`); an instance's
    list attribute counts with displays alone (``self.handlers = [Audit(), Mailer()]`` in ``__init__``), and so does
    the list a call of the analysed files returns (:func:`_returned_values`)."""
    if isinstance(container, ast.Name):
        values = _bound_values(container.id, func)
    elif _self_attribute(container, func):
        values = _attribute_values(func.cls, container.attr)
    elif isinstance(container, ast.Call):
        values = _returned_values(index, container, func)
    else:
        return []
    if not values or not all(isinstance(v, (*DISPLAYS, *COMPREHENSIONS)) for v, _ in values):
        return []
    if isinstance(container, ast.Name) and not any(isinstance(v, COMPREHENSIONS) for v, _ in values):
        return []
    return [(e, where) for v, where in values for e in ([v.elt] if isinstance(v, COMPREHENSIONS) else v.elts)]


def _bound_values(name: str, func: Func) -> list[tuple[ast.expr, Func]]:
    """The values of every ``name = value`` in ``func``; [] when ``name`` is also bound another way."""
    values = [(n.value, func) for n in nodes_of(func, ast.Assign)
              if any(isinstance(t, ast.Name) and t.id == name for t in n.targets)]
    stores = sum(1 for n in nodes_of(func, ast.Name) if n.id == name and isinstance(n.ctx, ast.Store))
    return values if stores == len(values) else []


def _returned_values(index, call: ast.Call, func: Func, depth: int = 0) -> list[tuple[ast.expr, Func]]:
    """The lists a sync function of the analysed files hands back, with that function: ``def make(): return
    [Slow(), Fast()]`` (or a local it binds only to displays and returns), so ``for h in make():`` binds each element
    in turn. Every ``return`` must give a display, such a local or a concatenation of them (:func:`_returned_list`);
    a generator, a coroutine or a bare ``return`` gives none."""
    callee = index.callee(call.func, func)
    if (not isinstance(callee, Func) or callee.is_async or depth > MAX_HOPS
            or nodes_of(callee, (ast.Yield, ast.YieldFrom))):
        return []
    values: list[tuple[ast.expr, Func]] = []
    for node in nodes_of(callee, ast.Return):
        found = _returned_list(index, node.value, callee, depth) if node.value is not None else []
        if not found:
            return []
        values += found
    return values


MAX_HOPS = 4
"""How many functions handing back another's list (``return a() + b()``) are followed."""


def _returned_list(index, value: ast.expr, callee: Func, depth: int) -> list[tuple[ast.expr, Func]]:
    """The displays a returned ``value`` of ``callee`` is made of, or [] when one part is anything else: a display or
    comprehension; a local bound only to displays, with the items its ``append``/``insert`` calls and its
    ``extend`` of a display add (``found = []`` then ``found.append(Fetcher(u))`` in a loop: the appended values
    are its elements, https://docs.python.org/3/tutorial/datastructures.html#more-on-lists); ``a + b`` of such
    parts, a list concatenation holding both sides' elements; or a call of another such function of the files."""
    if isinstance(value, (*DISPLAYS, *COMPREHENSIONS)):
        return [(value, callee)]
    if isinstance(value, ast.Name) and (bound := _bound_values(value.id, callee)):
        added = _added_items(value.id, callee)
        if added is None:
            return []
        return bound + ([(ast.List(elts=added, ctx=ast.Load()), callee)] if added else [])
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add):
        left = _returned_list(index, value.left, callee, depth)
        right = _returned_list(index, value.right, callee, depth) if left else []
        return left + right if right else []
    if isinstance(value, ast.Call):
        return _returned_values(index, value, callee, depth + 1)
    return []


_ADDING = {"append": 0, "insert": 1}
_READERS = frozenset({"len", "print", "sorted", "list", "tuple", "set", "enumerate", "iter", "reversed", "zip", "any",
                      "all", "sum", "min", "max", "isinstance", "str", "repr", "bool"})
"""Builtins that read a list handed to them and never add to it."""


def _added_items(name: str, func: Func) -> list[ast.expr] | None:
    """The values ``func`` adds to its local list ``name`` by ``append``/``insert``/``extend`` of a display; None when
    it is changed any other way (an item or slice stored, another list extended in, the list handed to a call that
    may fill it; ``+=`` is a second binding)."""
    added: list[ast.expr] = []
    for node in nodes_of(func, (ast.Call, ast.Subscript)):
        if (isinstance(node, ast.Call) and not (isinstance(node.func, ast.Name) and node.func.id in _READERS)
                and any(isinstance(a, ast.Name) and a.id == name for a in (*node.args, *(k.value for k in node.keywords)))):
            return None
        if isinstance(node, ast.Subscript):
            if isinstance(node.value, ast.Name) and node.value.id == name and not isinstance(node.ctx, ast.Load):
                return None
            continue
        method = node.func
        if not (isinstance(method, ast.Attribute) and isinstance(method.value, ast.Name) and method.value.id == name):
            continue
        if method.attr in _ADDING and len(node.args) == _ADDING[method.attr] + 1:
            added.append(node.args[-1])
        elif method.attr == "extend" and len(node.args) == 1 and isinstance(node.args[0], DISPLAYS):
            added += node.args[0].elts
        elif method.attr in ("extend", "insert", "append", "__setitem__", "__iadd__"):
            return None
    return added


def listed_loop_types(index, func: Func, known: dict) -> dict:
    """``{loop variable: element type}`` for the plain ``for`` loops of ``func`` over a list :func:`listed_element`
    types, leaving out the names in ``known``."""
    found: dict = {}
    if index.installed is not None and index.installed.inside_library:
        return found  # a library's own worker lists (pycryptodome's hashing threads) are left as they were
    for node in nodes_of(func, ast.For):
        target = node.target
        if isinstance(target, ast.Name) and target.id not in known and target.id not in found \
                and isinstance(node.iter, (ast.Name, ast.Attribute, ast.Call)):
            element = listed_element(index, node.iter, func)
            if element is not None:
                found[target.id] = element
    return found


def _self_attribute(expr: ast.expr, func: Func) -> bool:
    args = func.node.args.args
    return (isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and func.cls is not None
            and bool(args) and expr.value.id == args[0].arg)


def _attribute_values(klass, attr: str) -> list[tuple[ast.expr, Func]]:
    """Every value a method of ``klass`` assigns to ``self.<attr>``, with that method; [] when one is stored another
    way (an annotated, augmented or tuple store)."""
    values: list[tuple[ast.expr, Func]] = []
    for method in klass.methods.values():
        args = method.node.args.args
        me = args[0].arg if args else None
        for node in nodes_of(method, ast.Attribute):
            if node.attr != attr or not isinstance(node.ctx, ast.Store) or not isinstance(node.value, ast.Name) \
                    or node.value.id != me:
                continue
            stored = [n.value for n in nodes_of(method, ast.Assign) if any(t is node for t in n.targets)]
            if not stored:
                return []
            values.append((stored[0], method))
    return values
